import { Hono } from 'hono';
import {
  BODY_LIMIT_BYTES,
  IdentifyBodySchema,
  PageQuerySchema,
  paths,
  QuestParamsSchema,
  QuestUserParamsSchema,
  RelayAwardBodySchema,
  routes,
} from '../protocol/index.js';
import { checkIdentifyAccess, checkListAccess, checkUserAccess } from './access.js';
import { clientGone, type RelayContext, type RelayEnv, type RelayRuntime, type StepContext, type StepMiddleware } from './context.js';
import { jsonBody } from './hygiene.js';
import { runAwards, type Settled } from './pipeline.js';
import { checkPolicyQuest } from './policy.js';
import { fail, relayUpstream } from './respond.js';
import { check, readIdempotencyKey } from './validate.js';

/** The spec's five routes, and the award route's two steps (its body, then the award) for the Node fast path. */
export interface ServiceRoutes {
  app: Hono<RelayEnv>;
  pointsBody: StepMiddleware;
  points: <A>(c: StepContext<A>) => Promise<A>;
}

/** The spec's five routes, same paths, bodies and answers; the caller is already authenticated. */
export function serviceRoutes(runtime: RelayRuntime): ServiceRoutes {
  const app = new Hono<RelayEnv>();
  const body = jsonBody(BODY_LIMIT_BYTES);
  const get = (c: RelayContext, path: string) => runtime.upstream.send({ method: 'GET', path, requestId: c.get('requestId') });

  const points = async <A>(c: StepContext<A>): Promise<A> => {
    const params = check(QuestParamsSchema, c.req.param(), 'path ');
    if (!params.ok) return fail(c, params.refusal);
    const award = check(RelayAwardBodySchema, c.get('json'));
    if (!award.ok) return fail(c, award.refusal);
    const key = readIdempotencyKey(c);
    if (!key.ok) return fail(c, key.refusal);
    const request = { claims: c.get('claims'), requestId: c.get('requestId'), signal: clientGone(c), single: true };
    const [settled] = await runAwards(runtime, request, [{ ...award.value, questId: params.value.questId, idempotencyKey: key.value }]);
    return answerAward(runtime, c, settled);
  };
  app.post(routes.points, body, points);

  app.post(routes.identify, body, async (c) => {
    const identify = check(IdentifyBodySchema, c.get('json'));
    if (!identify.ok) return fail(c, identify.refusal);
    const refusal = checkIdentifyAccess(c.get('claims'), identify.value);
    if (refusal) return fail(c, refusal);
    const result = await runtime.upstream.send({
      method: 'POST',
      path: paths.identify(),
      body: identify.value,
      requestId: c.get('requestId'),
    });
    return relayUpstream(runtime, c, result);
  });

  const userRoute = (pattern: string, path: (questId: string, serviceUserId: string) => string) =>
    app.get(pattern, async (c) => {
      const params = check(QuestUserParamsSchema, c.req.param(), 'path ');
      if (!params.ok) return fail(c, params.refusal);
      const { questId, serviceUserId } = params.value;
      const refusal = checkPolicyQuest(runtime.policy, questId) ?? checkUserAccess(c.get('claims'), questId, serviceUserId);
      if (refusal) return fail(c, refusal);
      return relayUpstream(runtime, c, await get(c, path(questId, serviceUserId)));
    });
  userRoute(routes.pointsOf, paths.pointsOf);
  userRoute(routes.enrollment, paths.enrollment);

  app.get(routes.enrolledUsers, async (c) => {
    const params = check(QuestParamsSchema, c.req.param(), 'path ');
    if (!params.ok) return fail(c, params.refusal);
    const { questId } = params.value;
    const refusal = checkListAccess(c.get('claims')) ?? checkPolicyQuest(runtime.policy, questId);
    if (refusal) return fail(c, refusal);
    const raw = { offset: c.req.query('offset'), limit: c.req.query('limit') };
    const query = check(PageQuerySchema, raw, 'query ');
    if (!query.ok) return fail(c, query.refusal);
    // Forward what the caller asked for (the service clamps and reports the applied limit itself).
    const page = {
      ...(raw.limit !== undefined ? { limit: Number(raw.limit) } : {}),
      ...(raw.offset !== undefined ? { offset: Number(raw.offset) } : {}),
    };
    return relayUpstream(runtime, c, await get(c, paths.enrolledUsers(questId, page)));
  });

  return { app, pointsBody: body, points };
}

/** A single award's answer: the service's (or the record's), the relay's refusal, or 503 / 504 when it was not sent. */
function answerAward<A>(runtime: RelayRuntime, c: StepContext<A>, settled: Settled | undefined): A {
  if (!settled) return fail(c, { status: 504, message: `not sent within the relay's deadline (${runtime.deadlineMs} ms); retry with the same key` });
  const { step, meaning } = settled;
  switch (step.kind) {
    case 'answered':
      return relayUpstream(runtime, c, step.result, meaning);
    case 'replayed':
      // The service's own answer to a replayed key, as the emulator gives it.
      c.header('Idempotent-Replayed', 'true');
      return c.json({ success: true }, step.status as 200);
    case 'refused':
      return fail(c, step.refusal);
    default:
      return fail(c, { status: 503, message: meaning.verdict === 'retry' ? meaning.message : 'relay busy', retryAfter: 1 });
  }
}
