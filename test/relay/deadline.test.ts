import { describe, expect, it } from 'vitest';
import { token } from '../helpers/fixtures.js';
import { award, emulatedRelay, fakeRelay, RELAY } from './helpers.js';

const never = () => new Promise<Response>(() => {});

describe('deadlines', () => {
  it('with the service frozen, a 3-award batch answers retry within the deadline', async () => {
    const { call, seen } = fakeRelay({ deadlineMs: 300, upstream: { timeoutMs: 60_000 }, reply: never });
    const awards = [1, 2, 3].map((n) => award('q', 'u1', n));
    const started = performance.now();
    const res = await call('POST', '/batch/points', { token: await token({ sub: 'u1' }), body: { awards } });
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1500);
    expect(res.json.results.map((r: { outcome: string; reason: string }) => [r.outcome, r.reason])).toEqual([
      ['retry', 'deadline'],
      ['retry', 'deadline'],
      ['retry', 'deadline'],
    ]);
    expect(seen).toHaveLength(1);
  });

  it('the same against the emulator frozen by a latency fault; a single award answers 504', async () => {
    const { call, core } = emulatedRelay({ deadlineMs: 250 });
    core.faults.set({ latencyMs: 60_000 });
    const t = await token({ sub: 'u1' });
    const started = performance.now();
    const res = await call('POST', '/batch/points', { token: t, body: { awards: [1, 2, 3].map((n) => award('q', 'u1', n)) } });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['retry', 'retry', 'retry']);
    const single = await call('POST', '/group-quests/q/points', {
      token: t,
      headers: { IDEMPOTENCY_KEY: crypto.randomUUID() },
      body: { serviceUserId: 'u1', eventPoints: 1 },
    });
    expect([single.status, single.json.message]).toEqual([504, expect.stringContaining('was not waited for')]);
  });

  it('work stops when the client goes away: the batch sends nothing more', async () => {
    const { app, seen, call } = fakeRelay({
      deadlineMs: 60_000,
      upstream: { timeoutMs: 60_000 },
      reply: async (r) => {
        if ((r.body as { eventPoints: number }).eventPoints >= 10) return Response.json({ success: true });
        return never();
      },
    });
    const t = await token({ sub: 'u1' });
    const client = new AbortController();
    const request = new Request(`${RELAY}/batch/points`, {
      method: 'POST',
      signal: client.signal,
      headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
      body: JSON.stringify({ awards: [1, 2, 3].map((n) => award('q', 'u1', n)) }),
    });
    const answered = app.fetch(request);
    for (const end = Date.now() + 2000; seen.length === 0; await new Promise((resolve) => setTimeout(resolve, 2)))
      if (Date.now() > end) throw new Error('the first award was never sent');
    client.abort();
    await answered;
    // The player's next request gets its turn only once the abandoned batch has let go of it.
    const next = await call('POST', '/batch/points', { token: t, body: { awards: [award('q', 'u1', 10)] } });
    expect(next.json.results[0].outcome).toBe('ok');
    expect(seen.map((r) => (r.body as { eventPoints: number }).eventPoints)).toEqual([1, 10]);
  });
});
