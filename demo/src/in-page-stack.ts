import { createDevStack, randomDevSecrets, type DevSecrets } from '../../src/dev/stack.js';

// The docs site's static demo (`npm run docs` builds the demo with `vite build --mode static` into the site): no
// server there, so the dev stack (emulator + relay + dev tokens + live policy, src/dev/stack.ts) runs in the page
// itself, and the page's fetch to /api/*, /__dev/* and /__emulator/* on its own origin is answered by it. Only the
// static build loads this module (vite.config.ts puts it first in every page); `npm start` uses the real dev server.
// The stack's state (its secrets, the emulator's ledger and idempotency store, the policy) is kept in
// sessionStorage, so moving between the demo's pages keeps the points, and an award resent after a reload is still
// the same award. There is nothing to protect: the "service" and its secrets are this visitor's own, in this tab.

const KEY = 'quest-points-static-demo';
const PREFIXES = ['/api/', '/__dev/', '/__emulator/'];

interface Saved {
  secrets: DevSecrets;
  state?: unknown;
  policy?: unknown;
}

const saved: Saved = (() => {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Saved | null;
    if (parsed?.secrets) return parsed;
  } catch {
    // No storage (a sandboxed frame) or an unreadable entry: start afresh.
  }
  return { secrets: randomDevSecrets() };
})();

// Refusals are the demo's to show (the console, the HUD); the page's console stays for the page.
const stack = createDevStack({ secrets: saved.secrets, logger: () => {} });
const call = (method: string, path: string, body?: unknown) =>
  stack.app.fetch(
    new Request(new URL(path, location.origin), {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    }),
  );

/** Restores the tab's state before the first request is answered. */
const ready = (async () => {
  if (saved.state) await call('PUT', '/__emulator/state', saved.state);
  if (saved.policy) await call('PUT', '/__dev/policy', { policy: saved.policy });
})();

async function save(): Promise<void> {
  const state = await (await call('GET', '/__emulator/state')).json();
  const policy = ((await (await call('GET', '/__dev/policy')).json()) as { policy: unknown }).policy;
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ secrets: saved.secrets, state, policy } satisfies Saved));
  } catch {
    // Full or denied: the state lives as long as the page.
  }
}

const network = window.fetch.bind(window);
window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  // The URL first: a Request made from a Request takes its body, so one passed on to the network is left untouched.
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  if (url.origin !== location.origin || !PREFIXES.some((prefix) => url.pathname.startsWith(prefix))) return network(input, init);
  const request = new Request(input, init);
  // The service is far away in spirit: with the browser offline it cannot be reached, as a real one could not.
  if (!navigator.onLine) throw new TypeError('Failed to fetch (the browser is offline)');
  await ready;
  const response = await stack.app.fetch(request);
  if (request.method !== 'GET' || url.pathname.startsWith('/api/')) await save();
  return response;
};
