// The client's model test: fast-check drives a system of tabs, a worker, storage and a relay (system.ts) with the
// commands of commands.ts, then drains it and checks what must hold. test/client/client.model.test.ts runs a share in
// `npm test`; `npm run model -- --runs N [--seed S] [--path P] [--max-commands M] [--worlds players,retries,...]` runs
// more and prints the seed to replay a failure (`--seed S --path P --replay-path R`, as printed).
import 'fake-indexeddb/auto';
import fc from 'fast-check';
import { drainAndCheck, startRun } from './check.js';
import { commandsOf, type World } from './commands.js';
import { createSystem, type System } from './system.js';

export interface ModelRun {
  numRuns: number;
  seed?: number;
  /** fast-check's counterexample path, and the commands' replayPath (both printed on a failure): a replay. */
  path?: string;
  replayPath?: string;
  maxCommands?: number;
  /** The worlds beyond the base (commands.ts WORLDS); all by default. */
  worlds?: World[];
}

/** The property: any sequence of commands, then a drain, leaves nothing lost and everything told once. */
export function clientModel({ maxCommands = 12, replayPath, worlds }: { maxCommands?: number; replayPath?: string; worlds?: World[] } = {}) {
  const current: { sys?: System } = {};
  // The worker's fetch is the global one: the token URL and the relay of the system being run.
  const fetchBefore = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    if (!current.sys) throw new Error('no system running');
    return current.sys.workerFetch(input, init);
  };
  const property = fc.asyncProperty(fc.commands(commandsOf(worlds), { maxCommands, replayPath, size: 'medium' }), async (cmds) => {
    const sys = createSystem();
    current.sys = sys;
    startRun();
    sys.openTab();
    try {
      await fc.asyncModelRun(() => ({ model: sys, real: sys }), cmds);
      await drainAndCheck(sys);
    } finally {
      await sys.dispose();
      current.sys = undefined;
    }
  });
  const restore = () => {
    globalThis.fetch = fetchBefore;
  };
  return { property, restore };
}

/** Runs the model; throws fast-check's report (seed, path, the shrunk commands) when a run fails. */
export async function runModel({ numRuns, seed, path, replayPath, maxCommands, worlds }: ModelRun) {
  const { property, restore } = clientModel({ maxCommands, replayPath, worlds });
  try {
    return await fc.check(property, { numRuns, seed, path, endOnFailure: path !== undefined });
  } finally {
    restore();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const seed = arg('seed') === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(arg('seed'));
  const numRuns = Number(arg('runs') ?? 1000);
  const maxCommands = Number(arg('max-commands') ?? 20);
  // --worlds players,retries: only those beyond the base (default: every world).
  const worlds = arg('worlds')?.split(',') as World[] | undefined;
  const only = worlds ? ` --worlds ${worlds.join(',')}` : '';
  console.log(
    `client model: ${numRuns} sequences of up to ${maxCommands} commands, worlds ${worlds?.join(', ') ?? 'all'}, seed ${seed} (replay: npm run model -- --runs ${numRuns} --seed ${seed} --max-commands ${maxCommands}${only})`,
  );
  const started = performance.now();
  const details = await runModel({ numRuns, seed, path: arg('path'), replayPath: arg('replay-path'), maxCommands, worlds });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (details.failed) {
    console.error(fc.defaultReportMessage(details));
    console.error(details.errorInstance);
    const replay = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]))?.[1];
    console.error(
      `FAILED after ${details.numRuns} sequences, ${seconds} s. Replay: npm run model -- --seed ${seed} --path ${details.counterexamplePath} --replay-path '${replay}' --max-commands ${maxCommands}${only}`,
    );
    process.exit(1);
  }
  console.log(`passed: ${details.numRuns} sequences, ${seconds} s`);
  process.exit(0);
}
