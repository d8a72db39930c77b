// The benchmark page, bundled by esbuild with the SDK and served by bench/browser/server.ts. Every figure is timed
// here, in the page, with performance.now(); the Node side only drives the phases (page.evaluate) and checks results.
import { createStore, promisifyRequest, set, setMany, type UseStore } from 'idb-keyval';
import { createQuestPoints, type AwardInput, type PendingAward, type QuestPoints, type QuestPointsOptions } from '../../src/client/index.js';
import { paths } from '../../src/protocol/paths.js';

export interface PageSetup {
  /** A player token for the relay mounted at /api. */
  token: string;
  serviceUserId: string;
}

/** Everything the page offers the runner, as window.qpBench. */
export type PageBench = typeof bench;

let setup: PageSetup = { token: '', serviceUserId: '' };
/** The offline switch: while true the SDK's fetch fails as a dropped network does, so awards stay queued. */
let offline = false;
const gatedFetch: typeof fetch = (input, init) =>
  offline ? Promise.reject(new TypeError('Failed to fetch (bench offline switch)')) : fetch(input, init);

/** Yield to the event loop (a task, not a microtask), without setTimeout's 4 ms clamp. */
const nextTask = () =>
  new Promise<void>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const awardInput = (i: number): AwardInput => ({ eventPoints: 1, eventName: 'Bench', eventDescription: `bench award ${i}` });

function client(storageName: string, questId: string, extra: Partial<QuestPointsOptions> = {}): QuestPoints {
  return createQuestPoints({
    relayUrl: '/api',
    getToken: () => setup.token,
    questId,
    serviceUserId: setup.serviceUserId,
    storageName,
    // The default cap (10,000) would refuse the awards the bench queues on top of 10,000.
    maxQueue: 1_000_000,
    fetch: gatedFetch,
    // While the switch is off the first failed flush backs off far beyond the phase, so no retry reloads the outbox
    // in the middle of a measurement; flush() ignores the backoff when the phase goes online.
    backoff: { baseMs: 1e9, maxMs: 1e9 },
    pollIntervalMs: 3_600_000,
    ...extra,
  });
}

/** The SDK's outbox database (docs/sdk.md: `${storageName}:outbox`, one idb-keyval store named 'kv'). */
const outboxDb = (storageName: string) => `${storageName}:outbox`;
const stores = new Map<string, UseStore>();
const storeOf = (db: string) => stores.get(db) ?? stores.set(db, createStore(db, 'kv')).get(db)!;
const countOf = (db: string) => storeOf(db)('readonly', (s) => promisifyRequest(s.count()));

/**
 * Resolves with performance.now() once `db` holds at least n records. A read transaction waits for the write
 * transactions queued before it on the same store, so back-to-back counts see each commit as it lands.
 */
async function durableAt(db: string, n: number, timeoutMs = 120_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const count = await countOf(db);
    const now = performance.now();
    if (count >= n) return now;
    if (now > deadline) throw new Error(`${db}: ${count} of ${n} records durable after ${timeoutMs} ms`);
  }
}

/** A ready client: its database exists and start-up (reload of an earlier outbox) is done. */
async function ready(storageName: string, questId: string, extra?: Partial<QuestPointsOptions>) {
  const qp = client(storageName, questId, extra);
  await qp.pending();
  return qp;
}

/** Queue n awards while offline, a thousand per task, and wait until all are in IndexedDB. */
async function prefill(qp: QuestPoints, storageName: string, n: number) {
  for (let i = 0; i < n; i += 1000) {
    for (let j = i; j < Math.min(n, i + 1000); j++) qp.award(awardInput(j));
    await nextTask();
  }
  await durableAt(outboxDb(storageName), n);
}

/**
 * Figure 6: the synchronous cost of award() (ms each) for each level of awards already durable in the outbox. One
 * client per level, prefilled first; then the levels take turns, `perTask` timed calls each, so machine noise
 * (GC, other processes) falls on every level alike.
 */
async function awardCost({ levels, samples, perTask }: { levels: number[]; samples: number; perTask: number }) {
  offline = true;
  const clients: { qp: QuestPoints; name: string; queued: number; times: number[] }[] = [];
  for (const queued of levels) {
    const name = `bench-cost-${queued}-${Date.now()}`;
    const qp = await ready(name, 'bench-cost');
    await prefill(qp, name, queued);
    clients.push({ qp, name, queued, times: [] });
  }
  await sleep(100);
  for (let i = 0; i < samples; i += perTask)
    for (const { qp, times } of clients) {
      for (let j = i; j < Math.min(samples, i + perTask); j++) {
        const input = awardInput(j);
        const started = performance.now();
        qp.award(input);
        times.push(performance.now() - started);
      }
      // A game awards a few times per frame, not thousands per task: let each group commit like a frame would.
      await nextTask();
    }
  for (const { qp, name, queued } of clients) {
    await durableAt(outboxDb(name), queued + samples);
    await qp.close();
  }
  return clients.map((c) => c.times);
}

/** What a naive writer pays per call: the synchronous cost of idb-keyval set() of the same record (ms each). */
async function setCost({ samples, perTask }: { samples: number; perTask: number }) {
  const db = `bench-setcost-${Date.now()}`;
  const store = storeOf(db);
  await countOf(db); // creates the database outside the timing
  const times: number[] = [];
  const writes: Promise<void>[] = [];
  for (let i = 0; i < samples; i++) {
    const rec = record(i, 'bench-cost');
    const started = performance.now();
    writes.push(set(rec.idempotencyKey, rec, store));
    times.push(performance.now() - started);
    if (i % perTask === perTask - 1) await nextTask();
  }
  await Promise.all(writes);
  return times;
}

let seq = 0;
function record(i: number, questId: string): PendingAward {
  return {
    questId,
    serviceUserId: setup.serviceUserId,
    ...awardInput(i),
    eventName: 'Bench',
    idempotencyKey: crypto.randomUUID(),
    queuedAt: Date.now(),
    seq: ++seq,
  };
}

/** Clients kept from the burst for the drain: their outboxes hold the burst's awards. */
const kept = new Map<string, QuestPoints>();

/** Figure 7, ours: `count` award() calls in one task, until IndexedDB holds all of them. Offline, so none leaves. */
async function burst({ count, questId, label, keep }: { count: number; questId: string; label: string; keep: boolean }) {
  offline = true;
  const name = `bench-burst-${label}`;
  const qp = await ready(name, questId);
  const inputs = Array.from({ length: count }, (_, i) => awardInput(i));
  const handles: ReturnType<QuestPoints['award']>[] = [];
  const started = performance.now();
  for (const input of inputs) handles.push(qp.award(input));
  const issuedMs = performance.now() - started;
  // The SDK's own signal (AwardHandle.persisted), watched alongside the independent read-back below.
  const signalled = Promise.all(handles.map((h) => h.persisted)).then((all) => ({ at: performance.now(), all: all.every(Boolean) }));
  const durable = await durableAt(outboxDb(name), count);
  const signal = await signalled;
  if (!signal.all) throw new Error('persisted resolved false: the SDK fell back to memory');
  if (keep) kept.set(label, qp);
  else await qp.close();
  return { ms: durable - started, issuedMs, persistedMs: signal.at - started };
}

/** Figure 7, baseline: the same records, each put in its own readwrite transaction (idb-keyval set per award). */
async function baselineBurst({ count, questId, label }: { count: number; questId: string; label: string }) {
  const db = `bench-baseline-${label}`;
  const store = storeOf(db);
  await countOf(db); // creates the database and store outside the timing, as ready() does for ours
  const started = performance.now();
  const writes: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const rec = record(i, questId);
    writes.push(set(rec.idempotencyKey, rec, store));
  }
  const issuedMs = performance.now() - started;
  await Promise.all(writes);
  const durable = await durableAt(db, count);
  return { ms: durable - started, issuedMs };
}

/**
 * Figure 7, the floor under ours: the same records in one transaction with no SDK around it (idb-keyval setMany,
 * the call the outbox makes). What IndexedDB itself costs for one record per award.
 */
async function floorBurst({ count, questId, label }: { count: number; questId: string; label: string }) {
  const db = `bench-floor-${label}`;
  await countOf(db);
  // A task of its own: idb-keyval's count auto-commits only when the task that got its answer ends, and until then
  // the setMany below could not start writing (a Chrome trace: its 10,000 puts queued, the first written at 207 ms).
  // That delay is this setup's, not IndexedDB's; the SDK's own reads commit at once (src/client/store.ts).
  await nextTask();
  const started = performance.now();
  const records = Array.from({ length: count }, (_, i) => record(i, questId));
  await setMany(
    records.map((rec) => [rec.idempotencyKey, rec]),
    storeOf(db),
  );
  const durable = await durableAt(db, count);
  return { ms: durable - started };
}

/** Figure 2, ours: the burst's outbox delivered by the SDK (batches through /api/batch/points) until it is empty. */
async function drain({ label }: { label: string }) {
  const qp = kept.get(label);
  if (!qp) throw new Error(`no burst kept under ${label}`);
  const queued = qp.getSnapshot().queueSize;
  // The flusher reads the store once per drain: what that read costs with the whole queue in it.
  const reread = performance.now();
  await qp.pending();
  const rereadMs = performance.now() - reread;
  offline = false;
  let retries = 0;
  qp.on('award:retrying', () => retries++);
  const started = performance.now();
  // flush() ends an attempt early only on a retry or auth pause; try again (ignoring backoff) until empty.
  for (let attempt = 0; qp.getSnapshot().queueSize > 0; attempt++) {
    if (attempt > 50) throw new Error(`drain stuck with ${qp.getSnapshot().queueSize} awards queued`);
    await qp.flush();
  }
  const ms = performance.now() - started;
  const dead = (await qp.deadLetters()).length;
  await qp.close();
  kept.delete(label);
  return { ms, queued, retries, dead, rereadMs };
}

/**
 * Figure 2, the floor under ours: the same number of awards posted by hand as 100-award batches to
 * /api/batch/points, in sequence, with no SDK and no IndexedDB. What the relay path itself allows.
 */
async function floorDrain({ count, questId, batch }: { count: number; questId: string; batch: number }) {
  const records = Array.from({ length: count }, (_, i) => record(i, questId));
  const started = performance.now();
  let failed = 0;
  for (let i = 0; i < records.length; i += batch) {
    const awards = records.slice(i, i + batch).map(({ queuedAt, seq, ...wire }) => wire);
    const response = await fetch(`/api${paths.batch()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ awards }),
    });
    const body = (await response.json()) as { results?: { outcome: string }[] };
    failed += body.results?.filter((r) => r.outcome !== 'ok').length ?? awards.length;
  }
  return { ms: performance.now() - started, failed };
}

/**
 * Figure 7: a requestAnimationFrame loop for `seconds`; counts frame-to-frame deltas over 16.7 ms (rAF timestamps,
 * which mark each frame's start). With `sdk`, every frame awards once and the SDK flushes to the relay as it would
 * in a game (default flush delay and backoff).
 */
async function frames({ seconds, sdk }: { seconds: number; sdk: boolean }) {
  offline = false;
  const name = `bench-frames-${Date.now()}`;
  const qp = sdk ? await ready(name, 'bench-frames', { backoff: undefined, pollIntervalMs: undefined }) : undefined;
  await sleep(200);
  const deltas: number[] = [];
  await new Promise<void>((resolve) => {
    let first: number | undefined;
    let last = 0;
    const step = (ts: number) => {
      if (first === undefined) first = ts;
      else deltas.push(ts - last);
      last = ts;
      qp?.award(awardInput(deltas.length));
      if (ts - first < seconds * 1000) requestAnimationFrame(step);
      else resolve();
    };
    requestAnimationFrame(step);
  });
  let unsent = 0;
  if (qp) {
    await qp.flush();
    unsent = qp.getSnapshot().queueSize;
    await qp.close();
  }
  return { deltas, unsent };
}

const bench = {
  configure: (s: PageSetup) => {
    setup = s;
  },
  crossOriginIsolated: () => globalThis.crossOriginIsolated === true,
  awardCost,
  setCost,
  burst,
  baselineBurst,
  floorBurst,
  drain,
  floorDrain,
  frames,
};

(globalThis as unknown as { qpBench: PageBench }).qpBench = bench;
