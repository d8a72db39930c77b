// @vitest-environment happy-dom
// <quest-points-hud> against a hand-driven client: what it draws from each SDK event, its words and numbers, its live
// region's pace, and that it lets go of the client. The real-Chromium tests (hud-chromium.test.ts) play the rest.
import { afterEach, describe, expect, it } from 'vitest';
import { attachHud, type QuestPointsHud } from '../../src/hud/index.js';
import { until } from '../helpers/until.js';
import { award, emptyView, fakeClient, STORED } from './fake-client.js';

const part = (hud: QuestPointsHud, name: string) => [...hud.shadowRoot!.querySelectorAll(`[part~="${name}"]`)];
const textOf = (hud: QuestPointsHud, name: string) => part(hud, name).map((el) => el.textContent);
const toasts = (hud: QuestPointsHud) =>
  part(hud, 'toast').map((li) => [
    li.querySelector('[part=points]')!.textContent,
    li.querySelector('[part=event]')!.textContent,
    li.querySelector('[part=state]')!.textContent,
  ]);

afterEach(() => {
  document.body.replaceChildren();
  document.documentElement.removeAttribute('lang');
});

describe('<quest-points-hud>', () => {
  it('shows the client view’s total, formatted in the page’s locale, and follows points:changed', async () => {
    document.documentElement.lang = 'de-DE';
    const fake = fakeClient(emptyView(1234.5));
    const hud = attachHud(fake.client);
    await until(() => textOf(hud, 'total')[0] === '1.234,5', 'the first total');
    fake.setView(emptyView(2000));
    expect(hud.total).toBe(2000);
    await until(() => textOf(hud, 'total')[0] === '2.000', 'the new total, counted up');
    // Another pair's view (a watched one) is not the HUD's.
    fake.emitter.emit('points:changed', { view: { ...emptyView(5), serviceUserId: 'someone-else' } });
    expect(hud.total).toBe(2000);
  });

  it('a toast per award: sending, saved — will sync when offline, sent, confirmed once a read absorbed it; refused ones and dead letters', async () => {
    const fake = fakeClient();
    const hud = attachHud(fake.client, { toastMs: 0 });
    const boss = award(25, { eventName: 'boss', eventDescription: 'Boss defeated' });
    fake.emitter.emit('award:queued', { award: boss, queueSize: 1, persisted: STORED });
    await until(() => toasts(hud).length === 1, 'a toast');
    expect(toasts(hud)).toEqual([['+25', 'Boss defeated', 'sending']]);

    fake.setSnapshot({ online: false });
    const coin = award(1);
    fake.emitter.emit('award:queued', { award: coin, queueSize: 2, persisted: STORED });
    await until(() => toasts(hud).length === 2, 'two toasts');
    expect(toasts(hud)).toEqual([
      ['+1', 'coin', 'saved — will sync'],
      ['+25', 'Boss defeated', 'saved — will sync'],
    ]);
    expect(textOf(hud, 'connection')).toEqual(['offline']);

    fake.setSnapshot({ online: true });
    fake.emitter.emit('award:sent', { award: boss, persisted: STORED });
    fake.emitter.emit('award:sent', { award: coin, persisted: STORED });
    const pendingHistory = [
      { createdAt: '', eventPoints: 1, eventName: 'coin', eventDescription: '', state: 'sent' as const, idempotencyKey: coin.idempotencyKey },
    ];
    fake.setView({ ...emptyView(26, pendingHistory) });
    await until(() => toasts(hud).every((t) => t[2] === 'sent'), 'both sent');
    // A read absorbed the boss (no longer keyed, a read entry after the keyed ones), not yet the coin.
    const read = {
      createdAt: '2026-01-01T00:00:00Z',
      eventPoints: 25,
      eventName: 'boss',
      eventDescription: 'Boss defeated',
      state: 'confirmed' as const,
    };
    fake.setView(emptyView(26, [...pendingHistory, read]));
    await until(() => toasts(hud)[1]![2] === 'confirmed', 'the boss confirmed');
    expect(toasts(hud)[0]![2]).toBe('sent');
    // A late award:sent (another tab's news) does not take a confirmed toast back.
    fake.emitter.emit('award:sent', { award: boss, persisted: STORED });

    const big = award(5000);
    fake.emitter.emit('award:queued', { award: big, queueSize: 1, persisted: STORED });
    fake.emitter.emit('award:rejected', {
      deadLetter: { ...big, status: 422, message: 'too many points', rejectedAt: Date.now() },
      persisted: STORED,
    });
    fake.setSnapshot({ deadLetterCount: 1 });
    await until(() => toasts(hud)[0]?.[2] === 'not accepted', 'the refused toast');
    expect(toasts(hud).map((t) => t[2])).toEqual(['not accepted', 'sent', 'confirmed']);
    expect(part(hud, 'notice')[0]!.hasAttribute('hidden')).toBe(false);
    expect(textOf(hud, 'notice')).toEqual(['1 award(s) not accepted']);
    expect(part(hud, 'toast')[0]!.getAttribute('part')).toBe('toast toast-rejected');
  });

  it("words a rule's refusal by its code, generic and without numbers; any other code (or none) says not accepted; localisable per code", async () => {
    const fake = fakeClient();
    const hud = attachHud(fake.client, { toastMs: 0, toasts: 10 });
    const refuse = (code?: string) => {
      const refused = award(10, { eventName: `coin-${code ?? 'none'}` });
      fake.emitter.emit('award:queued', { award: refused, queueSize: 1, persisted: STORED });
      const letter = { ...refused, status: 422, message: `budget budgets[0] (1000 points per day) is spent (${code})`, rejectedAt: Date.now() };
      fake.emitter.emit('award:rejected', { deadLetter: code ? { ...letter, code } : letter, persisted: STORED });
    };
    const codes = ['budget', 'once', 'cooldown', 'campaign', 'banned', 'policy', 'a-newer-code', undefined];
    for (const code of codes) refuse(code);
    await until(() => toasts(hud).length === codes.length && toasts(hud).every((t) => t[2] !== 'sending'), 'every toast refused');
    expect(Object.fromEntries(toasts(hud).map((t) => [t[1], t[2]]))).toEqual({
      'coin-budget': 'limit reached',
      'coin-once': 'already earned',
      'coin-cooldown': 'try again later',
      'coin-campaign': 'not running',
      'coin-banned': 'not accepted',
      'coin-policy': 'not accepted',
      'coin-a-newer-code': 'not accepted',
      'coin-none': 'not accepted',
    });
    // The operator's message (its numbers, its rule) is never shown to the player; the live region says the words too.
    expect(hud.shadowRoot!.textContent).not.toContain('1000');
    await until(() => (hud.shadowRoot!.querySelector('[role=status]')!.textContent ?? '').includes('not accepted'), 'the spoken word');
    hud.strings = { budget: 'Limite atteinte pour le moment', rejected: 'refusé' };
    await until(() => toasts(hud).some((t) => t[2] === 'Limite atteinte pour le moment'), 'the localised word');
    expect(toasts(hud).find((t) => t[1] === 'coin-policy')![2]).toBe('refusé');
    expect(part(hud, 'toast').every((li) => li.getAttribute('data-state') === 'rejected')).toBe(true);
  });

  it('an award waiting with storage in memory says it is kept until the page is closed, not that it will sync', async () => {
    const fake = fakeClient();
    fake.setSnapshot({ storage: 'memory', online: false });
    const hud = attachHud(fake.client);
    fake.emitter.emit('award:queued', { award: award(2), queueSize: 1, persisted: Promise.resolve(false) });
    await until(() => toasts(hud).length === 1, 'a toast');
    expect(toasts(hud)[0]![2]).toBe('kept until you close this page');
  });

  it('an award whose persisted resolved false says so even while the snapshot still says IndexedDB; localisable', async () => {
    const fake = fakeClient();
    fake.setSnapshot({ online: false });
    const hud = attachHud(fake.client, { strings: { waiting: 'gardé jusqu’à la fermeture de la page' } });
    fake.emitter.emit('award:queued', { award: award(3), queueSize: 1, persisted: Promise.resolve(false) });
    fake.emitter.emit('award:queued', { award: award(4), queueSize: 2, persisted: STORED });
    await until(() => toasts(hud).length === 2 && toasts(hud)[1]![2] !== 'saved — will sync', 'the memory-only toast');
    expect(toasts(hud).map((t) => t[2])).toEqual(['saved — will sync', 'gardé jusqu’à la fermeture de la page']);
  });

  it('a sign-in state when the client needs a token: the connection says so (part sign-in), waiting toasts stop saying sending', async () => {
    const fake = fakeClient();
    const hud = attachHud(fake.client, { toastMs: 0 });
    fake.emitter.emit('award:queued', { award: award(5), queueSize: 1, persisted: STORED });
    await until(() => toasts(hud)[0]?.[2] === 'sending', 'a sending toast');
    fake.setSnapshot({ authRequired: true });
    await until(() => textOf(hud, 'connection')[0] === 'sign in to save points', 'the sign-in state');
    expect(part(hud, 'connection')[0]!.getAttribute('part')).toBe('connection sign-in');
    expect(toasts(hud)[0]![2]).toBe('saved — will sync');
    hud.strings = { signIn: 'Anmelden' };
    await until(() => textOf(hud, 'connection')[0] === 'Anmelden', 'the localised word');
    fake.setSnapshot({ authRequired: false });
    await until(() => textOf(hud, 'connection')[0] === 'online', 'online again');
  });

  it("a held-queue state when the deployment refuses the queue: can't reach the game server (part unreachable), toasts saved, localisable", async () => {
    const fake = fakeClient();
    const hud = attachHud(fake.client, { toastMs: 0 });
    fake.emitter.emit('award:queued', { award: award(5), queueSize: 1, persisted: STORED });
    await until(() => toasts(hud)[0]?.[2] === 'sending', 'a sending toast');
    fake.setSnapshot({ deploymentRefused: true });
    await until(() => textOf(hud, 'connection')[0] === "can't reach the game server", 'the held state');
    expect(part(hud, 'connection')[0]!.getAttribute('part')).toBe('connection unreachable');
    expect(toasts(hud)[0]![2]).toBe('saved — will sync');
    hud.strings = { unreachable: 'serveur du jeu injoignable' };
    await until(() => textOf(hud, 'connection')[0] === 'serveur du jeu injoignable', 'the localised word');
    // Sign-in comes first: a token is needed before anything can be said of the deployment.
    fake.setSnapshot({ authRequired: true });
    await until(() => textOf(hud, 'connection')[0] === 'sign in to save points', 'sign-in first');
    fake.setSnapshot({ authRequired: false, deploymentRefused: false });
    await until(() => textOf(hud, 'connection')[0] === 'online', 'online again');
  });

  it('keeps the newest `toasts` toasts and drops each toast-ms after its last change', async () => {
    const fake = fakeClient();
    const hud = attachHud(fake.client, { toasts: 2, toastMs: 150 });
    for (const points of [1, 2, 3]) fake.emitter.emit('award:queued', { award: award(points), queueSize: points, persisted: STORED });
    await until(() => toasts(hud).length === 2, 'two toasts');
    expect(toasts(hud).map((t) => t[0])).toEqual(['+3', '+2']);
    await until(() => toasts(hud).length === 0, 'the toasts gone after 150 ms');
  });

  it('history="3": the newest three entries of the view with their state; strings and the total label are overridable', async () => {
    const entry = (eventPoints: number, state: 'pending' | 'sent' | 'confirmed') => ({
      createdAt: '',
      eventPoints,
      eventName: `e${eventPoints}`,
      eventDescription: '',
      state,
      ...(state === 'confirmed' ? {} : { idempotencyKey: `h${eventPoints}` }),
    });
    const fake = fakeClient(emptyView(10, [entry(4, 'pending'), entry(3, 'sent'), entry(2, 'confirmed'), entry(1, 'confirmed')]));
    const hud = attachHud(fake.client, { history: 3, strings: { total: 'Score', confirmed: 'booked', sending: 'on its way' } });
    await until(() => part(hud, 'entry').length === 3, 'three history entries');
    expect(part(hud, 'entry').map((li) => li.textContent)).toEqual(['+4e4on its way', '+3e3sent', '+2e2booked']);
    expect(textOf(hud, 'label')).toEqual(['Score']);
    expect(part(hud, 'history')[0]!.getAttribute('aria-label')).toBe('Recent points');
    hud.strings = { history: 'Last points' };
    expect(textOf(hud, 'label')).toEqual(['Points']);
    expect(part(hud, 'history')[0]!.getAttribute('aria-label')).toBe('Last points');
    hud.setAttribute('history', '1');
    await until(() => part(hud, 'entry').length === 1, 'one history entry');
  });

  it('its live region speaks once for a burst of awards, politely, and nothing in it takes focus', async () => {
    const fake = fakeClient(emptyView(0));
    const hud = attachHud(fake.client);
    const live = hud.shadowRoot!.querySelector('[role=status]')!;
    let announcements = 0;
    new MutationObserver(() => announcements++).observe(live, { childList: true, characterData: true, subtree: true });
    for (let i = 1; i <= 100; i++) {
      fake.emitter.emit('award:queued', { award: award(1, { eventDescription: `coin ${i}` }), queueSize: i, persisted: STORED });
      fake.setView(emptyView(i));
    }
    await until(() => live.textContent, 'an announcement');
    expect(live.textContent).toBe('Points: 100. +1 coin 100, sending');
    expect(announcements).toBe(1);
    expect(live.getAttribute('role')).toBe('status'); // an implicit aria-live="polite"
    expect(hud.shadowRoot!.querySelectorAll('[tabindex], button, a, input').length).toBe(0);
  });

  it('lets go of the client when removed or given another, and takes it up again when put back', async () => {
    const first = fakeClient();
    const second = fakeClient(emptyView(7));
    const hud = attachHud(first.client);
    expect(first.listeners()).toBeGreaterThan(0);
    hud.remove();
    expect(first.listeners()).toBe(0);
    document.body.append(hud);
    expect(first.listeners()).toBeGreaterThan(0);
    hud.client = second.client;
    expect(first.listeners()).toBe(0);
    expect(hud.total).toBe(7);
  });
});
