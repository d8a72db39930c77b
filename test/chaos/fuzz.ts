import fc from 'fast-check';
import { fromMicro, toMicro } from '../../src/emulator/index.js';
import { signPlayerToken, type PlayerClaims, type RelayPolicy } from '../../src/relay/index.js';
import { API_KEY, OTHER_SECRET, SECRET } from '../helpers/fixtures.js';
import { inProcessStack } from '../helpers/stack.js';

// Fuzzing relay and emulator in-process (app.fetch): generated methods, headers, paths, queries, bodies and token
// shapes. Oracle: never a 500, never a thrown exception, every error a JSON { success: false, message }; no award
// a policy or the token forbids ever reaches the ledger; at the end total == sum(history) and one entry per key.

const ORIGIN = 'http://game.fuzz';
const QUESTS = ['q1', 'q2'];
const USERS = ['u1', 'u2', 'u3'];
/** The policy the oracle checks every ledger entry against (written out again below, independently of the relay). */
const POLICY: RelayPolicy = {
  quests: QUESTS,
  events: { small: { maxPoints: 10 }, fixed: { points: 5 }, penalty: { maxPoints: 3, allowNegative: true } },
  allowUnknownEvents: false,
  maxPointsPerAward: 10,
  rateLimits: {},
};

function policyAllows(questId: string, eventName: string, points: number): boolean {
  if (!QUESTS.includes(questId)) return false;
  if (points === 0 || !Number.isFinite(points) || Math.abs(points) > 10) return false;
  if (eventName === 'small') return points > 0 && points <= 10;
  if (eventName === 'fixed') return points === 5;
  if (eventName === 'penalty') return Math.abs(points) <= 3;
  return false;
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is written as the three bytes a careless client
 * would send (WTF-8, e.g. %ED%A0%80): such a path must be answered 4xx, not crash anything.
 */
function encodeSegment(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** The body every refusal carries: { success: false, message: <text, not empty> }. */
function isErrorBody(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { success, message } = value as { success?: unknown; message?: unknown };
  return success === false && typeof message === 'string' && message !== '';
}

/** Every token shape the fuzzer sends, with the claims a valid one carries (null: the relay must refuse it). */
async function tokenShapes(): Promise<{ token: string; claims: PlayerClaims | null }[]> {
  const sign = (claims: PlayerClaims, ttl: string | number = '1h', secret = SECRET) => signPlayerToken(claims, { secret, ttl });
  const valid: PlayerClaims[] = [
    { sub: 'u1' },
    { sub: 'u2', quests: ['q1'] },
    { sub: 'u3', quests: ['q2', 'q-not-in-policy'] },
    { sub: 'admin-1', role: 'admin' },
    { sub: 'u1', email: 'u1@example.com', wallet: { chain: 'ethereum', address: `0x${'ab'.repeat(20)}` } },
  ];
  const shapes: { token: string; claims: PlayerClaims | null }[] = [];
  for (const claims of valid) shapes.push({ token: await sign(claims), claims });
  const now = Math.floor(Date.now() / 1000);
  const good = await sign({ sub: 'u1' });
  const [h, p, s] = good.split('.') as [string, string, string];
  const refused = [
    await sign({ sub: 'u1' }, -60), // expired
    await sign({ sub: 'u1', role: 'admin' }, '1h', OTHER_SECRET), // forged: another secret
    `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', role: 'admin', exp: now + 3600 })}.`, // alg none
    `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', exp: now + 3600 })}.${s}`,
    `${b64({ alg: 'HS512', typ: 'JWT' })}.${p}.${s}`, // algorithm swapped
    `${h}.${b64({ sub: 'u2', role: 'admin', exp: now + 3600 })}.${s}`, // payload swapped, old signature
    `${h}.${p}.${s.slice(0, -2)}AA`, // signature tampered
    `${h}.${p}`, // two parts
    `${h}.${b64('not json')}.${s}`,
    '',
    'null',
    'a.b.c',
    'Bearer',
    `${h}.${p}.${s}.${s}`,
    'x'.repeat(10_000),
  ];
  for (const token of refused) shapes.push({ token, claims: null });
  return shapes;
}

export interface FuzzReport {
  requests: number;
  relayRequests: number;
  emulatorRequests: number;
  ms: number;
  statuses: Record<string, number>;
  /** Requests the fuzzer could not even build (an invalid header value or URL): not sent. */
  unbuildable: number;
  failures: string[];
  ledgerEntries: number;
}

const MAX_FAILURES = 50;

export async function runFuzz({ seed, requests }: { seed: number; requests: number }): Promise<FuzzReport> {
  // The emulator without its admin routes: the fuzzer's requests reach only what the service serves.
  const { emulator, relay } = inProcessStack({
    policy: POLICY,
    emulatorOptions: { admin: false },
    relayOptions: { corsOrigins: [ORIGIN], upstream: { url: 'http://service.fuzz', retryDelayMs: 0 } },
  });
  const { core } = emulator;
  const tokens = await tokenShapes();
  const report: FuzzReport = {
    requests: 0,
    relayRequests: 0,
    emulatorRequests: 0,
    ms: 0,
    statuses: {},
    unbuildable: 0,
    failures: [],
    ledgerEntries: 0,
  };
  const fail = (message: string) => report.failures.length < MAX_FAILURES && report.failures.push(message);

  // --- arbitraries ---
  // Full Unicode, lone UTF-16 surrogates included: "binary" strings hold any code unit, and a surrogate is spliced in
  // on purpose too (such text has no UTF-8 form; it once made encodeURIComponent throw inside the relay: a 500).
  const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
  const fullUnicode = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 16 }),
    fc.tuple(fc.string({ unit: 'binary', maxLength: 6 }), loneSurrogate, fc.string({ unit: 'binary', maxLength: 6 })).map((parts) => parts.join('')),
  );
  const hostile = fc.oneof(
    fc.string({ maxLength: 20 }),
    fullUnicode,
    fc.constantFrom('%ED%A0%80', '%ED%BF%BF', '%F0%9F', '%FF', '%C0%80'),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.constantFrom(
      '.',
      '..',
      '%2e',
      '%2E%2e',
      '..%2f',
      '%2F',
      '%00',
      '%ZZ',
      '%',
      '%C0%AE',
      '%E2%80%AE',
      'a b',
      '\\',
      '__proto__',
      'constructor',
      'user_not_enrolled',
      '?',
      '#',
    ),
    fc.constant('a'.repeat(5000)),
    fc.constant(''),
  );
  const quest = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUESTS, 'q-not-in-policy') }, { weight: 1, arbitrary: hostile });
  const user = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...USERS, 'admin-1') }, { weight: 1, arbitrary: hostile });
  const segment = (a: fc.Arbitrary<string>) =>
    a.map((s) => (/%/.test(s) || s === '.' || s === '..' ? s : fc.sample(fc.boolean(), 1)[0] ? encodeSegment(s) : s));
  const path = fc.oneof(
    fc.tuple(segment(quest)).map(([q]) => `/group-quests/${q}/points`),
    fc.tuple(segment(quest), segment(user)).map(([q, u]) => `/group-quests/${q}/points/${u}`),
    fc.tuple(segment(quest), segment(user)).map(([q, u]) => `/group-quests/${q}/enrolled-users/${u}`),
    fc.tuple(segment(quest)).map(([q]) => `/group-quests/${q}/enrolled-users`),
    fc.constant('/users/identify'),
    fc.constant('/batch/points'),
    fc.array(segment(hostile), { maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
    fc.constantFrom(
      '/group-quests/q1/points/../../users/identify',
      '/./group-quests/q1/points',
      '//group-quests//q1//points',
      '/GROUP-QUESTS/q1/points',
      '/group-quests/q1/points/',
    ),
  );
  const queryValue = fc.oneof(
    fc.integer({ min: -5, max: 1000 }).map(String),
    fc.constantFrom('', '1e3', '0x10', 'NaN', '1.5', '-0', '99999999999999999999'),
    fc.string({ maxLength: 8 }),
  );
  const query = fc.oneof(
    fc.constant(''),
    fc
      .record({ offset: queryValue, limit: queryValue }, { requiredKeys: [] })
      .map((q) => `?${new URLSearchParams(q as Record<string, string>).toString()}`),
    fc.string({ maxLength: 30 }).map((s) => `?${s}`),
  );
  const points = fc.oneof(
    fc.constantFrom(1, 5, 10, 3, -3, -1, 0, 0.5, 10.000001, 11, -4, 1e308, -1e308, 5e-324, 0.1),
    fc.double({ noNaN: true }),
    fc.constantFrom<unknown>('5', null, true, [], {}, '1e1'),
  );
  const eventName = fc.oneof(
    fc.constantFrom<unknown>(
      'small',
      'fixed',
      'penalty',
      'DefaultPointsEvent',
      'unknown',
      'constructor',
      '__proto__',
      'hasOwnProperty',
      undefined,
      null,
      5,
    ),
    fc.string({ maxLength: 10 }),
    fullUnicode,
  );
  const idKey = fc.oneof(
    fc.uuid(),
    fc.uuid().map((k) => k.toUpperCase()),
    fc.constantFrom('11111111-2222-4333-8444-555555555555', 'not-a-uuid', '', ' ', '{11111111-2222-4333-8444-555555555555}'),
    fc.string({ maxLength: 40 }),
  );
  const award = fc.record(
    {
      serviceUserId: fc.oneof(user, fc.constantFrom<unknown>(null, 7)),
      eventPoints: points,
      eventName,
      eventDescription: fc.oneof(fc.string({ maxLength: 20 }), fullUnicode, fc.constant('d'.repeat(3000))),
      extra: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ['serviceUserId', 'eventPoints'] },
  );
  const queued = fc.tuple(award, quest, idKey).map(([a, questId, idempotencyKey]) => ({ ...a, questId, idempotencyKey }));
  const body = fc.oneof(
    { weight: 5, arbitrary: award.map((a) => JSON.stringify(a)) },
    { weight: 3, arbitrary: fc.array(queued, { maxLength: 8 }).map((awards) => JSON.stringify({ awards })) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constant({ questId: 'q1', serviceUserId: 'u1', eventPoints: 1, eventName: 'small' }), { minLength: 101, maxLength: 102 })
        .map((a) => JSON.stringify({ awards: a.map((x) => ({ ...x, idempotencyKey: crypto.randomUUID() })) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.record({ email: fc.oneof(fc.emailAddress(), fc.string(), fullUnicode) }),
          fc.record({ wallet: fc.record({ address: fc.oneof(fc.string(), fullUnicode), chain: fc.oneof(fc.string(), fullUnicode) }) }),
          fc.record({ email: fc.emailAddress(), wallet: fc.constant({ address: '0x1', chain: 'c' }) }),
        )
        .map((b) => JSON.stringify(b)),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"serviceUserId":"u1","eventPoints":1',
        '\u0000',
        '{"a":1}{"b":2}',
        '['.repeat(5000),
        '"x"',
        'null',
        JSON.stringify({ serviceUserId: 'u1', eventPoints: 1, eventName: 'small', eventDescription: 'x'.repeat(20_000) }),
      ),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const contentType = fc.option(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'multipart/form-data; boundary=x',
      '',
    ),
    { nil: undefined },
  );
  const authorization = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .integer({ min: 0, max: tokens.length - 1 })
        .map((i) => ({ index: i, header: `Bearer ${tokens[i]!.token}` as string | undefined })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('Basic dTE6cHc=', 'Bearer', 'bearer  ', 'Token abc', '')
        .map((header) => ({ index: -1, header: header as string | undefined })),
    },
    { weight: 1, arbitrary: fc.constant({ index: -1, header: undefined as string | undefined }) },
  );
  const request = fc.record({
    target: fc.constantFrom('relay', 'relay', 'relay', 'emulator', 'emulator-no-key'),
    method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'FUZZ'),
    path,
    query,
    body,
    contentType,
    authorization,
    apiKey: fc.constantFrom<string | undefined>(API_KEY, API_KEY, 'wrong-key', '', API_KEY.toUpperCase(), undefined),
    idempotencyKey: fc.option(idKey, { nil: undefined }),
    ietfKey: fc.option(idKey, { nil: undefined }),
    origin: fc.constantFrom<string | undefined>(undefined, ORIGIN, 'http://evil.fuzz', 'null'),
  });

  // Mostly well-formed requests with a few fields drawn from the hostile pools: they reach the ledger, so the
  // bypass oracle has something to judge.
  const validIndexes = tokens.flatMap((t, i) => (t.claims ? [i] : []));
  const nearlyValid = fc
    .record({
      target: fc.constantFrom('relay', 'relay', 'emulator'),
      batch: fc.boolean(),
      quest: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...QUESTS) }, { weight: 1, arbitrary: quest }, { weight: 1, arbitrary: fullUnicode }),
      user: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...USERS, 'admin-1') },
        { weight: 1, arbitrary: user },
        { weight: 1, arbitrary: fullUnicode },
      ),
      eventName: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('small', 'fixed', 'penalty') }, { weight: 1, arbitrary: eventName }),
      points: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(1, 2, 5, 10, -1, -3, 0.25) }, { weight: 1, arbitrary: points }),
      key: fc.oneof(
        { weight: 5, arbitrary: fc.uuid({ version: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom('11111111-2222-4333-8444-555555555555') },
        { weight: 1, arbitrary: idKey },
      ),
      token: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...validIndexes) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: tokens.length - 1 }) },
      ),
      count: fc.integer({ min: 1, max: 4 }),
    })
    .map((v) => {
      const one = { serviceUserId: v.user, eventPoints: v.points, eventName: v.eventName, eventDescription: 'fuzz' };
      const asBatch = v.target === 'relay' && v.batch;
      return {
        target: v.target,
        method: 'POST',
        path: asBatch ? '/batch/points' : `/group-quests/${encodeSegment(v.quest)}/points`,
        query: '',
        body: JSON.stringify(
          asBatch
            ? { awards: Array.from({ length: v.count }, (_, i) => ({ ...one, questId: v.quest, idempotencyKey: i ? crypto.randomUUID() : v.key })) }
            : one,
        ),
        contentType: 'application/json',
        authorization: { index: v.token, header: `Bearer ${tokens[v.token]!.token}` as string | undefined },
        apiKey: API_KEY as string | undefined,
        idempotencyKey: asBatch ? undefined : (v.key as string | undefined),
        origin: undefined as string | undefined,
      };
    });

  // --- the run ---
  const started = performance.now();
  const samples = fc.sample(fc.oneof({ weight: 3, arbitrary: request }, { weight: 2, arbitrary: nearlyValid }), { seed, numRuns: requests });
  for (const r of samples) {
    const base = r.target === 'relay' ? 'http://relay.fuzz' : 'http://service.fuzz';
    let req: Request;
    try {
      const headers = new Headers();
      if (r.contentType !== undefined) headers.set('content-type', r.contentType);
      if (r.idempotencyKey !== undefined) headers.set('IDEMPOTENCY_KEY', r.idempotencyKey);
      if ('ietfKey' in r && r.ietfKey !== undefined) headers.set('Idempotency-Key', r.ietfKey);
      if (r.origin !== undefined) headers.set('origin', r.origin);
      if (r.target === 'relay' && r.authorization.header !== undefined) headers.set('authorization', r.authorization.header);
      if (r.target !== 'relay' && r.apiKey !== undefined && r.target === 'emulator') headers.set('API_KEY', r.apiKey);
      const hasBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
      req = new Request(base + r.path + r.query, { method: r.method, headers, ...(hasBody ? { body: r.body } : {}) });
    } catch {
      report.unbuildable++;
      continue;
    }
    const target = r.target === 'relay' ? relay : emulator.app;
    const before = core.ledger.entries().length;
    const describe = () =>
      `${r.target} ${r.method} ${(r.path + r.query).slice(0, 120)} auth=${r.authorization.index} key=${r.apiKey === API_KEY} body=${String(r.body).slice(0, 120)}`;
    let status = 0;
    try {
      const response = await target.fetch(req);
      status = response.status;
      const text = await response.text();
      if (status >= 500) fail(`${status} for ${describe()}: ${text.slice(0, 200)}`);
      if (r.method !== 'HEAD' && !(r.method === 'OPTIONS' && status === 204)) {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          fail(`${status} not JSON for ${describe()}: ${text.slice(0, 100)}`);
        }
        if (json && status >= 400 && !isErrorBody(json))
          fail(`${status} error body not { success: false, message } for ${describe()}: ${text.slice(0, 100)}`);
      }
    } catch (error) {
      fail(`threw for ${describe()}: ${(error as Error)?.stack?.split('\n').slice(0, 3).join(' ')}`);
    }
    report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    report.requests++;
    if (r.target === 'relay') report.relayRequests++;
    else report.emulatorRequests++;

    // No policy bypass: what this request added to the ledger, against who sent it.
    const added = core.ledger.entries().slice(before);
    if (!added.length) continue;
    const claims =
      r.target === 'relay'
        ? r.authorization.index >= 0
          ? tokens[r.authorization.index]!.claims
          : null
        : r.target === 'emulator' && r.apiKey === API_KEY
          ? 'api-key'
          : null;
    for (const e of added) {
      const points = fromMicro(e.micro);
      const what = `${e.questId}/${e.serviceUserId} ${e.eventName} ${points}`;
      if (claims === 'api-key') continue;
      if (claims === null) fail(`ledger entry ${what} from a request without valid credentials: ${describe()}`);
      else {
        if (claims.role !== 'admin' && e.serviceUserId !== claims.sub)
          fail(`ledger entry ${what} for another user than the token's ${claims.sub}: ${describe()}`);
        if (claims.role !== 'admin' && claims.quests && !claims.quests.includes(e.questId))
          fail(`ledger entry ${what} outside the token's quests: ${describe()}`);
        if (!policyAllows(e.questId, e.eventName, points)) fail(`ledger entry ${what} the policy forbids: ${describe()}`);
      }
    }
  }
  report.ms = Math.round(performance.now() - started);

  // Ledger invariants: every account's total == sum of its history (read back through the service), one entry per key.
  const entries = core.ledger.entries();
  report.ledgerEntries = entries.length;
  const keys = new Map<string, number>();
  for (const e of entries) if (e.idempotencyKey) keys.set(e.idempotencyKey, (keys.get(e.idempotencyKey) ?? 0) + 1);
  for (const [key, count] of keys) if (count > 1) fail(`idempotency key ${key} applied ${count} times`);
  const pairs = new Set(entries.map((e) => JSON.stringify([e.questId, e.serviceUserId])));
  for (const pair of pairs) {
    const [q, u] = JSON.parse(pair) as [string, string];
    const response = await emulator.app.fetch(
      new Request(`http://service.fuzz/group-quests/${encodeURIComponent(q)}/points/${encodeURIComponent(u)}`, { headers: { API_KEY } }),
    );
    const { data } = (await response.json()) as { data: { totalPoints: number; history: { eventPoints: number }[] } };
    // Summed exactly, in micro-points: a float sum of amounts up to 1e308 cancels catastrophically. Reported
    // amounts are JSON numbers, so beyond 2^53 micro-points each is rounded to 53 bits: the bound allows exactly
    // that (2^-50 of the magnitudes summed), which is 0 — an exact match — for every total below 10^9 points.
    const micro = data.history.map((h) => toMicro(h.eventPoints));
    const sum = micro.reduce((s, m) => s + m, 0n);
    const magnitude = micro.reduce((s, m) => s + (m < 0n ? -m : m), 0n);
    const diff = sum - toMicro(data.totalPoints);
    const expected = entries.filter((e) => e.questId === q && e.serviceUserId === u).length;
    if ((diff < 0n ? -diff : diff) > magnitude / 2n ** 50n) fail(`${q}/${u}: totalPoints ${data.totalPoints} != sum(history) ${fromMicro(sum)}`);
    if (data.history.length !== expected) fail(`${q}/${u}: history has ${data.history.length} entries, the ledger ${expected}`);
  }
  return report;
}
