// What every engine page gives the test (window.enginePage): start the engine with the plugin bound to it, award
// through the plugin, read the live total and the HUD, destroy the engine, and count what is left behind: listeners
// on the client (when the game passed its own client in, which stays open) and live timers.
import { liveTimers } from './timers.js';
import { createQuestPoints, type QuestPoints } from '../../../src/client/index.js';
import type { EnginePluginOptions, QuestPointsBinding } from '../../../src/engines/binding.js';
import { tokenFrom } from '../../../src/sw/token.js';

const params = new URLSearchParams(location.search);
export const sub = params.get('sub') ?? 'player';
/** 'given': the game makes the client and hands it in (it stays open); 'own': the plugin makes it and closes it. */
export const mode = params.get('mode') === 'given' ? 'given' : 'own';

const clientOptions = {
  relayUrl: '/api',
  getToken: tokenFrom(`/token?sub=${encodeURIComponent(sub)}&tab=${mode}`),
  questId: 'engine-quest',
  serviceUserId: sub,
  storageName: `qp-engine-${sub}`,
  backoff: { baseMs: 100, maxMs: 1000 },
};

/** Every on/once/subscribe registration on the given client not yet undone. */
const registrations = new Set<string>();
function counted(client: QuestPoints): QuestPoints {
  const ids = new WeakMap<object, number>();
  let next = 0;
  const id = (fn: object) => {
    if (!ids.has(fn)) ids.set(fn, next++);
    return ids.get(fn);
  };
  const { on, once, off, subscribe } = client;
  Object.assign(client, {
    on(event: never, fn: never) {
      registrations.add(`${event}#${id(fn)}`);
      return on.call(client, event, fn);
    },
    once(event: never, fn: never) {
      registrations.add(`${event}#${id(fn)}`);
      return once.call(client, event, fn);
    },
    off(event: never, fn: never) {
      registrations.delete(`${event}#${id(fn)}`);
      return off.call(client, event, fn);
    },
    subscribe: (cb: never) => {
      const key = `subscribe#${id(cb)}`;
      registrations.add(key);
      const unsubscribe = subscribe.call(client, cb);
      return () => {
        registrations.delete(key);
        unsubscribe();
      };
    },
  });
  return client;
}

export const given = mode === 'given' ? counted(createQuestPoints(clientOptions)) : undefined;
/** The plugin's options for this page's mode. */
export const pluginOptions: EnginePluginOptions = given ? { client: given } : clientOptions;

/** A positioned box for the engine's canvas: the HUD goes in it, over the canvas. */
export function stage(): HTMLDivElement {
  const div = document.createElement('div');
  div.id = 'game';
  div.style.cssText = 'width:480px;height:320px';
  document.getElementById('root')!.append(div);
  return div;
}

export interface Engine {
  /** The plugin's binding, once the engine started (null: not bound). */
  binding(): QuestPointsBinding | null;
  /** Destroys the engine object the plugin is bound to. */
  destroy(): void;
  /** The engine's canvas. */
  canvas: HTMLCanvasElement;
  /** True while the engine draws frames with WebGL. */
  webgl(): boolean;
}

function makePage(start: () => Promise<Engine>) {
  let engine: Engine | undefined;
  let binding: QuestPointsBinding | null = null;
  const page = {
    mode,
    async start() {
      engine = await start();
      binding = engine.binding();
      return { bound: !!binding, webgl: engine.webgl() };
    },
    award(points: number, eventName: string) {
      return binding!.award({ eventPoints: points, eventName }).idempotencyKey;
    },
    /** The plugin's live total, the HUD's text, and the client's, now. */
    totals() {
      return {
        binding: page.leftBehind().bindingClosed ? null : (binding?.viewPoints().totalPoints ?? null),
        hud: document.querySelector('quest-points-hud')?.shadowRoot?.querySelector('[part~=total]')?.textContent ?? null,
        client: given?.viewPoints().totalPoints ?? null,
      };
    },
    /** Where the HUD is: in the canvas's parent, over the canvas's box. */
    hudPlacement() {
      const hud = document.querySelector('quest-points-hud');
      if (!hud || !engine) return null;
      const a = hud.getBoundingClientRect();
      const b = engine.canvas.getBoundingClientRect();
      return { sameParent: hud.parentElement === engine.canvas.parentElement, box: [a.x - b.x, a.y - b.y, a.width - b.width, a.height - b.height] };
    },
    /** Counts events heard through the plugin's typed on(). */
    heard: [] as number[],
    listen() {
      binding!.on('points:changed', ({ view }) => page.heard.push(view.totalPoints));
    },
    destroy() {
      engine!.destroy();
    },
    leftBehind() {
      return {
        hud: document.querySelectorAll('quest-points-hud').length,
        registrations: [...registrations],
        timers: liveTimers(),
        bindingClosed: (() => {
          try {
            return !binding?.client;
          } catch {
            return true;
          }
        })(),
      };
    },
    async closeGiven() {
      await given?.close();
    },
  };
  return page;
}

/** Puts the page's driver on window.enginePage. */
export function expose(start: () => Promise<Engine>): void {
  Object.assign(window, { enginePage: makePage(start) });
}

export type EnginePage = ReturnType<typeof makePage>;
