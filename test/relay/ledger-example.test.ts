// docs/economy.md's "Audit and reverse" examples, run: examples/ledger-admin/operator.ts (fetch alone) and
// examples/ledger-admin/operate.sh (the CLI; `quest-points` on PATH is this repository's CLI, the relay's URL the
// served one) against a relay and the emulator.
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliedPoints, exportLedger, reverse } from '../../examples/ledger-admin/operator.js';
import { SECRET, upstreamKey } from '../helpers/fixtures.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { testTempDir } from '../helpers/temp.js';
import { caller, uuid } from './helpers.js';

let stack: ServedStack;
const quest = `example-${uuid().slice(0, 8)}`;
const keys: string[] = [];
beforeAll(async () => {
  stack = await startStack();
  for (const points of [10, 20]) {
    const key = uuid();
    const answer = await caller(stack.relay.url)('POST', `/group-quests/${quest}/points`, {
      token: await stack.token('ex-player'),
      headers: { IDEMPOTENCY_KEY: key },
      body: { serviceUserId: 'ex-player', eventPoints: points, eventName: 'coin' },
    });
    expect(answer.status).toBe(200);
    keys.push(upstreamKey('ex-player', key));
  }
}, 30_000);
afterAll(async () => {
  await stack?.close();
});

describe('examples/ledger-admin', () => {
  it('operator.ts: exports, reverses (twice is once) and reconciles with fetch alone', async () => {
    const admin = await stack.token('ops', { role: 'admin' });
    const relay = stack.relay.url;
    const count = async () => {
      let n = 0;
      for await (const _ of exportLedger(relay, admin, { quest, outcome: 'acknowledged' })) n++;
      return n;
    };
    await expect.poll(count).toBe(2);
    const day = [new Date(Date.now() - 3_600_000), new Date(Date.now() + 3_600_000)] as const;
    expect(await appliedPoints(relay, admin, 'ex-player', quest, ...day)).toBe(30);
    expect(await reverse(relay, admin, quest, keys[0] as string)).toMatchObject({ success: true, eventPoints: -10 });
    expect(await reverse(relay, admin, quest, keys[0] as string)).toMatchObject({ success: true, already: true });
    expect(await appliedPoints(relay, admin, 'ex-player', quest, ...day)).toBe(20);
    const service = (await (await stack.service('GET', `/group-quests/${quest}/points/ex-player`)).json()).data.totalPoints;
    expect(service).toBe(20);
  });

  // Six runs of the CLI (each a Node start with tsx): a minute on a busy machine.
  it('operate.sh: the CLI commands of the page, as written (the relay URL replaced by the served one)', { timeout: 60_000 }, async () => {
    const dir = testTempDir('ledger-example');
    const cli = new URL('../../src/cli.ts', import.meta.url).pathname;
    const shim = join(dir, 'quest-points');
    // tsx by its path: the script runs in its own folder, where `--import tsx` would not resolve.
    const tsx = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${cli}" "$@"\n`);
    chmodSync(shim, 0o755);
    const script = join(dir, 'operate.sh');
    const source = readFileSync(new URL('../../examples/ledger-admin/operate.sh', import.meta.url), 'utf8');
    writeFileSync(script, source.replace('https://relay.example.com', stack.relay.url));
    const { stdout } = await promisify(execFile)('sh', [script], {
      cwd: dir,
      env: { PATH: `${dir}:${process.env.PATH}`, QP_RELAY_SECRET: SECRET, QUEST: quest, KEY: keys[1] as string },
    });
    expect(stdout).toContain('"eventPoints":-20');
    expect(stdout).toContain('"player":"bot-7"');
    const exported = readFileSync(join(dir, 'acknowledged.ndjson'), 'utf8').trim().split('\n');
    expect(exported.map((line) => JSON.parse(line).key)).toEqual(keys);
  });
});
