// Rotating the token secret mid-run, as an operator does after a leak: the relay restarts with the new secret
// current and the old one previous, the key secret unchanged. Awards applied before the rotation whose
// acknowledgements were lost are resent afterwards, with the old token and with the new one, singly and in a batch:
// the service's ledger must hold each exactly once. The same resends through a relay whose key namespace moved with
// the token secret (what every relay did before the key secret) are applied twice: the test can see a duplicate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPlayerToken } from '../../src/relay/index.js';
import { OTHER_SECRET, SECRET } from '../helpers/fixtures.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { caller, uuid } from './helpers.js';

const [OLD, NEW] = [SECRET, OTHER_SECRET];
const PLAYER = 'rotating-player';
const AWARDS = 20;

let stack: ServedStack;
beforeAll(async () => {
  // No upstream retries: the lost acknowledgement reaches the caller, who resends later (as the SDK does).
  stack = await startStack({ relayOptions: { secret: OLD, upstream: { retries: 0 } } });
});
afterAll(() => stack?.close());

type LedgerEntry = { serviceUserId: string; idempotencyKey?: string; eventPoints: number };
const ledger = async (): Promise<LedgerEntry[]> =>
  ((await stack.admin('GET', 'state')).ledger as LedgerEntry[]).filter((e) => e.serviceUserId === PLAYER);
/** As the SDK does, a request that got no answer (a connection the restarted relay closed) is sent again. */
async function send(url: string, ...args: Parameters<ReturnType<typeof caller>>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await caller(url)(...args);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}
const single = (token: string, key: string, points: number) =>
  send(stack.relay.url, 'POST', '/group-quests/q/points', {
    token,
    headers: { 'Idempotency-Key': key },
    body: { serviceUserId: PLAYER, eventPoints: points },
  });
const batch = (url: string, token: string, awards: { key: string; points: number }[]) =>
  send(url, 'POST', '/batch/points', {
    token,
    body: { awards: awards.map(({ key, points }) => ({ questId: 'q', serviceUserId: PLAYER, eventPoints: points, idempotencyKey: key })) },
  });

describe('token secret rotation', () => {
  it('applies each award once when its lost acknowledgement is resent across a rotation, with the old token and the new', async () => {
    const awards = Array.from({ length: AWARDS }, (_, i) => ({ key: uuid(), points: i + 1 }));
    const oldToken = await signPlayerToken({ sub: PLAYER }, { secret: OLD, ttl: '10m' });

    // Before the rotation: every award is applied and its acknowledgement lost (503 after applying).
    await stack.setFaults({ seed: 7, lostAckRate: 1, lostAckMode: '503' });
    for (const { key, points } of awards) expect((await single(oldToken, key, points)).status).toBe(503);
    await stack.setFaults({});
    expect((await ledger()).length).toBe(AWARDS);

    // The rotation: NEW signs, OLD still verifies, the key secret stays.
    await stack.restartRelay(0, { secret: [NEW, OLD] });
    const newToken = await signPlayerToken({ sub: PLAYER }, { secret: [NEW, OLD], ttl: '10m' });
    expect(JSON.parse(Buffer.from(newToken.split('.')[1]!, 'base64url').toString()).sub).toBe(PLAYER);
    // Each award resent three times: old token (single), new token (single), new token (batch).
    for (const { key, points } of awards) {
      expect((await single(oldToken, key, points)).status).toBe(200);
      expect((await single(newToken, key, points)).status).toBe(200);
    }
    const resent = await batch(stack.relay.url, newToken, awards);
    expect(resent.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(awards.map(() => 'ok'));

    const entries = await ledger();
    expect(entries.length).toBe(AWARDS);
    expect(new Set(entries.map((e) => e.idempotencyKey)).size).toBe(AWARDS);
    expect(entries.reduce((sum, e) => sum + e.eventPoints, 0)).toBe((AWARDS * (AWARDS + 1)) / 2);

    // The previous secret retired: its tokens are refused, the new ones still replay without applying anything.
    await stack.restartRelay(0, { secret: NEW });
    expect((await single(oldToken, awards[0]!.key, awards[0]!.points)).status).toBe(401);
    expect((await single(newToken, awards[0]!.key, awards[0]!.points)).status).toBe(200);
    expect((await ledger()).length).toBe(AWARDS);
  });

  it('the contrast: a relay whose key namespace moved with the token secret applies the same resends again', async () => {
    const before = (await ledger()).length;
    const moved = await stack.addRelay({ secret: NEW, keySecret: `${NEW}-as-key-namespace` });
    const newToken = await signPlayerToken({ sub: PLAYER }, { secret: NEW, ttl: '10m' });
    // Three awards, each sent through the stack's relay and resent through the moved one.
    const awards = Array.from({ length: 3 }, () => ({ key: uuid(), points: 1 }));
    expect((await batch(stack.relay.url, newToken, awards)).status).toBe(200);
    expect((await batch(moved.url, newToken, awards)).status).toBe(200);
    expect((await ledger()).length).toBe(before + 6);
  });
});
