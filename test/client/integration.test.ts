// The SDK against the real relay and emulator (in-process, Web-standard fetch handlers), with fault injection.
import { afterEach, describe, expect, it } from 'vitest';
import { createQuestPoints, type AwardHandle, type QuestPoints } from '../../src/client/index.js';
import { ROOMY_POLICY, upstreamKey } from '../helpers/fixtures.js';
import { inProcessStack } from '../helpers/stack.js';
import { until } from './fake-relay.js';

const open: QuestPoints[] = [];
afterEach(async () => void (await Promise.all(open.splice(0).map((c) => c.close()))));

function stack() {
  const { relay, admin, service, token } = inProcessStack({ policy: ROOMY_POLICY, relayOptions: { upstream: { retries: 0, timeoutMs: 2000 } } });
  const client = (sub: string, extra: Record<string, unknown> = {}) => {
    const qp = createQuestPoints({
      relayUrl: 'http://relay.test',
      getToken: () => token(sub),
      fetch: (input, init) => Promise.resolve(relay.fetch(new Request(String(input), init))),
      questId: 'quest-1',
      serviceUserId: sub,
      storage: 'memory',
      flushDelayMs: 1,
      backoff: { baseMs: 5, maxMs: 40 },
      ...extra,
    });
    open.push(qp);
    return qp;
  };
  return { admin, client, service, token, relay };
}

/**
 * Ledger entries of a player per client idempotency key, from the emulator's state export. The service holds the
 * key the relay derived for the player (docs/relay.md): each entry is matched through it.
 */
async function ledgerCounts(admin: ReturnType<typeof stack>['admin'], sub: string) {
  const state = await admin('GET', 'state');
  const counts = new Map<string, number>();
  for (const e of state.ledger!)
    if (e.idempotencyKey && e.serviceUserId === sub) counts.set(e.idempotencyKey, (counts.get(e.idempotencyKey) ?? 0) + 1);
  const serviceKey = (key: string) => upstreamKey(sub, key);
  return { get: (key: string) => counts.get(serviceKey(key)), has: (key: string) => counts.has(serviceKey(key)), size: counts.size };
}

describe('SDK + relay + emulator', () => {
  it('awards reach the ledger; reads see them', async () => {
    const { admin, client } = stack();
    const qp = client('player-a');
    const handles = [3, 4.5, 0.1, 0.2].map((n) => qp.award({ eventPoints: n, eventName: 'coin' }));
    expect((await Promise.all(handles.map((h) => h.settled))).map((o) => o.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const view = await qp.getPoints();
    expect(view).toMatchObject({ confirmedPoints: 7.8, pendingPoints: 0, totalPoints: 7.8 });
    expect(view.history).toHaveLength(4);
    expect(await qp.getEnrollment()).toMatchObject({ serviceUserId: 'player-a', enrolled: true, currentPoints: 7.8 });
    await expect(qp.getEnrollment('quest-1', 'player-a-other')).rejects.toMatchObject({ status: 403 });
    const counts = await ledgerCounts(admin, 'player-a');
    expect(handles.map((h) => counts.get(h.idempotencyKey))).toEqual([1, 1, 1, 1]);
  });

  it("the relay's own origin refusal (403, code origin) holds the queue; once the deployment is fixed every award is applied once, none dead-lettered", async () => {
    const { admin, relay, token } = stack();
    let fixed = false;
    const refused: string[] = [];
    const qp = createQuestPoints({
      relayUrl: 'http://relay.test',
      getToken: () => token('player-o'),
      // Until the operator lists the site (or the proxy says the scheme), the page's Origin is foreign to the relay.
      fetch: (input, init) => {
        const request = new Request(String(input), init);
        if (!fixed) request.headers.set('origin', 'https://game.example');
        return Promise.resolve(relay.fetch(request));
      },
      questId: 'quest-1',
      serviceUserId: 'player-o',
      storage: 'memory',
      flushDelayMs: 1,
      backoff: { baseMs: 5, maxMs: 40 },
    });
    open.push(qp);
    qp.on('deployment:refused', (e) => refused.push(`${e.status} ${e.code}`));
    const handles = [1, 2, 3].map((eventPoints) => qp.award({ eventPoints }));
    await until(() => refused.length >= 2);
    expect(refused[0]).toBe('403 origin');
    expect(qp.getSnapshot()).toMatchObject({ deploymentRefused: true, deadLetterCount: 0, queueSize: 3 });
    fixed = true;
    expect((await Promise.all(handles.map((h) => h.settled))).map((o) => o.outcome)).toEqual(['sent', 'sent', 'sent']);
    const counts = await ledgerCounts(admin, 'player-o');
    expect(handles.map((h) => counts.get(h.idempotencyKey))).toEqual([1, 1, 1]);
    expect(await qp.deadLetters()).toEqual([]);
    expect(qp.getSnapshot().deploymentRefused).toBe(false);
  });

  it('a policy refusal is dead-lettered, the rest are applied', async () => {
    const { admin, client } = stack();
    const qp = client('player-b');
    const ok = qp.award({ eventPoints: 10 });
    const tooMany = qp.award({ eventPoints: 5000 });
    expect((await ok.settled).status).toBe('sent');
    expect(await tooMany.settled).toMatchObject({ outcome: 'rejected', deadLetter: { status: expect.any(Number) } });
    expect((await qp.deadLetters()).map((d) => d.idempotencyKey)).toEqual([tooMany.idempotencyKey]);
    const counts = await ledgerCounts(admin, 'player-b');
    expect(counts.get(ok.idempotencyKey)).toBe(1);
    expect(counts.has(tooMany.idempotencyKey)).toBe(false);
  });

  it('with errors and lost acknowledgements injected, every award is in the ledger exactly once', async () => {
    const { admin, client } = stack();
    await admin('PUT', 'faults', { seed: 7, errorRate: 0.25, lostAckRate: 0.3, lostAckMode: 'mixed', retryAfterSeconds: 0 });
    const qp = client('player-c');
    const handles: { idempotencyKey: string }[] = [];
    for (let round = 0; round < 6; round++) {
      const roundHandles: AwardHandle[] = [];
      for (let i = 0; i < 8; i++) roundHandles.push(qp.award({ eventPoints: 1, eventName: `r${round}` }));
      handles.push(...roundHandles);
      // Rounds are separate commits (and so separate batches): wait until this one is in the outbox.
      await roundHandles.at(-1)!.persisted;
    }
    await until(async () => (await qp.pending()).length === 0, 15_000);
    await admin('PUT', 'faults', {});
    const counts = await ledgerCounts(admin, 'player-c');
    expect(handles.filter((h) => counts.get(h.idempotencyKey) !== 1)).toEqual([]);
    expect(counts.size).toBe(handles.length);
    expect((await qp.getPoints()).confirmedPoints).toBe(handles.length);
  });

  it('a player may identify only the e-mail its token carries; identify is cached', async () => {
    const { client, service, token } = stack();
    const player = client('player-d', { getToken: () => token('player-d', { email: 'd@example.com' }) });
    const id = await player.identify({ email: 'd@example.com' });
    // The id the service itself gives that e-mail (identify is idempotent per e-mail).
    const reference = (await (await service('POST', '/users/identify', { email: 'd@example.com' })).json()) as { data: { serviceUserId: string } };
    expect(id).toBe(reference.data.serviceUserId);
    expect(await player.identify({ email: 'd@example.com' })).toBe(id);
    await expect(player.identify({ email: 'someone@example.com' })).rejects.toMatchObject({ status: 403 });
  });

  it('an admin lists enrolled users page by page', async () => {
    const { client, token } = stack();
    const players = ['p1', 'p2', 'p3', 'p4', 'p5'].map((sub) => client(sub));
    await Promise.all(players.map((p) => p.award({ eventPoints: 1 }).settled));
    const admin = client('boss', { getToken: () => token('boss', { role: 'admin' }) });
    const pages: string[][] = [];
    for await (const page of admin.enrolledUsers('quest-1', { limit: 2 })) pages.push(page.map((u) => u.serviceUserId));
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat().sort()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await admin.getEnrollment('quest-1', 'nobody')).toBeNull();
  });
});
