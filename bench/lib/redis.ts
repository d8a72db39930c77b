// A throwaway redis-server for the bench (the tests' helper: free port, nothing persisted), and its command
// counters: INFO commandstats, read before and after a phase, gives Redis round trips without MONITOR.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
export { startRedis, type TestRedis } from '../../test/helpers/redis.js';

const run = promisify(execFile);

/** Commands Redis has executed so far, all kinds, not counting the INFO calls that read them. */
export async function redisCommandCount(port: number): Promise<number> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'INFO', 'commandstats']);
  let calls = 0;
  for (const [, name, n] of stdout.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (name !== 'info') calls += Number(n);
  return calls;
}

/** redis-server's own CPU time, ms (INFO cpu: used_cpu_sys + used_cpu_user). */
export async function redisCpuMs(port: number): Promise<number> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'INFO', 'cpu']);
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(stdout)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1000;
}
