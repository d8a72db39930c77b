import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/**
 * A fresh folder under the system's temp folder for the running test, removed when that test finishes (passed or
 * failed): no qp-* folder is left in /tmp by a test. Call it inside a test (onTestFinished needs one).
 */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
