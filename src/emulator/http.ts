import type { Context } from 'hono';
import { errorResponse, JSON_CONTENT_TYPE, NOT_JSON_TYPE, readJsonBody } from '../kit/index.js';
import { BODY_LIMIT_BYTES } from '../protocol/index.js';

/** Every error the emulator sends: `{ success: false, message }`, never cached (the server kit's one error body). */
export const fail = errorResponse;

/** A JSON body already serialised (hot paths build their JSON by hand). */
export function jsonText(body: string | Uint8Array<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}

export const ok = (data?: unknown) => jsonText(JSON.stringify(data === undefined ? { success: true } : { success: true, data }));

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * The request body as JSON. POSTs must say `Content-Type: application/json` (the kit's NOT_JSON_TYPE, the relay's
 * answer too). Bodies over maxBytes: 413 (the kit's bodyTooLarge).
 */
export async function readJson(c: Context, { requireJsonType = true, maxBytes = BODY_LIMIT_BYTES } = {}): Promise<Parsed<unknown>> {
  if (requireJsonType && !JSON_CONTENT_TYPE.test(c.req.header('content-type') ?? '')) {
    return { ok: false, response: fail(NOT_JSON_TYPE.status, NOT_JSON_TYPE.message) };
  }
  const read = await readJsonBody(c.req.raw, { maxBytes, ...(requireJsonType ? {} : { emptyAs: {} }) });
  if (!read.ok) return { ok: false, response: fail(read.status, read.message) };
  const value = read.value;
  // valibot's object() takes an array as an object; every body here is a JSON object.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, response: fail(400, 'body must be a JSON object') };
  }
  return { ok: true, value };
}

export const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
