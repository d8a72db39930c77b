import { Hono } from 'hono';
import { errorResponse as fail } from '../kit/http.js';
import { base64url } from 'jose';
import { createEmulator } from '../emulator/app.js';
import type { EmulatorOptions } from '../emulator/types.js';
import {
  createMemoryEconomyStore,
  createMemoryLedgerStore,
  createRelay,
  signPlayerToken,
  type RelayOptions,
  type RelayPolicy,
} from '../relay/index.js';
import { devLogger } from './logger.js';
import { DEV_POLICY } from './policy.js';
import { DEV_TOKEN_TTL_SECONDS, parseDevTokenQuery, type DevTokenClaims } from './token.js';

// The dev stack's routes with no guard: one emulator (admin routes on) behind one relay whose upstream is the
// emulator in-process, the dev token route and the live policy. Web-standard only (Web Crypto, Hono), so it also runs
// inside a page: the docs site's static demo (demo/src/in-page-stack.ts). On a machine, createDevServer() puts the
// loopback guards in front of it; nothing here may be served without them.

/** Where each face lives on the dev server (and under Vite's dev server). */
export const DEV_PATHS = { relay: '/api', emulator: '/__emulator', token: '/__dev/token', policy: '/__dev/policy' } as const;

/** The secrets of one stack: random per process unless given (the in-page demo keeps its own for the tab). */
export interface DevSecrets {
  /** The emulator's API key, held by the relay. */
  apiKey: string;
  /** Signs the dev tokens the relay accepts. */
  secret: string;
  /** Derives the upstream idempotency keys: the same one keeps a retried award the same award. */
  keySecret: string;
}

export interface DevStackOptions {
  /** Emulator mode at start; switchable at PUT /__emulator/mode. Default 'stateful'. */
  mode?: EmulatorOptions['mode'];
  /** Relay policy; default DEV_POLICY (unknown events allowed, 1000 points per award, generous rate limits). */
  policy?: RelayOptions['policy'];
  /** Relay log records; default devLogger (refusals and errors, one short line each, on stderr). */
  logger?: RelayOptions['logger'];
  /** Default: new random ones. */
  secrets?: DevSecrets;
}

const random = (bytes: number) => base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));

/** New random secrets: an API key and two 256-bit secrets. */
export const randomDevSecrets = (): DevSecrets => ({ apiKey: `dev-${crypto.randomUUID()}`, secret: random(32), keySecret: random(32) });

function withoutOrigin(request: Request): Request {
  if (!request.headers.has('origin')) return request;
  const headers = new Headers(request.headers);
  headers.delete('origin');
  return new Request(request, { headers });
}

/** The unguarded stack: `app` answers /api/*, /__emulator/*, /__dev/token and /__dev/policy. */
export function createDevStack<Bindings extends object = object>(options: DevStackOptions = {}) {
  const { apiKey, secret, keySecret } = options.secrets ?? randomDevSecrets();
  const emulator = createEmulator({ mode: options.mode ?? 'stateful', admin: true, apiKeys: [apiKey] });
  // Outlive every relay of this stack: what the economy rules counted (budgets spent, achievements claimed, cooldowns,
  // runtime bans) and the ledger the designer console follows (GET /api/admin/ledger).
  const economyStore = createMemoryEconomyStore();
  const ledger = { store: createMemoryLedgerStore() };
  const relayWith = (policy: NonNullable<RelayOptions['policy']>) =>
    createRelay({
      upstream: { url: 'http://emulator.invalid', apiKey, fetch: (request: Request) => Promise.resolve(emulator.fetch(request)) },
      secret,
      keySecret,
      policy,
      economyStore,
      ledger,
      logger: options.logger ?? devLogger,
    });
  // The designer console edits the policy while games run (GET/PUT /__dev/policy): a new relay with the same secrets
  // takes over /api, so tokens and idempotency keys carry on, and so do the economy's state and the ledger (the stores
  // above); its rate-limit counters start afresh. Dev only: the production relay's policy is a file or an option,
  // read once.
  let policy = options.policy ?? DEV_POLICY;
  let relay = relayWith(policy);

  const mintToken = (claims: Partial<DevTokenClaims> = {}) =>
    signPlayerToken(
      {
        sub: claims.sub ?? 'dev-player',
        role: claims.role ?? 'player',
        ...(claims.email ? { email: claims.email } : {}),
        ...(claims.wallet ? { wallet: claims.wallet } : {}),
        ...(claims.quests ? { quests: claims.quests } : {}),
      },
      { secret, ttl: DEV_TOKEN_TTL_SECONDS },
    );

  const app = new Hono<{ Bindings: Bindings }>();
  app.get(DEV_PATHS.token, async (c) => {
    const parsed = parseDevTokenQuery(new URL(c.req.url).searchParams);
    if (!parsed.ok) return fail(400, parsed.message);
    const token = await mintToken(parsed.value);
    const { sub, role } = parsed.value;
    // The token-URL format of quest-points/sw (readToken): what the SDK's pages (tokenFrom) and the worker both read.
    return c.json({ token, sub, role, expiresIn: DEV_TOKEN_TTL_SECONDS }, 200, { 'cache-control': 'no-store' });
  });
  app.get(DEV_PATHS.policy, (c) => c.json({ policy: typeof policy === 'string' ? null : policy, file: typeof policy === 'string' ? policy : null }));
  app.put(DEV_PATHS.policy, async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { policy?: unknown } | undefined;
    // An object only: a string would be read as a policy file's path.
    if (!body || typeof body.policy !== 'object' || body.policy === null || Array.isArray(body.policy))
      return fail(400, 'body must be JSON { "policy": { ... } }: the relay policy as an object (docs/relay.md, "Policy")');
    try {
      relay = relayWith(body.policy as RelayPolicy);
    } catch (error) {
      return fail(400, error instanceof Error ? error.message : String(error));
    }
    policy = body.policy as RelayPolicy;
    return c.json({ policy });
  });
  app.all(`${DEV_PATHS.emulator}/*`, (c) => emulator.fetch(c.req.raw, c.env));
  // The relay's own exact-origin allowlist cannot know a game's dev port: the guard in front checks the Origin.
  app.mount(DEV_PATHS.relay, (request, env) => relay.fetch(withoutOrigin(request), env));
  app.notFound(() => fail(404, 'no such dev route: the dev server answers /api/*, /__emulator/*, /__dev/token and /__dev/policy'));
  app.onError((error) => {
    console.error('[quest-points dev]', error);
    return fail(500, 'internal error in the dev server');
  });

  return {
    app,
    emulator,
    /** The relay serving /api now: PUT /__dev/policy replaces it with one under the new policy. */
    get relay() {
      return relay;
    },
    mintToken,
  };
}
