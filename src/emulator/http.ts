import type { Context } from 'hono';
import { BODY_LIMIT_BYTES } from '../protocol/index.js';

/** Every error the emulator sends: `{ success: false, message }`, never cached. */
export function fail(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ success: false, message }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

/** A JSON body already serialised (hot paths build their JSON by hand). */
export function jsonText(body: string | Uint8Array<ArrayBuffer>, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}

export const ok = (data?: unknown) => jsonText(JSON.stringify(data === undefined ? { success: true } : { success: true, data }));

export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * The body as text, or null when it is over maxBytes: refused from Content-Length when sent, otherwise
 * counted while streaming, so an oversized chunked body is never buffered whole. (Hono's bodyLimit builds
 * a second Request for bodies without Content-Length, which halves in-process throughput.)
 */
async function readLimitedText(request: Request, maxBytes: number): Promise<string | null> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) return null;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder();
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(all);
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The request body as JSON. POSTs must say `Content-Type: application/json` (400 naming the header otherwise:
 * clients treat 400 as final, and a wrong content type is a client bug). Size is enforced by bodyLimit first.
 */
export async function readJson(
  c: Context,
  { requireJsonType = true, maxBytes = BODY_LIMIT_BYTES } = {},
): Promise<Parsed<unknown>> {
  if (requireJsonType && !JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    return { ok: false, response: fail(400, 'Content-Type header must be application/json') };
  }
  const text = await readLimitedText(c.req.raw, maxBytes);
  if (text === null) return { ok: false, response: fail(413, `body must be at most ${maxBytes} bytes`) };
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
