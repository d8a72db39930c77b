// The suite's not-run reporter (not-run-reporter.ts): vitest run on a file whose setup throws reports the tests that
// never ran as failed, and the suite's own config (vite.config.ts) uses it ahead of the default reporter.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import config from '../../vite.config.js';
import { testTempDir } from './temp.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);

describe('a vitest run where a suite’s setup throws', () => {
  it('is red: its tests count as failed, not skipped (a test skipped on purpose stays skipped)', async () => {
    const report = join(testTempDir('qp-not-run'), 'report.json');
    const vitest = join(here, '../../node_modules/.bin/vitest');
    const args = ['run', '--config', 'not-run.vitest.config.mjs', '--reporter=./not-run-reporter.ts', '--reporter=json', `--outputFile=${report}`];
    const exit = await run(vitest, args, { cwd: here }).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    expect(exit).toBe(1);
    const json = JSON.parse(readFileSync(report, 'utf8')) as { numFailedTests: number; numPendingTests: number; numPassedTests: number };
    expect({ failed: json.numFailedTests, skipped: json.numPendingTests, passed: json.numPassedTests }).toEqual({ failed: 2, skipped: 1, passed: 1 });
  }, 60_000);

  it('the suite’s config reports with it, first', () => {
    expect(config.test?.reporters).toEqual(['./test/helpers/not-run-reporter.ts', 'default']);
  });
});
