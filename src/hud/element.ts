import type { PendingAward, PointsView } from '../client/index.js';
import { roundPoints } from '../protocol/limits.js';
import { listen, type HudClient, type HudStatus } from './client.js';
import { announcer, type News } from './announcer.js';
import { attr, fill, make, row, text } from './dom.js';
import { HUD_STRINGS, type HudStrings } from './strings.js';
import { CSS } from './style.js';

/** A toast's award: on its way, waiting in the outbox (saved, or only in memory), acknowledged, read back, refused. */
export type ToastState = 'sending' | 'saved' | 'waiting' | 'sent' | 'confirmed' | 'rejected';

interface Toast {
  key: string;
  points: number;
  label: string;
  state: ToastState;
  /** performance.now() of its last change. */
  at: number;
  /** A read has the award: it turns confirmed once `sent` has been on screen for HOLD_MS. */
  read?: boolean;
  /** Its `persisted` resolved false: only in memory, kept until the page is closed. */
  memory?: boolean;
  /** Refused with this code (the relay's): its words, when the strings have some, say why. */
  code?: string;
  el?: HTMLLIElement;
}

const COUNT_UP_MS = 600;
// A state stays on screen at least this long, so a fast network still shows `sent` before `confirmed`.
const HOLD_MS = 700;
const DRAW_MS = 100;
const BURST_MS = 400;

let reducedMotion: MediaQueryList | undefined;
/** The page's prefers-reduced-motion, asked once (a media query list follows the setting by itself). */
const stillness = () => (reducedMotion ??= matchMedia('(prefers-reduced-motion: reduce)'));

// Importing the module where there is no DOM (a server render, a test in Node) must not throw.
const Base = (typeof HTMLElement === 'undefined' ? Object : HTMLElement) as typeof HTMLElement;

/**
 * `<quest-points-hud>`: the player's live total, a toast per award with its delivery state, the connection, an
 * optional history and dead letters, drawn over a game's canvas. It only listens to the client it is given
 * (`hud.client = qp`): every figure is the SDK's. Attributes: position (top-right, top-left, bottom-right,
 * bottom-left, inline), history (entries shown, default 0), toasts (most shown at once, default 3), toast-ms (how
 * long a toast stays after its last change, default 4000; 0 keeps it until newer ones push it out).
 */
export class QuestPointsHud extends Base {
  static observedAttributes = ['history'];
  #client?: HudClient;
  #stop?: () => void;
  #strings: HudStrings = HUD_STRINGS;
  #root = this.attachShadow({ mode: 'open' });
  #label = make('span', 'label');
  #total = make('span', 'total', '0');
  #connection = make('span', 'connection');
  #notice = make('p', 'notice');
  #toastList = make('ol', 'toasts');
  #historyList = make('ol', 'history');
  #voice = announcer<Toast>((news) => this.#sentence(news));
  #toasts: Toast[] = [];
  #dropped: Element[] = [];
  #view?: PointsView;
  #viewDrawn?: PointsView;
  #status: HudStatus = { online: true, deadLetterCount: 0, storage: 'indexeddb', authRequired: false, deploymentRefused: false };
  #fresh = true;
  #target = 0;
  #shown = 0;
  #from = 0;
  #t0 = 0;
  #frame = 0;
  #drawnAt = -DRAW_MS;
  #toastAt = -BURST_MS;
  #expiry?: ReturnType<typeof setTimeout>;
  #wakeAt = 0;
  #lang?: string;
  #number!: Intl.NumberFormat;
  #signed!: Intl.NumberFormat;

  /** Made by the parser or document.createElement('quest-points-hud'); attachHud() makes one and wires it. */
  constructor() {
    super();
    const panel = make('div', 'panel');
    panel.append(this.#label, this.#total, this.#connection);
    this.#notice.hidden = true;
    const style = make('style');
    style.textContent = CSS;
    this.#root.append(style, panel, this.#notice, this.#toastList, this.#historyList, this.#voice.region);
    this.#words();
  }

  /** The client it shows; setting another (or undefined) stops listening to the previous one. */
  get client(): HudClient | undefined {
    return this.#client;
  }
  /** Shows `client`; setting another (or undefined) stops listening to the previous one first. */
  set client(client: HudClient | undefined) {
    this.#unbind();
    this.#client = client;
    if (this.isConnected) this.#bind();
  }

  /** The words it shows and announces; set any subset, the rest keep their defaults (HUD_STRINGS). */
  get strings(): HudStrings {
    return { ...this.#strings };
  }
  /** Replaces the words: the given ones, HUD_STRINGS for the rest (an earlier override is not kept). */
  set strings(strings: Partial<HudStrings>) {
    this.#strings = { ...HUD_STRINGS, ...strings };
    this.#words();
  }

  /** The total the client gives now (the digits may still be counting up to it). */
  get total(): number {
    return this.#target;
  }

  /** Custom-element callback: reads the language (nearest `lang`, else the browser's) and starts listening to the client. */
  connectedCallback(): void {
    const lang = this.closest('[lang]')?.getAttribute('lang') || navigator.language;
    // Making a formatter costs a frame's worth of time: only when the language changed.
    if (lang !== this.#lang) {
      this.#lang = lang;
      const digits = { maximumFractionDigits: 6 };
      this.#number = new Intl.NumberFormat(lang, digits);
      this.#signed = new Intl.NumberFormat(lang, { ...digits, signDisplay: 'exceptZero' });
    }
    this.#bind();
  }

  /** Custom-element callback: stops listening to the client (it is not closed: the game owns it). */
  disconnectedCallback(): void {
    this.#unbind();
  }

  /** Custom-element callback for the observed attributes (history): the next draw uses the new value. */
  attributeChangedCallback(): void {
    this.#viewDrawn = undefined;
    this.#schedule();
  }

  #bind(): void {
    if (!this.#client || this.#stop) return;
    this.#fresh = true;
    this.#stop = listen(this.#client, {
      queued: (award, persisted) => this.#queued(award, persisted),
      sent: (key) => this.#set(key, 'sent'),
      retrying: (key) => this.#set(key, this.#waiting(this.#find(key)), 'sending'),
      rejected: (key, code) => this.#set(key, 'rejected', undefined, code),
      view: (view) => this.#onView(view),
      status: (status) => this.#onStatus(status),
    });
    this.#fresh = false;
  }

  #unbind(): void {
    this.#stop?.();
    this.#stop = undefined;
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
    this.#voice.hush();
    this.#dropped.push(...this.#toasts.flatMap((toast) => toast.el ?? []));
    this.#toasts = [];
  }

  #num(name: string, fallback: number): number {
    const value = Number(this.getAttribute(name) ?? fallback);
    return value >= 0 && value < Infinity ? value : fallback; // NaN fails both
  }

  /** The word for an award waiting in the outbox: saved (IndexedDB) or only held in memory (this award, or storage now). */
  #waiting(toast?: Toast): ToastState {
    return this.#status.storage === 'indexeddb' && !toast?.memory ? 'saved' : 'waiting';
  }

  #find(key: string): Toast | undefined {
    return this.#toasts.find((t) => t.key === key);
  }

  /** Not sending now: offline, waiting for the player to sign in, or the game server's deployment refuses the queue. */
  #held(): boolean {
    return this.#connectionState() !== 'online';
  }

  #queued(award: PendingAward, persisted: Promise<boolean>): void {
    const toast: Toast = {
      key: award.idempotencyKey,
      points: award.eventPoints,
      label: award.eventDescription || award.eventName || '',
      state: this.#held() ? this.#waiting() : 'sending',
      at: 0,
    };
    // Only in memory: a waiting toast says "kept until you close this page", not that it is saved.
    void persisted.then((stored) => {
      if (stored) return;
      toast.memory = true;
      if (toast.state === 'saved') this.#set(toast.key, 'waiting');
    });
    this.#touch(toast);
    this.#toasts.unshift(toast);
    for (const old of this.#toasts.splice(Math.max(1, this.#num('toasts', 3)))) if (old.el) this.#dropped.push(old.el);
  }

  /**
   * Moves a toast to `state` (only from `from` when given); a confirmed toast is not sent again by a late event. `code`:
   * a refusal's (the relay's), whose words the toast shows.
   */
  #set(key: string, state: ToastState, from?: ToastState, code?: string): void {
    const toast = this.#find(key);
    if (!toast || toast.state === state || (from && toast.state !== from) || (state === 'sent' && toast.state === 'confirmed')) return;
    toast.state = state;
    toast.code = code;
    this.#touch(toast);
  }

  #touch(toast: Toast): void {
    toast.at = performance.now();
    this.#voice.speak({ toast });
    this.#schedule();
  }

  #onView(view: PointsView): void {
    this.#view = view;
    if (view.totalPoints !== this.#target) {
      this.#from = this.#shown;
      this.#t0 = performance.now();
      this.#target = view.totalPoints;
      if (this.#fresh) this.#shown = this.#target;
      else this.#voice.speak({ total: true });
    }
    this.#schedule();
  }

  #onStatus(status: HudStatus): void {
    const was = this.#connectionState();
    this.#status = status;
    const now = this.#connectionState();
    if (now !== was && !this.#fresh) this.#voice.speak({ connection: true });
    // Just held (was online): the toasts on their way now wait.
    if (was === 'online' && now !== 'online')
      for (const toast of this.#toasts) if (toast.state === 'sending') this.#set(toast.key, this.#waiting(toast));
    this.#schedule();
  }

  /**
   * The connection's part: sign in (the client needs a token), then unreachable (the deployment refuses the queue:
   * the awards wait), before online or offline.
   */
  #connectionState(): 'sign-in' | 'unreachable' | 'online' | 'offline' {
    const s = this.#status;
    return s.authRequired ? 'sign-in' : s.deploymentRefused ? 'unreachable' : s.online ? 'online' : 'offline';
  }

  /** The connection's word, as the strings name it. */
  #connectionWord(state = this.#connectionState()): string {
    return this.#strings[state === 'sign-in' ? 'signIn' : state];
  }

  #words(): void {
    text(this.#label, this.#strings.total);
    this.#historyList.setAttribute('aria-label', this.#strings.history);
    this.#viewDrawn = undefined;
    this.#schedule();
  }

  /** Asks for a draw: in the next frame, or when DRAW_MS have passed since the last one (a timer, not a frame each). */
  #schedule(): void {
    if (this.#frame || !this.isConnected) return;
    const wait = this.#drawnAt + DRAW_MS - performance.now();
    if (wait > 0) this.#wake(wait);
    else this.#frame = requestAnimationFrame((now) => this.#render(now));
  }

  /**
   * Every DOM write happens here, in a frame, at most every DRAW_MS, and nothing reads layout: a game awarding every
   * frame would otherwise make the HUD lay itself out every frame, for changes faster than anyone reads. The total
   * counts up in those steps.
   */
  #render(now: number): void {
    this.#frame = 0;
    if (now - this.#drawnAt < DRAW_MS) {
      this.#wake(this.#drawnAt + DRAW_MS - now);
      return;
    }
    this.#drawnAt = now;
    let wake = this.#drawLists(now);
    if (this.#shown !== this.#target) {
      const p = stillness().matches ? 1 : Math.min(1, (now - this.#t0) / COUNT_UP_MS);
      // Whole numbers on the way (the eye reads digits, not decimals), the exact total at the end.
      this.#shown = p >= 1 ? this.#target : Math.round(this.#from + (this.#target - this.#from) * (1 - (1 - p) ** 3));
      if (p < 1) wake = Math.min(wake, now + DRAW_MS);
    }
    text(this.#total, this.#number.format(roundPoints(this.#shown)));
    if (wake < Infinity) this.#wake(wake - now);
  }

  /** Draws all but the total; returns when a toast next needs drawing (its hold or its time is up). */
  #drawLists(now: number): number {
    const s = this.#strings;
    const view = this.#view;
    if (view && view !== this.#viewDrawn) {
      this.#confirm(view);
      this.#drawHistory(view);
      this.#viewDrawn = view;
    }
    const { deadLetterCount: deadLetters } = this.#status;
    const connection = this.#connectionState();
    text(this.#connection, this.#connectionWord(connection));
    attr(this.#connection, 'part', `connection ${connection}`);
    if (this.#notice.hidden !== !deadLetters) this.#notice.hidden = !deadLetters;
    text(this.#notice, s.deadLetters.replace('{count}', this.#number.format(deadLetters)));

    for (const el of this.#dropped.splice(0)) el.remove();
    const ms = this.#num('toast-ms', 4000);
    const alive: Toast[] = [];
    let next = Infinity;
    for (const toast of this.#toasts) {
      if (toast.read && toast.state === 'sent' && now - toast.at >= HOLD_MS) this.#set(toast.key, 'confirmed');
      if (toast.read && toast.state === 'sent') next = Math.min(next, toast.at + HOLD_MS);
      if (ms && toast.at + ms <= now) toast.el?.remove();
      else alive.push(toast);
      if (ms) next = Math.min(next, toast.at + ms);
    }
    this.#toasts = alive;
    for (const toast of [...alive].reverse()) this.#drawToast(toast);
    return next;
  }

  /** Draws again in `ms` at the latest (a toast to drop or confirm, a step of the count-up): one timer for all. */
  #wake(ms: number): void {
    const at = performance.now() + ms;
    if (this.#expiry && this.#wakeAt <= at) return;
    clearTimeout(this.#expiry);
    this.#wakeAt = at;
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      this.#schedule();
    }, ms + 1);
  }

  /**
   * A sent award is confirmed once a read has absorbed it: it is gone from the view's keyed entries (pending and
   * sent, listed first) while the history shows read entries after them, so none of ours was cut off by the limit.
   */
  #confirm(view: PointsView): void {
    const keys = new Set<string>();
    let read = false;
    for (const entry of view.history) {
      if (entry.idempotencyKey) keys.add(entry.idempotencyKey);
      else read = true;
    }
    if (read) for (const toast of this.#toasts) toast.read ||= toast.state === 'sent' && !keys.has(toast.key);
  }

  #drawToast(toast: Toast): void {
    if (!toast.el) {
      toast.el = row();
      this.#toastList.prepend(toast.el);
      // In a burst a toast is replaced before its slide-in ends: it appears still, and the page skips the animation.
      if (toast.at - this.#toastAt < BURST_MS) toast.el.className = 'still';
      this.#toastAt = toast.at;
    }
    fill(toast.el, `toast toast-${toast.state}`, toast.state, this.#signed.format(toast.points), toast.label, this.#word(toast));
  }

  /**
   * A toast's word: its state's, or for a refusal with a code that has words of its own (budget, once...), those;
   * any other code says `rejected`'s. (Only a refusal sets a code, and a refusal is final.)
   */
  #word(toast: Toast): string {
    return this.#strings[toast.code as ToastState] || this.#strings[toast.state];
  }

  /** The newest `history` entries, in rows kept from frame to frame (only changed text is written). */
  #drawHistory(view: PointsView): void {
    const s = this.#strings;
    const pending = this.#held() ? s[this.#waiting()] : s.sending;
    const entries = view.history.slice(0, this.#num('history', 0));
    const list = this.#historyList;
    while (list.children.length > entries.length) list.lastElementChild?.remove();
    entries.forEach((entry, i) => {
      const li = list.children[i] ?? list.appendChild(row());
      const word = entry.state === 'pending' ? pending : s[entry.state];
      fill(li, `entry entry-${entry.state}`, entry.state, this.#signed.format(entry.eventPoints), entry.eventDescription || entry.eventName, word);
    });
  }

  /** What the live region says: the connection if it changed, the latest total, the latest toast and its state. */
  #sentence({ total, connection, toast }: News<Toast>): string {
    const s = this.#strings;
    const parts = [
      connection ? this.#connectionWord() : '',
      total ? `${s.total}: ${this.#number.format(this.#target)}` : '',
      toast ? `${this.#signed.format(toast.points)} ${toast.label}, ${this.#word(toast)}` : '',
    ];
    return parts.filter(Boolean).join('. ');
  }
}
