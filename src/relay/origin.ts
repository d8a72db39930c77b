// Is a request's Origin the relay's own? The page that serves the game may mount the relay on its own server (the
// README's production set-up): its requests carry its Origin and need no `corsOrigins`. Behind a TLS-terminating
// proxy (nginx, Caddy, a cloud load balancer) the relay's socket is plain http while the page is https: an origin
// rebuilt from the socket would be http://host, never the page's https://host. So same-origin is decided by what the
// browser says (Sec-Fetch-Site), else by what the operator's own proxies say (their forwarded scheme and host, read
// only when `trustProxy` trusts them), else by the request as the relay received it; never a scheme assumed.
import { forwardedChain, trustedHops, type ForwardedHeader } from './client-ip.js';
import { requestHeader, type StepContext } from './context.js';

/** Which proxies the relay trusts (RelayOptions `trustProxy`, `forwardedHeader`): the same as for the client's address. */
export interface ProxyTrust {
  trustProxy: boolean | number;
  forwardedHeader: ForwardedHeader;
}

/**
 * True when `origin` is the relay's own, as the client addressed it.
 *
 * `Sec-Fetch-Site` first, when sent (every current browser sends it on every request): `same-origin` is, anything
 * else (`same-site`, `cross-site`, `none`) is not, whatever the rebuilt origin says: the browser knows. A page cannot
 * set or forge it (a `Sec-` header is the browser's alone). Anything that is not a browser can, and gains nothing by
 * it: it can as well send no Origin at all, which passes too (servers and curl call the relay without one), and
 * neither gets past the token. The origin check exists for browsers: so that a page elsewhere cannot make a
 * player's browser call the relay; such a page's request says `cross-site`.
 *
 * Without it (an older browser): the origin rebuilt from the forwarded scheme and host of the operator's own proxies
 * when `trustProxy` trusts them (a client's own X-Forwarded-Proto reaches no further than a missing Origin would),
 * else from the request as the relay received it (its URL: the socket's scheme, the Host header).
 */
export function isOwnOrigin(c: StepContext<unknown>, origin: string, trust: ProxyTrust): boolean {
  const site = requestHeader(c, 'sec-fetch-site');
  if (site !== undefined) return site.trim().toLowerCase() === 'same-origin';
  return origin === ownOrigin(c, trust);
}

/** The relay's origin as the client addressed it: scheme and host (forwarded when trusted), or undefined when unreadable. */
export function ownOrigin(c: StepContext<unknown>, trust: ProxyTrust): string | undefined {
  const url = new URL(c.req.url);
  const hops = trustedHops(trust.trustProxy);
  const proto = hops > 0 ? trustedEntry(forwardedChain(c, trust.forwardedHeader, 'proto'), hops)?.toLowerCase() : undefined;
  const host = hops > 0 ? trustedEntry(forwardedChain(c, trust.forwardedHeader, 'host'), hops) : undefined;
  const scheme = proto === 'http' || proto === 'https' ? `${proto}:` : url.protocol;
  try {
    // Through URL: a default port (https://host:443) reads as the browser writes the origin (https://host).
    return new URL(`${scheme}//${host || url.host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * The entry the outermost trusted proxy wrote about the client's request: `hops` from the right when every proxy
 * appended one (Forwarded, a proxy that appends), else the leftmost present (a proxy that overwrites, as nginx's
 * `proxy_set_header X-Forwarded-Proto $scheme` does, leaves one). Entries further left than `hops` are the client's.
 */
function trustedEntry(chain: string[] | undefined, hops: number): string | undefined {
  if (!chain) return undefined;
  return chain[Math.max(0, chain.length - hops)] || undefined;
}
