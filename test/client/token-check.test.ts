// The one token rule (src/client/token-check.ts): what getToken() gave is a token, a mistake named with its fix
// (auth:required, never "offline"), the player not signed in (auth:required), or no network (offline, retried).
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { QuestPointsError, type QuestPoints } from '../../src/client/index.js';
import { checkToken, tokenFailure } from '../../src/client/token-check.js';
import { plausibleToken } from '../../src/client/token.js';
import { statusVerdict } from '../../src/protocol/status.js';
import { tokenFrom } from '../../src/sw/token.js';
import { fakeRelay, jwt, testClients, until } from './fake-relay.js';

const { client, closeAll } = testClients();
afterEach(() => closeAll());

describe('checkToken: what getToken() returned', () => {
  it.each([
    ['<!doctype html><html><body>app</body></html>', /getToken returned HTML, not a token: does the token route exist.*tokenFrom\(url\)/],
    ['{"token":"abc.def.ghi"}', /getToken returned JSON text, not a token: read its "token" field, or use tokenFrom\(url\)/],
    ['   \n', /getToken returned an empty string, not a token/],
    ['', /getToken returned an empty string/],
    [new Error('401 from /login'), /getToken returned an Error \(401 from \/login\), not a token: throw it \(or reject\)/],
    [undefined, /getToken returned undefined, not a token: return the token string/],
    [null, /getToken returned null/],
    [{ token: 'abc' }, /getToken returned object/],
    ['not a token at all', /getToken returned text with spaces/],
  ])('%j is named as a mistake (QuestPointsError auth)', (value, message) => {
    let error: unknown;
    try {
      checkToken(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(QuestPointsError);
    expect((error as QuestPointsError).code).toBe('auth');
    expect((error as QuestPointsError).message).toMatch(message);
  });

  it('a JWT, an opaque token and a token with a trailing newline (a text route) are tokens', () => {
    const token = jwt('p', 2e9);
    expect(plausibleToken(token)).toBe(token);
    expect(plausibleToken('opaque_Token-123~+/==')).toBe('opaque_Token-123~+/==');
    expect(plausibleToken(`${token}\n`)).toBe(token);
  });
});

describe('tokenFailure: what a getToken() failure means', () => {
  it.each([
    [new TypeError('Failed to fetch'), 'network'],
    [new TypeError('NetworkError when attempting to fetch resource.'), 'network'],
    [new TypeError('Load failed'), 'network'],
    [new DOMException('signal timed out', 'TimeoutError'), 'timeout'],
    [new QuestPointsError('/t: no answer', 'network'), 'network'],
    [new QuestPointsError('/t answered HTTP 503', 'http', 503), 'http'],
    [new QuestPointsError('/t answered HTTP 401', 'auth', 401), 'auth'],
    [new QuestPointsError('/t answered HTTP 404', 'http', 404), 'auth'],
    [new Error('logged out'), 'auth'],
    [new TypeError("Cannot read properties of undefined (reading 'token')"), 'auth'],
  ])('%s -> %s', (error, code) => {
    expect(tokenFailure(error, statusVerdict).code).toBe(code);
  });
});

describe('the client: token mistakes are auth:required with the fix, no network is offline', () => {
  async function started(getToken: () => unknown) {
    const relay = fakeRelay();
    const qp: QuestPoints = client({ fetch: relay.fetch, getToken: getToken as () => string });
    const seen: { name: string; data: unknown }[] = [];
    for (const name of ['auth:required', 'connection:changed', 'award:retrying'] as const)
      qp.on(name, (data: unknown) => void seen.push({ name, data }));
    return { qp, relay, seen };
  }

  it('getToken answering HTML (a dev server fallback read with .text()): auth:required naming it, still online', async () => {
    const { qp, relay, seen } = await started(() => Promise.resolve('<!doctype html><div id="app"></div>'));
    qp.award({ eventPoints: 1 });
    await until(() => seen.some((e) => e.name === 'auth:required'));
    const auth = seen.find((e) => e.name === 'auth:required')!.data as { error: QuestPointsError };
    expect(auth.error.message).toMatch(/getToken returned HTML, not a token: .*tokenFrom\(url\)/);
    expect(qp.getSnapshot()).toMatchObject({ online: true, authRequired: true, queueSize: 1 });
    expect(seen.some((e) => e.name === 'connection:changed')).toBe(false);
    expect(relay.seen).toHaveLength(0);
  });

  it('getToken failing for lack of network: offline and retried, never auth:required; delivered once it works', async () => {
    let offline = true;
    let calls = 0;
    const { qp, relay, seen } = await started(() => {
      calls++;
      return offline ? Promise.reject(new TypeError('Failed to fetch')) : jwt('player-1', Date.now() / 1000 + 3600);
    });
    const { settled } = qp.award({ eventPoints: 3 });
    await until(() => seen.filter((e) => e.name === 'award:retrying').length >= 2);
    expect(seen.some((e) => e.name === 'auth:required')).toBe(false);
    expect(qp.getSnapshot()).toMatchObject({ online: false, authRequired: false });
    expect(seen.find((e) => e.name === 'award:retrying')!.data).toMatchObject({ reason: 'network' });
    offline = false;
    expect((await settled).outcome).toBe('sent');
    expect(qp.getSnapshot()).toMatchObject({ online: true, authRequired: false });
    expect(relay.sentKeys()).toHaveLength(1);
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  it('tokenFrom(url) with no network is offline; answering 401 is auth:required', async () => {
    const realFetch = globalThis.fetch;
    let answer: () => Promise<Response> = () => Promise.reject(new TypeError('Failed to fetch'));
    globalThis.fetch = (() => answer()) as typeof fetch;
    try {
      const getToken = tokenFrom('/login/qp-token');
      await expect(getToken()).rejects.toMatchObject({ code: 'network' });
      answer = async () => new Response('{"success":false}', { status: 401, headers: { 'content-type': 'application/json' } });
      await expect(getToken()).rejects.toMatchObject({ code: 'auth', status: 401 });
      answer = async () => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } });
      await expect(getToken()).rejects.toThrow(/answered text\/html, not JSON .*does that route exist/);
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});
