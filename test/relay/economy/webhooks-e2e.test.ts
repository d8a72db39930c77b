// End to end: awards through two relays on one Redis in front of the emulator, two reversals through the admin API,
// a relay restarted while deliveries wait for their retries; the service's ledger, the relays' ledger and what the
// operator's receiver (examples/webhook-receiver) applied agree award by award. Then the dead letters and their replay
// through the admin API and the CLI.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../../examples/webhook-receiver/receiver.js';
import { webhookOptions } from '../../../examples/webhook-receiver/relay.js';
import type { LedgerEntry, WebhookPayload } from '../../../src/relay/index.js';
import type { RunningServer } from '../../../src/relay/node/index.js';
import { SECRET, upstreamKey } from '../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { startStack, type ServedStack } from '../../helpers/stack.js';
import { caller, uuid } from '../helpers.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
let redis: TestRedis;
let stack: ServedStack;
let other: RunningServer;
let receiver: Server;
/** What the receiver applied (once per webhook id), and how many times apply() was asked per id. */
const applied: WebhookPayload[] = [];
const asked = new Map<string, number>();
/** Ids whose apply() fails (500: the relay retries) while this says so. */
let failing: (id: string, nth: number) => boolean = () => false;

beforeAll(async () => {
  redis = await startRedis();
  process.env.QP_WEBHOOK_SECRET = secret;
  receiver = await startReceiver(0, async (event) => {
    const nth = (asked.get(event.data.key) ?? 0) + 1;
    asked.set(event.data.key, nth);
    if (failing(event.data.key, nth)) throw new Error('the operator database is away');
    applied.push(event);
  });
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const webhooks = webhookOptions(url, { retry: { baseMs: 50, maxMs: 400 }, attempts: 6, timeoutMs: 1000, pollMs: 50, leaseMs: 1000 });
  stack = await startStack({ relayOptions: { redis: redis.url, webhooks } });
  other = await stack.addRelay();
}, 30_000);
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await redis?.stop();
});

const a = () => caller(stack.relay.url);
const b = () => caller(other.url);
const admin = () => stack.token('operator-1', { role: 'admin' });

/** Every relay ledger entry of the quest, through the cursor. */
async function relayLedger(quest: string): Promise<LedgerEntry[]> {
  const answer = await b()('GET', `/admin/ledger?quest=${quest}&limit=10000`, { token: await admin() });
  return answer.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry);
}

describe('webhooks end to end', () => {
  it('service, relay ledger and receiver agree award by award, with reversals and a relay restart', async () => {
    const quest = `hooks-${uuid().slice(0, 8)}`;
    // Each id's first two deliveries fail at the receiver: the relay retries them, some across the restart.
    failing = (_id, nth) => nth <= 2;
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) {
      const player = `p${i % 3}`;
      const key = uuid();
      const points = i === 4 ? 5000 : i + 1; // over OPEN_POLICY's maxPointsPerAward: refused, never delivered
      const answer = await (i % 2 ? b() : a())('POST', `/group-quests/${quest}/points`, {
        token: await stack.token(player),
        headers: { IDEMPOTENCY_KEY: key },
        body: { serviceUserId: player, eventPoints: points, eventName: 'coin' },
      });
      expect(answer.status).toBe(points === 5000 ? 422 : 200);
      if (points !== 5000) keys.push(upstreamKey(player, key));
      if (i === 5) await stack.restartRelay();
    }
    for (const key of keys.slice(0, 2)) {
      const reversed = await a()('POST', '/admin/reversals', { token: await admin(), body: { questId: quest, key } });
      expect(reversed.status, reversed.text).toBe(200);
    }
    await expect.poll(() => new Set(applied.filter((e) => e.data.questId === quest).map((e) => e.data.key)).size, { timeout: 20_000 }).toBe(13);

    const row = (key: string | null | undefined, user: string, points: number, event: string) => `${key} ${user} ${points} ${event}`;
    const service = ((await stack.admin('GET', 'state')).ledger ?? []).filter((e) => e.questId === quest);
    const relay = (await relayLedger(quest)).filter((e) => e.outcome === 'acknowledged' || e.outcome === 'reversed');
    const hooks = applied.filter((e) => e.data.questId === quest);
    const serviceRows = service.map((e) => row(e.idempotencyKey, e.serviceUserId, e.eventPoints, e.eventName)).sort();
    expect(serviceRows).toHaveLength(13);
    expect(relay.map((e) => row(e.key, e.serviceUserId, e.eventPoints, e.eventName)).sort()).toEqual(serviceRows);
    expect(hooks.map((e) => row(e.data.key, e.data.serviceUserId, e.data.eventPoints, e.data.eventName)).sort()).toEqual(serviceRows);
    // Types, and the reversal's link to its award.
    const reversals = hooks.filter((e) => e.type === 'award.reversed');
    expect(reversals.map((e) => e.data.reverses).sort()).toEqual(keys.slice(0, 2).sort());
    expect(reversals.every((e) => e.data.by === 'operator-1' && e.data.eventPoints < 0)).toBe(true);
    expect(hooks.filter((e) => e.type === 'award.acknowledged')).toHaveLength(11);
    // Every id was retried (its first two deliveries failed), and applied once.
    for (const event of hooks) expect(asked.get(event.data.key)).toBeGreaterThanOrEqual(3);
  });

  it('dead letters are listed and replayed through the admin API and the CLI', async () => {
    const quest = `dead-${uuid().slice(0, 8)}`;
    failing = () => true;
    const player = 'dead-player';
    const keys: string[] = [];
    for (let i = 0; i < 2; i++) {
      const key = uuid();
      const answer = await a()('POST', `/group-quests/${quest}/points`, {
        token: await stack.token(player),
        headers: { IDEMPOTENCY_KEY: key },
        body: { serviceUserId: player, eventPoints: 3, eventName: 'gem' },
      });
      expect(answer.status).toBe(200);
      keys.push(upstreamKey(player, key));
    }
    const jwt = await admin();
    const dead = async () =>
      ((await a()('GET', '/admin/webhooks/dead', { token: jwt })).json.dead as { id: string; payload: WebhookPayload }[]) ?? [];
    await expect.poll(async () => (await dead()).filter((d) => d.payload.data.questId === quest).length, { timeout: 20_000 }).toBe(2);
    const letters = (await dead()).filter((d) => d.payload.data.questId === quest);
    expect(letters.map((d) => d.id).sort()).toEqual([...keys].sort());
    expect(letters[0]).toMatchObject({ attempts: 6, lastError: 'HTTP 500', endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/hooks$/) });
    // A player's token is refused; a bad body is named.
    expect((await a()('GET', '/admin/webhooks/dead', { token: await stack.token(player) })).status).toBe(403);
    const bad = await a()('POST', '/admin/webhooks/replay', { token: jwt, body: { ids: 'x' } });
    expect([bad.status, bad.json.message]).toEqual([400, expect.stringContaining('ids')]);

    failing = () => false;
    const first = await a()('POST', '/admin/webhooks/replay', { token: jwt, body: { ids: [keys[0]] } });
    expect(first.json).toEqual({ success: true, replayed: 1 });
    await expect.poll(() => applied.some((e) => e.data.key === keys[0]), { timeout: 10_000 }).toBe(true);
    // The CLI, against the other relay (same Redis: same dead letters).
    const run = promisify(execFile);
    const cli = (args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'webhooks', ...args], {
        env: { ...process.env, QP_RELAY_SECRET: SECRET, QP_RELAY_URL: other.url },
      });
    const listed = await cli(['dead']);
    expect(listed.stdout).toContain(keys[1]);
    const replayed = await cli(['replay', '--id', keys[1] as string]);
    expect(replayed.stdout.trim()).toBe('replayed 1');
    await expect.poll(() => applied.some((e) => e.data.key === keys[1]), { timeout: 10_000 }).toBe(true);
    expect((await dead()).filter((d) => d.payload.data.questId === quest)).toEqual([]);
    await expect(cli(['replay'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--id ID (repeatable) or --all') });
  }, 60_000);
});
