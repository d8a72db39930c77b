// The award route's Node fast path (src/relay/node/fast-award.ts) answers exactly as the Hono path does: the same
// requests, each kind of valid and invalid one, sent over raw sockets to a relay with the fast path and to one
// without it, in the same order (so limits and records reach the same states), and their answers compared byte for
// byte, status line, headers and body, but for the Date header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/protocol/index.js';
import { createMemoryRecordStore, type RelayPolicy } from '../../src/relay/index.js';
import { fastAwardHandler } from '../../src/relay/node/fast-award.js';
import { startRelay, type RunningServer } from '../../src/relay/node/index.js';
import { API_KEY, KEY_SECRET, SECRET, token } from '../helpers/fixtures.js';
import { exchange } from '../helpers/wire.js';

const GAME = 'https://game.example.com';
const POLICY: RelayPolicy = {
  allowUnknownEvents: true,
  maxPointsPerAward: 100,
  rateLimits: { perPlayer: { limit: 3, windowSeconds: 3600 }, perIp: { limit: 1_000_000, windowSeconds: 3600 } },
};

/** The service: quest `broken` answers 500, `gone` 404, `down` fails to connect, `slow` outlives the relay's deadline. */
async function service(request: Request): Promise<Response> {
  const quest = new URL(request.url).pathname.split('/')[2];
  if (quest === 'broken') return Response.json({ success: false, message: 'boom' }, { status: 500 });
  if (quest === 'gone') return Response.json({ success: false, message: 'no such quest' }, { status: 404 });
  if (quest === 'down') throw new TypeError('fetch failed');
  if (quest === 'slow') await new Promise((resolve) => setTimeout(resolve, 1_500));
  return Response.json({ success: true });
}

const relays: RunningServer[] = [];
const start = async (fastPath: boolean) => {
  const relay = await startRelay({
    port: 0,
    fastPath,
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: POLICY,
    corsOrigins: [GAME],
    deadlineMs: 600,
    logger: () => {},
    idempotency: { store: createMemoryRecordStore() },
    upstream: { url: 'http://service.test', apiKey: API_KEY, fetch: service },
  });
  relays.push(relay);
  return relay;
};

let fast: RunningServer;
let plain: RunningServer;
beforeAll(async () => {
  [fast, plain] = await Promise.all([start(true), start(false)]);
});
afterAll(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

interface Case {
  name: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Headers written as given (Content-Length and Transfer-Encoding included); default: a Content-Length. */
  raw?: boolean;
}

const award = (user: string, points = 1) => JSON.stringify({ serviceUserId: user, eventPoints: points });

async function cases(): Promise<Case[]> {
  // A player per case (the per-player limit is 3 an hour): the keyed awards share one, and lim's four reach the limit.
  let n = 0;
  const player = async () => {
    const sub = `p${++n}`;
    return { sub, json: { 'content-type': 'application/json', authorization: `Bearer ${await token({ sub })}` } };
  };
  const one = async (name: string, headers: Record<string, string> = {}, body?: (sub: string) => string, path?: string): Promise<Case> => {
    const { sub, json } = await player();
    return { name, headers: { ...json, ...headers }, body: body ? body(sub) : award(sub), ...(path ? { path } : {}) };
  };
  const keyed = await player();
  const limited = await player();
  const key = crypto.randomUUID();
  return [
    await one('valid'),
    await one('valid, with a charset and an origin allowed', { 'content-type': 'application/json; charset=utf-8', origin: GAME }),
    await one('an origin not allowed', { origin: 'https://evil.example' }),
    await one('no request id of its own', { 'x-request-id': '' }),
    await one('a request id with bad characters', { 'x-request-id': 'a b' }),
    { name: 'with a key', headers: { ...keyed.json, IDEMPOTENCY_KEY: key }, body: award(keyed.sub, 2) },
    { name: 'the key replayed', headers: { ...keyed.json, IDEMPOTENCY_KEY: key }, body: award(keyed.sub, 2) },
    { name: 'the key, another award (422)', headers: { ...keyed.json, IDEMPOTENCY_KEY: key }, body: award(keyed.sub, 3) },
    await one('both key headers, different keys', { IDEMPOTENCY_KEY: crypto.randomUUID(), 'Idempotency-Key': crypto.randomUUID() }),
    await one('a key breaking its rule', { IDEMPOTENCY_KEY: 'x'.repeat(300) }),
    await one('bad JSON', {}, () => '{"serviceUserId":'),
    await one('a BOM before the JSON', {}, (sub) => `\uFEFF${award(sub)}`),
    await one('not JSON by its type', { 'content-type': 'text/plain' }),
    await one('no content type', { 'content-type': '' }),
    await one('too large', {}, (sub) => JSON.stringify({ serviceUserId: sub, eventPoints: 1, eventDescription: 'x'.repeat(BODY_LIMIT_BYTES) })),
    await one('a field breaking its rule', {}, (sub) => award(sub, -5)),
    await one("over the policy's points", {}, (sub) => award(sub, 1000)),
    await one('no token', { authorization: '' }),
    await one('not a bearer', { authorization: 'Basic abc' }),
    await one('a bad token', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad' }),
    await one("another player's id", {}, () => award('someone-else')),
    await one('a quest id breaking its rule', {}, undefined, `/group-quests/${'q'.repeat(300)}/points`),
    await one('upstream 500', {}, undefined, '/group-quests/broken/points'),
    await one('upstream 404', {}, undefined, '/group-quests/gone/points'),
    await one('upstream down', {}, undefined, '/group-quests/down/points'),
    await one('upstream past the deadline', {}, undefined, '/group-quests/slow/points'),
    ...[1, 2, 3, 4].map((i) => ({ name: `the player's limit, award ${i}`, headers: limited.json, body: award(limited.sub) })),
    // The Hono way in both (what the fast path leaves alone), compared all the same.
    await one('an encoded path', {}, undefined, '/group-quests/q%41/points'),
    await one('a query', {}, undefined, '/group-quests/q/points?x=1'),
    await one('a trailing slash', {}, undefined, '/group-quests/q/points/'),
    {
      ...(await one('chunked', { 'transfer-encoding': 'chunked' })),
      body: `${award(`p${n}`).length.toString(16)}\r\n${award(`p${n}`)}\r\n0\r\n\r\n`,
      raw: true,
    },
  ];
}

function request(port: number, c: Case): Promise<string> {
  const body = c.body ?? '';
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', 'x-request-id': 'same-id', ...c.headers };
  if (!c.raw) headers['content-length'] = String(Buffer.byteLength(body));
  // An empty value in a case: the header left out.
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  const head = `POST ${c.path ?? '/group-quests/q/points'} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return exchange(port, head, body);
}

/** The answer without what differs by time (Date) or by chance (a request id the relay made up). */
const comparable = (answer: string) =>
  answer.replace(/\r\nDate: [^\r]*/, '').replace(/X-Request-Id: [0-9a-f-]{36}\r\n/, 'X-Request-Id: (random)\r\n');

describe('the award route on Node: the fast path answers as the Hono path', { timeout: 60_000 }, () => {
  it('every kind of award request: the same status line, headers and body, byte for byte', async () => {
    const statuses: string[] = [];
    for (const c of await cases()) {
      const [viaFast, viaHono] = await Promise.all([request(fast.port, c), request(plain.port, c)]);
      expect(comparable(viaFast), c.name).toBe(comparable(viaHono));
      statuses.push(`${c.name}: ${viaHono.slice(9, 12)}`);
    }
    // The cases reach what they are named for (a case answered 200 by mistake would prove nothing).
    expect(statuses).toEqual([
      'valid: 200',
      'valid, with a charset and an origin allowed: 200',
      'an origin not allowed: 403',
      'no request id of its own: 200',
      'a request id with bad characters: 200',
      'with a key: 200',
      'the key replayed: 200',
      'the key, another award (422): 422',
      'both key headers, different keys: 400',
      'a key breaking its rule: 400',
      'bad JSON: 400',
      'a BOM before the JSON: 200',
      'not JSON by its type: 400',
      'no content type: 400',
      'too large: 413',
      'a field breaking its rule: 422',
      "over the policy's points: 422",
      'no token: 401',
      'not a bearer: 401',
      'a bad token: 401',
      "another player's id: 403",
      'a quest id breaking its rule: 400',
      'upstream 500: 502',
      'upstream 404: 404',
      'upstream down: 502',
      'upstream past the deadline: 504',
      "the player's limit, award 1: 200",
      "the player's limit, award 2: 200",
      "the player's limit, award 3: 200",
      "the player's limit, award 4: 429",
      'an encoded path: 200',
      'a query: 200',
      'a trailing slash: 404',
      'chunked: 200',
    ]);
  });

  it('takes the plain award POST with a declared length, and leaves everything else to Hono', () => {
    let taken = 0;
    const handle = fastAwardHandler(async (c) => {
      taken++;
      return c.json({});
    });
    const response = { destroy() {}, setHeader() {}, end() {} } as never;
    const take = (method: string, url: string, headers: Record<string, string>) => handle({ method, url, headers } as never, response);
    const ok = { host: 'relay.example:8788', 'content-length': '10' };
    expect(take('POST', '/group-quests/q-1/points', ok)).toBe(true);
    expect(take('GET', '/group-quests/q-1/points', ok)).toBe(false);
    expect(take('POST', '/group-quests/q-1/points', { host: 'relay.example' })).toBe(false);
    expect(take('POST', '/group-quests/q-1/points', { ...ok, 'transfer-encoding': 'chunked' })).toBe(false);
    expect(take('POST', '/group-quests/q-1/points', { ...ok, host: 'Relay.Example' })).toBe(false);
    expect(take('POST', '/group-quests/q%2F/points', ok)).toBe(false);
    expect(take('POST', '/group-quests/../points', ok)).toBe(false);
    expect(take('POST', '/group-quests/q/points?a=1', ok)).toBe(false);
    expect(take('POST', 'http://relay.example/group-quests/q/points', ok)).toBe(false);
    expect(take('POST', '/batch/points', ok)).toBe(false);
    expect(taken).toBe(1);
  });
});
