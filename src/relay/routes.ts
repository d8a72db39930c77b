import { Hono } from 'hono';
import {
  AwardBodySchema,
  BODY_LIMIT_BYTES,
  IdentifyBodySchema,
  PageQuerySchema,
  paths,
  QuestParamsSchema,
  QuestUserParamsSchema,
  routes,
} from '../protocol/index.js';
import { checkIdentifyAccess, checkListAccess, checkUserAccess } from './access.js';
import { awardDeadline, runAward } from './award.js';
import type { RelayContext, RelayEnv, RelayRuntime } from './context.js';
import { limitBody, requireJson } from './hygiene.js';
import { checkPolicyQuest } from './policy.js';
import { fail, relayUpstream } from './respond.js';
import { check, readIdempotencyKey, readJson } from './validate.js';

/** The spec's five routes, same paths, bodies and answers; the caller is already authenticated. */
export function serviceRoutes(runtime: RelayRuntime): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  const body = [limitBody(BODY_LIMIT_BYTES), requireJson] as const;
  const get = (c: RelayContext, path: string) => runtime.upstream.send({ method: 'GET', path, requestId: c.get('requestId') });

  app.post(routes.points, ...body, async (c) => {
    const params = check(QuestParamsSchema, c.req.param(), 'path ');
    if (!params.ok) return fail(c, params.refusal);
    const json = await readJson(c, BODY_LIMIT_BYTES);
    if (!json.ok) return fail(c, json.refusal);
    const award = check(AwardBodySchema, json.value);
    if (!award.ok) return fail(c, award.refusal);
    const key = readIdempotencyKey(c);
    if (!key.ok) return fail(c, key.refusal);
    // Before taking a turn in the player's queue: nobody queues behind (and so holds up) another player's awards.
    const denied = checkUserAccess(c.get('claims'), params.value.questId, award.value.serviceUserId);
    if (denied) return fail(c, denied);
    const deadline = awardDeadline(runtime, c);
    const { signal } = deadline;
    const turn = await runtime.players.acquire(award.value.serviceUserId, signal);
    if (typeof turn === 'string') {
      deadline.dispose();
      if (turn === 'busy') return fail(c, { status: 503, message: 'too many players waiting at this relay instance; retry shortly', retryAfter: 1 });
      return fail(c, { status: 504, message: `not sent within the relay's deadline (${runtime.deadlineMs} ms); retry with the same key` });
    }
    try {
      const outcome = await runAward(
        runtime,
        c.get('claims'),
        c.get('requestId'),
        { ...award.value, questId: params.value.questId, idempotencyKey: key.value },
        signal,
      );
      runtime.metrics.award(outcome);
      return 'refused' in outcome ? fail(c, outcome.refused) : relayUpstream(runtime, c, outcome.result);
    } finally {
      turn.release();
      deadline.dispose();
    }
  });

  app.post(routes.identify, ...body, async (c) => {
    const json = await readJson(c, BODY_LIMIT_BYTES);
    if (!json.ok) return fail(c, json.refusal);
    const identify = check(IdentifyBodySchema, json.value);
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

  return app;
}
