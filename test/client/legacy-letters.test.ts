// @vitest-environment happy-dom
// Awards an earlier version (c6b8ff8) dead-lettered for a refusal about the deployment were never forwarded: the next
// start puts them back in the queue once, under their own keys, and they are delivered. The dead store is written
// here as c6b8ff8 wrote it: idb-keyval's createStore(`${storageName}:dead`, 'kv'), each letter the queued award plus
// status, message and rejectedAt (send.ts settlement), the message the relay's, or `HTTP <status>` for a body without one.
import 'fake-indexeddb/auto';
import { createStore, setMany } from 'idb-keyval';
import { afterEach, describe, expect, it } from 'vitest';
import { isLegacyDeploymentLetter } from '../../src/protocol/index.js';
import { fakeRelay, testClients, uniqueName, until } from './fake-relay.js';

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
  it('go back to the queue once, under their own keys, and are delivered; the award refusals stay dead', async () => {
    const storageName = uniqueName('legacy');
    const deployment = [
      letter(1, 403, ORIGIN_403),
      letter(2, 404, 'HTTP 404'),
      letter(3, 403, 'HTTP 403'),
      letter(4, 404, 'no route POST /qp/batch/points'),
    ];
    const award = [
      letter(5, 422, 'eventName is not allowed'),
      letter(6, 403, `serviceUserId "player-2" is not the token's sub: a player acts only on itself`),
    ];
    await setMany(
      [...deployment, ...award].map((d) => [d.idempotencyKey, d]),
      createStore(`${storageName}:dead`, 'kv'),
    );

    const relay = fakeRelay();
    const qp = client({ fetch: relay.fetch, storageName });
    await until(async () => relay.sentKeys().length >= deployment.length && (await qp.pending()).length === 0);
    expect(relay.sentKeys().sort()).toEqual(deployment.map((d) => d.idempotencyKey).sort());
    expect((await qp.deadLetters()).map((d) => d.eventPoints)).toEqual([5, 6]);
    await until(() => qp.getSnapshot().deadLetterCount === 2);
    // What was sent is the award, not the letter's status and message.
    expect(relay.seen.find((r) => r.method === 'POST')!.body).not.toHaveProperty('status');
    await qp.close();

    // The next start finds nothing more to give back.
    const again = client({ fetch: relay.fetch, storageName });
    await until(async () => (await again.deadLetters()).length === 2);
    await again.flush();
    expect(relay.sentKeys()).toHaveLength(deployment.length);
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
