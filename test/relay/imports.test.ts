// No import circle in src/relay, type-only imports included (scripts/import-cycles.mjs; before issue 29: one circle
// of eight modules, context -> metrics -> batch -> award -> context).
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { importCycles } from '../../scripts/import-cycles.mjs';

describe('src/relay imports', () => {
  it('form no circle', () => {
    expect(importCycles('src/relay')).toEqual([]);
  });
  it('the metrics import no route (they receive a label)', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile('src/relay/metrics.ts', 'utf8');
    expect(text).not.toMatch(/from '\.\/(batch|routes|pipeline|outcome|respond)\.js'/);
  });
});
