/** A bearer token's characters (RFC 6750's b64token): a JWT or an opaque token; never spaces, quotes or markup. */
const BEARER = /^[A-Za-z0-9\-._~+/]+=*$/;
/** The token, trimmed (a text route's trailing newline is fine), when `value` is a plausible bearer token; else undefined. */
export function plausibleToken(value: unknown): string | undefined {
  const token = typeof value === 'string' ? value.trim() : '';
  return BEARER.test(token) ? token : undefined;
}

/** Renew this long before a JWT's exp, so a token never expires in flight. */
const SKEW_MS = 30_000;

/** exp (ms) of a JWT, or Infinity when the token is not a readable JWT (then it is kept until a 401). */
export function tokenExpiry(token: string): number {
  try {
    const { exp } = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/')));
    return typeof exp === 'number' ? exp * 1000 : Infinity;
  } catch {
    return Infinity;
  }
}

/** One getToken() call at a time; the token is reused until shortly before exp or until invalidated. */
export function createTokenCache(getToken: () => string | Promise<string>, now = Date.now) {
  let token: string | undefined;
  let until = 0;
  let inFlight: Promise<string> | undefined;
  return {
    get(): Promise<string> {
      if (token && now() < until) return Promise.resolve(token);
      inFlight ??= Promise.resolve()
        .then(getToken)
        // A mistake (HTML, JSON text, an Error...) is named by token-check.ts, loaded only then.
        .then(async (value) => plausibleToken(value) ?? (await import('./token-check.js')).checkToken(value))
        .then((fresh) => {
          until = tokenExpiry(fresh) - SKEW_MS;
          token = fresh;
          return fresh;
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    invalidate() {
      token = undefined;
    },
  };
}
