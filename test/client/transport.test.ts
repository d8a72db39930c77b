// The HTTP layer (http.ts: ofetch, the token, the headers) loads on the first request, not with the page.
import { expect, it } from 'vitest';
import { createHttp } from '../../src/client/http.js';
import { createTransport } from '../../src/client/transport.js';
import { fakeRelay, jwt } from './fake-relay.js';

it('an HTTP layer that cannot load (offline, its chunk not cached) is a request without an answer, and the next request loads it again', async () => {
  const relay = fakeRelay();
  let loads = 0;
  const transport = createTransport({ relayUrl: '/api', getToken: () => jwt('player-1', Date.now() / 1000 + 3600), fetch: relay.fetch }, async () => {
    if (++loads === 1) throw new TypeError('Failed to fetch dynamically imported module');
    return { createHttp };
  });
  await expect(transport.request('GET', '/points')).rejects.toMatchObject({ code: 'network' });
  expect(relay.seen).toEqual([]);
  const answer = await transport.request('POST', '/group-quests/q/points', { eventPoints: 1 }, 'key-1');
  expect(answer.status).toBe(200);
  expect(loads).toBe(2);
  expect(relay.seen.map((r) => [r.path, r.headers['idempotency-key'], r.headers.authorization?.startsWith('Bearer ')])).toEqual([
    ['/api/group-quests/q/points', 'key-1', true],
  ]);
});

it('the options are checked at once, before any layer loads: a mistake throws from the call', () => {
  const never = () => Promise.reject(new Error('not loaded'));
  expect(() => createTransport({ getToken: () => 't' }, never)).toThrow('relayUrl is required');
  expect(() => createTransport({ relayUrl: '/api' }, never)).toThrow('getToken is required');
});
