import { createDevStack, randomDevSecrets, type DevSecrets } from '../../src/dev/stack.js';

// The docs site's static demo (`npm run docs` builds the demo with `vite build --mode static` into the site): no
// server there, so the dev stack (emulator + relay + dev tokens + live policy, src/dev/stack.ts) runs in the page
// itself, and the page's fetch to /api/*, /__dev/* and /__emulator/* on its own origin is answered by it. Only the
// static build loads this module (vite.config.ts puts it first in every page); `npm start` uses the real dev server.
// The stack's state (its secrets, the emulator's ledger and idempotency store, the policy) is kept in localStorage,
// as the player's id (session.ts) and the SDK's outbox (IndexedDB) are: a page opened in another tab (the docs'
// links under the frame open new tabs) or after a reload has the player's points, and an award resent after a reload
// is still the same award. Two tabs at once: each saves after every change and takes another tab's save when the
// `storage` event brings it. There is nothing to protect: the "service" and its secrets are this visitor's own.

const KEY = 'quest-points-static-demo';
const PREFIXES = ['/api/', '/__dev/', '/__emulator/'];

interface Saved {
  secrets: DevSecrets;
  state?: unknown;
  policy?: unknown;
}

function read(text: string | null): Saved | undefined {
  try {
    const parsed = JSON.parse(text ?? 'null') as Saved | null;
    return parsed?.secrets ? parsed : undefined;
  } catch {
    return undefined; // an unreadable entry: start afresh
  }
}

function write(value: Saved): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(value));
  } catch {
    // No storage (a sandboxed frame), full or denied: the state lives as long as the page.
  }
}

const stored = (() => {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
})();
const saved: Saved = read(stored) ?? { secrets: randomDevSecrets() };
// The first page of this browser sets the secrets every later page and tab uses: their tokens verify in any of them.
if (!stored) write(saved);

// Refusals are the demo's to show (the console, the HUD); the page's console stays for the page.
const stack = createDevStack({ secrets: saved.secrets, logger: () => {} });
const call = (method: string, path: string, body?: unknown) =>
  stack.app.fetch(
    new Request(new URL(path, location.origin), {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    }),
  );

async function restore(from: Saved): Promise<void> {
  if (from.state) await call('PUT', '/__emulator/state', from.state);
  if (from.policy) await call('PUT', '/__dev/policy', { policy: from.policy });
}

/** Restores the saved state before the first request is answered; later, another tab's saves in turn. */
let ready = restore(saved);
window.addEventListener('storage', (event) => {
  const theirs = event.key === KEY ? read(event.newValue) : undefined;
  if (theirs) ready = ready.then(() => restore(theirs));
});

async function save(): Promise<void> {
  const state = await (await call('GET', '/__emulator/state')).json();
  const policy = ((await (await call('GET', '/__dev/policy')).json()) as { policy: unknown }).policy;
  write({ secrets: saved.secrets, state, policy });
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
