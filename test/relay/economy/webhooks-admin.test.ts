// The webhook admin routes in process: off without `webhooks` (404 naming the option), a player refused (403), every
// parameter and body checked (400 naming it), `webhooks` without a ledger refused at startup; the dead letters listed
// without the endpoint's query string (it may carry the receiver's own token).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLedgerStore } from '../../../src/relay/index.js';
import { buildRelay } from '../../../src/relay/app.js';
import { KEY_SECRET, SECRET, token } from '../../helpers/fixtures.js';
import { until } from '../../helpers/until.js';
import { fakeRelay } from '../helpers.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe('webhook admin routes', () => {
  it('answer 404 when webhooks are off, 403 to a player, 400 naming a bad parameter or body', async () => {
    const { call } = fakeRelay({ ledger: { store: createMemoryLedgerStore() } });
    const admin = await token({ sub: 'ops', role: 'admin' });
    const off = await call('GET', '/admin/webhooks/dead', { token: admin });
    expect([off.status, off.json.message]).toEqual([404, expect.stringContaining('RelayOptions webhooks')]);
    const { call: on } = fakeRelay({
      ledger: { store: createMemoryLedgerStore() },
      webhooks: { endpoints: [{ url: 'http://127.0.0.1:9/hooks', secret }], pollMs: 50 },
    });
    expect((await on('GET', '/admin/webhooks/dead', { token: await token({ sub: 'alice' }) })).status).toBe(403);
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=5000', 'limit'],
      ['?bogus=1', 'unknown parameter'],
    ] as const) {
      const bad = await on('GET', `/admin/webhooks/dead${query}`, { token: admin });
      expect([bad.status, bad.json.message], query).toEqual([400, expect.stringContaining(field)]);
    }
    for (const body of [{}, { all: false }, { ids: [] }, { ids: ['a'], all: true }, { ids: [7] }]) {
      const bad = await on('POST', '/admin/webhooks/replay', { token: admin, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    expect((await on('POST', '/admin/webhooks/replay', { token: admin, body: { all: true } })).json).toEqual({ success: true, replayed: 0 });
  });

  it('lists a dead letter with its payload, the endpoint shown without its query string', async () => {
    const built = buildRelay({
      secret: SECRET,
      keySecret: KEY_SECRET,
      upstream: { url: 'http://service.test/v1', apiKey: 'k'.repeat(32), fetch: async () => Response.json({ success: true }) },
      logger: () => {},
      ledger: { store: createMemoryLedgerStore() },
      // Port 9 (discard) refuses at once: one attempt, a dead letter.
      webhooks: { endpoints: [{ url: 'http://127.0.0.1:9/hooks?token=receiver-secret', secret }], attempts: 1, pollMs: 20 },
    });
    stops.push(() => built.webhooks!.stop());
    built.ledger!.record({
      at: Date.now(),
      outcome: 'acknowledged',
      player: 'p',
      questId: 'q',
      serviceUserId: 'p@example.com',
      eventName: 'coin',
      eventPoints: 3,
      key: 'k-1',
    });
    const admin = await token({ sub: 'ops', role: 'admin' });
    const dead = async () =>
      (await (
        await built.app.fetch(new Request('http://relay.test/admin/webhooks/dead', { headers: { authorization: `Bearer ${admin}` } }))
      ).json()) as {
        dead: { id: string; endpoint: string; attempts: number; payload: { type: string; data: { serviceUserId: string } } }[];
      };
    const { dead: letters } = await until(async () => ((await dead()).dead.length === 1 ? dead() : undefined), 'a dead letter');
    expect(letters[0]).toMatchObject({ id: 'k-1', endpoint: 'http://127.0.0.1:9/hooks', attempts: 1, payload: { type: 'award.acknowledged' } });
    expect(JSON.stringify(letters)).not.toContain('receiver-secret');
  });

  it('refuses webhooks without a ledger at startup', () => {
    expect(() => fakeRelay({ webhooks: { endpoints: [{ url: 'http://127.0.0.1:9/hooks', secret }] } })).toThrow(/delivered from the ledger/);
  });
});
