import { parse as parseUuid, v5 as uuidv5 } from 'uuid';
import { ConfigError } from '../kit/errors.js';

// Idempotency keys are scoped per player. The service keeps one key space per API key, and the relay holds one API
// key for every player: forwarding a browser's key unchanged would let player B, by sending A's key first, turn A's
// award into a 422 (or read its replayed answer). So the key sent upstream is UUIDv5(namespace, [sub, key]), the
// namespace itself a UUIDv5 of the key secret: the same player and client key give the same upstream key on every
// instance and after every restart (so retries still dedupe), another player's never collide with it, and the
// service cannot link it back to the browser's key without the secret.
// The key secret is not a token secret: token secrets rotate, and a resent award whose upstream key changed with
// them would be applied twice. Awards wait in browsers for days, so the key secret never rotates.

/** A fixed UUID naming this derivation; the key secret makes each deployment's namespace its own. */
const DERIVATION = 'b7f4c1de-3a52-5e8b-9d60-2c1f0a7e4b39';
/** As long as a token secret: whoever holds it can link the service's keys to players' client keys. */
export const KEY_SECRET_MIN_LENGTH = 32;

/** One line: what is missing, why it never rotates, and the migration that keeps every upstream key. */
export const MISSING_KEY_SECRET =
  'QP_KEY_SECRET (keySecret) is not set: it names upstream idempotency keys and never rotates. Upgrading? Set QP_KEY_SECRET to your current QP_RELAY_SECRET to keep every upstream key (your QP_API_KEY if you used authenticate() without a relay secret).';

/** Derives upstream keys under `keySecret`'s namespace (client keys compare case-insensitively, as the service's do). */
export function createKeyScope(keySecret: string): (sub: string, clientKey: string) => string {
  // The namespace's bytes once, and the name through TextEncoder: uuid parses a string namespace and encodes a string
  // name in JavaScript on every call (3 % of a profile's busy time, inclusive). Same UUIDs (test/relay/keys.test.ts).
  const namespace = parseUuid(uuidv5(keySecret, DERIVATION));
  const sha1 = nodeSha1(namespace);
  if (sha1) return (sub, clientKey) => sha1(JSON.stringify([sub, clientKey.toLowerCase()]));
  const encoder = new TextEncoder();
  return (sub, clientKey) => uuidv5(encoder.encode(JSON.stringify([sub, clientKey.toLowerCase()])), namespace);
}

/**
 * RFC 9562's UUIDv5 of a name in `namespace`, hashed by node:crypto directly where there is one (Node, Bun, Deno):
 * the namespace and the name go into one hash without uuid's copy of both into a new array.
 */
function nodeSha1(namespace: Uint8Array): ((name: string) => string) | undefined {
  const crypto = globalThis.process?.getBuiltinModule?.('node:crypto') as typeof import('node:crypto') | undefined;
  if (!crypto?.createHash) return undefined;
  // crypto.hash (Node 20.12+, Bun, Deno) hashes in one call, without a Hash object per key: the namespace's bytes
  // and the name's in one array, the digest as hex. createHash where it is missing.
  const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;
  if (oneShot) {
    const encoder = new TextEncoder();
    return (name) => {
      const input = new Uint8Array(namespace.length + name.length * 3);
      input.set(namespace);
      const { written } = encoder.encodeInto(name, input.subarray(namespace.length));
      const hex = oneShot('sha1', input.subarray(0, namespace.length + written), 'hex');
      // The version (5) and the variant (10xx) bits, as uuid sets them on bytes 6 and 8.
      const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    };
  }
  return (name) => {
    const bytes = crypto.createHash('sha1').update(namespace).update(name, 'utf8').digest();
    bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
    bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
    const hex = bytes.toString('hex', 0, 16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  };
}

/** The key the service sees for a player's client key: for operators matching the service's records to players'. */
export const upstreamIdempotencyKey = (keySecret: string, sub: string, clientKey: string): string => createKeyScope(keySecret)(sub, clientKey);

/**
 * The key secret, checked once at startup: a relay without one refuses to start. Before it existed the namespace came
 * from the relay secret (or, with the operator's own authenticate() and no relay secret, from the API key): set
 * QP_KEY_SECRET to that value and every upstream key stays what it was. That API key is the one value accepted
 * shorter than KEY_SECRET_MIN_LENGTH, so those deployments can keep their keys too.
 */
export function checkKeySecret(keySecret: string | undefined, apiKey: string | undefined): string {
  if (!keySecret) {
    throw new ConfigError('keySecret', 'missing', MISSING_KEY_SECRET);
  }
  if (keySecret.length < KEY_SECRET_MIN_LENGTH && keySecret !== apiKey) {
    throw new ConfigError('keySecret', 'invalid', `QP_KEY_SECRET (keySecret) must be at least ${KEY_SECRET_MIN_LENGTH} characters`);
  }
  return keySecret;
}
