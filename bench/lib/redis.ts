// A throwaway redis-server for the bench (the tests' helper: free port, nothing persisted), and its command
// counters: INFO commandstats, read before and after a phase, gives Redis round trips without MONITOR.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
export { startRedis, type TestRedis } from '../../test/helpers/redis.js';

const run = promisify(execFile);

/** The counter script's own commands: INFO commandstats counts them too, though they cost no round trip. */
const IN_SCRIPT = new Set(['incr', 'pttl', 'pexpire']);

/**
 * Commands Redis has executed so far, not counting the INFO calls that read them: `roundTrips` (commands a client
 * sent: EVALSHA, PING, ...) and `operations` (those plus the commands the counter script ran inside Redis).
 */
export async function redisCommandCount(port: number): Promise<{ roundTrips: number; operations: number }> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'INFO', 'commandstats']);
  const counts = { roundTrips: 0, operations: 0 };
  for (const [, name, n] of stdout.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (name === 'info') continue;
    counts.operations += Number(n);
    if (!IN_SCRIPT.has(name!)) counts.roundTrips += Number(n);
  }
  return counts;
}

/** redis-server's own CPU time, ms (INFO cpu: used_cpu_sys + used_cpu_user). */
export async function redisCpuMs(port: number): Promise<number> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'INFO', 'cpu']);
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(stdout)?.[1] ?? 0);
  return (field('used_cpu_sys') + field('used_cpu_user')) * 1000;
}
