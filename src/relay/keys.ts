import { v5 as uuidv5 } from 'uuid';

// Idempotency keys are scoped per player. The service keeps one key space per API key, and the relay holds one API
// key for every player: forwarding a browser's key unchanged would let player B, by sending A's key first, turn A's
// award into a 422 (or read its replayed answer). So the key sent upstream is UUIDv5(namespace, [sub, key]), the
// namespace itself a UUIDv5 of the relay's secret: the same player and client key give the same upstream key on
// every instance and after every restart (so retries still dedupe), another player's never collide with it, and
// the service cannot link it back to the browser's key without the secret.

/** A fixed UUID naming this derivation; the secret makes each deployment's namespace its own. */
const DERIVATION = 'b7f4c1de-3a52-5e8b-9d60-2c1f0a7e4b39';

/** Derives upstream keys under `secret`'s namespace (client keys compare case-insensitively, as the service's do). */
export function createKeyScope(secret: string): (sub: string, clientKey: string) => string {
  const namespace = uuidv5(secret, DERIVATION);
  return (sub, clientKey) => uuidv5(JSON.stringify([sub, clientKey.toLowerCase()]), namespace);
}

/** The key the service sees for a player's client key: for operators matching the service's records to players'. */
export const upstreamIdempotencyKey = (secret: string, sub: string, clientKey: string): string => createKeyScope(secret)(sub, clientKey);
