import * as v from 'valibot';
import {
  type ObjectInput,
  EmailSchema,
  EventDescriptionSchema,
  EventNameSchema,
  EventPointsSchema,
  IdSchema,
  IdempotencyKeySchema,
  WalletSchema,
} from '../protocol/index.js';
import type { IdempotencyStore } from './idempotency.js';
import type { Ledger } from './ledger.js';
import { fromMicro, toMicro } from './micro-points.js';
import type { UserDirectory } from './users.js';

const timestamp = v.pipe(v.string('must be a string'), v.isoTimestamp('must be an ISO 8601 timestamp'));

/** The whole state as GET /__emulator/state exports it and PUT /__emulator/state (or the `state` option) imports it. */
export const EmulatorStateSchema = v.object(
  {
    /** The format's version; only 1 exists. */
    version: v.literal(1, 'must be 1'),
    /** Every known user with the e-mail and wallets identify matches; default none. */
    users: v.optional(
      v.array(
        v.object({
          serviceUserId: IdSchema,
          email: v.optional(v.nullable(EmailSchema)),
          wallets: v.optional(v.array(WalletSchema, 'must be an array'), []),
        }),
        'must be an array',
      ),
      [],
    ),
    /** In enrollment order per quest. */
    enrollments: v.optional(v.array(v.object({ questId: IdSchema, serviceUserId: IdSchema, enrolledAt: timestamp }), 'must be an array'), []),
    /** Every applied award, oldest first, with the IDEMPOTENCY_KEY it was applied under (or null). */
    ledger: v.optional(
      v.array(
        v.object({
          questId: IdSchema,
          serviceUserId: IdSchema,
          createdAt: timestamp,
          eventPoints: EventPointsSchema,
          eventName: EventNameSchema,
          eventDescription: EventDescriptionSchema,
          idempotencyKey: v.nullable(IdempotencyKeySchema),
        }),
        'must be an array',
      ),
      [],
    ),
    /** Finished idempotent requests still remembered; scope is the SHA-256 of the API key, never the key. */
    idempotency: v.optional(
      v.array(
        v.object({
          scope: v.pipe(v.string('must be a string'), v.regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest')),
          key: IdempotencyKeySchema,
          fingerprint: v.string('must be a string'),
          status: v.pipe(v.number('must be a number'), v.integer('must be an integer')),
          body: v.string('must be a string'),
          expiresAt: v.number('must be a number'),
        }),
        'must be an array',
      ),
      [],
    ),
  },
  'must be an object with version 1',
);
/** An emulator's whole state as EmulatorStateSchema reads it (its input: the lists may be absent, then empty). */
export interface EmulatorState extends ObjectInput<typeof EmulatorStateSchema> {}
type ParsedState = v.InferOutput<typeof EmulatorStateSchema>;

export interface StateParts {
  users: UserDirectory;
  ledger: Ledger;
  idempotency: IdempotencyStore;
}

export function exportState({ users, ledger, idempotency }: StateParts): ParsedState {
  return {
    version: 1,
    users: users.all().map((u) => ({ serviceUserId: u.serviceUserId, email: u.email, wallets: u.wallets.map((w) => ({ ...w })) })),
    enrollments: ledger.enrollments(),
    ledger: ledger.entries().map((e) => ({
      questId: e.questId,
      serviceUserId: e.serviceUserId,
      createdAt: e.createdAt,
      eventPoints: fromMicro(e.micro),
      eventName: e.eventName,
      eventDescription: e.eventDescription,
      idempotencyKey: e.idempotencyKey,
    })),
    idempotency: idempotency.exportRecords(),
  };
}

/** Replace everything with `state` (already validated). A message when users conflict; then nothing is kept. */
export function importState(parts: StateParts, state: ParsedState): string | undefined {
  const { users, ledger, idempotency } = parts;
  users.clear();
  ledger.clear();
  idempotency.clear();
  for (const [i, user] of state.users.entries()) {
    const problem = [user.email ? { email: user.email } : {}, ...user.wallets.map((wallet) => ({ wallet }))]
      .map((identity) => users.upsert({ serviceUserId: user.serviceUserId, ...identity }))
      .find((result) => typeof result === 'string');
    if (problem) {
      users.clear();
      return `users.${i} ${problem}`;
    }
  }
  for (const e of state.enrollments) ledger.enroll(e.questId, e.serviceUserId, new Date(e.enrolledAt).toISOString());
  for (const [i, e] of state.ledger.entries()) {
    const applied = ledger.award(e.questId, e.serviceUserId, {
      // Stored as the service writes it: UTC with milliseconds.
      createdAt: new Date(e.createdAt).toISOString(),
      micro: toMicro(e.eventPoints),
      eventName: e.eventName,
      eventDescription: e.eventDescription,
      idempotencyKey: e.idempotencyKey?.toLowerCase() ?? null,
    });
    if (!applied) {
      users.clear();
      ledger.clear();
      return `ledger.${i}.eventPoints would take totalPoints beyond the largest finite number`;
    }
  }
  idempotency.importRecords(state.idempotency.map((r) => ({ ...r, key: r.key.toLowerCase() })));
  return undefined;
}
