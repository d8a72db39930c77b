const MASK = '[redacted]';

/** Replace every occurrence of the given secrets (API key, relay secret, the caller's token) in a text. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would mask innocent text; real keys and tokens are long.
    if (secret && secret.length >= 8) out = out.split(secret).join(MASK);
  }
  // A bearer token the relay never saw (e.g. echoed by a proxy) is still a JWT: three base64url parts.
  return out.replace(/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, MASK);
}
