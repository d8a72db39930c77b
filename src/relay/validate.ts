import type * as v from 'valibot';
import { readJsonBody } from '../kit/index.js';
import { parseWith } from '../protocol/index.js';
import type { RelayContext } from './context.js';
import type { Refusal } from './policy.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

const badRequest = (message: string): { ok: false; refusal: Refusal } => ({ ok: false, refusal: { status: 400, message } });

/** Validate with a protocol schema: 400 naming the field and the rule. */
export function check<S extends v.GenericSchema>(schema: S, input: unknown, prefix?: string): Checked<v.InferOutput<S>> {
  const parsed = parseWith(schema, input, prefix);
  return parsed.ok ? parsed : badRequest(parsed.message);
}

/** The body as JSON (its size is limited by the route's limitBody before it is read). */
export async function readJson(c: RelayContext): Promise<Checked<unknown>> {
  const read = await readJsonBody(c.req.raw);
  return read.ok ? read : { ok: false, refusal: { status: read.status, message: read.message } };
}

/**
 * "." and ".." are valid ids to the schema but no URL can carry them as a segment: URL parsing resolves
 * them (even as %2e), so they would change the service path. Refused before anything is sent.
 */
export function checkSegments(ids: Record<string, string>): Refusal | null {
  for (const [name, value] of Object.entries(ids)) {
    if (value === '.' || value === '..') return { status: 400, message: `${name} must not be "." or ".."` };
  }
  return null;
}
