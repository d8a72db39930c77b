// Issue 35's "Why", as a test: one bot with one valid token against the relay's default policy, sending as fast as
// the relay lets it. Measured on c6b8ff8 (60 awards a minute then): 120 awards, 12,000 points applied in 65 s, nothing
// else in its way. Here the default policy gets one budget (1,000 points per player per calendar minute) and the bot
// one minute's worth of the default per-player rate limit (200 awards of 100 points: 20,000 points if nothing stops
// it). The points applied, counted at the emulator, must stay within the budget of each minute the run touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EVENT_NAME } from '../../src/protocol/index.js';
import { DEFAULT_POLICY, type RelayPolicy } from '../../src/relay/index.js';
import { startStack, type ServedStack } from '../helpers/stack.js';
import { farm, minutesTouched } from './farm.js';

const BUDGET = 1_000;
const policy = { ...DEFAULT_POLICY, budgets: [{ points: BUDGET, window: 'minute' }] } as RelayPolicy;

let stack: ServedStack;
beforeAll(async () => {
  stack = await startStack({ policy });
});
afterAll(() => stack?.close());

describe('one farming bot against the default policy and a budget (issue 35, Why)', () => {
  it('applies at most the budget of each minute the run touched, however fast the bot sends', async () => {
    const sub = 'farmer';
    const jwt = await stack.token(sub);
    const maxPoints = DEFAULT_POLICY.events?.[DEFAULT_EVENT_NAME]?.maxPoints ?? 100;
    const started = Date.now();
    const run = await farm({
      relays: [stack.relay.url],
      token: jwt,
      award: () => ({ questId: 'why', serviceUserId: sub, eventPoints: maxPoints }),
      // Until the budget has refused it 10 times (the rate limit's 429 stops it sooner where nothing else does).
      durationMs: 30_000,
      stopWhen: (run) => (run.answers['422 budget'] ?? 0) >= 10,
    });
    const windows = minutesTouched(started, Date.now());
    const applied = await stack.appliedPoints('why', sub);
    console.log(
      `why: ${run.sent} sent in ${run.ms} ms, ${JSON.stringify(run.answers)}; ${applied} points applied, budget ${BUDGET} x ${windows} minute(s)`,
    );
    // The bot really farmed (it filled the budget), and the relay stopped it there: 422 budget, never a point more.
    expect(applied).toBeGreaterThanOrEqual(BUDGET);
    expect(applied).toBeLessThanOrEqual(BUDGET * windows);
    expect(run.answers['422 budget'] ?? 0).toBeGreaterThan(0);
  });
});
