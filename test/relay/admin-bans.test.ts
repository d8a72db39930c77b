// The admin ban routes over a BanList (a tiny one here; econ-rules' stores share theirs across relays): each ban and
// unban answered, listed, and recorded in the ledger with the operator who did it.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { VerifiedClaims } from '../../src/relay/claims.js';
import type { RelayEnv, RelayRuntime } from '../../src/relay/context.js';
import type { BanList } from '../../src/relay/economy/contract.js';
import { adminRoutes } from '../../src/relay/economy/admin.js';
import { createRelayLedger } from '../../src/relay/economy/ledger.js';
import { createMemoryLedgerStore } from '../../src/relay/index.js';
import { noMetrics, relayMetrics } from '../../src/relay/metrics.js';
import { caller } from './helpers.js';

function tinyBans(): BanList {
  const banned = new Map<string, { at: number; reason?: string }>();
  return {
    ban: async (player, reason) => void banned.set(player, { at: Date.now(), ...(reason !== undefined ? { reason } : {}) }),
    unban: async (player) => void banned.delete(player),
    list: async () => [...banned].map(([player, ban]) => ({ player, ...ban })),
  };
}

/** The admin routes behind a stand-in for authentication: the claims come from the test. */
function adminApp(claims: VerifiedClaims, withBans = true) {
  const store = createMemoryLedgerStore();
  const ledger = createRelayLedger({ store }, () => {}, relayMetrics(noMetrics));
  const runtime = { ledger, ...(withBans ? { economy: { bans: tinyBans() } } : {}) } as unknown as RelayRuntime;
  const app = new Hono<RelayEnv>();
  app.use(async (c, next) => {
    c.set('claims', claims);
    c.set('requestId', 'req-1');
    await next();
  });
  app.route('/', adminRoutes(runtime));
  return { call: caller(app.fetch), ledger };
}

const operator: VerifiedClaims = { sub: 'operator-1', role: 'admin' };

describe('admin bans', () => {
  it('bans, lists and unbans a player, each recorded in the ledger', async () => {
    const { call, ledger } = adminApp(operator);
    const banned = await call('POST', '/admin/bans', { body: { player: 'bot-7', reason: 'farming coins' } });
    expect([banned.status, banned.json]).toEqual([200, { success: true, player: 'bot-7', reason: 'farming coins' }]);
    expect((await call('GET', '/admin/bans')).json.bans).toEqual([{ player: 'bot-7', at: expect.any(Number), reason: 'farming coins' }]);
    expect((await call('DELETE', '/admin/bans/bot-7')).status).toBe(200);
    expect((await call('GET', '/admin/bans')).json.bans).toEqual([]);
    await ledger.flush();
    const { entries } = await ledger.store.read({ player: 'bot-7' });
    expect(entries.map((e) => [e.outcome, e.by, e.reason])).toEqual([
      ['banned', 'operator-1', 'farming coins'],
      ['unbanned', 'operator-1', undefined],
    ]);
  });

  it('names a bad field (400), refuses a player token (403), and says when bans are off (404)', async () => {
    const { call } = adminApp(operator);
    for (const [body, field] of [
      [{}, 'player'],
      [{ player: 'x', reason: 'r'.repeat(300) }, 'reason'],
      [{ player: 'x', until: 'never' }, 'unknown field'],
    ] as const) {
      const bad = await call('POST', '/admin/bans', { body });
      expect([bad.status, bad.json.message]).toEqual([400, expect.stringContaining(field)]);
    }
    const player = adminApp({ sub: 'alice', role: 'player' });
    const refused = await player.call('POST', '/admin/bans', { body: { player: 'bob' } });
    expect([refused.status, refused.json.message]).toEqual([403, expect.stringContaining('admin token')]);
    expect((await adminApp(operator, false).call('GET', '/admin/bans')).status).toBe(404);
  });
});
