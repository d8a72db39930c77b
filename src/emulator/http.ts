import type { Context } from 'hono';

/** Every error the emulator sends: `{ success: false, message }`, never cached. */
export function fail(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ success: false, message }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

/** A JSON body already serialised (hot paths build their JSON by hand). */
export function jsonText(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}

export const ok = (data?: unknown) => jsonText(JSON.stringify(data === undefined ? { success: true } : { success: true, data }));

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The request body as JSON. POSTs must say `Content-Type: application/json` (400 naming the header otherwise:
 * clients treat 400 as final, and a wrong content type is a client bug). Size is enforced by bodyLimit first.
 */
export async function readJson(c: Context, { requireJsonType = true } = {}): Promise<Parsed<unknown>> {
  if (requireJsonType && !JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    return { ok: false, response: fail(400, 'Content-Type header must be application/json') };
  }
  const text = await c.req.text();
  if (!requireJsonType && text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, response: fail(400, 'body must be valid JSON') };
  }
  // valibot's object() takes an array as an object; every body here is a JSON object.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, response: fail(400, 'body must be a JSON object') };
  }
  return { ok: true, value };
}


export const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
