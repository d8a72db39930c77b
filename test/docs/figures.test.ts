// The sizes the docs quote are the sizes measured now (figures.ts): docs/sdk.md said sw.js was 8,447 B min+gzip
// while the shipped worker measured 10,630 B.
import { expect, it } from 'vitest';
import { compare, measuredFigures } from './figures.js';

it('every measured figure quoted in docs/ equals its measurement (npx tsx test/docs/figures.ts --write)', async () => {
  const figures = compare(await measuredFigures());
  for (const figure of figures) {
    expect(figure.said, `${figure.doc}: ${figure.pattern} not found`).toBeDefined();
    expect(figure.said, `${figure.doc}: ${figure.pattern}`).toEqual(figure.measured);
  }
}, 60_000);
