// The production rehearsal's stack, as an operator deploys examples/operator-server: Debian's nginx terminating TLS
// (a certificate made with openssl) with the example's own nginx.conf, two relay processes (the CLI: startRelay) behind
// its upstream block with --trust-proxy 1, a Redis Cluster of 3 masters and 3 replicas between them, the example's
// Express server (login, token route, page, worker) for everything but /qp/, and the emulator as the service.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOperatorExample } from '../../examples/operator-server/server.js';
import type { RelayPolicy } from '../../src/relay/index.js';
import { startFleet, type Fleet } from '../chaos/fleet.js';
import { startNginx, type RunningNginx } from '../helpers/nginx.js';
import { freePort } from '../helpers/redis.js';
import type { ClusterNode, TestRedisCluster } from '../helpers/redis-cluster.js';

const SITE = new URL('../../examples/operator-server/nginx.conf', import.meta.url);

/** examples/operator-server/app.ts's policy: the relays must decide as the example's own mount would. */
const POLICY: RelayPolicy = { quests: ['summer'], events: { coin: { maxPoints: 5 } }, maxPointsPerAward: 5 };

export interface RehearsalStack {
  /** https://127.0.0.1:PORT: the site as players reach it (nginx). */
  origin: string;
  fleet: Fleet;
  nginx: RunningNginx;
  cluster: TestRedisCluster;
  /** The master that holds `player`'s keys now (its limits and records: every key of a player carries its tag). */
  masterOf(player: string): Promise<ClusterNode>;
  /** The service's ledger for the example's quest, per player: points and the upstream keys of the awards applied. */
  ledger(): Promise<Map<string, { points: number; keys: string[] }>>;
  close(): Promise<void>;
}

/** The example's nginx.conf with only what a test must change: ports, certificate, host name. Throws if one moved. */
function siteFor(text: string, options: { port: number; relays: number[]; game: number; certificate: string; key: string }): string {
  const replacements: [string, string][] = [
    ['listen 443 ssl;', `listen 127.0.0.1:${options.port} ssl;`],
    ['server_name game.example.com;', 'server_name 127.0.0.1 localhost;'],
    ['/etc/ssl/certs/game.example.com.pem', options.certificate],
    ['/etc/ssl/private/game.example.com.key', options.key],
    ['server 127.0.0.1:8788;', `server 127.0.0.1:${options.relays[0]};`],
    ['server 127.0.0.1:8789;', `server 127.0.0.1:${options.relays[1]};`],
    ['server 127.0.0.1:3000;', `server 127.0.0.1:${options.game};`],
  ];
  return replacements.reduce((site, [from, to]) => {
    if (!site.includes(from)) throw new Error(`examples/operator-server/nginx.conf no longer has "${from}": update test/rehearsal/stack.ts`);
    return site.replace(from, to);
  }, text);
}

/** The example's secrets come from the environment, as its server.ts reads them (random ones otherwise). */
async function startGame(secrets: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
  Object.assign(process.env, secrets);
  try {
    return await startOperatorExample(0);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * Starts the whole stack in `dir`, nginx serving `tls` (selfSignedCertificate's files), the relays on `cluster` (the
 * caller's: it takes seconds to form, so one serves a file's runs; emptied here first); `corsOrigins` lists the site's
 * origin at the relays, or nothing (same origin).
 */
export async function startRehearsal(options: {
  dir: string;
  corsOrigins: boolean;
  tls: { certificate: string; key: string };
  cluster: TestRedisCluster;
}): Promise<RehearsalStack> {
  const secret = () => randomBytes(32).toString('base64url');
  const secrets = { QP_API_KEY: secret(), QP_RELAY_SECRET: secret(), QP_KEY_SECRET: secret(), SESSION_SECRET: secret() };
  const port = await freePort();
  const origin = `https://127.0.0.1:${port}`;
  const { cluster } = options;
  // A run before this one left its limits and records: every player starts afresh.
  for (const master of await cluster.masters()) await cluster.command(master, 'FLUSHALL');
  const running = await startGame(secrets);
  const parts: { fleet?: Fleet; nginx?: RunningNginx } = {};
  const close = async () => {
    await parts.nginx?.stop();
    await parts.fleet?.close();
    await running.close();
  };
  try {
    parts.fleet = await startFleet({
      redisUrl: cluster.url,
      built: true, // the examples import the build too
      relays: 2,
      upstreamUrl: running.emulatorUrl,
      apiKey: secrets.QP_API_KEY,
      policy: POLICY,
      corsOrigins: options.corsOrigins ? [origin] : [],
      maxTokenAgeSeconds: 3600,
      config: { onStoreError: 'closed', secrets: [secrets.QP_RELAY_SECRET], keySecret: secrets.QP_KEY_SECRET },
      args: ['--trust-proxy', '1'],
    });
    const { certificate, key } = options.tls;
    const site = siteFor(readFileSync(SITE, 'utf8'), {
      port,
      relays: parts.fleet.ports(),
      game: Number(new URL(running.url).port),
      certificate,
      key,
    });
    parts.nginx = await startNginx({ dir: join(options.dir, 'nginx'), site, port });
  } catch (error) {
    await close();
    throw error;
  }
  const { fleet, nginx } = parts as Required<typeof parts>;
  const game = running;
  return {
    origin,
    fleet,
    nginx,
    cluster,
    async masterOf(player) {
      // Only the master serving the tag's slot answers a key of it; the others answer MOVED.
      for (const master of await cluster.masters()) {
        if (
          await cluster.command(master, `EXISTS qp:{${player}}`).then(
            () => true,
            () => false,
          )
        )
          return master;
      }
      throw new Error(`no master serves {${player}}`);
    },
    async ledger() {
      const response = await fetch(`${game.emulatorUrl}/__emulator/state`);
      const { data } = (await response.json()) as {
        data: { ledger: { questId: string; serviceUserId: string; eventPoints: number; idempotencyKey?: string }[] };
      };
      const players = new Map<string, { points: number; keys: string[] }>();
      for (const entry of data.ledger.filter((e) => e.questId === 'summer')) {
        const player = players.get(entry.serviceUserId) ?? { points: 0, keys: [] };
        player.points += entry.eventPoints;
        player.keys.push(entry.idempotencyKey ?? '');
        players.set(entry.serviceUserId, player);
      }
      return players;
    },
    close,
  };
}
