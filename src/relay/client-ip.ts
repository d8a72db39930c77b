import ipaddr from 'ipaddr.js';
import { requestHeader, type StepContext, type StepRaw } from './context.js';

/** Which header your own proxies write the client's address into. */
export type ForwardedHeader = 'x-forwarded-for' | 'forwarded';

export interface ClientIpOptions {
  /** Proxies of your own in front of the relay: true = 1, or a count. false: the socket address only. */
  trustProxy: boolean | number;
  /** Default x-forwarded-for. Only the one you name is read: the other one passes through proxies untouched. */
  forwardedHeader: ForwardedHeader;
  /** The connection's address; default `connectionAddress`. */
  clientAddress?: ClientAddress;
}

/**
 * The address of the connection a request came on, from the request (its method, URL, headers) and what the runtime
 * passed along it.
 */
export type ClientAddress = (request: StepRaw, env: unknown) => string | undefined;

/**
 * What each runtime hands the fetch handler, read without importing any of them: Node's adapter passes
 * `{ incoming }` (the socket), Bun.serve its server (`requestIP`), Deno.serve the handler info (`remoteAddr`).
 * On Cloudflare, `request.cf` is set and CF-Connecting-IP is written by Cloudflare's edge (a client's own is replaced).
 */
export const connectionAddress: ClientAddress = (request, env) => {
  const bindings = env as
    | {
        incoming?: { socket?: { remoteAddress?: string } };
        // Bun's server.requestIP, handed the Request Bun handed the relay.
        requestIP?: (request: StepRaw) => { address?: string } | null;
        remoteAddr?: { hostname?: string };
      }
    | null
    | undefined;
  if (bindings?.incoming) return bindings.incoming.socket?.remoteAddress;
  if (typeof bindings?.requestIP === 'function') return bindings.requestIP(request)?.address;
  if (bindings?.remoteAddr) return bindings.remoteAddr.hostname;
  if ((request as { cf?: unknown }).cf) return request.headers.get('cf-connecting-ip') ?? undefined;
  return undefined;
};

/** A literal IPv4 (dotted quad only: no "127.1" or hex octets) or IPv6 address. */
const isIpLiteral = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));

/**
 * One address as the limiter keys it, or null when the text is not an IP: IPv4 as is, an IPv4-mapped IPv6
 * address as its IPv4, any other IPv6 address as its /64 (one customer's subnet: rotating addresses inside it
 * gives no fresh bucket). Accepts the forms proxies write: brackets, a port, a zone.
 */
export function rateLimitSubject(text: string): string | null {
  // Pure and asked once per request, mostly about the same few addresses (a proxy's, a NAT's): remembered, the
  // parse (ipaddr.js, three regular expressions) is paid once per address, not per request.
  const known = subjects.get(text);
  if (known !== undefined) return known;
  const subject = subjectOf(text);
  // Only what an address can be as long as (an IPv6 in brackets with a zone and a port): a forwarded entry is text.
  if (text.length > 64) return subject;
  if (subjects.size >= SUBJECTS_KEPT) subjects.clear();
  subjects.set(text, subject);
  return subject;
}

/** Addresses whose subject is remembered, at most (under 1 MB). */
const SUBJECTS_KEPT = 4096;
const subjects = new Map<string, string | null>();

function subjectOf(text: string): string | null {
  let address = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed?.[1] !== undefined) address = bracketed[1];
  else if (/^[\d.]+:\d{1,5}$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.replace(/%[\w.-]+$/, '');
  // Strict first (ipaddr.process alone would take "127.1"); ipaddr.js then normalises what passed.
  if (!isIpLiteral(address)) return null;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

// RFC 7239: elements separated by commas, each `name=value` pairs separated by semicolons, a value a token or a
// quoted string. Parsed here (the parser library used before needs node:util; the core runs without Node).
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const PAIR = `${TOKEN}=(?:${TOKEN}|${QUOTED})`;
const ELEMENT = `${PAIR}(?:;${PAIR})*`;
const FORWARDED = new RegExp(`^${ELEMENT}(?:[ \\t]*,[ \\t]*${ELEMENT})*$`);
const PAIRS = new RegExp(`(${TOKEN})=(${TOKEN}|${QUOTED})|,`, 'g');

/** Each element's `for=` value (unquoted), or undefined when the header breaks the grammar. */
export const forwardedFor = (header: string): string[] | undefined => forwardedParam(header, 'for');

/** Each element's value of one parameter (unquoted; '' where an element has none), or undefined when the header breaks the grammar. */
export function forwardedParam(header: string, param: 'for' | 'proto' | 'host'): string[] | undefined {
  if (!FORWARDED.test(header)) return undefined;
  const chain: string[] = [];
  let current = '';
  for (const [match, name, value] of header.matchAll(PAIRS)) {
    // A match is either the comma or a pair, and a pair always captures both its groups.
    if (match === ',') {
      chain.push(current);
      current = '';
    } else if (name?.toLowerCase() === param && value !== undefined) {
      current = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;
    }
  }
  chain.push(current);
  return chain;
}

/** How many proxies of the operator's own sit in front (RelayOptions `trustProxy`): true is one, false none. */
export const trustedHops = (trustProxy: boolean | number): number =>
  trustProxy === true ? 1 : trustProxy === false ? 0 : Math.max(0, Math.floor(trustProxy));

/** The X-Forwarded-* header of each fact, when the operator's proxies write X-Forwarded-For. */
const X_FORWARDED = { for: 'x-forwarded-for', proto: 'x-forwarded-proto', host: 'x-forwarded-host' } as const;

/** One fact's chain, as the operator's proxies write it (`forwardedHeader`), oldest hop first; undefined when absent or broken. */
export function forwardedChain(c: StepContext<unknown>, header: ForwardedHeader, fact: 'for' | 'proto' | 'host'): string[] | undefined {
  const value = requestHeader(c, header === 'forwarded' ? 'forwarded' : X_FORWARDED[fact]);
  if (!value) return undefined;
  return header === 'forwarded' ? forwardedParam(value, fact) : value.split(',').map((part) => part.trim());
}

function forwardedEntry(c: StepContext<unknown>, hops: number, header: ForwardedHeader): string | undefined {
  const chain = forwardedChain(c, header, 'for');
  return chain?.[chain.length - hops];
}

/**
 * The client's subject for per-IP limits. The connection's address (see `connectionAddress`). A forwarded header is read
 * only when the operator says how many proxies of its own sit in front: the entry that many hops from the right was
 * written by a trusted proxy; anything further left is the client's own claim. An entry that is not an IP address
 * (garbage, `unknown`, an obfuscated name) is ignored and the socket address is used.
 */
export function clientIp(c: StepContext<unknown>, options: ClientIpOptions): string {
  const hops = trustedHops(options.trustProxy);
  if (hops > 0) {
    const entry = forwardedEntry(c, hops, options.forwardedHeader);
    const subject = entry === undefined ? null : rateLimitSubject(entry);
    if (subject) return subject;
  }
  // Without an address (app.fetch called in-process), every such caller shares one bucket.
  const address = (options.clientAddress ?? connectionAddress)(c.req.raw, c.env);
  return (address && rateLimitSubject(address)) ?? 'unknown';
}
