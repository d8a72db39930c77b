// The CLI as a user runs it: spawn, read "listening on", request, SIGTERM, check the export.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEmulatorArgs } from '../../src/emulator/cli.js';
import { paths } from '../../src/protocol/index.js';
import { testTempDir } from '../helpers/temp.js';

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'emulator', ...args], {
    cwd: join(import.meta.dirname, '../..'),
    env: { ...process.env, QP_API_KEY: '', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(`exited before listening: ${stderr}`)));
  });
  // Tests that expect an early exit never await it.
  listening.catch(() => undefined);
  return { child, listening, exited, output: () => ({ stdout, stderr }) };
}

describe('quest-points emulator (CLI)', () => {
  it('serves, keys from --api-key and QP_API_KEY, exports on SIGTERM, imports it back', async () => {
    const dir = testTempDir('qp-emu');
    const file = join(dir, 'state.json');
    const first = run(['--port', '0', '--api-key', 'flag-key', '--export-on-exit', file], { QP_API_KEY: 'env-a, env-b' });
    const url = await first.listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const award = await fetch(`${url}${paths.points('q')}`, {
      method: 'POST',
      headers: { API_KEY: 'env-b', 'content-type': 'application/json' },
      body: JSON.stringify({ serviceUserId: 'u1', eventPoints: 4 }),
    });
    expect(award.status).toBe(200);
    expect((await fetch(`${url}${paths.pointsOf('q', 'u1')}`, { headers: { API_KEY: 'flag-key' } })).status).toBe(200);
    expect((await fetch(`${url}${paths.pointsOf('q', 'u1')}`, { headers: { API_KEY: 'dev-api-key' } })).status).toBe(401);
    expect((await fetch(`${url}/__emulator/state`)).status).toBe(404);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const state = JSON.parse(await readFile(file, 'utf8'));
    expect(state.ledger).toEqual([expect.objectContaining({ questId: 'q', serviceUserId: 'u1', eventPoints: 4 })]);
    expect(JSON.stringify(state)).not.toMatch(/flag-key|env-b/);

    const second = run(['--port', '0', '--import', file, '--admin', '--mode', 'stateful']);
    const url2 = await second.listening;
    const points = await (await fetch(`${url2}${paths.pointsOf('q', 'u1')}`, { headers: { API_KEY: 'dev-api-key' } })).json();
    expect(points.data.totalPoints).toBe(4);
    expect((await fetch(`${url2}/__emulator/mode`)).status).toBe(200);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });
  it('--mode sandbox answers as the test environment', async () => {
    const cli = run(['--port', '0', '--mode', 'sandbox']);
    const url = await cli.listening;
    const identify = await fetch(`${url}/users/identify`, {
      method: 'POST',
      headers: { API_KEY: 'dev-api-key', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x@example.com' }),
    });
    expect((await identify.json()).data.serviceUserId).toBe('sandbox_mock_user');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
  it.each([
    [['--port', 'abc'], '--port must be an integer from 0 to 65535'],
    [['--mode', 'live'], "--mode must be 'stateful' or 'sandbox'"],
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], 'extra'],
  ])('bad flags %j: usage on stderr, exit 2', async (args, message) => {
    const cli = run(args);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain(message);
    expect(cli.output().stderr).toContain('usage: quest-points emulator');
  });
  it('--no-auto-create, --chain, --idempotency-ttl, --request-log-size reach the emulator', async () => {
    const cli = run([
      '--port',
      '0',
      '--admin',
      '--no-auto-create',
      '--chain',
      'Ethereum',
      '--chain',
      'base',
      '--idempotency-ttl',
      '1s',
      '--request-log-size',
      '3',
    ]);
    const url = await cli.listening;
    const headers = { API_KEY: 'dev-api-key', 'content-type': 'application/json' };
    const identify = (body: unknown) => fetch(`${url}${paths.identify()}`, { method: 'POST', headers, body: JSON.stringify(body) });

    // Unknown users are not created; a seeded one is found.
    const unknown = await identify({ email: 'nobody@example.com' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ success: false, message: 'User not found' });
    const seeded = await fetch(`${url}/__emulator/seed`, {
      method: 'POST',
      body: JSON.stringify({ users: [{ email: 'ada@example.com', wallet: { chain: 'base', address: '0xabc' } }] }),
    });
    expect(seeded.status).toBe(200);
    expect((await identify({ email: 'ada@example.com' })).status).toBe(200);
    // The chain allowlist, compared case-insensitively.
    expect((await identify({ wallet: { chain: 'BASE', address: '0xabc' } })).status).toBe(200);
    const refused = await identify({ wallet: { chain: 'solana', address: 'So1' } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).message).toBe('wallet.chain must be one of: ethereum, base');

    // A key is replayed while remembered, applied again once 1 s has passed (waited for, not slept).
    const key = crypto.randomUUID();
    const award = () =>
      fetch(`${url}${paths.points('q')}`, {
        method: 'POST',
        headers: { ...headers, IDEMPOTENCY_KEY: key },
        body: JSON.stringify({ serviceUserId: 'u1', eventPoints: 2 }),
      });
    expect((await award()).headers.get('idempotent-replayed')).toBeNull();
    const started = Date.now();
    expect((await award()).headers.get('idempotent-replayed')).toBe('true');
    await expect.poll(async () => (await award()).headers.get('idempotent-replayed'), { timeout: 10_000, interval: 200 }).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const points = await (await fetch(`${url}${paths.pointsOf('q', 'u1')}`, { headers })).json();
    expect(points.data.totalPoints).toBe(4);

    // The request log keeps the last 3 service requests.
    const log = (await (await fetch(`${url}/__emulator/requests`)).json()).data as { seq: number; path: string }[];
    expect(log).toHaveLength(3);
    expect(log.at(-1)?.path).toBe(paths.pointsOf('q', 'u1'));
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
  it('--faults starts with faults on and prints the seed in effect', async () => {
    const cli = run(['--port', '0', '--admin', '--faults', '{"errorRate":1,"errorStatuses":[503],"retryAfterSeconds":4}']);
    const url = await cli.listening;
    const answer = await fetch(`${url}${paths.pointsOf('q', 'u1')}`, { headers: { API_KEY: 'dev-api-key' } });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('4');
    const { data } = await (await fetch(`${url}/__emulator/faults`)).json();
    expect(data).toMatchObject({ errorRate: 1, errorStatuses: [503], seed: expect.any(Number) });
    await expect.poll(() => cli.output().stderr).toContain(`faults ${JSON.stringify(data)}`);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
  it('an invalid --faults: exit 2 naming the field and the rule', async () => {
    const cli = run(['--port', '0', '--faults', '{"errorRate":2}']);
    expect(await cli.exited).toBe(2);
    expect(cli.output().stderr).toContain('--faults errorRate must be at most 1');
  });
  it('an unreadable --import file: exit 1 with the reason', async () => {
    const dir = testTempDir('qp-emu');
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"version": 9}');
    const cli = run(['--port', '0', '--import', file]);
    expect(await cli.exited).toBe(1);
    expect(cli.output().stderr).toContain('state.version must be 1');
  });
});

describe('parseEmulatorArgs', () => {
  it('defaults', () => {
    expect(parseEmulatorArgs([], {})).toEqual({
      host: '127.0.0.1',
      port: 8787,
      mode: 'stateful',
      apiKeys: [],
      admin: false,
      adminFromAnyAddress: false,
      importFile: undefined,
      exportFile: undefined,
      autoCreate: true,
      chains: undefined,
      idempotencyTtlMs: undefined,
      faults: undefined,
      requestLogSize: undefined,
    });
  });
  it('durations, chains, faults and the log size', () => {
    expect(parseEmulatorArgs(['--idempotency-ttl', '90'], {})).toMatchObject({ idempotencyTtlMs: 90_000 });
    expect(parseEmulatorArgs(['--idempotency-ttl', '15m'], {})).toMatchObject({ idempotencyTtlMs: 900_000 });
    expect(parseEmulatorArgs(['--idempotency-ttl', '7d'], {})).toMatchObject({ idempotencyTtlMs: 604_800_000 });
    expect(parseEmulatorArgs(['--chain', ' base '], {})).toMatchObject({ chains: ['base'] });
    expect(parseEmulatorArgs(['--faults', '{"latencyMs":5,"seed":3}'], {})).toMatchObject({ faults: { latencyMs: 5, seed: 3 } });
    expect(parseEmulatorArgs(['--faults', '{}'], {})).toMatchObject({ faults: { seed: expect.any(Number) } });
    expect(parseEmulatorArgs(['--request-log-size', '50'], {})).toMatchObject({ requestLogSize: 50 });
    expect(parseEmulatorArgs(['--no-auto-create'], {})).toMatchObject({ autoCreate: false });
    expect(parseEmulatorArgs(['--admin', '--admin-from-any-address'], {})).toMatchObject({ admin: true, adminFromAnyAddress: true });
  });
  it.each([
    [['--idempotency-ttl', '0'], '--idempotency-ttl must be a positive duration'],
    [['--idempotency-ttl', '1w'], '--idempotency-ttl must be a positive duration'],
    [['--chain', ''], '--chain must be at least 1 character'],
    [['--chain', ' '], '--chain must not be empty'],
    [['--chain', 'x'.repeat(65)], '--chain must be at most 64 characters'],
    [['--faults', 'errorRate=1'], '--faults must be JSON'],
    [['--faults', '[]'], '--faults must be a JSON object of fault settings'],
    [['--faults', '{"errorRate":"0.5"}'], '--faults errorRate must be a number'],
    [['--faults', '{"latencyMs":-1}'], '--faults latencyMs must be at least 0'],
    [['--faults', '{"typo":1}'], '--faults typo'],
    [['--request-log-size', '0'], '--request-log-size must be an integer from 1 to 9999999'],
    [['--request-log-size', '1e3'], '--request-log-size must be an integer from 1 to 9999999'],
  ])('%j is refused: %s', (args, message) => {
    const parsed = parseEmulatorArgs(args, {});
    expect(parsed).toEqual({ error: expect.any(String) });
    expect((parsed as { error: string }).error).toContain(message);
  });
  it('repeated --api-key and QP_API_KEY combine', () => {
    expect(parseEmulatorArgs(['--api-key', 'a', '--api-key', 'b'], { QP_API_KEY: 'c,,d ' })).toMatchObject({ apiKeys: ['a', 'b', 'c', 'd'] });
  });
  it.each([
    ['--port', '65536'],
    ['--port', '-1'],
    ['--host', ' '],
    ['--api-key', ''],
  ])('%s %j is refused', (flag, value) => {
    expect(parseEmulatorArgs([flag, value], {})).toEqual({ error: expect.any(String) });
  });
  it('--help', () => {
    expect(parseEmulatorArgs(['--help'], {})).toBe('help');
  });
});
