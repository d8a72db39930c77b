// The admin API over real sockets: two relays on one Redis in front of the emulator. The ledger export, reversals
// (idempotent on one relay and across two), and the relay's ledger against the emulator's, award by award.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/relay/index.js';
import type { RunningServer } from '../../src/relay/node/index.js';
import { upstreamKey } from '../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { caller, uuid } from './helpers.js';

let redis: TestRedis;
let stack: ServedStack;
let other: RunningServer;
beforeAll(async () => {
  redis = await startRedis();
  stack = await startStack({ relayOptions: { redis: redis.url } });
  other = await stack.addRelay();
}, 30_000);
afterAll(async () => {
  await stack?.close();
  await redis?.stop();
});

const a = () => caller(stack.relay.url);
const b = () => caller(other.url);
const admin = () => stack.token('operator-1', { role: 'admin' });

/** GET /admin/ledger as NDJSON lines (entries, and the final `{ next }` when there is more). */
async function ledgerLines(call: ReturnType<typeof caller>, query: string) {
  const answer = await call('GET', `/admin/ledger${query}`, { token: await admin() });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  return answer.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry & { next?: string });
}

/** Every entry matching the query, following the cursor. */
async function exportAll(call: ReturnType<typeof caller>, query: string) {
  const all: LedgerEntry[] = [];
  let after = '';
  for (let pages = 0; pages < 50; pages++) {
    const lines = await ledgerLines(call, `?${query}&limit=3${after}`);
    const last = lines.at(-1);
    if (last?.next) {
      all.push(...(lines.slice(0, -1) as LedgerEntry[]));
      after = `&after=${last.next}`;
    } else return [...all, ...lines];
  }
  throw new Error('too many pages');
}

describe('the admin API', () => {
  it('refuses a player token (403) and names a bad parameter (400)', async () => {
    const player = await stack.token('alice');
    const refused = await a()('GET', '/admin/ledger', { token: player });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/admin token \(role "admin"\)/);
    expect((await a()('POST', '/admin/reversals', { token: player, body: { questId: 'q1', key: uuid() } })).status).toBe(403);
    const jwt = await admin();
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=100001', 'limit'],
      ['?outcome=won', 'outcome'],
      ['?from=yesterday', 'from'],
      ['?after=abc', 'after'],
      ['?player=' + 'x'.repeat(300), 'player'],
      ['?bogus=1', 'unknown parameter'],
    ] as const) {
      const bad = await a()('GET', `/admin/ledger${query}`, { token: jwt });
      expect([bad.status, bad.json.message], query).toEqual([400, expect.stringContaining(field)]);
    }
    const badKey = await a()('POST', '/admin/reversals', { token: jwt, body: { questId: 'q1', key: 'nope' } });
    expect([badKey.status, badKey.json.message]).toEqual([400, expect.stringContaining('key')]);
    const missing = await a()('POST', '/admin/reversals', { token: jwt, body: { questId: 'q1', key: uuid() } });
    expect(missing.status).toBe(404);
  });

  it("agrees with the emulator's ledger award by award, through two relays; pages follow the cursor", async () => {
    const quest = `agree-${uuid().slice(0, 8)}`;
    const players = ['p1', 'p2', 'p3'];
    const sent: { player: string; key: string; points: number }[] = [];
    for (let i = 0; i < 12; i++) {
      const player = players[i % 3] as string;
      const key = uuid();
      const points = i === 5 ? 5000 : i + 1; // one over OPEN_POLICY's maxPointsPerAward: refused
      const call = i % 2 ? b() : a();
      const answer = await call('POST', `/group-quests/${quest}/points`, {
        token: await stack.token(player),
        headers: { IDEMPOTENCY_KEY: key },
        body: { serviceUserId: player, eventPoints: points, eventName: 'coin' },
      });
      expect(answer.status).toBe(points === 5000 ? 422 : 200);
      sent.push({ player, key, points });
    }
    const service = (await stack.admin('GET', 'state')).ledger?.filter((e) => e.questId === quest) ?? [];
    await expect.poll(async () => (await exportAll(a(), `quest=${quest}&outcome=acknowledged`)).length).toBe(11);
    const relay = await exportAll(b(), `quest=${quest}&outcome=acknowledged`);
    const view = (e: { serviceUserId: string; eventPoints: number; eventName: string }, key: string | null | undefined) =>
      `${e.serviceUserId} ${e.eventPoints} ${e.eventName} ${key}`;
    expect(relay.map((e) => view(e, e.key)).sort()).toEqual(service.map((e) => view(e, e.idempotencyKey)).sort());
    const refused = await exportAll(a(), `quest=${quest}&outcome=refused`);
    expect(refused).toEqual([expect.objectContaining({ player: 'p3', eventPoints: 5000, code: 'policy', status: 422 })]);
    expect(await exportAll(a(), `quest=${quest}&outcome=forwarded`)).toHaveLength(11);
    const p1 = await exportAll(a(), `quest=${quest}&player=p1`);
    expect(p1.every((e) => e.player === 'p1')).toBe(true);
    expect(p1.filter((e) => e.outcome === 'acknowledged').map((e) => e.key)).toEqual(
      sent.filter((s) => s.player === 'p1').map((s) => upstreamKey('p1', s.key)),
    );
  });

  it('reverses an acknowledged award once: twice on one relay, then at once on two', async () => {
    const quest = `rev-${uuid().slice(0, 8)}`;
    const jwt = await stack.token('rev-player');
    const award = async (points: number) => {
      const key = uuid();
      const answer = await a()('POST', `/group-quests/${quest}/points`, {
        token: jwt,
        headers: { IDEMPOTENCY_KEY: key },
        body: { serviceUserId: 'rev-player', eventPoints: points, eventName: 'gem' },
      });
      expect(answer.status).toBe(200);
      return upstreamKey('rev-player', key);
    };
    const total = async () => (await (await stack.service('GET', `/group-quests/${quest}/points/rev-player`)).json()).data.totalPoints as number;
    const [first, second] = [await award(30), await award(12)];
    expect(await total()).toBe(42);
    const operator = await admin();
    const reverse = (call: ReturnType<typeof caller>, key: string) =>
      call('POST', '/admin/reversals', { token: operator, body: { questId: quest, key } });
    const once = await reverse(a(), first);
    expect(once.status, once.text).toBe(200);
    expect(once.json).toMatchObject({ success: true, reverses: first, eventPoints: -30 });
    const twice = await reverse(b(), first);
    expect(twice.json).toMatchObject({ success: true, key: once.json.key, already: true });
    expect(await total()).toBe(12);
    // Both relays at the same instant: the service applies the correction's key once.
    const both = await Promise.all([reverse(a(), second), reverse(b(), second)]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(await total()).toBe(0);
    const corrections = (await stack.admin('GET', 'state')).ledger?.filter((e) => e.questId === quest && e.eventPoints < 0) ?? [];
    expect(corrections.map((e) => [e.eventPoints, e.eventName, e.eventDescription])).toEqual([
      [-30, 'gem', `Reversal of award ${first}`],
      [-12, 'gem', `Reversal of award ${second}`],
    ]);
    const reversed = await exportAll(a(), `quest=${quest}&outcome=reversed`);
    expect(reversed[0]).toMatchObject({ player: 'rev-player', reverses: first, by: 'operator-1', eventPoints: -30, key: once.json.key });
  });

  it('bans on one relay refuse the player on the other (403 banned), each step in the ledger; unban lets them back', async () => {
    const quest = `ban-${uuid().slice(0, 8)}`;
    const operator = await admin();
    const jwt = await stack.token('bot-9');
    const award = (call: ReturnType<typeof caller>) =>
      call('POST', `/group-quests/${quest}/points`, {
        token: jwt,
        headers: { IDEMPOTENCY_KEY: uuid() },
        body: { serviceUserId: 'bot-9', eventPoints: 1 },
      });
    expect((await award(b())).status).toBe(200);
    const banned = await a()('POST', '/admin/bans', { token: operator, body: { player: 'bot-9', reason: 'farming' } });
    expect(banned.status).toBe(200);
    await expect.poll(async () => (await award(b())).status, { timeout: 1_000 }).toBe(403);
    expect((await b()('GET', '/admin/bans', { token: operator })).json.bans).toContainEqual(
      expect.objectContaining({ player: 'bot-9', reason: 'farming' }),
    );
    expect((await b()('DELETE', '/admin/bans/bot-9', { token: operator })).status).toBe(200);
    await expect.poll(async () => (await award(a())).status).toBe(200);
    // The ban reaches the other relay within its ban check's cache (a second at most): awards sent meanwhile are
    // acknowledged (left out here, between the ban and the first refusal), and runs of one outcome are read as one.
    const story = async () => {
      const lines = (await exportAll(a(), 'player=bot-9'))
        .filter((e) => e.outcome !== 'forwarded')
        .map((e) => `${e.outcome} ${e.code ?? e.by ?? ''}`);
      const [ban, refusal] = [lines.indexOf('banned operator-1'), lines.indexOf('refused banned')];
      return lines.filter((line, i) => !(i > ban && i < refusal) && line !== lines[i - 1]);
    };
    await expect.poll(story).toEqual(['acknowledged ', 'banned operator-1', 'refused banned', 'unbanned operator-1', 'acknowledged ']);
  });
});
