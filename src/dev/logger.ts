import type { LogRecord } from '../relay/index.js';

/**
 * The dev relay's log: a line per refusal or error (what a designer wants to see in the dev-server terminal),
 * nothing for the many successful requests a game makes. The relay never puts tokens or keys in a record.
 */
export function devLogger(record: LogRecord): void {
  if (record.level === 'info') return;
  const status = record.status === undefined ? '' : ` ${record.status}`;
  const where = record.method ? ` ${record.method} ${record.path}:` : '';
  const why = record.reason === undefined ? '' : ` (${record.code ? `${record.code}: ` : ''}${record.reason})`;
  console.error(`[quest-points relay]${status}${where} ${record.msg}${why}`);
}
