// A farming bot, as the red team runs it: a valid player token and a loop that sends awards as fast as the relays let
// it, spread over every relay it is given, several requests in flight. It honours Retry-After (a bot that ignores it
// only collects more 429s) and stops when it has seen enough (stopWhen) or at its deadline, whichever comes first:
// a goal, not a duration, so a loaded machine makes the run longer, never weaker. Every answer is tallied by status and refusal code ("200",
// "422 budget", "429 rate_limited"...): what the relays said; what was applied is counted at the emulator.

/** One award as the bot sends it: the route's quest, the body's fields. */
export interface FarmAward {
  questId: string;
  serviceUserId: string;
  eventPoints: number;
  eventName?: string;
  onceKey?: string;
}

export interface FarmOptions {
  /** The relays' base URLs: request i (a single award or a batch) goes to relays[i % relays.length]. */
  relays: string[];
  token: string;
  /** The i-th award (a fresh idempotency key is added to each). */
  award: (i: number) => FarmAward;
  /** The bot stops sending after this long (answers in flight are awaited). */
  durationMs: number;
  /** Stop sending once this holds (checked before each request): the bot has seen what the test needs. */
  stopWhen?: (run: FarmRun) => boolean;
  /** Told after each answer (the test's hook to act mid-run: a ban once the bot is farming). */
  onAnswer?: (run: FarmRun) => void;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** Stop after this many awards; default unbounded. */
  maxRequests?: number;
  /** Send this many awards in each POST /batch/points (the SDK's route) instead of one per single-award request. */
  batchSize?: number;
}

export interface FarmRun {
  /** Awards sent (a batch counts each of its awards). */
  sent: number;
  ms: number;
  /** Answers by "status" or "status code". */
  answers: Record<string, number>;
  /** The answers in the order they came, with the time each was sent (for per-window accounting). */
  log: { at: number; answer: string; relay: number; award: FarmAward }[];
}

/** One award through one relay's single route; resolves with its tally label and Retry-After (seconds) if any. */
export async function sendAward(relay: string, token: string, award: FarmAward, key: string = crypto.randomUUID()) {
  const { questId, ...body } = award;
  const response = await fetch(`${relay}/group-quests/${encodeURIComponent(questId)}/points`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: key },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {
    code = undefined;
  }
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  return { status: response.status, answer: code ? `${response.status} ${code}` : String(response.status), retryAfter };
}

/** Awards through one relay's batch route; resolves with each award's tally label ("200", "422 once", "retry rate_limited"). */
export async function sendBatch(relay: string, token: string, awards: FarmAward[]) {
  const response = await fetch(`${relay}/batch/points`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ awards: awards.map((award) => ({ ...award, idempotencyKey: crypto.randomUUID() })) }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    results?: { outcome: string; status?: number; code?: string; reason?: string; retryAfter?: number }[];
  };
  if (!body.results) return awards.map(() => ({ status: response.status, answer: `batch ${response.status}`, retryAfter: Number.NaN }));
  return body.results.map((result) => {
    if (result.outcome === 'ok') return { status: 200, answer: '200', retryAfter: Number.NaN };
    if (result.outcome === 'retry')
      return { status: result.status ?? 503, answer: `retry ${result.reason}`, retryAfter: result.retryAfter ?? Number.NaN };
    return { status: result.status ?? 0, answer: result.code ? `${result.status} ${result.code}` : String(result.status), retryAfter: Number.NaN };
  });
}

/** Run one bot until stopWhen, maxRequests or its deadline; see the file's comment. */
export async function farm(options: FarmOptions): Promise<FarmRun> {
  const { relays, token, durationMs, concurrency = 8, maxRequests = Number.POSITIVE_INFINITY, batchSize } = options;
  const started = Date.now();
  const deadline = started + durationMs;
  const run: FarmRun = { sent: 0, ms: 0, answers: {}, log: [] };
  let pausedUntil = 0;
  let requests = 0;
  const worker = async () => {
    while (Date.now() < deadline && run.sent < maxRequests && !options.stopWhen?.(run)) {
      if (Date.now() < pausedUntil) {
        // Retry-After past the deadline: this bot is done.
        if (pausedUntil >= deadline) return;
        await new Promise((resolve) => setTimeout(resolve, pausedUntil - Date.now()));
        continue;
      }
      const first = run.sent;
      const count = Math.min(batchSize ?? 1, maxRequests - first);
      run.sent += count;
      const relay = requests++ % relays.length;
      const awards = Array.from({ length: count }, (_, j) => options.award(first + j));
      const at = Date.now();
      const url = relays[relay] as string;
      const results = batchSize ? await sendBatch(url, token, awards) : [await sendAward(url, token, awards[0] as FarmAward)];
      results.forEach(({ status, answer, retryAfter }, j) => {
        run.answers[answer] = (run.answers[answer] ?? 0) + 1;
        run.log.push({ at, answer, relay, award: awards[j] as FarmAward });
        if (status === 429 && Number.isFinite(retryAfter)) pausedUntil = Math.max(pausedUntil, Date.now() + retryAfter * 1000);
      });
      options.onAnswer?.(run);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  run.ms = Date.now() - started;
  return run;
}

/** One step of an honest player: an award sent `atMs` after the start, or after another step's answer. */
export interface HonestStep {
  atMs: number;
  award: FarmAward;
  /** The idempotency key; steps with the same key are one award sent again (a lost acknowledgement). */
  key?: string;
  /**
   * Count `atMs` from this earlier step's answer, not from the start: a game waits out a cooldown from what the relay
   * answered (the relay decides when the request reaches it, which a loaded machine delays), and resends after a
   * request ended.
   */
  after?: number;
}

/** An honest player: its steps on schedule, through the relays in turn; resolves with every final answer that refused one. */
export async function play(relays: string[], token: string, steps: HonestStep[]): Promise<{ sent: number; refused: string[] }> {
  const started = Date.now();
  const refused: string[] = [];
  const answered: Promise<number>[] = [];
  steps.forEach((step, i) => {
    const from = step.after === undefined ? Promise.resolve(started) : (answered[step.after] as Promise<number>);
    answered[i] = from.then(async (origin) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, origin + step.atMs - Date.now())));
      // As the SDK does: an answer that is not final (5xx, 429: a loaded relay's deadline) is sent again, same key.
      const key = step.key ?? crypto.randomUUID();
      for (let attempt = 1; ; attempt++) {
        const { status, answer } = await sendAward(relays[(i + attempt - 1) % relays.length] as string, token, step.award, key);
        const final = status < 500 && status !== 429;
        if (final || attempt === 10) {
          if (status !== 200) refused.push(`${step.award.questId}/${step.award.eventName ?? '-'}: ${answer}`);
          return Date.now();
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    });
  });
  await Promise.all(answered);
  return { sent: steps.length, refused };
}

/**
 * A player's decisions as the relays' ledger holds them (GET /admin/ledger, an admin token), tallied the way the bot
 * tallies its answers: acknowledged -> "200", refused -> "<status> <code>", failed -> "failed <status>".
 */
export async function ledgerTally(relay: string, adminToken: string, player: string): Promise<Record<string, number>> {
  const response = await fetch(`${relay}/admin/ledger?${new URLSearchParams({ player, limit: '10000' })}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (!response.ok) throw new Error(`GET /admin/ledger answered ${response.status}`);
  const tally: Record<string, number> = {};
  for (const line of (await response.text()).split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as { outcome?: string; status?: number; code?: string };
    const label =
      entry.outcome === 'acknowledged'
        ? '200'
        : entry.outcome === 'refused'
          ? `${entry.status}${entry.code ? ` ${entry.code}` : ''}`
          : entry.outcome === 'failed'
            ? `failed ${entry.status}`
            : undefined;
    if (label) tally[label] = (tally[label] ?? 0) + 1;
  }
  return tally;
}

/** How many calendar minutes (UTC) the interval [from, to] touches: a minute budget may be spent once in each. */
export function minutesTouched(from: number, to: number): number {
  return Math.floor(to / 60_000) - Math.floor(from / 60_000) + 1;
}
