// The HUD's test page: a canvas game stand-in (a positioned box drawn every frame) with <quest-points-hud> over it,
// bound to a real client (relay + emulator behind the harness's proxy). Query: sub, history, toastMs, lang,
// hud=0 (the baseline: the same page and awards, no element), frames=1 (a busy scene: many shapes drawn per frame),
// tokenStatus (the token URL answers that status: 401, no session), storage (storageName).
import { createQuestPoints } from '../../../src/client/index.js';
import { attachHud, type QuestPointsHud } from '../../../src/hud/index.js';
import { tokenFrom } from '../../../src/sw/token.js';

const params = new URLSearchParams(location.search);
const sub = params.get('sub') ?? 'player';
if (params.has('lang')) document.documentElement.lang = params.get('lang')!;
if (params.has('css')) document.head.append(Object.assign(document.createElement('style'), { textContent: params.get('css')! }));

const qp = createQuestPoints({
  relayUrl: '/api',
  // The token URL answers the one documented format, JSON { token } (docs/sdk.md).
  getToken: tokenFrom(`/token?sub=${encodeURIComponent(sub)}&tab=hud${params.has('tokenStatus') ? `&status=${params.get('tokenStatus')}` : ''}`),
  questId: 'hud-quest',
  serviceUserId: sub,
  storageName: params.get('storage') ?? `qp-hud-${sub}`,
  backoff: { baseMs: 100, maxMs: 1000 },
});

const stage = document.createElement('div');
stage.style.cssText = 'position:relative;width:640px;height:480px';
const canvas = document.createElement('canvas');
canvas.width = 640;
canvas.height = 480;
canvas.setAttribute('aria-label', 'Game');
canvas.setAttribute('role', 'img');
stage.append(canvas);
document.getElementById('root')!.append(stage);
const ctx = canvas.getContext('2d')!;
const shapes = params.has('frames') ? 400 : 20;

const hud: QuestPointsHud | undefined =
  params.get('hud') === '0'
    ? undefined
    : attachHud(qp, {
        parent: stage,
        history: Number(params.get('history') ?? 0),
        ...(params.has('toastMs') ? { toastMs: Number(params.get('toastMs')) } : {}),
      });

/** rAF deltas recorded while `awardEveryFrame` runs. */
let deltas: number[] = [];
let awarding = 0;
let last = 0;
/** While interleaving: the buckets, the slice length and when the next slice starts. */
let slices: { hud: number[]; none: number[]; switches: number[]; ms: number; next: number } | undefined;
let switched = 0;
/** Frames after each switch left out of both sides. */
const SETTLE_FRAMES = 3;
function frame(now: number) {
  if (slices && now >= slices.next) {
    // The HUD in or out for the next slice.
    const withHud = !hud!.isConnected;
    if (withHud) stage.append(hud!);
    else hud!.remove();
    deltas = withHud ? slices.hud : slices.none;
    slices.next = now + slices.ms;
    // The intervals right after a switch (the element's removal, or its attachment and first full draw) are neither
    // side's steady state.
    switched = SETTLE_FRAMES;
  }
  if (switched > 0) slices?.switches.push(now - last);
  else if (last && awarding) deltas.push(now - last);
  switched -= 1;
  last = now;
  ctx.fillStyle = '#0e1a2b';
  ctx.fillRect(0, 0, 640, 480);
  for (let i = 0; i < shapes; i++) {
    ctx.beginPath();
    ctx.arc((i * 37 + now / 5) % 640, (i * 53 + now / 7) % 480, 8, 0, Math.PI * 2);
    ctx.fillStyle = i % 7 ? '#fcc419' : '#63e6be';
    ctx.fill();
  }
  if (awarding) {
    awarding -= 1;
    qp.award({ eventPoints: 1 + (awarding % 5), eventName: 'coin', eventDescription: `Coin ${awarding}` });
  }
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

/** Samples the total's digits every frame (for the count-up checks). */
function sampleTotal(frames: number): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve) => {
    const tick = () => {
      seen.push(hud!.shadowRoot!.querySelector('[part~=total]')!.textContent!);
      if (seen.length >= frames) resolve(seen);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

/** Each toast's state words in the order they were drawn, by the toast's points and event text. */
const drawn: Record<string, string[]> = {};
if (hud)
  new MutationObserver(() => {
    for (const li of hud.shadowRoot!.querySelectorAll('[part~=toast]')) {
      const [points, event, state] = [...li.children].map((span) => span.textContent ?? '');
      const seen = drawn[`${points} ${event}`] ?? [];
      drawn[`${points} ${event}`] = seen;
      if (state && seen.at(-1) !== state) seen.push(state);
    }
  }).observe(hud.shadowRoot!, { subtree: true, childList: true, characterData: true });

const hudPage = {
  drawn,
  qp,
  hud,
  award: (points: number, eventName = 'coin', eventDescription?: string) =>
    qp.award({ eventPoints: points, eventName, ...(eventDescription ? { eventDescription } : {}) }).idempotencyKey,
  sampleTotal,
  /**
   * Awards once a frame for 2 × `count` × `sliceMs`, the HUD attached and detached in turn every `sliceMs`: the
   * frame intervals with it and without it, in the same page under the same load.
   */
  interleave(sliceMs: number, count: number): Promise<{ hud: number[]; none: number[]; switches: number[] }> {
    slices = { hud: [], none: [], switches: [], ms: sliceMs, next: 0 };
    const result = slices;
    awarding = Number.MAX_SAFE_INTEGER;
    return new Promise((resolve) =>
      setTimeout(
        () => {
          awarding = 0;
          slices = undefined;
          if (!hud!.isConnected) stage.append(hud!);
          resolve(result);
        },
        2 * count * sliceMs,
      ),
    );
  },
  /** Awards once a frame for `ms`, then resolves with the frame deltas seen meanwhile. */
  awardEveryFrame(ms: number): Promise<number[]> {
    deltas = [];
    awarding = Number.MAX_SAFE_INTEGER;
    return new Promise((resolve) =>
      setTimeout(() => {
        awarding = 0;
        resolve(deltas);
      }, ms),
    );
  },
};
Object.assign(window, { hudPage });
export type HudPage = typeof hudPage;
