// A vitest reporter for this suite: a test that never ran because its suite's setup threw (a beforeAll, a server that
// would not start, a package not built) counts as failed, not skipped. Vitest marks such tests `skip`, so a summary
// could read "983 passed | 5 skipped" over a broken run; nothing in this suite skips on purpose (no it.skip, no
// skipIf), so a skip is always a setup that threw. Listed before 'default' in vite.config.ts: it rewrites the tests'
// state when their file ends, before any reporter counts them.
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** The error a never-run test carries: it names the cause, whose own error vitest reports on the suite. */
export const NOT_RUN = 'never ran: the setup of its suite threw (that error is reported on the suite above)';

/** Marks as failed every test of a finished file that was meant to run but was skipped by a failed hook. */
export default class NotRunReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestModuleEnd(module: TestModule): void {
    for (const test of module.children.allTests()) {
      // The runner's record of the test, which every reporter's summary counts.
      const task = this.vitest?.state.idMap.get(test.id);
      // options.mode keeps what the file declared ('run' unless it.skip/todo); task.mode is what the runner did.
      if (!task || test.options.mode !== 'run' || task.result?.state !== 'skip') continue;
      task.mode = 'run';
      task.result = { ...task.result, state: 'fail', errors: [{ name: 'NotRun', message: NOT_RUN }] };
    }
  }
}
