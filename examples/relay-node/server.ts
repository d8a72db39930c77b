// The relay on Node: `node --import tsx server.ts` (or plain `npx quest-points relay`, the CLI).
import { startRelay } from 'quest-points/relay/node';

// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET; Redis from QP_REDIS_URL when set (then
// rate limits and the idempotency record are shared by every instance).
const relay = await startRelay({
  host: '127.0.0.1', // loopback: put it behind your proxy (or '0.0.0.0')
  port: Number(process.env.PORT ?? 8788),
  policy: process.env.QP_POLICY_FILE ?? './quest-policy.json',
});
console.log(`listening on ${relay.url}`);
process.once('SIGTERM', () => void relay.close()); // graceful: /readyz 503, in-flight requests finish
