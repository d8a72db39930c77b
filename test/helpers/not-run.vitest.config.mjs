// The config test/helpers/not-run-reporter.test.ts runs vitest with: the suite's reporters, on not-run.fixture.ts alone.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['not-run.fixture.ts'], reporters: ['./not-run-reporter.ts', 'default'] } });
