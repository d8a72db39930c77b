// The operator's steps inside a chaos run, and what they measured: graceful exits, 5xx by cause at the balancer,
// and the shared per-player limit across relays and Redis crashes (limits.ts).
import type { GracefulExit } from './fleet.js';
import { judgeLimits, type LimitReport } from './limits.js';
import type { Step } from './plan.js';
import { QUEST, type Stack } from './stack.js';
import type { LedgerEntry } from './verdict.js';

export interface OperatorCounts {
  rollingRestarts: number;
  redisCrashes: { closed: number; open: number };
  rotations: number;
  /** Every SIGTERM of a rolling restart: exit code and time to exit. */
  exits: GracefulExit[];
  startedAt: number;
}

export interface OperatorReport extends Omit<OperatorCounts, 'startedAt'> {
  relays: number;
  /** 5xx answers seen by the pages, by status and cause ("502 refused", "502 cut-terminating", "503 relay", ...). */
  fiveXx: Record<string, number>;
  /** Requests a relay refused, sent on to the next one. */
  retriedOnRefused: number;
  /** Requests that reached each relay. */
  perRelay: Record<string, number>;
  /** Requests every relay refused, by the relays' states then. */
  refusedWhile: Record<string, number>;
  limits: LimitReport;
  /** Award requests after the rotation with a token signed by the replaced secret (tabs keep theirs). */
  oldTokenRequests: number;
}

/** Back to the starting configuration (a previous run may have switched it), and fresh counters. */
export async function prepareOperator(stack: Stack): Promise<OperatorCounts | undefined> {
  const op = stack.operator;
  if (!op) return undefined;
  const config = op.fleet.config();
  if (config.onStoreError !== 'closed' || config.secrets.length > 1)
    await op.fleet.rollingRestart({ onStoreError: 'closed', secrets: [config.secrets[0]!] });
  op.fleet.exits.splice(0);
  op.fleet.redisOutages.splice(0);
  op.windows.windows.splice(0);
  op.rotations = 0;
  op.oldTokenRequests = 0;
  return { rollingRestarts: 0, redisCrashes: { closed: 0, open: 0 }, rotations: 0, exits: [], startedAt: Date.now() };
}

export async function runOperatorStep(stack: Stack, step: Step, counts: OperatorCounts | undefined, log: (line: string) => void): Promise<void> {
  const op = stack.operator;
  if (!op || !counts) throw new Error(`${step.kind} needs a stack with StackOptions.operator`);
  const at = () => `${((Date.now() - counts.startedAt) / 1000).toFixed(1)} s`;
  if (step.kind === 'rolling-restart') {
    counts.rollingRestarts++;
    const exits = await op.fleet.rollingRestart(step.onStoreError ? { onStoreError: step.onStoreError } : {});
    counts.exits.push(...exits);
    log(
      `operator: rolling restart${step.onStoreError ? ` to onStoreError '${step.onStoreError}'` : ''} done at ${at()} (exits in ${exits.map((e) => e.ms).join(', ')} ms)`,
    );
  } else if (step.kind === 'crash-redis') {
    const mode = op.fleet.config().onStoreError;
    counts.redisCrashes[mode]++;
    await op.fleet.crashRedis(step.downMs);
    log(`operator: redis-server SIGKILLed under '${mode}', back after ${step.downMs} ms at ${at()}`);
  } else if (step.kind === 'rotate-secret') {
    counts.rotations++;
    const exits = await op.rotateSecret();
    counts.exits.push(...exits);
    counts.rollingRestarts++;
    log(`operator: token secret rotated (rolling restart) at ${at()}`);
  }
}

export async function operatorReport(
  stack: Stack,
  counts: OperatorCounts,
  requests: { at: string; method: string; path: string; idempotencyKey?: string }[],
  ledger: LedgerEntry[],
): Promise<OperatorReport> {
  const op = stack.operator!;
  // Whose award each upstream key is (the ledger holds every applied one).
  const owner = new Map(ledger.filter((e) => e.questId === QUEST && e.idempotencyKey).map((e) => [e.idempotencyKey!, e.serviceUserId]));
  const seen = new Set<string>();
  const arrivals: { sub: string; at: number }[] = [];
  const awardPath = `/group-quests/${QUEST}/points`;
  for (const r of requests) {
    if (r.method !== 'POST' || r.path !== awardPath || !r.idempotencyKey || seen.has(r.idempotencyKey)) continue;
    seen.add(r.idempotencyKey);
    const sub = owner.get(r.idempotencyKey);
    if (sub) arrivals.push({ sub, at: Date.parse(r.at) });
  }
  const { startedAt: _, ...rest } = counts;
  return {
    ...rest,
    relays: op.fleet.ports().length,
    fiveXx: { ...stack.balancer.stats.fiveXx },
    retriedOnRefused: stack.balancer.stats.retriedOnRefused,
    perRelay: { ...stack.balancer.stats.perRelay },
    refusedWhile: { ...stack.balancer.stats.refusedWhile },
    oldTokenRequests: op.oldTokenRequests,
    limits: judgeLimits({ ...op.perPlayer, windows: op.windows.windows, outages: op.fleet.redisOutages, arrivals }),
  };
}

/** What fails the operator's part of a run: a cut under SIGTERM, an exit not 0, a window over the limit. */
export function operatorProblems(o: OperatorReport): string[] {
  const problems: string[] = [];
  const cut = o.fiveXx['502 cut-terminating'] ?? 0;
  if (cut) problems.push(`${cut} requests cut by a relay shutting down gracefully (SIGTERM)`);
  for (const exit of o.exits) if (exit.code !== 0) problems.push(`relay on ${exit.port} exited ${exit.code ?? exit.signal} after SIGTERM`);
  problems.push(...o.limits.overLimit);
  const closedThrough = o.limits.outages.filter((x) => x.mode === 'closed').reduce((n, x) => n + x.uncounted + x.overLimitAfter, 0);
  if (closedThrough) problems.push(`${closedThrough} awards went through uncounted while Redis was away under 'closed'`);
  return problems;
}
