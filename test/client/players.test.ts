// @vitest-environment happy-dom
// Awards belong to their player (src/client/players.ts): two players on one browser profile share one outbox (the
// default storageName), and a session sends only its own player's awards; another player's wait in the store for a
// session of theirs, and are never dead-lettered for being another player's.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { batchOf, fakeRelay, json, jwt, testClients, uniqueName, until, type Seen } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

/** The token's subject, as the relay reads it (the test's JWTs are unsigned). */
const subOf = (req: Seen) => {
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  return JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))).sub as string;
};

/**
 * A relay that does what the real one does (src/relay/access.ts): an award named for another player than the token's
 * subject is refused, 403, with code 'player' (`legacy`: an older relay's message without a code).
 */
function playerRelay({ legacy = false, offline = () => false }: { legacy?: boolean; offline?: () => boolean } = {}) {
  const refusal = (user: string) => ({
    message: `serviceUserId ${JSON.stringify(user)} is not the token's sub: a player acts only on itself`,
    ...(legacy ? {} : { code: 'player' }),
  });
  /** Each award the relay saw, with the token's player. */
  const sent: { key: string; user: string; sub: string }[] = [];
  const relay = fakeRelay((req) => {
    if (offline()) return Promise.reject(new TypeError('fetch failed'));
    if (req.method !== 'POST') return undefined;
    const sub = subOf(req);
    if (req.path === '/api/batch/points') {
      const awards = batchOf(req);
      for (const a of awards) sent.push({ key: a.idempotencyKey, user: a.serviceUserId, sub });
      return json(200, {
        success: true,
        results: awards.map((a) =>
          a.serviceUserId === sub
            ? { idempotencyKey: a.idempotencyKey, outcome: 'ok' }
            : { idempotencyKey: a.idempotencyKey, outcome: 'rejected', status: 403, ...refusal(a.serviceUserId) },
        ),
      });
    }
    const user = (req.body as { serviceUserId: string }).serviceUserId;
    sent.push({ key: req.headers['idempotency-key']!, user, sub });
    return user === sub ? json(200, { success: true }) : json(403, { success: false, ...refusal(user) });
  });
  return { ...relay, sent, foreign: () => sent.filter((s) => s.user !== s.sub) };
}

const token = (sub: string) => () => jwt(sub, Date.now() / 1000 + 3600);
const as = (player: string) => ({ serviceUserId: player, getToken: token(player) });

/** alice's awards queued offline on this profile (persisted true), her page closed. */
async function aliceOffline(storageName: string, n = 3) {
  let offline = true;
  const relay = playerRelay({ offline: () => offline });
  const alice = client({ ...as('alice'), storageName, fetch: relay.fetch });
  const handles = Array.from({ length: n }, (_, i) => alice.award({ eventPoints: i + 1 }));
  expect(await Promise.all(handles.map((h) => h.persisted))).toEqual(handles.map(() => true));
  await alice.close();
  offline = false;
  return handles.map((h) => h.idempotencyKey);
}

describe('two players on one profile (one storage name)', () => {
  it("bob's session leaves alice's offline awards queued, sends none, dead-letters none; alice's next session delivers them", async () => {
    const storageName = uniqueName();
    const keys = await aliceOffline(storageName);
    const relay = playerRelay();
    const bob = client({ ...as('bob'), storageName, fetch: relay.fetch });
    const own = bob.award({ eventPoints: 10 });
    expect((await own.settled).outcome).toBe('sent');
    await bob.flush();
    // Sent only by bob's token, only bob's award: alice's were never carried by another player's token.
    expect(relay.foreign()).toEqual([]);
    expect(await bob.deadLetters()).toEqual([]);
    expect((await bob.pending()).map((a) => a.idempotencyKey).sort()).toEqual([...keys].sort());
    await bob.close();

    const alice = client({ ...as('alice'), storageName, fetch: relay.fetch });
    await until(async () => (await alice.pending()).length === 0);
    expect(relay.sent.filter((s) => s.user === 'alice').map((s) => s.key)).toEqual(keys);
    expect(await alice.deadLetters()).toEqual([]);
  });

  it.each([
    ['code player', false],
    ["an older relay's message", true],
  ])(
    "a client that names the player per award: the relay's refusal as another player's (%s) holds the award, never a dead letter",
    async (_, legacy) => {
      const storageName = uniqueName();
      const keys = await aliceOffline(storageName);
      const relay = playerRelay({ legacy });
      const session = client({ serviceUserId: undefined, getToken: token('bob'), storageName, fetch: relay.fetch });
      const own = session.award({ eventPoints: 10, serviceUserId: 'bob' });
      expect((await own.settled).outcome).toBe('sent');
      await session.flush();
      expect(await session.deadLetters()).toEqual([]);
      expect((await session.pending()).map((a) => a.idempotencyKey).sort()).toEqual([...keys].sort());
      // Set aside for the drain once refused: each drain carries alice's awards once at most, not again per batch.
      const perDrain = relay.foreign().length;
      await session.flush();
      expect(relay.foreign().length).toBeLessThanOrEqual(perDrain * 2);
      expect(session.getSnapshot().authRequired).toBe(false);
    },
  );

  it("a switch of player mid-drain: bob's page closes while its batch is in flight, alice's session sends only hers; bob's rest waits for him", async () => {
    const storageName = uniqueName();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let gated = 0;
    const relay = playerRelay();
    const slow: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/batch/points') && gated++ === 0) await gate;
      return relay.fetch(input, init);
    };
    const bob = client({ ...as('bob'), storageName, fetch: slow, flushDelayMs: 1 });
    // 150: one batch of 100 in flight when bob signs out, 50 still queued.
    const bobs = Array.from({ length: 150 }, () => bob.award({ eventPoints: 1 }));
    await Promise.all(bobs.map((h) => h.persisted));
    await until(() => gated === 1);
    const closing = bob.close();
    const alice = client({ ...as('alice'), storageName, fetch: relay.fetch });
    const hers = alice.award({ eventPoints: 7 });
    release();
    await closing;
    expect((await hers.settled).outcome).toBe('sent');
    await alice.flush();
    expect(relay.foreign()).toEqual([]);
    expect(await alice.deadLetters()).toEqual([]);
    const left = await alice.pending();
    expect(left).toHaveLength(50);
    expect(left.every((a) => a.serviceUserId === 'bob')).toBe(true);
    await alice.close();
    // bob signs in again: his 50 go, none twice, none lost.
    const again = client({ ...as('bob'), storageName, fetch: relay.fetch });
    await until(async () => (await again.pending()).length === 0);
    const bobKeys = relay.sent.filter((s) => s.user === 'bob').map((s) => s.key);
    expect(new Set(bobKeys).size).toBe(150);
    expect(bobKeys.length).toBe(150);
    expect(await again.deadLetters()).toEqual([]);
  });

  it("a token of another player than the client's (a switch without a new client): its own awards wait, auth:required, a new token is asked for", async () => {
    const storageName = uniqueName();
    const relay = playerRelay();
    let signedIn = 'alice';
    const getToken = () => jwt(signedIn, Date.now() / 1000 + 3600);
    const bob = client({ serviceUserId: 'bob', getToken, storageName, fetch: relay.fetch, pollIntervalMs: 60_000 });
    const required: unknown[] = [];
    bob.on('auth:required', (e) => required.push(e));
    const award = bob.award({ eventPoints: 3 });
    await until(() => required.length > 0);
    expect(await bob.deadLetters()).toEqual([]);
    expect(bob.getSnapshot().authRequired).toBe(true);
    expect((await bob.pending()).map((a) => a.idempotencyKey)).toEqual([award.idempotencyKey]);
    // Sent once getToken() answers bob's token: the token refused as alice's was not kept (it lasts an hour).
    signedIn = 'bob';
    await bob.flush();
    expect((await award.settled).outcome).toBe('sent');
    expect(bob.getSnapshot().authRequired).toBe(false);
  });

  it("two players' tabs open at once on one profile: each sends its own, even while the other holds the flush lock", async () => {
    const storageName = uniqueName();
    const relay = playerRelay();
    const alice = client({ ...as('alice'), storageName, fetch: relay.fetch });
    const bob = client({ ...as('bob'), storageName, fetch: relay.fetch });
    const handles = [alice, bob, alice, bob, alice, bob].map((qp, i) => qp.award({ eventPoints: i + 1 }));
    const outcomes = await Promise.all(handles.map((h) => h.settled));
    expect(outcomes.map((o) => o.outcome)).toEqual(handles.map(() => 'sent'));
    expect(relay.foreign()).toEqual([]);
    expect(await alice.deadLetters()).toEqual([]);
  });
});
