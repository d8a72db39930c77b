import { createQuestPoints } from '../../src/client/index.js';
import { tokenFrom } from '../../src/sw/token.js';

// What every demo page shares: the quest, who is playing, tokens from the dev server, the offline switch.

export const QUEST_ID = 'demo-quest';

/** The player of this browser: ?player=... wins (tests use it), else one id kept in localStorage. */
export function playerId(): string {
  const fromQuery = new URLSearchParams(location.search).get('player');
  if (fromQuery) return fromQuery;
  const stored = localStorage.getItem('qp-demo-player');
  if (stored) return stored;
  const made = `player-${crypto.randomUUID().slice(0, 8)}`;
  localStorage.setItem('qp-demo-player', made);
  return made;
}

/**
 * getToken for the SDK: a 15-minute token minted by the dev server at /__dev/token (loopback only).
 * In production this is your own login endpoint; the relay secret never reaches the page either way.
 */
export function devToken(claims: { sub: string; role?: 'player' | 'admin' }): () => Promise<string> {
  // The token-URL format every consumer reads ({ token }): the service worker reads the same route the same way.
  const getToken = tokenFrom(`/__dev/token?${new URLSearchParams({ sub: claims.sub, role: claims.role ?? 'player' })}`);
  return () =>
    getToken().catch((error: Error) => {
      // A static host (a deployed `vite build`) answers index.html or 404 here: say what serves dev tokens.
      throw new Error(
        `dev token: ${error.message}; dev tokens are served only by \`vite\` or \`vite preview\` with the quest-points/vite plugin, or by \`npx quest-points dev\``,
      );
    });
}

/**
 * The offline switch: while on, the SDK's fetch fails like a dropped network (a TypeError, as browsers throw),
 * so the SDK queues and retries exactly as it would on a train; turning it off fires `online`, which makes
 * the SDK flush at once.
 */
export function createOfflineSwitch() {
  let offline = false;
  const listeners = new Set<(offline: boolean) => void>();
  return {
    fetch: ((input: RequestInfo | URL, init?: RequestInit) =>
      offline ? Promise.reject(new TypeError('Failed to fetch (demo offline switch is on)')) : fetch(input, init)) as typeof fetch,
    get offline() {
      return offline;
    },
    set(value: boolean) {
      if (value === offline) return;
      offline = value;
      window.dispatchEvent(new Event(value ? 'offline' : 'online'));
      for (const listener of listeners) listener(value);
    },
    onChange(listener: (offline: boolean) => void) {
      listeners.add(listener);
    },
  };
}
export type OfflineSwitch = ReturnType<typeof createOfflineSwitch>;

/** A checkbox with role=switch bound to the offline switch. */
export function bindOfflineCheckbox(input: HTMLInputElement, offlineSwitch: OfflineSwitch): void {
  input.checked = offlineSwitch.offline;
  input.addEventListener('change', () => offlineSwitch.set(input.checked));
  offlineSwitch.onChange((offline) => (input.checked = offline));
}

/** The client both games use: this browser's player, the demo quest, the offline switch in its fetch. */
export function createPlayerClient(storageName: string) {
  const player = playerId();
  const offline = createOfflineSwitch();
  const client = createQuestPoints({
    relayUrl: '/api',
    getToken: devToken({ sub: player }),
    questId: QUEST_ID,
    serviceUserId: player,
    storageName,
    fetch: offline.fetch,
    // Short backoff so a demo visitor sees retries land in seconds, not a minute.
    backoff: { baseMs: 250, maxMs: 4000 },
  });
  return { client, offline, player };
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

/** Totals are exact to 6 decimals; show them without float noise. */
export function formatPoints(points: number): string {
  return Number(points.toFixed(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}
