// Fuzzing the relay on the wire: raw bytes over TCP to a relay process (fuzz-relay.ts) in front of the emulator.
// What an in-process Request cannot carry: invalid UTF-8 and lone surrogates as raw bytes and as escapes in every
// string field, path segment and header; duplicated and conflicting headers (two tokens, two content types, two
// lengths, length and chunked); chunked bodies, cut short or stalled; huge, negative and non-finite numbers; deep
// and wide JSON; wrong content types. Oracle: no answer 500, the process never exits, it still serves afterwards,
// and its heap after a full collection is back to the baseline taken after a warm-up.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startEmulator } from '../../src/emulator/index.js';
import { signPlayerToken, type RelayPolicy } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, SECRET } from '../helpers/fixtures.js';
import { createRng, type Rng } from './rng.js';

const ORIGIN = 'http://game.fuzz';
const POLICY: RelayPolicy = {
  quests: ['q1', 'q2'],
  events: { small: { maxPoints: 10 }, penalty: { maxPoints: 3, allowNegative: true } },
  allowUnknownEvents: false,
  maxPointsPerAward: 10,
  rateLimits: {},
};
/** The relay cuts a request whose body has not arrived within this (the stalled ones end here). */
const REQUEST_TIMEOUT_MS = 1_500;
const ANSWER_TIMEOUT_MS = 15_000;
const CONCURRENCY = 24;

export interface WireFuzzReport {
  requests: number;
  ms: number;
  /** First status line of each answer; "cut" = the fuzzer cut the request itself, "closed" = no answer, connection closed. */
  statuses: Record<string, number>;
  failures: string[];
  crashed: boolean;
  /** Heap used after a full collection: after the warm-up, and after the run. */
  heapBaseline: number;
  heapAfter: number;
  rssBaseline: number;
  rssAfter: number;
}

type Bytes = Buffer;
const b = (text: string): Bytes => Buffer.from(text, 'latin1');
const utf8 = (text: string): Bytes => Buffer.from(text, 'utf8');

/** Text that is not valid UTF-8, or a surrogate on its own: as raw bytes, or as a JSON escape. */
const BAD_RAW: Bytes[] = [
  Buffer.from([0xff]),
  Buffer.from([0xc0, 0x80]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xed, 0xbf, 0xbf]),
  Buffer.from([0xf0, 0x9f]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xfe, 0xfe, 0xff]),
];
const BAD_ESCAPED = ['\\ud800', '\\udfff', '\\udfff\\ud800', 'a\\ud83d', '\\u0000', '\\ud800\\u0000x'];
const BAD_PERCENT = ['%FF', '%C0%80', '%ED%A0%80', '%ED%BF%BF', '%F0%9F', '%E2%82', '%', '%zz', '%00', '%2e%2e', '..', '.', '%2F'];

function hostileText(rng: Rng): Bytes {
  const plain = rng.pick(['q1', 'u1', 'small', 'penalty', 'x', '', 'ü', '💥', 'a'.repeat(rng.int(100, 4000))]);
  switch (rng.int(0, 4)) {
    case 0:
      return utf8(plain);
    case 1:
      return Buffer.concat([utf8(plain), rng.pick(BAD_RAW), utf8(plain)]);
    case 2:
      return Buffer.concat([utf8(plain), b(rng.pick(BAD_ESCAPED))]);
    case 3:
      return rng.pick(BAD_RAW);
    default:
      return b(rng.pick(BAD_ESCAPED));
  }
}

const NUMBERS = [
  '1',
  '5',
  '-3',
  '0',
  '-0',
  '0.5',
  '1e308',
  '-1e308',
  '1e309',
  '-1e309',
  '5e-324',
  '9007199254740993',
  `1${'0'.repeat(400)}`,
  `-${'9'.repeat(400)}`,
  '1e-7',
  '10.000001',
  '0x10',
  'NaN',
  'Infinity',
  '1.',
  '.5',
  '+1',
  '"5"',
  'null',
  'true',
  '[]',
  '{}',
];

/** A JSON value of one award field: a string with hostile bytes, or a number from the edges. */
function fieldValue(rng: Rng, kind: 'string' | 'number'): Bytes {
  if (kind === 'number' || rng.chance(0.15)) return b(rng.pick(NUMBERS));
  return Buffer.concat([b('"'), hostileText(rng), b('"')]);
}

function award(rng: Rng, batch: boolean): Bytes {
  const fields: [string, Bytes][] = [
    ['serviceUserId', rng.chance(0.5) ? b('"u1"') : fieldValue(rng, 'string')],
    ['eventPoints', rng.chance(0.4) ? b(rng.pick(['1', '5', '-2'])) : fieldValue(rng, 'number')],
    ['eventName', rng.chance(0.5) ? b('"small"') : fieldValue(rng, 'string')],
    ['eventDescription', fieldValue(rng, 'string')],
  ];
  if (batch) {
    fields.push(['questId', rng.chance(0.5) ? b('"q1"') : fieldValue(rng, 'string')]);
    fields.push(['idempotencyKey', rng.chance(0.6) ? b(`"${crypto.randomUUID()}"`) : fieldValue(rng, 'string')]);
  }
  // A key twice: JSON.parse keeps the last one.
  if (rng.chance(0.1)) fields.push(['serviceUserId', fieldValue(rng, 'string')]);
  const parts = fields.filter(() => rng.chance(0.92)).map(([k, v]) => Buffer.concat([b(`"${k}":`), v]));
  return Buffer.concat([b('{'), ...parts.flatMap((p, i) => (i ? [b(','), p] : [p])), b('}')]);
}

function body(rng: Rng, path: string): Bytes {
  const roll = rng.int(0, 19);
  if (roll === 0) {
    const depth = rng.pick([100, 1_000, 10_000, 60_000]);
    return rng.chance(0.5) ? b('['.repeat(depth) + ']'.repeat(depth)) : b(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  }
  if (roll === 1) {
    const width = rng.pick([1_000, 5_000, 20_000]);
    return rng.chance(0.5)
      ? b(`{${Array.from({ length: width }, (_, i) => `"k${i}":${i}`).join(',')}}`)
      : b(`{"awards":[${Array.from({ length: width }, () => '{}').join(',')}]}`);
  }
  if (roll === 2) return b(rng.pick(['', '{', '}', 'null', '[]', '"x"', '{"awards":', '{"a":1}{"b":2}', 'serviceUserId=u1&eventPoints=1']));
  if (roll === 3)
    return Buffer.concat([
      b('{"email":'),
      fieldValue(rng, 'string'),
      b(',"wallet":{"chain":'),
      fieldValue(rng, 'string'),
      b(',"address":'),
      fieldValue(rng, 'string'),
      b('}}'),
    ]);
  if (path.startsWith('/batch') || rng.chance(0.2)) {
    const count = rng.pick([1, 2, 5, 20, 100, 101]);
    const awards = Array.from({ length: count }, () => award(rng, true));
    return Buffer.concat([b('{"awards":['), ...awards.flatMap((a, i) => (i ? [b(','), a] : [a])), b(']}')]);
  }
  return award(rng, false);
}

function segment(rng: Rng): Bytes {
  switch (rng.int(0, 5)) {
    case 0:
      return b(rng.pick(['q1', 'q2', 'u1', 'u2', 'admin-1']));
    case 1:
      return b(rng.pick(BAD_PERCENT));
    case 2:
      return Buffer.concat([b('q'), rng.pick(BAD_RAW)]);
    case 3:
      return b(encodeURIComponent(rng.pick(['ü', '💥', ' ', '/', '?', '#'])));
    case 4:
      return b('a'.repeat(rng.int(200, 9000)));
    default:
      return b(`${rng.pick(BAD_PERCENT)}${rng.pick(BAD_PERCENT)}`);
  }
}

function path(rng: Rng): Bytes {
  const s = () => segment(rng);
  const shapes: (() => Bytes[])[] = [
    () => [b('/group-quests/'), s(), b('/points')],
    () => [b('/group-quests/q1/points')],
    () => [b('/group-quests/'), s(), b('/points/'), s()],
    () => [b('/group-quests/'), s(), b('/enrolled-users/'), s()],
    () => [b('/group-quests/'), s(), b('/enrolled-users')],
    () => [b('/users/identify')],
    () => [b('/batch/points')],
    () => [b('/batch/points')],
    () => [b('/'), s(), b('/'), s()],
    () => [b(rng.pick(['/readyz', '/healthz', '/metrics', '*', '//batch/points', '/batch/points/', 'http://relay.fuzz/batch/points']))],
  ];
  const query = rng.chance(0.15)
    ? [b('?'), b(rng.pick(['limit=-1&offset=1e400', 'limit=%FF', 'offset=99999999999999999999', 'a=%ED%A0%80', 'limit=1&limit=2']))]
    : [];
  return Buffer.concat([...rng.pick(shapes)(), ...query]);
}

interface Built {
  head: Bytes;
  body: Bytes;
  framing: 'length' | 'chunked' | 'cut' | 'stall';
  describe: string;
}

function build(rng: Rng, tokens: string[]): Built {
  const method = rng.pick(['POST', 'POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'get', 'P0ST']);
  const target = path(rng);
  const payload =
    method === 'GET' || method === 'HEAD' ? (rng.chance(0.1) ? body(rng, target.toString('latin1')) : b('')) : body(rng, target.toString('latin1'));
  const headers: [string, Bytes][] = [['host', b('relay.fuzz')]];
  const token = () => b(`Bearer ${rng.pick(tokens)}`);
  const auth = rng.int(0, 9);
  if (auth <= 5) headers.push(['authorization', token()]);
  else if (auth === 6) headers.push(['authorization', token()], ['authorization', b(`Bearer ${rng.pick(tokens)}x`)]);
  else if (auth === 7) headers.push(['authorization', Buffer.concat([b('Bearer '), hostileText(rng)])]);
  else if (auth === 8) headers.push(['Authorization', token()], ['authorization', b('Basic dTE6cHc=')]);
  const type = () =>
    b(
      rng.pick([
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        '',
        'application/json, text/plain',
        'application/jsonx',
      ]),
    );
  const types = rng.int(0, 9);
  if (types <= 6) headers.push(['content-type', type()]);
  else if (types === 7) headers.push(['content-type', type()], ['content-type', type()]);
  else if (types === 8) headers.push(['content-type', Buffer.concat([b('application/json; charset='), hostileText(rng)])]);
  if (rng.chance(0.5)) headers.push([rng.pick(['IDEMPOTENCY_KEY', 'Idempotency-Key']), rng.chance(0.6) ? b(crypto.randomUUID()) : hostileText(rng)]);
  if (rng.chance(0.1)) headers.push(['IDEMPOTENCY_KEY', b(crypto.randomUUID())], ['Idempotency-Key', b(crypto.randomUUID())]);
  if (rng.chance(0.2)) headers.push(['origin', rng.chance(0.5) ? b(ORIGIN) : hostileText(rng)]);
  if (rng.chance(0.1)) headers.push(['x-request-id', hostileText(rng)]);
  if (rng.chance(0.05)) headers.push(['host', b('other.fuzz')]);
  if (rng.chance(0.05)) headers.push(['x-forwarded-for', hostileText(rng)]);
  if (rng.chance(0.02)) headers.push(['x-big', b('h'.repeat(20_000))]);
  const framing = rng.chance(0.7) ? 'length' : rng.chance(0.6) ? 'chunked' : rng.chance(0.95) ? 'cut' : 'stall';
  let wire = payload;
  if (framing === 'chunked' || (framing !== 'length' && rng.chance(0.5))) {
    headers.push(['transfer-encoding', b('chunked')]);
    const chunks: Bytes[] = [];
    for (let at = 0; at < payload.length; ) {
      const size = Math.min(payload.length - at, rng.int(1, 4096));
      chunks.push(b(`${size.toString(16)}\r\n`), payload.subarray(at, at + size), b('\r\n'));
      at += size;
    }
    wire = Buffer.concat([...chunks, b('0\r\n\r\n')]);
    if (rng.chance(0.05)) headers.push(['content-length', b(String(payload.length))]);
    if (rng.chance(0.03)) wire = Buffer.concat([b('zz\r\n'), wire]);
  } else {
    headers.push(['content-length', b(String(payload.length))]);
    if (rng.chance(0.04)) headers.push(['content-length', b(String(payload.length + 1))]);
  }
  headers.push(['connection', b('close')]);
  const head = Buffer.concat([
    b(`${method} `),
    target,
    b(' HTTP/1.1\r\n'),
    ...headers.map(([k, v]) => Buffer.concat([b(`${k}: `), v, b('\r\n')])),
    b('\r\n'),
  ]);
  // Cut and stalled requests send only part of what they announce.
  const sent = framing === 'cut' || framing === 'stall' ? wire.subarray(0, Math.max(0, Math.floor(wire.length * rng.next()) - 1)) : wire;
  const describe = `${framing} ${head.toString('latin1').slice(0, 160).replace(/\r\n/g, ' | ')} body ${sent.toString('latin1').slice(0, 80)}`;
  return { head, body: sent, framing, describe };
}

/** Sends one request; resolves with the status lines of the answers (none if cut). */
function send(port: number, request: Built): Promise<{ statuses: number[]; outcome: 'answered' | 'cut' | 'closed' | 'timeout' }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    const timer = setTimeout(() => {
      socket.destroy();
      finish('timeout');
    }, ANSWER_TIMEOUT_MS);
    let done = false;
    const finish = (outcome: 'answered' | 'cut' | 'closed' | 'timeout') => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const statuses = [...raw.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
      resolve({ statuses, outcome: outcome === 'closed' && statuses.length ? 'answered' : outcome });
    };
    socket.on('data', (chunk) => (raw += chunk.toString('latin1')));
    socket.on('error', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('connect', () => {
      socket.write(Buffer.concat([request.head, request.body]));
      if (request.framing === 'cut')
        setImmediate(() => {
          socket.destroy();
          finish('cut');
        });
    });
  });
}

async function startTarget(emulatorUrl: string): Promise<{ child: ChildProcess; url: string; memory(): Promise<NodeJS.MemoryUsage> }> {
  const options = {
    upstream: { url: emulatorUrl, apiKey: API_KEY },
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: POLICY,
    corsOrigins: [ORIGIN],
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    logger: undefined,
  };
  const child = fork(new URL('./fuzz-relay.ts', import.meta.url).pathname, [JSON.stringify(options)], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ t: string; url: string }];
  return {
    child,
    url: ready.url,
    async memory() {
      child.send('gc');
      const [answer] = (await once(child, 'message')) as [NodeJS.MemoryUsage];
      return answer;
    },
  };
}

export async function runWireFuzz({ seed, requests }: { seed: number; requests: number }): Promise<WireFuzzReport> {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0, apiKeys: [API_KEY] });
  const target = await startTarget(emulator.url);
  const port = Number(new URL(target.url).port);
  let crashed = false;
  target.child.once('exit', () => (crashed = true));
  const tokens = [
    await signPlayerToken({ sub: 'u1' }, { secret: SECRET, ttl: '1h' }),
    await signPlayerToken({ sub: 'u2', quests: ['q1'] }, { secret: SECRET, ttl: '1h' }),
    await signPlayerToken({ sub: 'admin-1', role: 'admin' }, { secret: SECRET, ttl: '1h' }),
    'a.b.c',
  ];
  const rng = createRng(seed);
  const report: WireFuzzReport = {
    requests: 0,
    ms: 0,
    statuses: {},
    failures: [],
    crashed: false,
    heapBaseline: 0,
    heapAfter: 0,
    rssBaseline: 0,
    rssAfter: 0,
  };
  const fail = (message: string) => report.failures.length < 50 && report.failures.push(message);
  const tally = (key: string) => (report.statuses[key] = (report.statuses[key] ?? 0) + 1);

  async function batch(count: number, record: boolean) {
    let next = 0;
    const worker = async () => {
      while (next < count && !crashed) {
        next++;
        const request = build(rng, tokens);
        const { statuses, outcome } = await send(port, request);
        if (!record) continue;
        report.requests++;
        tally(outcome === 'answered' ? String(statuses[0]) : outcome);
        if (statuses.includes(500)) fail(`500 for ${request.describe}`);
        if (outcome === 'timeout') fail(`no answer within ${ANSWER_TIMEOUT_MS} ms for ${request.describe}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 1_000));
  try {
    // Warm-up (code compiled, caches at their size), then the baseline.
    await batch(Math.min(2_000, Math.ceil(requests / 10)), false);
    await settle();
    const before = await target.memory();
    const started = performance.now();
    await batch(requests, true);
    report.ms = Math.round(performance.now() - started);
    await settle();
    if (!crashed) {
      const after = await target.memory();
      Object.assign(report, { heapBaseline: before.heapUsed, heapAfter: after.heapUsed, rssBaseline: before.rss, rssAfter: after.rss });
      // Still serving: a well-formed award goes through.
      const res = await fetch(`${target.url}/group-quests/q1/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: 'u1', eventPoints: 1, eventName: 'small' }),
      });
      if (res.status !== 200) fail(`after the run a valid award was answered ${res.status}`);
    }
  } finally {
    report.crashed = crashed;
    if (crashed) fail('the relay process exited during the run');
    if (!crashed) {
      target.child.kill('SIGTERM');
      await once(target.child, 'exit');
    }
    await emulator.close();
  }
  return report;
}

/** Heap after the run within 10 % (or 4 MB) of the baseline after the warm-up. */
export const heapBack = (r: WireFuzzReport) => r.heapAfter <= Math.max(r.heapBaseline * 1.1, r.heapBaseline + 4 * 1024 * 1024);
