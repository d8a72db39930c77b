import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import { EmailSchema, EventPointsSchema, IdSchema, WalletSchema, parseWith } from '../protocol/index.js';
import type { Core } from './core.js';
import { FaultConfigSchema } from './faults.js';
import { fail, ok, readJson } from './http.js';
import { toMicro } from './micro-points.js';

export const ADMIN_PREFIX = '/__emulator';
/** State imports can be large; this is a local tool, but still bounded. */
const ADMIN_BODY_LIMIT_BYTES = 256 * 1024 * 1024;
export const SEED_EVENT_NAME = 'EmulatorSeed';

const SeedSchema = v.object(
  {
    users: v.optional(
      v.array(
        v.object({ serviceUserId: v.optional(IdSchema), email: v.optional(EmailSchema), wallet: v.optional(WalletSchema) }),
        'must be an array',
      ),
      [],
    ),
    enrollments: v.optional(
      v.array(v.object({ questId: IdSchema, serviceUserId: IdSchema, points: v.optional(EventPointsSchema) }), 'must be an array'),
      [],
    ),
  },
  'body must be a JSON object',
);

const ModeSchema = v.object({ mode: v.picklist(['stateful', 'sandbox'], "must be 'stateful' or 'sandbox'") }, 'body must be a JSON object');

/** /__emulator/*: local tools only (tests, the dev server). No API_KEY; mounted only with `admin: true`. */
export function adminRoutes(core: Core) {
  const admin = new Hono();

  /** Parse a body leniently (no Content-Type needed; empty means {}), then validate. */
  async function body<S extends v.GenericSchema>(c: Context, schema: S) {
    const json = await readJson(c, { requireJsonType: false, maxBytes: ADMIN_BODY_LIMIT_BYTES });
    if (!json.ok) return json;
    const parsed = parseWith(schema, json.value);
    return parsed.ok ? { ok: true as const, value: parsed.value as v.InferOutput<S> } : { ok: false as const, response: fail(400, parsed.message) };
  }

  admin.post('/reset', () => {
    core.reset();
    return ok();
  });

  admin.post('/seed', async (c) => {
    const seed = await body(c, SeedSchema);
    if (!seed.ok) return seed.response;
    // All or nothing: on a conflict the state before the seed comes back.
    const before = core.exportState();
    const created = [];
    for (const [i, input] of seed.value.users.entries()) {
      const user = core.users.upsert(input);
      if (typeof user === 'string') {
        core.importState(before);
        return fail(400, `users.${i} ${user}`);
      }
      created.push({ serviceUserId: user.serviceUserId, email: user.email, wallets: user.wallets });
    }
    const at = new Date(core.now()).toISOString();
    for (const [i, e] of seed.value.enrollments.entries()) {
      core.users.upsert({ serviceUserId: e.serviceUserId });
      core.ledger.enroll(e.questId, e.serviceUserId, at);
      const micro = e.points === undefined ? 0n : toMicro(e.points);
      if (micro === 0n) continue;
      const applied = core.ledger.award(e.questId, e.serviceUserId, {
        createdAt: at,
        micro,
        eventName: SEED_EVENT_NAME,
        eventDescription: 'seeded by /__emulator/seed',
        idempotencyKey: null,
      });
      if (!applied) {
        core.importState(before);
        return fail(400, `enrollments.${i}.points would take totalPoints beyond the largest finite number`);
      }
    }
    return ok({ users: created, enrollments: seed.value.enrollments.length });
  });

  admin.get('/state', () => ok(core.exportState()));
  admin.put('/state', async (c) => {
    const json = await readJson(c, { requireJsonType: false, maxBytes: ADMIN_BODY_LIMIT_BYTES });
    if (!json.ok) return json.response;
    // Accept the GET answer as it is ({ success, data }) as well as the bare state.
    const input = json.value as { success?: unknown; data?: unknown } | null;
    const problem = core.importState(input && typeof input === 'object' && 'data' in input && input.success === true ? input.data : input);
    if (problem) return fail(400, problem);
    const state = core.exportState();
    return ok({ users: state.users?.length ?? 0, enrollments: state.enrollments?.length ?? 0, ledger: state.ledger?.length ?? 0 });
  });

  admin.get('/requests', () => ok(core.log.list()));
  admin.delete('/requests', () => {
    core.log.clear();
    return ok();
  });

  admin.get('/faults', () => ok(core.faults.get()));
  admin.put('/faults', async (c) => {
    const faults = await body(c, FaultConfigSchema);
    if (!faults.ok) return faults.response;
    core.faults.set(faults.value);
    return ok(core.faults.get());
  });

  admin.get('/mode', () => ok({ mode: core.mode }));
  admin.put('/mode', async (c) => {
    const mode = await body(c, ModeSchema);
    if (!mode.ok) return mode.response;
    core.mode = mode.value.mode;
    return ok({ mode: core.mode });
  });

  return admin;
}
