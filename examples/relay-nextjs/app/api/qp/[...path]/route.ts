// app/api/qp/[...path]/route.ts: the relay as a Next.js App Router route handler (Node runtime). Next calls the
// exported method with the Request and sends back the Response it returns.
import { createRelay } from 'quest-points/relay';

// Settings from QP_UPSTREAM_URL, QP_API_KEY, QP_KEY_SECRET, QP_RELAY_SECRET; basePath is this route's path. Behind
// Next's server or Vercel the client's address is in X-Forwarded-For: trustProxy 1 reads it.
const relay = createRelay({ basePath: '/api/qp', trustProxy: 1, policy: process.env.QP_POLICY_FILE ?? './quest-policy.json' });
const handle = (request: Request) => relay.fetch(request);

export { handle as GET, handle as POST, handle as OPTIONS };
export const dynamic = 'force-dynamic'; // every request reaches the handler (nothing cached)
