/** What starts work in a browser: the network coming back, the tab becoming visible, the page going, a timer. */
export interface TriggerHandlers {
  online(): void;
  offline(): void;
  visible(): void;
  pagehide(): void;
  poll(): void;
}

export interface Triggers {
  /** False while the document is hidden (no document: always visible). */
  visible(): boolean;
  dispose(): void;
}

/** Node timers must not keep a script alive. */
export function unref<T>(timer: T): T {
  (timer as { unref?: () => void })?.unref?.();
  return timer;
}

/**
 * The browser's signals, in one place (TanStack Query's onlineManager and focusManager): `online`/`offline` on the
 * window, `visibilitychange` on the document, `pagehide`, and the poll timer. Outside a browser only the timer runs.
 */
export function createTriggers(handlers: TriggerHandlers, pollIntervalMs: number): Triggers {
  const g = globalThis as unknown as { document?: Document } & EventTarget;
  const cleanups: (() => void)[] = [];
  const visible = () => g.document?.visibilityState !== 'hidden';
  const listen = (target: EventTarget | undefined, type: string, fn: () => void) => {
    if (!target?.addEventListener) return;
    target.addEventListener(type, fn);
    cleanups.push(() => target.removeEventListener(type, fn));
  };
  listen(g, 'online', handlers.online);
  listen(g, 'offline', handlers.offline);
  listen(g.document, 'visibilitychange', () => {
    if (visible()) handlers.visible();
  });
  listen(g, 'pagehide', handlers.pagehide);
  const poll = unref(setInterval(handlers.poll, pollIntervalMs));
  cleanups.push(() => clearInterval(poll));
  return {
    visible,
    dispose() {
      for (const fn of cleanups) fn();
    },
  };
}
