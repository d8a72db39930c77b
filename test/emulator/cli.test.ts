// The CLI as a user runs it: spawn, read "listening on", request, SIGTERM, check the export.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEmulatorArgs } from '../../src/emulator/cli.js';
import { paths } from '../../src/protocol/index.js';

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
    const dir = await mkdtemp(join(tmpdir(), 'qp-emu-'));
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
  it('an unreadable --import file: exit 1 with the reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'qp-emu-'));
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
      host: '127.0.0.1', port: 8787, mode: 'stateful', apiKeys: [], admin: false, importFile: undefined, exportFile: undefined,
    });
  });
  it('repeated --api-key and QP_API_KEY combine', () => {
    expect(parseEmulatorArgs(['--api-key', 'a', '--api-key', 'b'], { QP_API_KEY: 'c,,d ' })).toMatchObject({ apiKeys: ['a', 'b', 'c', 'd'] });
  });
  it.each([['--port', '65536'], ['--port', '-1'], ['--host', ' '], ['--api-key', '']])('%s %j is refused', (flag, value) => {
    expect(parseEmulatorArgs([flag, value], {})).toEqual({ error: expect.any(String) });
  });
  it('--help', () => {
    expect(parseEmulatorArgs(['--help'], {})).toBe('help');
  });
});
