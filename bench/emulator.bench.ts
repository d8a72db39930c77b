// npm run bench:emulator — awards/s through app.fetch in-process, and the time to serve a 100,000-event history.
// A benchmark, not a test: it prints figures (targets: >= 10,000 awards/s, <= 100 ms for 100k events).
import { Hono } from 'hono';
import { createEmulator, type EmulatorState } from '../src/emulator/index.js';
import { paths } from '../src/protocol/index.js';

const API_KEY = 'bench-key';
const AWARDS = 20_000;
const HISTORY_EVENTS = 100_000;

async function rate(count: number, make: (i: number) => Request, fetch: (r: Request) => Response | Promise<Response>) {
  // Warm-up, so the JIT has seen the path before timing.
  for (let i = 0; i < 500; i++) await (await fetch(make(-1 - i))).arrayBuffer();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const response = await fetch(make(i));
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`request ${i} answered ${response.status}`);
  }
  return count / ((performance.now() - started) / 1000);
}

const awardRequest = (i: number, key?: string) =>
  new Request(`http://emulator${paths.points('bench-quest')}`, {
    method: 'POST',
    headers: { API_KEY, 'content-type': 'application/json', ...(key ? { IDEMPOTENCY_KEY: key } : {}) },
    body: JSON.stringify({ serviceUserId: `user-${i % 1000}`, eventPoints: 1.5, eventName: 'Bench' }),
  });

function historyState(events: number): EmulatorState {
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  return {
    version: 1,
    ledger: Array.from({ length: events }, (_, i) => ({
      questId: 'q',
      serviceUserId: 'whale',
      createdAt: new Date(start + i).toISOString(),
      eventPoints: (i % 100) / 10,
      eventName: 'LevelComplete',
      eventDescription: `level ${i}`,
      idempotencyKey: null,
    })),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function runEmulatorBench(): Promise<Record<string, number | string>> {
  // Baselines in the same run: Hono answering a constant, and Hono parsing the same JSON body.
  const hello = new Hono().get('/', (c) => c.json({ success: true }));
  const helloPerSec = await rate(AWARDS, () => new Request('http://x/'), hello.fetch);
  const echo = new Hono().post('/p', async (c) => c.json({ success: true, got: (await c.req.json()) !== null }));
  const echoPerSec = await rate(
    AWARDS,
    () =>
      new Request('http://x/p', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"serviceUserId":"u","eventPoints":1.5}' }),
    echo.fetch,
  );

  const plain = createEmulator({ apiKeys: [API_KEY] });
  const awardsPerSec = await rate(AWARDS, (i) => awardRequest(i), plain.fetch);
  const keyed = createEmulator({ apiKeys: [API_KEY] });
  const keyedPerSec = await rate(AWARDS, (i) => awardRequest(i, crypto.randomUUID()), keyed.fetch);

  const built = performance.now();
  const whale = createEmulator({ apiKeys: [API_KEY], state: historyState(HISTORY_EVENTS) });
  const importMs = performance.now() - built;
  const read = async () => {
    const started = performance.now();
    const response = await whale.fetch(new Request(`http://emulator${paths.pointsOf('q', 'whale')}`, { headers: { API_KEY } }));
    const bytes = (await response.arrayBuffer()).byteLength;
    return { ms: performance.now() - started, bytes };
  };
  const cold = await read();
  const warm: number[] = [];
  for (let i = 0; i < 7; i++) warm.push((await read()).ms);

  return {
    'hono hello-world req/s': Math.round(helloPerSec),
    'hono JSON-body req/s': Math.round(echoPerSec),
    'emulator awards/s': Math.round(awardsPerSec),
    'emulator awards/s (IDEMPOTENCY_KEY)': Math.round(keyedPerSec),
    'awards / hello-world': Number((awardsPerSec / helloPerSec).toFixed(2)),
    'awards / JSON-body': Number((awardsPerSec / echoPerSec).toFixed(2)),
    'history 100k events, first read ms': Number(cold.ms.toFixed(1)),
    'history 100k events, median read ms': Number(median(warm).toFixed(1)),
    'history 100k events, MB': Number((cold.bytes / 1e6).toFixed(1)),
    'state import 100k events ms': Number(importMs.toFixed(0)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await runEmulatorBench();
  console.table(Object.entries(results).map(([figure, value]) => ({ figure, value })));
}
