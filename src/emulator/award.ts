import type { Context } from 'hono';
import {
  AwardBodySchema,
  DEFAULT_EVENT_NAME,
  IDEMPOTENCY_KEY_HEADER,
  KEY_REUSED_MESSAGE,
  IdempotencyKeySchema,
  QuestParamsSchema,
  parseWith,
} from '../protocol/index.js';
import type { Core } from './core.js';
import type { EmulatorEnv } from './env.js';
import { injectedError } from './guards.js';
import { fail, jsonText, readJson, sleep } from './http.js';
import { scopeOf } from './idempotency.js';
import { toMicro } from './micro-points.js';

const OK_BODY = '{"success":true}';

/** Marks a response whose connection must be dropped; app.fetch turns it into a network error in-process. */
export const DROPPED = Symbol('quest-points.emulator.dropped');

/** POST /group-quests/<questId>/points */
export const awardHandler = (core: Core) => async (c: Context<EmulatorEnv>) => {
  const params = parseWith(QuestParamsSchema, { questId: c.req.param('questId') });
  if (!params.ok) return fail(400, params.message);
  const { questId } = params.value;

  let key: string | null = null;
  const rawKey = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (rawKey !== undefined) {
    const parsedKey = parseWith(IdempotencyKeySchema, rawKey, `${IDEMPOTENCY_KEY_HEADER} header `);
    if (!parsedKey.ok) return fail(400, parsedKey.message);
    key = parsedKey.value.toLowerCase();
    c.var.log.idempotencyKey = key;
  }

  const json = await readJson(c);
  if (!json.ok) return json.response;
  const body = parseWith(AwardBodySchema, json.value);
  if (!body.ok) return fail(400, body.message);
  const award = {
    serviceUserId: body.value.serviceUserId,
    eventPoints: body.value.eventPoints,
    eventName: body.value.eventName ?? DEFAULT_EVENT_NAME,
    eventDescription: body.value.eventDescription ?? '',
  };

  const claim = key ? core.idempotency.claim(await scopeOf(c.var.apiKey), key, JSON.stringify(['award', questId, award])) : null;
  if (claim?.kind === 'mismatch') {
    return fail(422, KEY_REUSED_MESSAGE);
  }
  if (claim?.kind === 'in-flight') {
    return fail(409, `a request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry it later with the same key`);
  }
  if (claim?.kind === 'replay') {
    c.var.log.replayed = true;
    return jsonText(claim.body, claim.status, { 'idempotent-replayed': 'true' });
  }

  const fault = c.var.fault;
  try {
    // Always yield here: a concurrent repeat of this key must be able to find it in flight.
    await sleep(fault.delayMs);
    if (core.mode === 'stateful') {
      const applied = core.ledger.award(questId, award.serviceUserId, {
        createdAt: new Date(core.now()).toISOString(),
        micro: toMicro(award.eventPoints),
        eventName: award.eventName,
        eventDescription: award.eventDescription,
        idempotencyKey: key,
      });
      if (!applied) {
        claim?.release();
        return fail(400, 'eventPoints would take totalPoints beyond the largest finite number');
      }
    }
    claim?.finish(200, OK_BODY);
  } catch (error) {
    claim?.release();
    throw error;
  }

  if (fault.lostAck === '503') {
    c.var.log.fault = 'lost-ack-503';
    return injectedError(503, core.faults.retryAfterSeconds());
  }
  if (fault.lostAck === 'drop') {
    c.var.log.fault = 'lost-ack-drop';
    return dropConnection(c);
  }
  return jsonText(OK_BODY);
};

/** Under Node, destroy the socket: the client sees a network error. Elsewhere, mark the response for app.fetch. */
function dropConnection(c: Context<EmulatorEnv>): Response {
  const socket = c.env?.incoming?.socket;
  if (socket && typeof socket.destroy === 'function') {
    socket.destroy();
    return Object.assign(new Response(null, { status: 200 }), { [DROPPED]: true });
  }
  // Other runtimes: headers may go out, but the body fails, so the client never reads an acknowledgement.
  const stream = new ReadableStream({ start: (controller) => controller.error(new TypeError('connection dropped')) });
  return Object.assign(new Response(stream, { status: 200 }), { [DROPPED]: true });
}
