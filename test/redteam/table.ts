// The red team's summary: one row per rule, printed for the report and asserted row by row by the test.

/** One rule's figures: what the bots sent, how the relays answered, what the service applied and its bounds. */
export interface Row {
  rule: string;
  requests: number;
  /** The relays' answers, tallied ("199x 422 budget, 20x 200"). */
  answers: string;
  /** Points applied at the service (or, for the ban and honest rows, awards that should not have passed). */
  applied: number;
  /** The most the rule allows. */
  bound: number;
  /** The least a bot that really farmed reaches (a row that could not fail proves nothing). */
  atLeast: number;
}

/** Print the rows as an aligned text table (vitest shows it in the test's stdout). */
export function printTable(rows: Row[]): void {
  const header = ['rule', 'requests', 'applied', 'bound', 'ok', 'answers'];
  const cells = rows.map((row) => [
    row.rule,
    String(row.requests),
    String(row.applied),
    row.atLeast === row.bound ? `= ${row.bound}` : `${row.atLeast}..${row.bound}`,
    row.applied <= row.bound && row.applied >= row.atLeast ? 'yes' : 'NO',
    row.answers,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i] as number))).join(' | ');
  console.log(['red team', line(header), ...cells.map(line)].join('\n'));
}
