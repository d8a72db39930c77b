// The award route on Node without a WHATWG Request, Hono's router and context, or a Response per answer: the
// single award is the spec's own path (every server-to-server integration uses it), and on it those objects were a
// large share of the garbage the relay made per request. The steps are the app's own (app.ts `award`: request id,
// security headers, origin and CORS, path, per-IP limit, authentication, body, validation, the pipeline, metrics and
// the access log, each once, in the router's order); this module only hands them a context that reads the socket's
// request and writes Node's response, and answers exactly as @hono/node-server writes Hono's answer
// (test/relay/fast-award.test.ts compares the two, byte for byte, for every kind of request).
// Anything unusual (a chunked body, an encoded path, a query, an absolute URL, an odd Host) goes the Hono way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AwardRoute } from '../app.js';
import { SOCKET_REQUEST, type StepContext, type StepRaw, type Variables } from '../context.js';

/** The spec's award path, a plain quest id: no escapes (Hono would decode them), no query, nothing after. */
const AWARD_PATH = /^\/group-quests\/([^/?#%]+)\/points$/;
// @hono/node-server's own checks of what it builds a URL from without parsing it (its listener, buildUrl): a request
// that fails them takes the Hono way, where they are answered as before.
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/;
const decoder = new TextDecoder();

/** An answer as the context's json() builds it: what @hono/node-server would have written for Hono's Response. */
interface Answer {
  status: number;
  body: string;
  /** Headers the steps set before answering (c.header), by lower-case name: Hono's Headers, written sorted. */
  headers: Map<string, string> | undefined;
}

/**
 * A Node request listener's first look (kit/server.ts `handle`): true when it took the request (an award POST to
 * the plain award path with a declared length), false to let @hono/node-server have it.
 */
export function fastAwardHandler(award: AwardRoute): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const target = request.url ?? '';
    const match = AWARD_PATH.exec(target);
    if (!match || !PLAIN_TARGET.test(target) || DOT_SEGMENT.test(target)) return false;
    const host = request.headers.host;
    const length = request.headers['content-length'];
    if (!host || !PLAIN_HOST.test(host) || length === undefined || !/^\d+$/.test(length) || request.headers['transfer-encoding'] !== undefined) {
      return false;
    }
    // The scheme as @hono/node-server builds it: the socket's (https on a TLS socket), never assumed.
    const scheme = (request.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
    const c = new AwardContext(request, response, `${scheme}://${host}${target}`, target, match[1] as string);
    award(c)
      .then((answer) => write(response, answer))
      // award() answers its own errors (as the app's onError); what is left is a failure to write.
      .catch(() => response.destroy());
    return true;
  };
}

/** Headers go out as @hono/node-server writes Hono's answer: its Headers sorted with the length after, or the type alone. */
function write(response: ServerResponse, answer: Answer): void {
  response.statusCode = answer.status;
  if (!answer.headers) {
    response.setHeader('Content-Type', 'application/json');
    response.end(answer.body);
    return;
  }
  const headers = new Map(answer.headers).set('content-type', 'application/json');
  for (const name of [...headers.keys()].sort()) response.setHeader(name, headers.get(name) as string);
  response.setHeader('Content-Length', Buffer.byteLength(answer.body));
  response.end(answer.body);
}

/**
 * What the app's steps read of Hono's context (context.ts, hygiene.ts, authenticate.ts, routes.ts, respond.ts), on
 * Node's objects. Classes, not closures: one object per request and its methods shared (garbage is the cost here).
 */
class AwardContext implements StepContext<Answer> {
  readonly env: { incoming: IncomingMessage; outgoing: ServerResponse };
  readonly req: AwardRequest;
  readonly #vars: Partial<Variables> = {};
  #headers: Map<string, string> | undefined;

  constructor(incoming: IncomingMessage, outgoing: ServerResponse, url: string, path: string, questId: string) {
    this.env = { incoming, outgoing };
    this.req = new AwardRequest(incoming, outgoing, url, path, questId);
  }

  get<K extends keyof Variables>(name: K): Variables[K] {
    return this.#vars[name] as Variables[K];
  }

  set<K extends keyof Variables>(name: K, value: Variables[K]): void {
    this.#vars[name] = value;
  }

  /** Hono's c.header before the answer: into its prepared Headers (lower-case names). */
  header(name: string, value: string): void {
    this.#headers ??= new Map();
    this.#headers.set(name.toLowerCase(), value);
  }

  json(object: object, status = 200): Answer {
    return { status, body: JSON.stringify(object), headers: this.#headers };
  }
}

/**
 * c.req, and c.req.raw (StepRaw). The steps read its body with text() (a declared length) and its headers off the
 * socket (context.ts socketExchange); `headers`, `signal` and `body` are made only if something else asks for them.
 */
class AwardRequest implements StepRaw {
  readonly method = 'POST';
  #signal: AbortSignal | undefined;
  constructor(
    readonly incoming: IncomingMessage,
    readonly outgoing: ServerResponse,
    readonly url: string,
    readonly path: string,
    readonly questId: string,
  ) {}

  get raw(): this {
    return this;
  }

  /** The request's headers as a Headers (repeated ones joined, as Headers.get joins them). */
  get headers(): Headers {
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.incoming.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    return headers;
  }

  /** Aborted when the client goes away before the answer is written. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const controller = new AbortController();
      this.outgoing.once('close', () => {
        if (!this.outgoing.writableFinished) controller.abort();
      });
      this.#signal = controller.signal;
    }
    return this.#signal;
  }

  get body(): Request['body'] {
    return Readable.toWeb(this.incoming) as Request['body'];
  }

  /** Built from the socket's request: the app's steps read its headers off it (context.ts socketExchange). */
  get [SOCKET_REQUEST](): IncomingMessage {
    return this.incoming;
  }

  /** A header as Node parsed it (repeated ones joined, as Headers.get joins them). */
  header(name: string): string | undefined {
    const value = this.incoming.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  param(): Record<string, string> {
    return { questId: this.questId };
  }

  text(): Promise<string> {
    return readText(this.incoming);
  }
}

/**
 * The body as @hono/node-server's text() reads it (UTF-8, a leading BOM dropped); rejected when the client went away
 * first, unless the whole declared body had arrived by then (read, as the adapter reads it).
 */
function readText(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (then: () => void) => {
      if (settled) return;
      settled = true;
      incoming.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      then();
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const whole = () => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    const onEnd = () => finish(() => resolve(decoder.decode(whole())));
    const onGone = () => {
      const reset = (incoming.errored as { code?: string } | null)?.code;
      if (incoming.complete && incoming.readableAborted && (reset === undefined || reset === 'ECONNRESET')) {
        const rest: Buffer | null = incoming.read();
        if (rest !== null) chunks.push(rest);
        const body = whole();
        if (body.length === Number(incoming.headers['content-length'])) return finish(() => resolve(decoder.decode(body)));
      }
      finish(() => reject(new Error('Client connection prematurely closed.')));
    };
    incoming.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
    // The steps before the body are asynchronous (a token's first check): a client gone by now sends no event any more.
    queueMicrotask(() => {
      if (incoming.readableEnded) onEnd();
      else if (incoming.errored || incoming.destroyed) onGone();
    });
  });
}
