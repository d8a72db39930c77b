// Run by test/helpers/not-run-reporter.test.ts (not by the suite: *.fixture.ts): a suite whose setup throws, as the examples'
// did on a fresh clone before `npm run build`; one test skipped on purpose and one that passes.
import { beforeAll, describe, expect, it } from 'vitest';

describe('a suite whose setup throws', () => {
  beforeAll(() => {
    throw new Error('setup threw');
  });
  it('one', () => expect(1).toBe(1));
  it('two', () => expect(1).toBe(1));
});
it.skip('skipped on purpose', () => {});
it('passes', () => {});
