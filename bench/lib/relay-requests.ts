// What the relay benchmarks send: the bench's secrets, player tokens, a single award and a 100-award batch.
import { paths, type QueuedAward } from '../../src/protocol/index.js';
import { signPlayerToken } from '../../src/relay/index.js';
import type { LoadRequest } from './load.js';

export const API_KEY = 'bench-api-key-0123456789abcdef';
export const SECRET = 'bench-relay-secret-0123456789abcdef0123';
/** Names upstream idempotency keys (never rotates). */
export const KEY_SECRET = 'bench-key-secret-fedcba9876543210fedcba98';
export const QUEST = 'bench';

export const tokens = (prefix: string, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => signPlayerToken({ sub: `${prefix}${i}` }, { secret: SECRET, ttl: '30m' })));

export const adminToken = () => signPlayerToken({ sub: 'ops', role: 'admin' }, { secret: SECRET, ttl: '30m' });

export function single(url: string, token: string, serviceUserId: string, viaProxy: boolean): LoadRequest {
  const body = JSON.stringify({ serviceUserId, eventPoints: 1, eventName: 'Bench' });
  // The proxy adds the API key itself; the token it is handed is simply not used.
  return {
    url,
    path: paths.points(QUEST),
    headers: { [viaProxy ? 'x-unused' : 'authorization']: `Bearer ${token}`, IDEMPOTENCY_KEY: crypto.randomUUID() },
    body,
  };
}

export function batch(url: string, admin: string, offset: number, players: number): LoadRequest {
  const awards: QueuedAward[] = Array.from({ length: 100 }, (_, k) => ({
    questId: QUEST,
    idempotencyKey: crypto.randomUUID(),
    serviceUserId: `p${(offset + k) % players}`,
    eventPoints: 1,
    eventName: 'Bench',
  }));
  return { url, path: paths.batch(), headers: { authorization: `Bearer ${admin}` }, body: JSON.stringify({ awards }) };
}
