// A real Redis Cluster for tests: Debian's redis-server started N times with `--cluster-enabled yes` on free ports of
// 127.0.0.1, joined by `redis-cli --cluster create`, each node in its own temp folder (nodes.conf lives there), nothing
// persisted. The node timeout is short (1 s by default) so a killed master's replica is promoted within a few seconds.
// Used by the relay's Redis tests, the chaos failover share and the production rehearsal.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisServerPath } from './redis.js';
import { until } from './until.js';

/** One node's address. */
export interface ClusterNode {
  host: string;
  port: number;
}

/** Options of startRedisCluster. */
export interface RedisClusterOptions {
  /** Masters (each owns a share of the 16,384 slots); default 3, at least 3 (redis-cli's minimum). */
  masters?: number;
  /** Replicas of each master; default 1. */
  replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long a node may be silent before it is failed over; default 1,000 ms. */
  nodeTimeoutMs?: number;
}

/** A running cluster; stop() it after the test (afterAll). */
export interface TestRedisCluster {
  /** Every node started, masters and replicas, in start order (a killed node stays listed). */
  nodes: ClusterNode[];
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...`: every node as a seed, the form `--redis` / QP_REDIS_URL take. */
  url: string;
  /** `redis://127.0.0.1:p` of every node (node-redis createCluster's rootNodes take these as `{ url }`). */
  urls: string[];
  /** The nodes that are masters now, as the cluster says (after a failover, the promoted replica is one). */
  masters(): Promise<ClusterNode[]>;
  /**
   * SIGKILL a master (the given one, else the first master that is up) and wait until its replica is promoted and
   * every surviving node says `cluster_state:ok`. Resolves to the killed node and the one promoted in its place.
   */
  killMaster(node?: ClusterNode): Promise<{ killed: ClusterNode; promoted: ClusterNode; ms: number }>;
  /** Start a killed node again (same port, same nodes.conf): it rejoins as a replica; resolves once it has synced. */
  restart(node: ClusterNode): Promise<void>;
  /** Send one command to one node (inline, e.g. `CLUSTER INFO`); resolves to its bulk, simple string or integer reply, as text. */
  command(node: ClusterNode, line: string): Promise<string>;
  /** Stop every node (SIGKILL: nothing to save) and remove the temp folders. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Debian's redis-cli (package redis-tools; `.ci/run` installs it): REDIS_CLI_PATH, else the usual places. */
export function redisCliPath(): string {
  const candidates = [process.env.REDIS_CLI_PATH, '/usr/bin/redis-cli', '/usr/local/bin/redis-cli'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('redis-cli not found: install Debian\'s "redis-tools" package or set REDIS_CLI_PATH');
  return found;
}

/**
 * Start a cluster of `masters` masters with `replicasPerMaster` replicas each (default 3 and 1) and resolve once every
 * node says `cluster_state:ok`, knows every other node, and every replica has synced with its master.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<TestRedisCluster> {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  if (masters < 3) throw new Error('a Redis Cluster needs at least 3 masters');
  const count = masters * (1 + replicas);
  const started: { node: ClusterNode; busPort: number; dir: string; child?: ChildProcess }[] = [];
  const stop = async () => {
    await Promise.all(started.map((s) => kill(s.child)));
    for (const s of started) {
      rmSync(s.dir, { recursive: true, force: true });
      dirs.delete(s.dir);
    }
  };
  try {
    for (let i = 0; i < count; i++) {
      // Redis 7 takes the bus port explicitly (cluster-port), so both are free ports rather than port + 10,000.
      const port = await freePort();
      const busPort = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'qp-redis-cluster-'));
      dirs.add(dir);
      started.push({ node: { host: HOST, port }, busPort, dir });
    }
    const launch = async (s: (typeof started)[number]) => {
      s.child = await launchNode(s.node.port, s.busPort, s.dir, nodeTimeoutMs);
    };
    // A free port may be taken by another process between freePort() and the node's bind (a loaded machine running
    // other suites): before the cluster is created, such a node simply starts again on other ports (twice more).
    // Every launch is settled before a failure stops the others, so none is left running unowned.
    const first = async (s: (typeof started)[number]) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await launch(s);
        } catch (error) {
          if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
          s.node.port = await freePort();
          s.busPort = await freePort();
        }
      }
    };
    const launched = await Promise.allSettled(started.map(first));
    const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await run(redisCliPath(), [
      '--cluster',
      'create',
      ...started.map((s) => `${HOST}:${s.node.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
    const up = () => started.filter((s) => running(s.child)).map((s) => s.node);
    const settled = async () => {
      for (const node of up()) {
        const info = await command(node, 'CLUSTER INFO').catch(() => '');
        if (!info.includes('cluster_state:ok') || field(info, 'cluster_known_nodes') !== String(count)) return false;
        const replication = await command(node, 'INFO replication').catch(() => '');
        if (field(replication, 'role') === 'slave' && field(replication, 'master_link_status') !== 'up') return false;
      }
      return true;
    };
    await until(settled, 'the Redis Cluster to be ok on every node', 30_000, 100);

    const anyUp = () => {
      const node = up()[0];
      if (!node) throw new Error('no node of the cluster is up');
      return node;
    };
    const mastersNow = async () => {
      const nodes = await command(anyUp(), 'CLUSTER NODES');
      return parseNodes(nodes)
        .filter((n) => n.flags.includes('master') && !n.flags.includes('fail'))
        .map((n) => n.node);
    };
    const find = (node: ClusterNode) => {
      const s = started.find((x) => x.node.port === node.port);
      if (!s) throw new Error(`no node on port ${node.port} in this cluster`);
      return s;
    };
    return {
      nodes: started.map((s) => s.node),
      url: `redis+cluster://${started.map((s) => `${HOST}:${s.node.port}`).join(',')}`,
      urls: started.map((s) => `redis://${HOST}:${s.node.port}`),
      masters: mastersNow,
      command,
      async killMaster(node) {
        const target = node ?? (await mastersNow()).find((m) => running(find(m).child));
        if (!target) throw new Error('no master is up');
        const s = find(target);
        const replicaIds = await replicasOf(target, anyUp());
        const at = Date.now();
        await kill(s.child);
        // Promoted: one of its replicas calls itself master, and every surviving node serves every slot again.
        const promoted = await until(
          async () => {
            for (const r of replicaIds) {
              const replication = await command(r, 'INFO replication').catch(() => '');
              if (field(replication, 'role') === 'master') return r;
            }
            return undefined;
          },
          `a replica of ${target.port} to be promoted`,
          30_000,
          50,
        );
        await until(
          async () => {
            for (const n of up()) if (!(await command(n, 'CLUSTER INFO').catch(() => '')).includes('cluster_state:ok')) return false;
            return true;
          },
          'cluster_state:ok on every surviving node',
          30_000,
          50,
        );
        return { killed: target, promoted, ms: Date.now() - at };
      },
      async restart(node) {
        const s = find(node);
        if (running(s.child)) return;
        await launch(s);
        await until(settled, `node ${node.port} to rejoin the cluster`, 30_000, 100);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

// Every node still running when the test process exits (a failed run, a timeout) is killed with it: a cluster node
// must never outlive the process that started it.
const live = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Start one cluster node; resolves once it accepts connections. */
function launchNode(port: number, busPort: number, dir: string, nodeTimeoutMs: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ['--port', String(port), '--cluster-port', String(busPort), '--bind', HOST, '--dir', dir];
    args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs));
    args.push('--save', '', '--appendonly', 'no');
    const child = spawn(redisServerPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    child.once('exit', () => live.delete(child));
    let output = '';
    // Generous: on a loaded machine (two cores, load 18 seen) a start can take seconds.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server (cluster node ${port}) did not start within 30 s: ${output}`));
    }, 30_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server (cluster node ${port}) exited with ${code}: ${output}`));
    });
  });
}

const running = (child: ChildProcess | undefined): child is ChildProcess => !!child && child.exitCode === null && child.signalCode === null;

async function kill(child: ChildProcess | undefined): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
}

/** One inline command over a fresh connection (quote an argument with spaces); the reply is a bulk string, a simple one or an integer. */
function command(node: ClusterNode, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: node.host, port: node.port });
    let data = Buffer.alloc(0);
    const done = (error: Error | undefined, value?: string) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? '');
    };
    socket.setTimeout(2_000, () => done(new Error(`${line} to ${node.port}: no answer`)));
    socket.once('error', (error) => done(error));
    socket.once('connect', () => socket.write(`${line}\r\n`));
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n');
      if (end < 0) return;
      const head = data.subarray(0, end).toString();
      if (head[0] === '+' || head[0] === ':') return done(undefined, head.slice(1));
      if (head[0] === '-') return done(new Error(`${line} to ${node.port}: ${head.slice(1)}`));
      if (head[0] !== '$') return done(new Error(`${line} to ${node.port}: unexpected reply ${head}`));
      const length = Number(head.slice(1));
      if (data.length >= end + 2 + length) done(undefined, data.subarray(end + 2, end + 2 + length).toString());
    });
  });
}

/** `name:value` from an INFO-style reply. */
function field(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1];
}

/** CLUSTER NODES: id, address, flags and master id of each line. */
function parseNodes(text: string): { id: string; node: ClusterNode; flags: string[]; masterId: string }[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', address = '', flags = '', masterId = ''] = line.split(' ');
      const hostPort = address.split('@')[0] ?? '';
      const port = Number(hostPort.slice(hostPort.lastIndexOf(':') + 1));
      return { id, node: { host: HOST, port }, flags: flags.split(','), masterId };
    });
}

/** The replicas of a master, as the nodes that are up see it. */
async function replicasOf(master: ClusterNode, asked: ClusterNode): Promise<ClusterNode[]> {
  const nodes = parseNodes(await command(asked, 'CLUSTER NODES'));
  const id = nodes.find((n) => n.node.port === master.port)?.id;
  const replicas = nodes.filter((n) => n.masterId === id).map((n) => n.node);
  if (replicas.length === 0) throw new Error(`master ${master.port} has no replica to fail over to`);
  return replicas;
}
