// The model's world beyond the browser: the service (an idempotent ledger) and the relay in front of it, as the SDK
// sees them, answering as the run's relay mode says: acknowledgements lost, retries, the service's refusals, a token
// refused, a rate limit with any Retry-After (0 s to 60 days), and a deployment that refuses before the relay (a
// proxy's HTML 404, a WAF's bare 403, the relay's own origin refusal) until it heals. As the real relay, it refuses an
// award named for another player than the token's (403, code 'player').
import { DEFAULT_EVENT_NAME } from '../../../src/protocol/limits.js';

export const QUEST = 'q';

/**
 * How the relay answers. 'lost': applies the awards, then the answer is lost (a 503 or no answer). 'ratelimit': 429
 * with `retryAfterS`. 'proxy404', 'waf403', 'origin': the deployment refuses every request (not the awards' fault).
 */
export type RelayMode = 'ok' | 'lost' | 'retry' | 'reject' | 'auth' | 'ratelimit' | 'proxy404' | 'waf403' | 'origin';

/** What the run sets: the mode, the network, and the Retry-After of 'ratelimit'. */
export interface RelayState {
  mode: RelayMode;
  offline: boolean;
  retryAfterS: number;
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
export const noAnswer = () => Promise.reject(new TypeError('fetch failed'));

/** The service: awards applied once per key (what the relay forwards), and how often each key was applied. */
export function modelService() {
  const ledger = new Map<string, { user: string; points: number; at: number }>();
  const applied = new Map<string, number>();
  /** Keys refused once: refused again. */
  const refused = new Set<string>();
  return {
    ledger,
    applied,
    refused,
    apply(key: string, user: string, points: number) {
      applied.set(key, (applied.get(key) ?? 0) + 1);
      if (!ledger.has(key)) ledger.set(key, { user, points, at: ledger.size });
    },
    total: (user: string) => [...ledger.values()].filter((e) => e.user === user).reduce((s, e) => s + e.points, 0),
    summary(user: string) {
      const entries = [...ledger.values()].filter((e) => e.user === user).reverse();
      return {
        totalPoints: entries.reduce((s, e) => s + e.points, 0),
        history: entries.map((e) => ({
          createdAt: new Date(1_700_000_000_000 + e.at).toISOString(),
          eventPoints: e.points,
          eventName: DEFAULT_EVENT_NAME,
          eventDescription: '',
        })),
      };
    },
  };
}

export type ModelService = ReturnType<typeof modelService>;

interface AwardSent {
  questId: string;
  serviceUserId: string;
  eventPoints: number;
  idempotencyKey: string;
}

/** The token's subject, as the relay reads it (the model's JWTs are unsigned). */
const subOf = (init: RequestInit) => {
  const token = (new Headers(init.headers).get('authorization') ?? '').replace(/^Bearer /, '');
  return JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))).sub as string;
};

/** What the relay answers an award named for another player than the token's (src/relay/access.ts), with its code. */
const PLAYER_REFUSAL = { success: false, message: "serviceUserId is not the token's sub: a player acts only on itself", code: 'player' };

/** The deployment's refusals, before the relay: none is about an award. */
function deploymentRefusal(mode: RelayMode): Response | undefined {
  if (mode === 'proxy404')
    return new Response('<html><body><h1>404 Not Found</h1>nginx</body></html>', { status: 404, headers: { 'content-type': 'text/html' } });
  if (mode === 'waf403') return new Response('', { status: 403 });
  if (mode === 'origin')
    return json(403, { success: false, message: "origin https://game.test is not in the relay's CORS allowlist", code: 'origin' });
  return undefined;
}

type Fate = 'ok' | 'rejected' | 'retry' | 'lost' | 'player' | 'limited';

/** The relay as the SDK sees it, over the model service, answering as `state` says (or not at all, offline). */
export function modelRelay(service: ModelService, state: RelayState) {
  /** One award's fate: applied and acknowledged, refused (unless applied before: an idempotent replay), or not applied. */
  const decide = (a: AwardSent, sub: string): Fate => {
    if (a.serviceUserId !== sub) return 'player';
    if (state.mode === 'retry') return 'retry';
    if (state.mode === 'ratelimit') return 'limited';
    // A refusal is final: the same award sent again is refused again (the service's rules do not change).
    if (service.refused.has(a.idempotencyKey)) return 'rejected';
    if (state.mode === 'reject' && !service.ledger.has(a.idempotencyKey)) {
      service.refused.add(a.idempotencyKey);
      return 'rejected';
    }
    service.apply(a.idempotencyKey, a.serviceUserId, a.eventPoints);
    return state.mode === 'lost' ? 'lost' : 'ok';
  };
  const resultOf = (a: AwardSent, f: Fate) => {
    const idempotencyKey = a.idempotencyKey;
    if (f === 'ok') return { idempotencyKey, outcome: 'ok' };
    if (f === 'player') return { idempotencyKey, outcome: 'rejected', status: 403, ...PLAYER_REFUSAL };
    if (f === 'limited') return { idempotencyKey, outcome: 'retry', reason: 'rate_limited', status: 429, retryAfter: state.retryAfterS };
    return { idempotencyKey, outcome: 'rejected', status: 400, message: 'refused' };
  };
  const lose = { n: 0 };
  return async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    // Answers come in a task of their own, as over a network.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (state.offline) return noAnswer();
    const refused = deploymentRefusal(state.mode);
    if (refused) return refused;
    const url = new URL(String(input), 'https://game.test');
    const method = init.method ?? 'GET';
    if (state.mode === 'auth') return json(401, { success: false, message: 'token refused' });
    if (method === 'GET') {
      const user = decodeURIComponent(url.pathname.split('/').at(-1) ?? '');
      return json(200, { success: true, data: service.summary(user) });
    }
    const body = JSON.parse(String(init.body));
    const sub = subOf(init);
    if (url.pathname.endsWith('/batch/points')) {
      const fates = (body.awards as AwardSent[]).map((a) => [a, decide(a, sub)] as const);
      if (fates.some(([, f]) => f === 'lost')) return lose.n++ % 2 ? noAnswer() : json(503, { success: false, message: 'lost' });
      if (state.mode === 'retry') return json(503, { success: false, message: 'busy' });
      return json(200, { success: true, results: fates.map(([a, f]) => resultOf(a, f)) });
    }
    // One award: POST /group-quests/:quest/points, its key in a header.
    const key = new Headers(init.headers).get('idempotency-key') ?? '';
    const fate = decide({ ...body, questId: QUEST, idempotencyKey: key }, sub);
    if (fate === 'player') return json(403, PLAYER_REFUSAL);
    if (fate === 'limited') return json(429, { success: false, message: 'rate limited' }, { 'retry-after': String(state.retryAfterS) });
    if (fate === 'lost') return lose.n++ % 2 ? noAnswer() : json(503, { success: false, message: 'lost' });
    if (fate === 'retry') return json(503, { success: false, message: 'busy' });
    if (fate === 'rejected') return json(400, { success: false, message: 'refused' });
    return json(200, { success: true });
  };
}
