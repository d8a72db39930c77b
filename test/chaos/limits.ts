// Shared per-player limits, measured from outside the relays. The windows are Redis's own: a watcher reads each
// player's counter key (GET + PTTL) every 25 ms, so it sees every fixed window the relays counted in (start = end -
// window length) and loses the ones a Redis crash took. What went through is the service's side: the first time
// each award's key reached the service (the relay sends an award right after counting it; its own same-key retries
// and the SDK's resends are not first arrivals). A window of limit L may hold at most L first arrivals, whichever
// relay counted them. A Redis outage is the documented exception: with onStoreError 'open' every relay lets
// awards through uncounted until it is connected again, so those are measured apart, per outage and player.
import { createClient } from 'redis';
import { counterKey } from '../../src/relay/counter-store.js';

export interface LimitWindow {
  sub: string;
  start: number;
  end: number;
  /** The highest count the watcher read in it (hits, refused ones included). */
  hits: number;
}

export interface WindowWatcher {
  windows: LimitWindow[];
  stop(): Promise<void>;
}

const POLL_MS = 25;

export function watchWindows(url: string, subs: string[], windowMs: number): WindowWatcher {
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: () => 50, connectTimeout: 1_000 } });
  client.on('error', () => {});
  const windows: LimitWindow[] = [];
  const current = new Map<string, LimitWindow>();
  let stopped = false;
  const connected = client.connect().catch(() => undefined);
  const poll = async () => {
    for (const sub of subs) {
      const key = counterKey('perPlayer', sub);
      const [count, pttl] = (await client.multi().get(key).pTTL(key).exec()) as unknown as [string | null, number];
      const now = Date.now();
      if (!count || pttl <= 0) continue;
      const end = now + pttl;
      const window = current.get(sub);
      // The same window read again ends at the same moment (give or take the read's own latency).
      if (window && Math.abs(window.end - end) < 40) {
        window.hits = Math.max(window.hits, Number(count));
        continue;
      }
      const opened = { sub, start: end - windowMs, end, hits: Number(count) };
      windows.push(opened);
      current.set(sub, opened);
    }
  };
  const loop = (async () => {
    await connected;
    while (!stopped) {
      await poll().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  return {
    windows,
    async stop() {
      stopped = true;
      await loop;
      await client.close().catch(() => client.destroy());
    },
  };
}

export interface Outage {
  from: number;
  to: number;
  mode: 'closed' | 'open';
}

export interface LimitReport {
  limit: number;
  windowSeconds: number;
  windows: number;
  /** The most first arrivals of one player in one of Redis's windows, an 'open' outage's excess aside (must be <= limit). */
  maxPerWindow: number;
  /** Windows over the limit outside an outage: each one a failure. */
  overLimit: string[];
  /** Windows that reached the limit in awards through. */
  windowsAtLimit: number;
  /** Windows in which the relays counted more sends than the limit (resends count): they refused some, the limit bound. */
  windowsRefusing: number;
  /** First arrivals in no window and no outage (the watcher missed a window: reported, counted against nothing). */
  unattributed: number;
  /** Per outage: its mode, length, and what went through beyond the limit while the relays could not count. */
  outages: { mode: 'closed' | 'open'; ms: number; uncounted: number; overLimitAfter: number }[];
  /** The most first arrivals of one player in any interval of one window's length (a fixed window allows 2 x limit). */
  maxSliding: number;
}

/** How long after Redis is back the relays may still be reconnecting (their backoff tops at 2 s). */
const RECONNECT_MS = 3_000;
/**
 * An award counted at the end of a window reaches the service a moment later (a few ms on an idle machine; on the
 * shared 2-core machine under a load average of 20, seen over 150 ms).
 */
const SEND_SLACK_MS = 1_000;
/** How late a counted award may reach the service: a batch's calls run on to twice the relay's deadline (8 s). */
const LATE_MS = 16_000;

export function judgeLimits(input: {
  limit: number;
  windowSeconds: number;
  windows: LimitWindow[];
  outages: Outage[];
  arrivals: { sub: string; at: number }[];
}): LimitReport {
  const { limit, windowSeconds, outages } = input;
  const windowMs = windowSeconds * 1000;
  // A crash takes the counters with it: a window ends at the latest when Redis went away.
  const windows = input.windows.map((w) => {
    const cut = outages.find((o) => o.from >= w.start && o.from < w.end);
    return { ...w, end: cut ? cut.from : w.end, cutBy: cut, arrivals: 0 };
  });
  const outageOf = (t: number) => outages.find((o) => t >= o.from && t < o.to + RECONNECT_MS);
  const report: LimitReport = {
    limit,
    windowSeconds,
    windows: windows.length,
    maxPerWindow: 0,
    overLimit: [],
    windowsAtLimit: 0,
    windowsRefusing: 0,
    unattributed: 0,
    maxSliding: 0,
    outages: outages.map((o) => ({ mode: o.mode, ms: o.to - o.from, uncounted: 0, overLimitAfter: 0 })),
  };
  for (const arrival of input.arrivals) {
    // The windows this arrival may have been counted in. Since issue 34 a batch's call to the service runs on past the
    // relay's deadline (up to twice it), so that a late acknowledgement is still recorded: an award counted in one
    // window can reach the service windows later. It belongs to the earliest such window whose counter counted more
    // sends than arrivals were read into it (never past the limit: attribution alone never makes a window over it),
    // else the latest one it arrived in.
    const candidates = windows
      .filter((w) => w.sub === arrival.sub && w.start <= arrival.at && arrival.at < w.end + LATE_MS)
      .sort((a, b) => a.start - b.start);
    const latest = candidates.filter((w) => arrival.at < w.end + SEND_SLACK_MS).at(-1);
    const window = candidates.find((w) => w !== latest && w.arrivals < Math.min(w.hits, limit)) ?? latest;
    if (window) {
      window.arrivals++;
      continue;
    }
    const outage = outageOf(arrival.at);
    if (outage) report.outages[outages.indexOf(outage)]!.uncounted++;
    else report.unattributed++;
  }
  for (const w of windows) {
    if (w.arrivals >= limit) report.windowsAtLimit++;
    if (w.hits > limit) report.windowsRefusing++;
    // A window opened while some relay was still reconnecting, or cut short by the crash (awards let through just
    // after it are read into it): its excess is the uncounted awards of an 'open' outage, not the limit's.
    const outage = w.cutBy ?? outageOf(w.start);
    const excused = w.arrivals > limit && outage?.mode === 'open';
    report.maxPerWindow = Math.max(report.maxPerWindow, excused ? limit : w.arrivals);
    if (w.arrivals <= limit) continue;
    if (excused) report.outages[outages.indexOf(outage)]!.overLimitAfter += w.arrivals - limit;
    else report.overLimit.push(`${w.sub}: ${w.arrivals} awards in the window from ${new Date(w.start).toISOString()} (limit ${limit})`);
  }
  const bySub = new Map<string, number[]>();
  for (const a of input.arrivals) bySub.set(a.sub, [...(bySub.get(a.sub) ?? []), a.at]);
  for (const times of bySub.values()) {
    times.sort((a, b) => a - b);
    for (let i = 0, j = 0; j < times.length; j++) {
      while (times[j]! - times[i]! >= windowMs) i++;
      report.maxSliding = Math.max(report.maxSliding, j - i + 1);
    }
  }
  return report;
}
