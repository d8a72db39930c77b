import type { Context } from 'hono';
import {
  IdentifyBodySchema,
  MESSAGES,
  PageQuerySchema,
  QuestParamsSchema,
  QuestUserParamsSchema,
  SANDBOX_NOT_ENROLLED_ID,
  SANDBOX_USER_ID,
  normaliseChain,
  parseWith,
  paths,
  type EnrolledUser,
} from '../protocol/index.js';
import type { Core } from './core.js';
import type { EmulatorEnv } from './env.js';
import { fail, jsonText, ok, readJson } from './http.js';
import { pointsResponseBytes } from './ledger.js';
import { fromMicro } from './micro-points.js';

type Handler = (c: Context<EmulatorEnv>) => Promise<Response> | Response;

/** POST /users/identify */
export const identifyHandler =
  (core: Core): Handler =>
  async (c) => {
    const json = await readJson(c);
    if (!json.ok) return json.response;
    const body = parseWith(IdentifyBodySchema, json.value);
    if (!body.ok) return fail(400, body.message);
    // The spec's test environment: any e-mail or wallet is the same fixed mock user.
    if (core.mode === 'sandbox') return ok({ serviceUserId: SANDBOX_USER_ID });
    const { wallet } = body.value;
    if (wallet && core.chains && !core.chains.has(normaliseChain(wallet.chain))) {
      return fail(400, `wallet.chain must be one of: ${[...core.chains].join(', ')}`);
    }
    const user = core.users.find(body.value) ?? (core.autoCreate ? core.users.create(body.value) : undefined);
    if (!user) return fail(404, MESSAGES.userNotFound);
    return ok({ serviceUserId: user.serviceUserId });
  };

function questUserParams(c: Context<EmulatorEnv>) {
  return parseWith(QuestUserParamsSchema, { questId: c.req.param('questId'), serviceUserId: c.req.param('serviceUserId') });
}

/** GET /group-quests/<questId>/points/<serviceUserId>: a user who was never awarded has 0 and an empty history. */
export const pointsHandler =
  (core: Core): Handler =>
  (c) => {
    const params = questUserParams(c);
    if (!params.ok) return fail(400, params.message);
    const { questId, serviceUserId } = params.value;
    const account = core.mode === 'stateful' ? core.ledger.account(questId, serviceUserId) : undefined;
    return jsonText(pointsResponseBytes(account));
  };

/** GET /group-quests/{questId}/enrolled-users/{serviceUserId} */
export const enrollmentHandler =
  (core: Core): Handler =>
  (c) => {
    const params = questUserParams(c);
    if (!params.ok) return fail(400, params.message);
    const { questId, serviceUserId } = params.value;
    if (core.mode === 'sandbox') {
      if (serviceUserId === SANDBOX_NOT_ENROLLED_ID) return fail(404, MESSAGES.notEnrolled);
      return ok({ serviceUserId, enrolled: true, currentPoints: 0 });
    }
    const account = core.ledger.account(questId, serviceUserId);
    if (!account) return fail(404, MESSAGES.notEnrolled);
    return ok({ serviceUserId, enrolled: true, currentPoints: fromMicro(account.totalMicro) });
  };

/** GET /group-quests/{questId}/enrolled-users?offset&limit */
export const enrolledUsersHandler =
  (core: Core): Handler =>
  (c) => {
    const params = parseWith(QuestParamsSchema, { questId: c.req.param('questId') });
    if (!params.ok) return fail(400, params.message);
    const query = parseWith(PageQuerySchema, { offset: c.req.query('offset'), limit: c.req.query('limit') });
    if (!query.ok) return fail(400, query.message);
    const { questId } = params.value;
    const { offset, limit } = query.value;

    let total: number;
    let data: EnrolledUser[];
    if (core.mode === 'sandbox') {
      // Only the mock user is known to the test environment.
      total = 1;
      data = offset === 0 ? [{ serviceUserId: SANDBOX_USER_ID, email: null }] : [];
    } else {
      const enrolled = core.ledger.enrolled(questId);
      total = enrolled.length;
      data = enrolled
        .slice(offset, offset + limit)
        .map((a) => ({ serviceUserId: a.serviceUserId, email: core.users.get(a.serviceUserId)?.email ?? null }));
    }
    const nextPage = offset + limit < total ? paths.enrolledUsers(questId, { limit, offset: offset + limit }) : null;
    // Past the end, "previous" is the last page that has items.
    const previousPage = offset > 0 ? paths.enrolledUsers(questId, { limit, offset: Math.max(0, Math.min(offset, total) - limit) }) : null;
    return jsonText(JSON.stringify({ success: true, data, pagination: { limit, offset, nextPage, previousPage } }));
  };
