const MASK = '[redacted]';

/** Replace every occurrence of the given secrets (API key, relay secret, the caller's token) in a text. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[], also?: string): string {
  let out = text;
  for (const secret of secrets) {
    // Short strings would mask innocent text; real keys and tokens are long.
    if (secret && secret.length >= 8 && out.includes(secret)) out = out.split(secret).join(MASK);
  }
  // `also`: one more (the caller's token), without a new array per log line.
  if (also && also.length >= 8 && out.includes(also)) out = out.split(also).join(MASK);
  // A bearer token the relay never saw (e.g. echoed by a proxy) is still a JWT: three base64url parts. (Every log
  // line and every answer of the service passes here: the includes() checks spare the common case any allocation.)
  return out.includes('eyJ') ? out.replace(/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, MASK) : out;
}
