import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ChaosRun } from './harness.js';

export const RESULTS_DIR = fileURLToPath(new URL('../../test-results/chaos/', import.meta.url));

const percent = (x: number) => `${(x * 100).toFixed(1)} %`;

/** The rows of the summary table, one column per sender. */
export function summaryRows(runs: ChaosRun[]): [string, ...string[]][] {
  const kinds = [...new Set(runs.flatMap((r) => Object.keys(r.faults)))].sort();
  const row: Row = (label, cell) => [label, ...runs.map((r) => String(cell(r)))];
  return [
    row('sender', (r) => (r.sender === 'ours' ? 'quest-points SDK' : 'naive background sync')),
    row('issued (accepted by the sender)', (r) => r.verdict.issued),
    row('acknowledged', (r) => r.verdict.acknowledged),
    row('lost', (r) => r.verdict.lost),
    row('duplicated (extra applications)', (r) => `${r.verdict.duplicated} (${r.verdict.extraApplications})`),
    row(
      'dead-lettered (all meant)',
      (r) => `${r.verdict.deadLettered}${r.verdict.unexpectedDeadLetters ? ` + ${r.verdict.unexpectedDeadLetters} unexpected` : ''}`,
    ),
    row('never accepted (page gone) / applied anyway', (r) => `${r.verdict.neverAccepted} / ${r.verdict.neverAcceptedApplied}`),
    row('totals equal', (r) => (r.verdict.totalsEqual ? 'yes' : 'no')),
    row('order inversions (pairs of one tab)', (r) => `${r.verdict.orderInversions} of ${r.verdict.orderPairs}`),
    row('left in queues at the end', (r) => r.verdict.queueLeft),
    row('reloads / closes (mid-flush)', (r) => `${r.chaos.reloads} / ${r.chaos.closes} (${r.chaos.midFlush})`),
    row('offline toggles', (r) => r.chaos.offlineToggles),
    row('relay restarts', (r) => r.chaos.relayRestarts),
    row('service requests / faulted', (r) => `${r.serviceRequests} / ${percent(r.faultRate)}`),
    ...kinds.map((k) => row(`  fault ${k}`, (r) => r.faults[k] ?? 0)),
    row('pages whose storage fell back to memory', (r) => (r.sender === 'ours' ? r.degraded.length : 'n/a')),
    row('award requests by the service worker', (r) => (r.sender === 'ours' ? r.workerRequests : 'n/a (no worker)')),
    row('every tab closed: awards queued offline', (r) => r.closedTabs?.awards ?? 'n/a'),
    row('  waiting at online / delivered by the worker alone', (r) =>
      r.closedTabs
        ? `${r.closedTabs.undeliveredAtOnline} / ${r.closedTabs.undeliveredAtOnline - (r.closedTabs.expected - r.closedTabs.delivered)} in ${(r.closedTabs.deliveredMs / 1000).toFixed(1)} s`
        : 'n/a',
    ),
    row('  worker requests / page requests meanwhile', (r) =>
      r.closedTabs ? `${r.closedTabs.workerRequests} / ${r.closedTabs.pageRequests}` : 'n/a',
    ),
    row('  left for the next page', (r) => r.closedTabs?.leftAtReopen ?? 'n/a'),
    row('relay unreachable (502 at the proxy)', (r) => r.proxyStatuses['502'] ?? 0),
    ...(runs.some((r) => r.operator) ? operatorRows(runs, row) : []),
    row('wall time', (r) => `${(r.wallMs / 1000).toFixed(1)} s`),
  ];
}

type Row = (label: string, cell: (r: ChaosRun) => string | number) => [string, ...string[]];

/** The operator's chaos: relays, restarts, crashes, rotations, 5xx by cause, the shared limit. */
function operatorRows(runs: ChaosRun[], row: Row): [string, ...string[]][] {
  const causes = [...new Set(runs.flatMap((r) => Object.keys(r.operator?.fiveXx ?? {})))].sort();
  const op = (cell: (o: NonNullable<ChaosRun['operator']>, r: ChaosRun) => string | number) => (r: ChaosRun) =>
    r.operator ? cell(r.operator, r) : 'n/a';
  const exitMs = (o: NonNullable<ChaosRun['operator']>) => o.exits.map((e) => e.ms);
  return [
    row(
      'relays (CLI processes) on one redis-server',
      op((o) => o.relays),
    ),
    row(
      'rolling restarts (SIGTERM, graceful exit, same port)',
      op(
        (o) =>
          `${o.rollingRestarts} (${o.exits.length} exits, code 0: ${o.exits.filter((e) => e.code === 0).length}, ${Math.min(...exitMs(o))}–${Math.max(...exitMs(o))} ms)`,
      ),
    ),
    row(
      'relay SIGKILLs (restarted)',
      op((_, r) => r.chaos.relayRestarts),
    ),
    row(
      "redis-server SIGKILLs: 'closed' / 'open'",
      op((o) => `${o.redisCrashes.closed} / ${o.redisCrashes.open}`),
    ),
    row(
      'token-secret rotations / award requests with a replaced-secret token after',
      op((o) => `${o.rotations} / ${o.oldTokenRequests}`),
    ),
    row(
      'requests sent on after a refused connection',
      op((o) => o.retriedOnRefused),
    ),
    ...causes.map((c) =>
      row(
        `  5xx ${c}`,
        op((o) => o.fiveXx[c] ?? 0),
      ),
    ),
    row(
      '  refused by every relay, while they were',
      op(
        (o) =>
          Object.entries(o.refusedWhile)
            .map(([s, n]) => `${s}: ${n}`)
            .join(', ') || '-',
      ),
    ),
    row(
      '  5xx cut by a relay under SIGTERM',
      op((o) => o.fiveXx['502 cut-terminating'] ?? 0),
    ),
    row(
      `per-player limit: awards per window, max`,
      op(
        (o) =>
          `${o.limits.maxPerWindow} of ${o.limits.limit} per ${o.limits.windowSeconds} s (${o.limits.windows} windows, ${o.limits.windowsAtLimit} at the limit, ${o.limits.windowsRefusing} with sends refused)`,
      ),
    ),
    row(
      '  windows over the limit (outside outages)',
      op((o) => o.limits.overLimit.length),
    ),
    row(
      "  through uncounted during Redis outages: 'closed' / 'open'",
      op((o) =>
        ['closed', 'open']
          .map((m) => o.limits.outages.filter((x) => x.mode === m).reduce((n, x) => n + x.uncounted + x.overLimitAfter, 0))
          .join(' / '),
      ),
    ),
    row(
      '  most awards of one player in any window-long interval',
      op((o) => o.limits.maxSliding),
    ),
  ];
}

/** A Markdown table (readable in a terminal too). */
export function formatTable(runs: ChaosRun[]): string {
  const [head = [''], ...rows] = summaryRows(runs);
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(['', ...head.slice(1)]), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

export function writeResults(name: string, payload: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${name}.json`;
  writeFileSync(file, JSON.stringify(payload, null, 2));
  return file;
}
