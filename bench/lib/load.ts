// A closed-loop HTTP load generator: `concurrency` requests in flight on keep-alive connections (node:http), each
// timed from write to the last byte of its answer. Used for the relay, the bare proxy and their Redis variants alike.
import { Agent, request } from 'node:http';
import { percentile } from './stats.js';

export interface LoadRequest {
  /** Base URL of the server this request goes to (round-robin clients pick one per request). */
  url: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  requests: number;
  ms: number;
  /** Requests per second (times `units` when each request carries several awards). */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
  /** Answer bodies that are not a clean success (batches: any result other than ok), first few. */
  failures: string[];
  /** Awards the answers say were not delivered. */
  notOk: number;
}

function send(req: LoadRequest, agent: Agent, retried = false): Promise<{ status: number; text: string }> {
  const url = new URL(req.path, req.url);
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { ...req.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(req.body)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    // A server may close an idle keep-alive connection just as it is reused (between rounds): once more, fresh.
    r.on('error', (error: NodeJS.ErrnoException) => {
      if (r.reusedSocket && error.code === 'ECONNRESET' && !retried) send(req, agent, true).then(resolve, reject);
      else reject(error);
    });
    r.end(req.body);
  });
}

const tally = (units: number, okStatus: number) => {
  const statuses: Record<number, number> = {};
  const failures: string[] = [];
  let notOk = 0;
  return {
    statuses,
    failures,
    notOk: () => notOk,
    add(status: number, text: string) {
      statuses[status] = (statuses[status] ?? 0) + 1;
      // A batch answers 200 with one result per award: count the awards it did not deliver.
      const bad = status !== okStatus ? units : units > 1 ? (text.match(/"outcome":"(?!ok")/g)?.length ?? 0) : 0;
      if (bad) {
        notOk += bad;
        if (failures.length < 3) failures.push(`${status} ${text.slice(0, 200)}`);
      }
    },
  };
};

/**
 * Open loop: request i is due at start + i / rate, whether or not earlier ones were answered (a constant arrival
 * rate, as players arrive). Each latency is timed from when the request was due, not when it went out, so a
 * server that falls behind pays for its queue (no coordinated omission).
 */
export async function runOpenLoop(options: { rate: number; count: number; units?: number; make: (i: number) => LoadRequest }): Promise<LoadResult> {
  const { rate, count, units = 1, make } = options;
  // Bounded, like any client pool: past 256 open requests they wait in the agent's queue (and the wait is timed).
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = new Array(count);
  const seen = tally(units, 200);
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const req = make(i);
      inFlight.push(
        send(req, agent).then(
          ({ status, text }) => {
            latencies[i] = performance.now() - due;
            seen.add(status, text);
          },
          (error: Error) => {
            latencies[i] = performance.now() - due;
            seen.add(0, error.message);
          },
        ),
      );
    }
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
  }
  return loadResult(count, units, performance.now() - started, latencies, seen);
}

/** What a load run measured: `count` requests of `units` awards each in `ms`. */
function loadResult(count: number, units: number, ms: number, latencies: number[], seen: ReturnType<typeof tally>): LoadResult {
  return {
    requests: count,
    ms,
    perSecond: (count * units) / (ms / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    statuses: seen.statuses,
    failures: seen.failures,
    notOk: seen.notOk(),
  };
}

/** Sends requests 0..count-1 (`make(i)`), `concurrency` at a time. `units`: awards per request. */
export async function runLoad(options: {
  count: number;
  concurrency: number;
  units?: number;
  make: (i: number) => LoadRequest;
  okStatus?: number;
}): Promise<LoadResult> {
  const { count, concurrency, units = 1, make, okStatus = 200 } = options;
  // Connections of its own, closed at the end: one never sits idle between phases for a server to reset.
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = new Array(count);
  const seen = tally(units, okStatus);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const req = make(i);
      const t0 = performance.now();
      const { status, text } = await send(req, agent);
      latencies[i] = performance.now() - t0;
      seen.add(status, text);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } finally {
    agent.destroy();
  }
  return loadResult(count, units, performance.now() - started, latencies, seen);
}
