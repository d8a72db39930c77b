// The relay on Node reads request headers off the socket's parsed headers and sets its fixed answer headers on Node's
// response (context.ts: requestHeader, answerHeader), not through Hono's WHATWG Headers as elsewhere: the rules the
// other tests check through app.fetch, checked here through startRelay's real server.
import { afterEach, describe, expect, it } from 'vitest';
import { startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET, token } from '../helpers/fixtures.js';

const GAME = 'https://game.example.com';
const relays: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

async function relay() {
  const sent: Request[] = [];
  const running = await startRelay({
    port: 0,
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: OPEN_POLICY,
    corsOrigins: [GAME],
    logger: () => {},
    upstream: {
      url: 'http://service.test',
      apiKey: API_KEY,
      fetch: async (request) => {
        sent.push(request);
        return Response.json({ success: true });
      },
    },
  });
  relays.push(running);
  return { url: running.url, sent };
}

const award = async (url: string, headers: Record<string, string>, body: unknown = { serviceUserId: 'u1', eventPoints: 1 }) =>
  fetch(`${url}/group-quests/q/points`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token({ sub: 'u1' })}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
  'cross-origin-resource-policy': 'same-site',
  'x-frame-options': 'SAMEORIGIN',
};
const securityOf = (response: Response) => Object.fromEntries(Object.keys(SECURITY).map((name) => [name, response.headers.get(name)]));

describe('the relay on Node: headers read off the socket, answer headers set on the response', () => {
  it('an award from the allowed origin: its request id echoed, security and CORS headers, the key sent on derived', async () => {
    const { url, sent } = await relay();
    const key = crypto.randomUUID();
    const response = await award(url, { origin: GAME, 'x-request-id': 'req-42', IDEMPOTENCY_KEY: key });
    expect([response.status, await response.json()]).toEqual([200, { success: true }]);
    expect(response.headers.get('x-request-id')).toBe('req-42');
    expect(securityOf(response)).toEqual(SECURITY);
    expect([response.headers.get('access-control-allow-origin'), response.headers.get('vary')]).toEqual([GAME, 'Origin']);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.get('x-request-id')).toBe('req-42');
    const upstreamKey = sent[0]!.headers.get('IDEMPOTENCY_KEY');
    expect(upstreamKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(upstreamKey).not.toBe(key);
  });

  it('refusals and errors carry the same headers: another origin 403, no route 404, a non-JSON body 400', async () => {
    const { url, sent } = await relay();
    const foreign = await award(url, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const missing = await fetch(`${url}/nowhere`, { headers: { authorization: `Bearer ${await token({ sub: 'u1' })}` } });
    expect(missing.status).toBe(404);
    const plain = await fetch(`${url}/group-quests/q/points`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token({ sub: 'u1' })}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(plain.status).toBe(400);
    for (const response of [foreign, missing, plain]) {
      expect(securityOf(response)).toEqual(SECURITY);
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(sent).toHaveLength(0);
  });

  it('reads both spellings of the idempotency key (different keys: 400) and the bearer token (none: 401)', async () => {
    const { url, sent } = await relay();
    const both = await award(url, { IDEMPOTENCY_KEY: crypto.randomUUID(), 'Idempotency-Key': crypto.randomUUID() });
    expect([both.status, ((await both.json()) as { message: string }).message]).toEqual([
      400,
      'IDEMPOTENCY_KEY and Idempotency-Key headers carry different keys; send one of them',
    ]);
    expect((await award(url, { 'Idempotency-Key': crypto.randomUUID() })).status).toBe(200);
    const anonymous = await fetch(`${url}/group-quests/q/points`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceUserId: 'u1', eventPoints: 1 }),
    });
    expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="quest-points"']);
    expect(sent).toHaveLength(1);
  });

  it('a preflight from the allowed origin: 204 with CORS and security headers', async () => {
    const { url } = await relay();
    const preflight = await fetch(`${url}/batch/points`, {
      method: 'OPTIONS',
      headers: { origin: GAME, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(GAME);
    expect(securityOf(preflight)).toEqual(SECURITY);
  });
});
