import { isIP } from 'node:net';
import { errorResponse } from './http.js';
import type { NodeBindings } from './server.js';

// Dev mode mints tokens without a login, and the emulator's admin routes reset or read everything: both must only
// ever answer this machine.

/** 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. `localhost` is a name, not an address: see isLoopbackHost. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = bare.toLowerCase().startsWith('::ffff:') ? bare.slice(7) : bare;
  if (isIP(v4) === 4) return v4.split('.')[0] === '127';
  if (isIP(bare) === 6) return /^(0{0,4}:){2,7}0{0,3}1$/.test(bare) || bare === '::1';
  return false;
}

/** A host to bind to or to accept in a Host header: a loopback address, `localhost` or `*.localhost`. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/** The host part of a Host header (`[::1]:5173` -> `[::1]`, `localhost:8787` -> `localhost`). */
export function hostOfHeader(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(header.trim());
  return match?.[1];
}

/** An Origin served from this machine: http(s)://loopback-host[:port]. */
export function isLoopbackOrigin(origin: string | undefined): boolean {
  if (!origin) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

type NodeFetch = (request: Request, env: NodeBindings) => Response | Promise<Response>;

/** A Node fetch handler whose routes under `prefix` answer 403 `message` to callers not on a loopback address. */
export function loopbackOnly(prefix: string, message: string, fetch: NodeFetch): NodeFetch {
  return (request, env) => {
    if (new URL(request.url).pathname.startsWith(prefix) && !isLoopbackAddress(env.incoming.socket.remoteAddress)) return errorResponse(403, message);
    return fetch(request, env);
  };
}
