const MASK = '[redacted]';

// Short strings would mask innocent text; real keys and tokens are long.
const mask = (text: string, secret: string | undefined) =>
  secret && secret.length >= 8 && text.includes(secret) ? text.split(secret).join(MASK) : text;

/** Replace every occurrence of the given secrets (API key, relay secret, the caller's token) in a text. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[], also?: string): string {
  let out = text;
  for (const secret of secrets) out = mask(out, secret);
  // `also`: one more (the caller's token), without a new array per log line.
  out = mask(out, also);
  // A bearer token the relay never saw (e.g. echoed by a proxy) is still a JWT: three base64url parts. (Every log
  // line and every answer of the service passes here: the includes() checks spare the common case any allocation.)
  return out.includes('eyJ') ? out.replace(/\beyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, MASK) : out;
}
