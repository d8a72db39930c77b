// @vitest-environment happy-dom
// Awards an earlier version (c6b8ff8) dead-lettered for a refusal about the deployment were never forwarded: the next
// start puts them back in the queue once, under their own keys, and they are delivered. The dead store is written
// here as c6b8ff8 wrote it: idb-keyval's createStore(`${storageName}:dead`, 'kv'), each letter the queued award plus
// status, message and rejectedAt (send.ts settlement), the message the relay's, or `HTTP <status>` for a body without one.
import 'fake-indexeddb/auto';
import { createStore, setMany } from 'idb-keyval';
import { afterEach, describe, expect, it } from 'vitest';
import { isLegacyDeploymentLetter } from '../../src/protocol/index.js';
import { fakeRelay, jwt, testClients, uniqueName, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(closeAll);

let seq = 0;
/** A dead letter as c6b8ff8 stored it. */
const letter = (eventPoints: number, status: number, message: string) => ({
  questId: 'quest-1',
  serviceUserId: 'player-1',
  eventPoints,
  eventName: 'coin',
  idempotencyKey: crypto.randomUUID(),
  queuedAt: Date.now() - 60_000,
  seq: ++seq,
  status,
  message,
  rejectedAt: Date.now() - 30_000,
});

const ORIGIN_403 = `origin "https://game.example" is not in the relay's CORS allowlist (corsOrigins)`;

describe('dead letters an earlier version kept for a deployment refusal', () => {
  it("go back to the queue once, under their own keys, and are delivered; another player's award goes back and waits for that player; the award refusals stay dead", async () => {
    const storageName = uniqueName('legacy');
    const deployment = [
      letter(1, 403, ORIGIN_403),
      letter(2, 404, 'HTTP 404'),
      letter(3, 403, 'HTTP 403'),
      letter(4, 404, 'no route POST /qp/batch/points'),
    ];
    const award = [letter(5, 422, 'eventName is not allowed')];
    // player-1's session sent player-2's award and dead-lettered the refusal (c6b8ff8): back in the queue, for player-2.
    const other = { ...letter(6, 403, `serviceUserId "player-2" is not the token's sub: a player acts only on itself`), serviceUserId: 'player-2' };
    await setMany(
      [...deployment, ...award, other].map((d) => [d.idempotencyKey, d]),
      createStore(`${storageName}:dead`, 'kv'),
    );

    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch, storageName });
    await until(async () => relay.sentKeys().length >= deployment.length && (await qp.pending()).length === 1);
    expect(relay.sentKeys().sort()).toEqual(deployment.map((d) => d.idempotencyKey).sort());
    expect((await qp.pending()).map((a) => [a.idempotencyKey, a.serviceUserId])).toEqual([[other.idempotencyKey, 'player-2']]);
    expect((await qp.deadLetters()).map((d) => d.eventPoints)).toEqual([5]);
    await until(() => qp.getSnapshot().deadLetterCount === 1);
    // What was sent is the award, not the letter's status and message.
    expect(relay.seen.find((r) => r.method === 'POST')!.body).not.toHaveProperty('status');
    await qp.close();

    // The next start finds nothing more to give back.
    const again = client({ fetch: relay.fetch, storageName });
    await until(async () => (await again.deadLetters()).length === 1);
    await again.flush();
    expect(relay.sentKeys()).toHaveLength(deployment.length);
    await again.close();
    // player-2 is back: the award goes, with player-2's token.
    const theirs = client({ fetch: relay.fetch, storageName, serviceUserId: 'player-2', getToken: () => jwt('player-2', Date.now() / 1000 + 3600) });
    await until(async () => (await theirs.pending()).length === 0);
    expect(relay.sentKeys()).toEqual(expect.arrayContaining([other.idempotencyKey]));
    expect(await theirs.deadLetters()).toHaveLength(1);
  });

  it.each([
    [403, ORIGIN_403, true],
    [404, 'no route POST /qp/group-quests/q/points', true],
    [404, 'HTTP 404', true],
    [403, 'HTTP 403', true],
    [400, 'HTTP 400', true],
    [422, 'eventName is not allowed', false],
    [404, 'User not found', false],
    [403, 'HTTP 404', false],
  ])('%i %s: a deployment letter: %s', (status, message, legacy) => expect(isLegacyDeploymentLetter({ status, message })).toBe(legacy));
});
