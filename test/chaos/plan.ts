import type { FaultConfig } from '../../src/emulator/index.js';
import type { PlannedAward } from './pages/protocol.js';
import { createRng } from './rng.js';
import { AWARD_EVENT, FORBIDDEN_EVENT } from './stack.js';

export type Sender = 'ours' | 'naive';

/** Three tabs of one origin: two share a storage name (and a player), the third has its own. */
export const SLOTS = [
  { id: 't0', storage: 'game-a', user: 'chaos-player-a' },
  { id: 't1', storage: 'game-a', user: 'chaos-player-a' },
  { id: 't2', storage: 'game-b', user: 'chaos-player-b' },
] as const;
export type Slot = (typeof SLOTS)[number];

export interface ChaosSize {
  awards: number;
  /** Reloads and closes, each aimed at a page with an award request in flight. */
  disruptions: number;
  offlineToggles: number;
  /** Pause between two issue steps (a step issues 1-6 awards into one tab). */
  stepMs: number;
  /** The operator's chaos (a stack with StackOptions.operator): rolling restarts, Redis crashes, a rotation. */
  operator?: { rotation: boolean };
}

export type Step =
  | { kind: 'issue'; slot: number; awards: PlannedAward[] }
  | { kind: 'reload' | 'close' }
  | { kind: 'offline'; ms: number }
  | { kind: 'restart-relay'; downMs: number }
  | { kind: 'rolling-restart'; onStoreError?: 'closed' | 'open' }
  | { kind: 'crash-redis'; downMs: number }
  | { kind: 'rotate-secret' };

const POINTS = [1, 2, 3, 5, 10, 0.5, 2.5, 7.25, 0.1, 0.2] as const;
/** Share of awards the policy refuses on purpose (their dead letters are the only ones expected). */
const FORBIDDEN_SHARE = 0.02;

/** The fault mix: about a third of requests fail before anything is applied, 20 % of applied awards lose their answer. */
export const chaosFaults = (seed: number): FaultConfig => ({
  seed,
  latencyMs: 2,
  jitterMs: 30,
  errorRate: 0.32,
  errorStatuses: [500, 503, 429],
  retryAfterSeconds: 1,
  lostAckRate: 0.2,
  lostAckMode: 'mixed',
});

/** The whole run from one seed: same seed, same awards, same tabs, same chaos at the same steps. */
export function planChaos(seed: number, size: ChaosSize, sender: Sender): Step[] {
  const rng = createRng(seed);
  const issues: Step[] = [];
  for (let n = 0; n < size.awards; ) {
    const count = Math.min(rng.int(1, 6), size.awards - n);
    const awards: PlannedAward[] = [];
    for (let i = 0; i < count; i++, n++) {
      const forbidden = rng.chance(FORBIDDEN_SHARE);
      awards.push({ n, points: rng.pick(POINTS), eventName: forbidden ? FORBIDDEN_EVENT : AWARD_EVENT, description: `${sender}-${seed}-${n}` });
    }
    issues.push({ kind: 'issue', slot: rng.int(0, SLOTS.length - 1), awards });
  }
  // Chaos goes between issue steps, spread over the first 90 % of the run.
  const at = new Map<number, Step[]>();
  const place = (step: Step) => {
    const index = rng.int(1, Math.max(1, Math.floor(issues.length * 0.9)));
    at.set(index, [...(at.get(index) ?? []), step]);
  };
  for (let i = 0; i < size.disruptions; i++) place({ kind: rng.chance(0.7) ? 'reload' : 'close' });
  for (let i = 0; i < size.offlineToggles; i++) place({ kind: 'offline', ms: rng.int(300, 1500) });
  const restartAt = Math.max(1, Math.floor(issues.length * (0.4 + rng.next() * 0.2)));
  at.set(restartAt, [...(at.get(restartAt) ?? []), { kind: 'restart-relay', downMs: rng.int(800, 2000) }]);
  if (size.operator) {
    // Its own generator, so the rest of the plan stays the same with or without it. One after the other (the
    // harness chains them): a deploy, Redis lost under 'closed', a deploy switching to 'open', Redis lost again, a
    // token-secret rotation; the relay crash above falls between them.
    const ops = createRng(seed ^ 0x0be7a7);
    const operatorSteps: [number, Step][] = [
      [0.1, { kind: 'rolling-restart' }],
      [0.22, { kind: 'crash-redis', downMs: ops.int(1000, 4000) }],
      [0.34, { kind: 'rolling-restart', onStoreError: 'open' }],
      [0.58, { kind: 'crash-redis', downMs: ops.int(1000, 4000) }],
      ...(size.operator.rotation ? ([[0.7, { kind: 'rotate-secret' }]] as [number, Step][]) : []),
    ];
    for (const [share, step] of operatorSteps) {
      const index = Math.max(1, Math.floor(issues.length * share));
      at.set(index, [...(at.get(index) ?? []), step]);
    }
  }
  return issues.flatMap((step, index) => [...(at.get(index) ?? []), step]);
}

/**
 * The closed-tab phase: awards queued offline into each tab just before every tab closes, numbered on from `firstN`.
 * The last award of the last tab is one the policy refuses, so the worker's dead-letter path runs too.
 */
export function planClosedTabs(seed: number, perTab: number, firstN: number, sender: Sender): PlannedAward[][] {
  const rng = createRng(seed ^ 0xc105ed);
  let n = firstN;
  return SLOTS.map((_, slot) =>
    Array.from({ length: perTab }, (_, i) => {
      const forbidden = slot === SLOTS.length - 1 && i === perTab - 1;
      const award = { n, points: rng.pick(POINTS), eventName: forbidden ? FORBIDDEN_EVENT : AWARD_EVENT, description: `${sender}-${seed}-${n}` };
      n++;
      return award;
    }),
  );
}
