// The operator's commands, run as a process against a served relay (its default ledger: memory, no Redis here).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET, upstreamKey } from '../helpers/fixtures.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { caller, uuid } from './helpers.js';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

async function run(args: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number, stdout, stderr };
}

let stack: ServedStack;
const quest = `cli-${uuid().slice(0, 8)}`;
const keys: string[] = [];
beforeAll(async () => {
  stack = await startStack();
  const call = caller(stack.relay.url);
  for (const points of [1, 2, 3]) {
    const key = uuid();
    const answer = await call('POST', `/group-quests/${quest}/points`, {
      token: await stack.token('cli-player'),
      headers: { IDEMPOTENCY_KEY: key },
      body: { serviceUserId: 'cli-player', eventPoints: points, eventName: 'coin' },
    });
    expect(answer.status).toBe(200);
    keys.push(upstreamKey('cli-player', key));
  }
}, 30_000);
afterAll(async () => {
  await stack?.close();
});

describe('quest-points ledger export, reverse, ban', () => {
  it('exports the ledger as NDJSON, following the cursor page by page (admin token signed with QP_RELAY_SECRET)', async () => {
    const env = { QP_RELAY_URL: stack.relay.url, QP_RELAY_SECRET: SECRET };
    const { code, stdout, stderr } = await run(['ledger', 'export', '--quest', quest, '--outcome', 'acknowledged', '--page', '2'], env);
    expect([code, stderr]).toEqual([0, '']);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => [e.eventPoints, e.key])).toEqual([
      [1, keys[0]],
      [2, keys[1]],
      [3, keys[2]],
    ]);
    const limited = await run(['ledger', 'export', '--relay', stack.relay.url, '--quest', quest, '--limit', '2'], { QP_RELAY_SECRET: SECRET });
    expect(
      limited.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).outcome),
    ).toEqual(['forwarded', 'acknowledged']);
  });

  it('reverses an award once, and says what the relay refused (a player token: 403, exit 1)', async () => {
    const env = { QP_RELAY_URL: stack.relay.url, QP_ADMIN_TOKEN: await stack.token('ops', { role: 'admin' }) };
    const first = await run(['reverse', '--quest', quest, '--key', keys[2] as string], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ success: true, reverses: keys[2], eventPoints: -3 });
    const again = await run(['reverse', '--quest', quest, '--key', keys[2] as string], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ already: true });
    const total = (await (await stack.service('GET', `/group-quests/${quest}/points/cli-player`)).json()).data.totalPoints;
    expect(total).toBe(3);
    const player = await run(['ban', 'bot-1', '--reason', 'farming'], { QP_RELAY_URL: stack.relay.url, QP_ADMIN_TOKEN: await stack.token('p') });
    expect([player.code, player.stderr]).toEqual([1, expect.stringMatching(/answered 403: the admin API needs an admin token/)]);
  });

  it('names what is missing (exit 2)', async () => {
    expect(await run(['reverse', '--quest', 'q'], { QP_RELAY_URL: 'http://127.0.0.1:1', QP_RELAY_SECRET: SECRET })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--key is required'),
    });
    expect(await run(['ledger', 'export'], { QP_RELAY_SECRET: SECRET })).toMatchObject({ code: 2, stderr: expect.stringContaining('--relay URL') });
    expect(await run(['unban'], { QP_RELAY_URL: 'http://127.0.0.1:1' })).toMatchObject({ code: 2, stderr: expect.stringContaining('PLAYER') });
    expect(await run(['ban', 'x'], { QP_RELAY_URL: 'http://127.0.0.1:1' })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('QP_ADMIN_TOKEN'),
    });
  });
});
