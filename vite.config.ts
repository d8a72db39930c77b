import { defineConfig } from 'vitest/config';

// One config for the demo (`npm start`) and the test suite (`npm test`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Browser and chaos suites launch Chromium; two cores cannot run many at once.
    maxWorkers: 2,
  },
});
