// The Unity package's browser side without Unity: its .jslib and .jspre linked by Debian's emscripten into a C
// harness that declares the C#'s externs (harness.c), run in Chromium against the dev relay and emulator on the
// page's origin. The harness plays C#: it calls the externs as IL2CPP does, copies and frees returned strings, and
// hands every event to the page. What the C# then reads is checked against its classes (sources.ts).
import type { Browser, Page } from 'playwright-core';
import { parse } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { startDevSite, withPage, type DevSite, type SiteFile } from '../helpers/dev-site.js';
import { ROOMY_POLICY } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { buildHarness, link, RELEASE_LEVELS } from './emscripten.js';
import { readFileSync } from 'node:fs';
import { dispatchCases, paths, preJsChange, serializableClasses } from './sources.js';

const QUEST = 'q-unity';
/** How long a condition may take: the machine running the suite is shared and slow. */
const WAIT_MS = 30_000;

// The page: Module hooks first (emscripten's output picks the object up), then the harness. `unity` is C#'s seat.
const PAGE = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>unity harness</title>
<script>
var Module = {
  harnessEvents: [],
  harnessEvent: function (handle, type, json) { Module.harnessEvents.push({ handle: handle, type: type, json: json }); },
  onRuntimeInitialized: function () { window.harnessReady = true; }
};
// How the game answers the SDK's 'token' event, per handle: { sub } fetches a dev token, { fail } refuses.
var tokenPlans = {};
var record = Module.harnessEvent;
Module.harnessEvent = function (handle, type, json) {
  record(handle, type, json);
  var plan = tokenPlans[handle];
  if (type !== 'token' || !plan) return;
  if (plan.fail) return unity.failToken(handle, plan.fail);
  fetch('/__dev/token?sub=' + plan.sub).then(function (r) { return r.json(); }).then(function (body) { unity.provideToken(handle, body.token); });
};
var call = function (name, returns, types, args) { return Module.ccall(name, returns, types, args); };
var unity = {
  // plan: how this game answers the SDK's 'token' event (set at once, as C# subscribes right after Create).
  create: function (config, plan) {
    var handle = call('hx_create', 'number', ['string'], [JSON.stringify(config)]);
    if (plan) tokenPlans[handle] = plan;
    return handle;
  },
  award: function (handle, points, name, description) {
    call('hx_award', null, ['number', 'number', 'string', 'string'], [handle, points, name, description]);
    return Module.harnessResult;
  },
  view: function (handle) { call('hx_view', null, ['number'], [handle]); return Module.harnessResult; },
  lastError: function () { call('hx_last_error', null, [], []); return Module.harnessResult; },
  flush: function (handle) { call('hx_flush', null, ['number'], [handle]); },
  provideToken: function (handle, token) { call('hx_provide_token', null, ['number', 'string'], [handle, token]); },
  failToken: function (handle, message) { call('hx_fail_token', null, ['number', 'string'], [handle, message]); },
  dispose: function (handle) { call('hx_dispose', null, ['number'], [handle]); },
  heap: function () { return { bytes: Module.HEAP8.buffer.byteLength, inUse: call('hx_heap_in_use', 'number', [], []) }; },
  events: function (handle, type) {
    return Module.harnessEvents
      .filter(function (e) { return e.handle === handle && (!type || e.type === type); })
      .map(function (e) { return { type: e.type, data: JSON.parse(e.json) }; });
  },
};
</script>
<script src="/harness.js"></script>`;

interface Event {
  type: string;
  data: Record<string, unknown>;
}
interface Unity {
  create(config: Record<string, unknown>, plan?: { sub?: string; fail?: string }): number;
  award(handle: number, points: number, name: string | null, description: string | null): string | null;
  view(handle: number): string | null;
  lastError(): string;
  flush(handle: number): void;
  dispose(handle: number): void;
  heap(): { bytes: number; inUse: number };
  events(handle: number, type?: string): Event[];
}

/** Runs fn(unity, arg) in the page (fn is sent as source: it sees only its arguments and the page's globals). */
function drive<R, A = undefined>(page: Page, fn: (unity: Unity, arg: A) => R | Promise<R>, arg?: A): Promise<R> {
  return page.evaluate(
    ([source, a]) => new Function('unity', 'arg', `return (${source})(unity, arg)`)((window as unknown as { unity: Unity }).unity, a),
    [fn.toString(), arg] as const,
  );
}

/** What C#'s JsonUtility.ToJson(new QuestPointsConfig { ... }) writes: every field, unset ones at their defaults. */
function config(fields: Record<string, unknown>): Record<string, unknown> {
  const all = {
    relayUrl: '/api',
    tokenUrl: '',
    questId: QUEST,
    serviceUserId: '',
    storageName: '',
    historyLimit: 0,
    hud: false,
    hudPosition: '',
    ...fields,
  };
  expect(Object.keys(all)).toEqual(serializableClasses().get('QuestPointsConfig'));
  return all;
}

/** Every payload has exactly the fields of the C# class its event type is read as (and history entries too). */
function expectReadableByCSharp(events: Event[]) {
  const cases = dispatchCases();
  const classes = serializableClasses();
  const fields = (name: string) => [...classes.get(name)!].sort();
  for (const { type, data } of events) {
    const name = cases.get(type);
    expect(name, `C# has no case for "${type}"`).not.toBeUndefined();
    if (name === null) continue;
    expect(Object.keys(data).sort(), `${type} -> ${name}`).toEqual(fields(name!));
    if (type === 'points') for (const entry of data.history as object[]) expect(Object.keys(entry).sort()).toEqual(fields('HistoryEntry'));
  }
}

let site: DevSite;
let browser: Browser;
const files = new Map<string, SiteFile>([['/unity.html', { type: 'text/html', body: PAGE }]]);

beforeAll(async () => {
  const [{ script, compileMs }, started, launched] = await Promise.all([
    buildHarness(),
    startDevSite(files, { policy: ROOMY_POLICY }),
    launchChromium(),
  ]);
  console.info(compileMs ? `emcc: the harness compiled in ${Math.round(compileMs)} ms` : 'emcc: the harness came from the cache');
  files.set('/harness.js', { type: 'text/javascript', body: script });
  [site, browser] = [started, launched];
}, 180_000);

// Unity's release builds run emscripten's JS optimiser over the .jspre at -O2, -O3 or -Oz; it must come out meaning
// the same at each. -O3 and -Oz turn "use strict" directives into `null;`: the build makes the SDK strict with a class
// instead (scripts/build-global.mjs), so no directive is there to lose.
describe("emscripten's JS optimiser at Unity's release levels", () => {
  const jspre = () => readFileSync(paths.jspre, 'utf8');

  it.each(RELEASE_LEVELS)(
    '%s keeps the carried SDK as it is, strict mode included',
    async (level) => {
      const script = level === '-O2' ? String(files.get('/harness.js')!.body) : (await buildHarness(level)).script;
      expect(preJsChange(script, jspre())).toBeNull();
    },
    120_000,
  );

  it('the SDK is strict code without a directive: all of it is the body of a class’s method', () => {
    const program = parse(jspre(), { ecmaVersion: 2017 }) as unknown as { body: { type: string; expression?: Record<string, never> }[] };
    expect(program.body).toHaveLength(1);
    const call = program.body[0]!.expression as unknown as { callee: { object: { type: string } } };
    expect(call.callee.object.type).toBe('ClassExpression');
    expect(jspre()).not.toContain('use strict');
  });

  it('the checks catch what they are for: -O2 mangles destructuring (emscripten #18373), -O3 drops a directive', async () => {
    const main = 'int main(void) { return 0; }\n';
    const destructuring = 'globalThis.pairs = function (r) { var out = []; for (const [k, v] of Object.entries(r)) out.push(k + v); return out; };\n';
    const { script: mangled } = await link('destructuring', { c: main, preJs: destructuring });
    expect(preJsChange(mangled, destructuring)).not.toBeNull();
    const directive = '(function () { "use strict"; globalThis.strict = this === undefined; })();\n';
    const { script: dropped } = await link('directive', { c: main, preJs: directive }, '-O3');
    expect(preJsChange(dropped, directive)).not.toBeNull();
  }, 120_000);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

/** A fresh context's page with the harness loaded; errors collected. */
const withHarness = (run: (page: Page, errors: string[]) => Promise<void>) =>
  withPage(browser, async (page, errors) => {
    await open(page);
    await run(page, errors);
  });

async function open(page: Page) {
  await page.goto(`${site.url}/unity.html`);
  await page.waitForFunction(() => 'harnessReady' in window, undefined, { timeout: 30_000 });
}

const sentKeys = (page: Page, handle: number) => drive(page, (u, h) => u.events(h, 'sent').map((e) => e.data.idempotencyKey as string), handle);

it('delivers each award once and returns its key; the events come back as the C# classes read them; UTF-8 both ways', async () => {
  await withHarness(async (page, errors) => {
    const sub = 'unity-a';
    const handle = await drive(page, (u, c) => u.create(c), config({ tokenUrl: `/__dev/token?sub=${sub}`, serviceUserId: sub, hud: true }));
    expect(handle).toBeGreaterThan(0);
    const keys = await drive(
      page,
      (u, h) => [u.award(h, 5, 'quest-é★', 'desc ★ é 日本'), u.award(h, 2.5, null, null), u.award(h, -1, 'penalty', '')],
      handle,
    );
    for (const key of keys) expect(key).toMatch(/^[0-9a-f-]{36}$/);
    // The third is refused by the relay's policy (an unknown event may not deduct): AwardRejected, not AwardSent.
    const rejected = await until(() => drive(page, (u, h) => u.events(h, 'rejected')[0]?.data, handle), 'AwardRejected', WAIT_MS);
    expect(rejected).toMatchObject({
      idempotencyKey: keys[2],
      status: 422,
      code: 'policy',
      message: expect.stringMatching(/negative/),
      eventName: 'penalty',
    });
    await until(async () => (await sentKeys(page, handle)).length === 2, 'two AwardSent events', WAIT_MS);
    expect((await sentKeys(page, handle)).sort()).toEqual([keys[0], keys[1]].sort());

    const ledger = await site.ledgerOf(sub);
    expect(ledger.map(({ questId, eventPoints, eventName, eventDescription }) => ({ questId, eventPoints, eventName, eventDescription }))).toEqual([
      { questId: QUEST, eventPoints: 5, eventName: 'quest-é★', eventDescription: 'desc ★ é 日本' },
      { questId: QUEST, eventPoints: 2.5, eventName: 'DefaultPointsEvent', eventDescription: '' },
    ]);

    // PointsChanged reaches the total, with the history entry of each key and the UTF-8 text intact.
    const view = await until(
      async () => {
        const points = await drive(page, (u, h) => u.events(h, 'points'), handle);
        const last = points.at(-1)?.data as
          | { totalPoints: number; history: { idempotencyKey: string; eventName: string; eventDescription: string; state: string }[] }
          | undefined;
        return last?.totalPoints === 7.5 && last.history.length === 2 ? last : undefined;
      },
      'a PointsChanged with the total 7.5',
      WAIT_MS,
    );
    const first = view.history.find((entry) => entry.eventName === 'quest-é★')!;
    expect(first.eventDescription).toBe('desc ★ é 日本');
    expect(['sent', 'confirmed']).toContain(first.state);
    const events = await drive(page, (u, h) => u.events(h), handle);
    expect(events.filter((e) => e.type === 'connection').at(-1)?.data).toEqual({ online: true });
    expect(events.filter((e) => e.type === 'queue').at(-1)?.data).toEqual({ queueSize: 0 });
    expectReadableByCSharp(events);
    // The Points property: the view now, as JSON C# reads.
    const now = JSON.parse((await drive(page, (u, h) => u.view(h), handle))!) as { totalPoints: number };
    expect(now.totalPoints).toBe(7.5);
    expectReadableByCSharp([{ type: 'points', data: now as unknown as Record<string, unknown> }]);
    // The HUD (config.hud) over the page shows the total.
    await until(() => page.evaluate(() => document.querySelector('quest-points-hud')?.total === 7.5), 'the HUD to show 7.5', WAIT_MS);

    // A refused award: no key, and LastError says which field and why (C# throws QuestPointsException from it).
    expect(await drive(page, (u, h) => u.award(h, Number.NaN, 'nan', null), handle)).toBeNull();
    expect(JSON.parse(await drive(page, (u) => u.lastError()))).toEqual({
      code: 'invalid',
      field: 'eventPoints',
      message: 'eventPoints must be a number',
    });
    expect(errors).toEqual([]);
  });
}, 120_000);

it('asks C# for a token when the config has none; FailToken pauses sending with AuthRequired; Dispose ends events and awards', async () => {
  await withHarness(async (page, errors) => {
    const signedIn = await drive(page, (u, c) => u.create(c, { sub: 'unity-b' }), config({ serviceUserId: 'unity-b', storageName: 'signed-in' }));
    const key = await drive(page, (u, h) => u.award(h, 3, 'token-from-csharp', null), signedIn);
    await until(async () => (await sentKeys(page, signedIn)).includes(key!), 'the award sent with the token C# provided', WAIT_MS);
    expect(await drive(page, (u, h) => u.events(h, 'token').length, signedIn)).toBe(1);
    expect((await site.ledgerOf('unity-b')).map((entry) => entry.eventName)).toEqual(['token-from-csharp']);

    const signedOut = await drive(
      page,
      (u, c) => u.create(c, { fail: 'not signed in' }),
      config({ serviceUserId: 'unity-c', storageName: 'signed-out' }),
    );
    await drive(page, (u, h) => u.award(h, 4, 'waits-for-sign-in', null), signedOut);
    const auth = await until(() => drive(page, (u, h) => u.events(h, 'auth')[0]?.data, signedOut), 'AuthRequired', WAIT_MS);
    expect(auth).toEqual({ message: expect.stringContaining('not signed in') });
    expect(await drive(page, (u, h) => u.events(h, 'queue').at(-1)?.data, signedOut)).toEqual({ queueSize: 1 });
    expect(await site.ledgerOf('unity-c')).toEqual([]);

    await drive(page, (u, h) => u.dispose(h), signedOut);
    const seen = await drive(page, (u, h) => u.events(h).length, signedOut);
    expect(await drive(page, (u, h) => u.award(h, 1, 'after-dispose', null), signedOut)).toBeNull();
    expect(JSON.parse(await drive(page, (u) => u.lastError()))).toMatchObject({ code: 'closed' });
    expect(await drive(page, (u, h) => u.view(h), signedOut)).toBeNull();
    await drive(page, (u, h) => u.flush(h), signedIn);
    await drive(page, (u, h) => u.dispose(h), signedIn);
    expect(await drive(page, (u, h) => u.events(h).length, signedOut)).toBe(seen);
    expect(errors).toEqual([]);
  });
}, 120_000);

it('an award made offline survives a reload and is delivered once by the next page', async () => {
  await withHarness(async (page, errors) => {
    const sub = 'unity-offline';
    const settings = config({ tokenUrl: `/__dev/token?sub=${sub}`, serviceUserId: sub, storageName: 'offline' });
    let reached = 0;
    await page.route('**/api/**', (route) => {
      reached++;
      return route.abort('internetdisconnected');
    });
    const handle = await drive(page, (u, c) => u.create(c), settings);
    const key = (await drive(page, (u, h) => u.award(h, 9, 'offline-award', null), handle))!;
    await until(() => reached > 0, 'a send attempt that fails', WAIT_MS);
    // The outbox holds it in IndexedDB (read without the SDK) before the page goes away. The database is opened only
    // once it exists: opening it first would create it empty, under the SDK's feet.
    await until(
      () =>
        page.evaluate(async (wanted) => {
          if (!(await indexedDB.databases()).some((db) => db.name === 'offline:outbox')) return false;
          return new Promise<boolean>((resolve) => {
            const request = indexedDB.open('offline:outbox');
            request.onsuccess = () => {
              const db = request.result;
              if (!db.objectStoreNames.contains('kv')) return resolve(Boolean(db.close()));
              const all = db.transaction('kv', 'readonly').objectStore('kv').getAll();
              all.onsuccess = () => {
                db.close();
                resolve((all.result as { idempotencyKey: string }[]).some((award) => award.idempotencyKey === wanted));
              };
            };
            request.onerror = () => resolve(false);
          });
        }, key),
      'the award in the IndexedDB outbox',
      WAIT_MS,
    );
    expect(await site.ledgerOf(sub)).toEqual([]);

    // The routing stays through the reload: lifted before it, the page's next retry could deliver the award before the
    // page went away (a loaded run did), and the next page would have nothing left to send.
    const before = reached;
    await open(page);
    const next = await drive(page, (u, c) => u.create(c), settings);
    await until(() => reached > before, "the next page's first attempt", WAIT_MS);
    await page.unroute('**/api/**');
    await until(async () => (await sentKeys(page, next)).includes(key), 'the next page sending the offline award', WAIT_MS);
    await drive(page, (u, h) => u.flush(h), next);
    const ledger = await site.ledgerOf(sub);
    expect(ledger.map((entry) => [entry.eventName, entry.eventPoints])).toEqual([['offline-award', 9]]);
    expect(errors.filter((error) => !/ERR_INTERNET_DISCONNECTED/.test(error))).toEqual([]);
  });
}, 120_000);

it('10,000 events through the callbacks leave the wasm heap as it was: every string the .jslib allocates is freed', async () => {
  await withHarness(async (page, errors) => {
    const sub = 'unity-memory';
    const handle = await drive(
      page,
      (u, c) => u.create(c),
      config({ tokenUrl: `/__dev/token?sub=${sub}`, serviceUserId: sub, storageName: 'memory' }),
    );
    // From here on, events are counted, not kept (C# copies each string and lets it go).
    await page.evaluate(() => {
      const state = { events: 0, sent: 0 };
      Object.assign(window, { memory: state });
      const module = (window as unknown as { Module: { harnessEvent: (handle: number, type: string, json: string) => void } }).Module;
      module.harnessEvent = (_handle, type) => {
        state.events++;
        if (type === 'sent') state.sent++;
      };
    });
    const counts = () => page.evaluate(() => (window as unknown as { memory: { events: number; sent: number } }).memory);
    const awardMany = (count: number) =>
      drive(
        page,
        (u, [h, n]) => {
          for (let i = 0; i < n; i++) if (!u.award(h, 1, 'memory', null)) throw new Error(u.lastError());
        },
        [handle, count] as const,
      );
    // Warm-up: the allocator reaches its working size (the largest points JSON: a full history).
    await awardMany(200);
    await until(async () => (await counts()).sent === 200, 'the warm-up awards sent', 60_000);
    const before = await drive(page, (u) => u.heap());
    const start = await counts();
    let awarded = 200;
    while ((await counts()).events - start.events < 10_000) {
      await awardMany(1000);
      awarded += 1000;
      await until(async () => (await counts()).sent === awarded, `${awarded} awards sent`, 120_000);
    }
    const after = await drive(page, (u) => u.heap());
    const total = (await counts()).events - start.events;
    console.info(
      `Unity bridge memory: ${total} events (${awarded - 200} awards): wasm heap ${before.bytes} -> ${after.bytes} B, malloc in use ${before.inUse} -> ${after.inUse} B`,
    );
    expect(total).toBeGreaterThanOrEqual(10_000);
    expect(after).toEqual(before);
    expect((await site.ledgerOf(sub)).length).toBe(awarded);
    expect(errors).toEqual([]);
  });
}, 300_000);
