// @vitest-environment happy-dom
// The page side of delivery with the tab closed: the SDK registers the Background Sync tag with the page's service
// worker when an award is queued offline or a send fails, only with the backgroundSync option, and never breaks
// where there is no service worker or no Background Sync.
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QuestPoints } from '../../src/client/index.js';
import { backgroundSync } from '../../src/sw/page.js';
import { fakeRelay, json, testClients, until } from './fake-relay.js';

const { client, closeAll } = testClients();
const open: QuestPoints[] = [];
afterEach(async () => {
  for (const answer of held.splice(0)) answer();
  await Promise.all(open.splice(0).map((c) => c.close()));
  await closeAll();
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

/** navigator.serviceWorker with one registration; `sync: false` stands for a browser without Background Sync. */
function fakeServiceWorker({ sync = true } = {}) {
  const register = vi.fn(async (_tag: string) => {});
  const registration = sync ? { sync: { register } } : {};
  Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: { getRegistration: async () => registration } });
  return register;
}

/** Requests the silent relay holds: answered (as a 404) after each test, so close() does not wait out the timeout. */
const held: (() => void)[] = [];
const silent = fakeRelay(() => new Promise<Response>((resolve) => held.push(() => resolve(json(404, { success: false, message: 'gone' })))));
const busy = fakeRelay((req) => (req.method === 'POST' ? json(503, { success: false, message: 'busy' }) : undefined));

describe('backgroundSync option', () => {
  it('a failed send registers the default tag', async () => {
    const register = fakeServiceWorker();
    const qp = client({ fetch: busy.fetch, backgroundSync: backgroundSync() });
    qp.award({ eventPoints: 1 });
    await until(() => register.mock.calls.length > 0);
    expect(register).toHaveBeenCalledWith('quest-points');
  });

  it('an award queued while offline registers the tag once it is in the store; a custom tag', async () => {
    const register = fakeServiceWorker();
    // Really offline: nothing answers (an answer would rightly mark the client online again) and no send fails within
    // the test, so the registration can only come from the offline award. With only the send hanging and a 500 ms
    // timeout, the start-up read's answer or the timeout raced the registration on a loaded machine.
    const qp = client({ fetch: silent.fetch, timeoutMs: 60_000, backgroundSync: backgroundSync({ tag: 'my-game' }) });
    const retrying: unknown[] = [];
    qp.on('award:retrying', (e) => retrying.push(e));
    window.dispatchEvent(new Event('offline'));
    expect(qp.getSnapshot().online).toBe(false);
    const { persisted } = qp.award({ eventPoints: 1 });
    expect(register).not.toHaveBeenCalled();
    expect(await persisted).toBe(true);
    await until(() => register.mock.calls.length > 0);
    expect(retrying).toEqual([]);
    expect(register.mock.calls).toEqual([['my-game']]);
  });

  it('off by default: nothing is registered', async () => {
    const register = fakeServiceWorker();
    const qp = client({ fetch: busy.fetch });
    const events: string[] = [];
    qp.on('award:retrying', () => events.push('retrying'));
    qp.award({ eventPoints: 1 });
    await until(() => events.length >= 2);
    expect(register).not.toHaveBeenCalled();
  });

  it('no Background Sync, or no service worker: awards retry from the page as before', async () => {
    fakeServiceWorker({ sync: false });
    const qp = client({ fetch: busy.fetch, backgroundSync: backgroundSync() });
    const events: string[] = [];
    qp.on('award:retrying', () => events.push('retrying')).on('error', () => events.push('error'));
    qp.award({ eventPoints: 1 });
    await until(() => events.length >= 2);
    Reflect.deleteProperty(navigator, 'serviceWorker');
    const other = client({ fetch: busy.fetch, backgroundSync: backgroundSync() });
    other.award({ eventPoints: 1 });
    await until(() => events.length >= 4);
    expect(events.every((e) => e === 'retrying')).toBe(true);
  });

  it('a refused registration (the player blocked background sync) is not an error', async () => {
    const register = fakeServiceWorker();
    register.mockRejectedValue(new DOMException('permission denied', 'NotAllowedError'));
    const qp = client({ fetch: busy.fetch, backgroundSync: backgroundSync() });
    const errors: unknown[] = [];
    qp.on('error', (e) => errors.push(e));
    qp.award({ eventPoints: 1 });
    await until(() => register.mock.calls.length > 1);
    expect(errors).toEqual([]);
  });
});
