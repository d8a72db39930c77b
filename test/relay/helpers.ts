import { createRelay, type LogRecord, type RelayOptions } from '../../src/relay/index.js';
import { API_KEY, KEY_SECRET, OPEN_POLICY, SECRET } from '../helpers/fixtures.js';
import { inProcessStack } from '../helpers/stack.js';

export const UPSTREAM = 'http://service.test/v1';
export const RELAY = 'http://relay.test';

export interface SeenRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

type Reply = (request: SeenRequest, n: number) => Response | Promise<Response>;

/** A relay whose upstream is a scripted fake; every request it sends is recorded. */
export function fakeRelay(options: Partial<RelayOptions> & { reply?: Reply } = {}) {
  const seen: SeenRequest[] = [];
  const logs: LogRecord[] = [];
  const { reply = () => Response.json({ success: true }), upstream, ...rest } = options;
  const app = createRelay({
    secret: SECRET,
    keySecret: KEY_SECRET,
    policy: OPEN_POLICY,
    logger: (record) => logs.push(record),
    ...rest,
    upstream: {
      url: UPSTREAM,
      apiKey: API_KEY,
      retryDelayMs: 1,
      ...upstream,
      fetch: async (request) => {
        const url = new URL(request.url);
        const text = await request.text();
        const entry: SeenRequest = {
          method: request.method,
          url: request.url,
          path: url.pathname + url.search,
          headers: Object.fromEntries(request.headers),
          body: text ? JSON.parse(text) : undefined,
        };
        seen.push(entry);
        return reply(entry, seen.length);
      },
    },
  });
  return { app, seen, logs, call: caller(app.fetch) };
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** Call a fetch handler (in-process) or a base URL (real server) the way a browser SDK would. */
export function caller(target: ((request: Request) => Response | Promise<Response>) | string) {
  return async (method: string, path: string, options: CallOptions = {}) => {
    const headers = new Headers(options.headers);
    if (options.token) headers.set('authorization', `Bearer ${options.token}`);
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const base = typeof target === 'string' ? target : RELAY;
    const request = new Request(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const response = typeof target === 'string' ? await fetch(request) : await target(request);
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests assert on every shape of answer; a wrong guess fails the assertion
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };
}

export const uuid = () => crypto.randomUUID();

export function award(questId: string, serviceUserId: string, eventPoints: unknown, extra: Record<string, unknown> = {}) {
  return { questId, serviceUserId, eventPoints, idempotencyKey: uuid(), ...extra };
}

/** A relay in front of a real emulator, in-process (app.fetch): faults and state under the test's hand. */
export function emulatedRelay(options: Partial<RelayOptions> = {}) {
  const stack = inProcessStack({ relayOptions: { ...options, upstream: { retryDelayMs: 1, ...options.upstream } } });
  const direct = caller((request) => {
    request.headers.set('API_KEY', API_KEY);
    return stack.emulator.app.fetch(request);
  });
  return {
    app: stack.relay,
    call: caller(stack.relay.fetch),
    relayOn: stack.relayOn,
    core: stack.emulator.core,
    direct,
    totalOf: stack.appliedPoints,
  };
}
