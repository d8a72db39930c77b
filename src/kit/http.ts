import { malformedPathMessage, malformedPathSegment } from '../protocol/paths.js';

/** The error body of every face: `{ success: false, message }` (the service's own shape). */
export const errorBody = (message: string) => ({ success: false as const, message });

/** An error as a Response, never cached. */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(errorBody(message)), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}

export const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

/** A refusal before anything of a request is read: its status and the message naming the rule. */
export interface EarlyRefusal {
  status: 400 | 413;
  message: string;
}

/**
 * A body that does not say `Content-Type: application/json` (parameters such as charset allowed): 400 on the relay and
 * the emulator alike. Not 415: the service interface documents 400 for an invalid request and nothing else, the relay
 * serves that interface, and every client (the SDK's status table included) reads either as a final refusal.
 */
export const NOT_JSON_TYPE: EarlyRefusal = { status: 400, message: 'Content-Type header must be application/json' };

/** A body over the route's limit: 413, on every face, from Content-Length or counted while reading. */
export const bodyTooLarge = (maxBytes: number): EarlyRefusal => ({ status: 413, message: `body must be at most ${maxBytes} bytes` });

/** A POST body's checks before it is read: a JSON content type, then a declared length within maxBytes. */
export function bodyRefusal(
  contentType: string | undefined | null,
  contentLength: string | undefined | null,
  maxBytes: number,
): EarlyRefusal | undefined {
  if (!JSON_CONTENT_TYPE.test(contentType ?? '')) return NOT_JSON_TYPE;
  if (contentLength != null && Number(contentLength) > maxBytes) return bodyTooLarge(maxBytes);
  return undefined;
}

/** A URL whose path has a segment that is not valid percent-encoded UTF-8: 400 naming it, on every face and route. */
export function pathRefusal(url: string): EarlyRefusal | undefined {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  const pathname = start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
  // Most paths hold no escape at all: nothing to decode.
  if (!pathname.includes('%')) return undefined;
  const segment = malformedPathSegment(pathname);
  return segment === undefined ? undefined : { status: 400, message: malformedPathMessage(segment) };
}

/** What readJsonBody reads of a request: its body, as text or as a stream, and its headers (a Request is one). */
export type BodySource = Pick<Request, 'text' | 'body' | 'headers'>;

export type BodyRead = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

// The client went away (or the server's requestTimeout cut it off) before the body's end.
const CUT_OFF = { done: true, value: Symbol('cut off') } as const;

/**
 * The body as text, null when it is over maxBytes, undefined when it was cut off: refused from Content-Length when sent, otherwise
 * counted while streaming, so an oversized chunked body is never buffered whole.
 */
async function readLimitedText(request: BodySource, maxBytes: number, declared: string | null): Promise<string | null | undefined> {
  if (declared !== null && Number(declared) > maxBytes) return null;
  // With a declared length within the limit, the HTTP parser delivers no more than that: read it whole. text() is
  // also the cheap path on Node (@hono/node-server reads the socket directly; .body builds a web stream first).
  // Checked after too: an in-process caller's Request may declare a length its body does not keep to.
  if (declared !== null && /^\d+$/.test(declared)) {
    const text = await request.text().catch(() => undefined);
    if (text === undefined) return undefined;
    return text.length * 3 <= maxBytes || new TextEncoder().encode(text).byteLength <= maxBytes ? text : null;
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => CUT_OFF);
    if (value === CUT_OFF.value) return undefined;
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

/**
 * A request body as JSON: 413 over maxBytes, 400 when it is not JSON. `emptyAs`: the value of an empty body
 * (otherwise an empty body is not JSON). Content-Type is each face's own rule, checked before this. `contentLength`:
 * the declared length when the caller already read it (the relay on Node reads headers off the socket).
 */
export async function readJsonBody(
  request: BodySource,
  {
    maxBytes = Number.POSITIVE_INFINITY,
    emptyAs,
    contentLength = request.headers.get('content-length'),
  }: { maxBytes?: number; emptyAs?: unknown; contentLength?: string | null } = {},
): Promise<BodyRead> {
  const text = await readLimitedText(request, maxBytes, contentLength);
  if (text === null) return { ok: false, ...bodyTooLarge(maxBytes) };
  // Nobody is left to read the answer; a 400 keeps it out of the error log.
  if (text === undefined) return { ok: false, status: 400, message: 'body ended before its announced length (connection closed)' };
  if (emptyAs !== undefined && text.trim() === '') return { ok: true, value: emptyAs };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, message: 'body must be valid JSON' };
  }
}
