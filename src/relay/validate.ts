import type * as v from 'valibot';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_IETF_HEADER, IdempotencyKeySchema, parseWith } from '../protocol/index.js';
import { requestHeader, type StepContext } from './context.js';
import type { Refusal } from './policy.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

const badRequest = (message: string): { ok: false; refusal: Refusal } => ({ ok: false, refusal: { status: 400, message, code: 'invalid' } });

/** A refusal of the kit's body and path checks (kit/http.ts), with its code: 413 too large, any other invalid. */
export const earlyRefusal = ({ status, message }: { status: number; message: string }): Refusal => ({
  status,
  message,
  code: status === 413 ? 'too_large' : 'invalid',
});

/** Validate with a protocol schema: 400 naming the field and the rule. */
export function check<S extends v.GenericSchema>(schema: S, input: unknown, prefix?: string): Checked<v.InferOutput<S>> {
  const parsed = parseWith(schema, input, prefix);
  return parsed.ok ? parsed : badRequest(parsed.message);
}

/**
 * The client's idempotency key: IDEMPOTENCY_KEY (the service's spelling) or Idempotency-Key (the IETF draft's, which
 * proxies such as nginx pass by default where they drop underscore headers). Both with different keys: 400.
 */
export function readIdempotencyKey(c: StepContext<unknown>): Checked<string | undefined> {
  const spec = requestHeader(c, IDEMPOTENCY_KEY_HEADER);
  const ietf = requestHeader(c, IDEMPOTENCY_KEY_IETF_HEADER);
  if (spec !== undefined && ietf !== undefined && spec.toLowerCase() !== ietf.toLowerCase()) {
    return badRequest(`${IDEMPOTENCY_KEY_HEADER} and ${IDEMPOTENCY_KEY_IETF_HEADER} headers carry different keys; send one of them`);
  }
  const raw = spec ?? ietf;
  if (raw === undefined) return { ok: true, value: undefined };
  return check(IdempotencyKeySchema, raw, `${spec !== undefined ? IDEMPOTENCY_KEY_HEADER : IDEMPOTENCY_KEY_IETF_HEADER} `);
}
