// The relay on Node with startRelay (quest-points/relay/node), as docs/relay.md "Deploying: Node" shows it:
// Redis from QP_REDIS_URL when set (startRelay reads it), Prometheus at /metrics.
import { startRelay } from '../../../src/relay/node/index.js';
import { relayOptionsFromEnv } from './env.js';

const relay = await startRelay({ ...relayOptionsFromEnv(process.env), port: Number(process.env.PORT ?? 0) });
console.log(`listening on ${relay.url}`);
// SIGTERM: in-flight requests finish, then the process exits.
process.once('SIGTERM', () => void relay.close().then(() => process.exit(0)));
