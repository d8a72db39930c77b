/**
 * A typed event emitter (on/off/once/emit over an event map). eventemitter3 costs 1.1 KB gzipped, an eighth of the
 * SDK's whole 8 KB budget; this is the part of it the SDK uses. A throwing listener does not stop the others.
 */
export function createEmitter<E extends { [K in keyof E]: (payload: any) => void }>() {
  const listeners = new Map<keyof E, Set<Function>>();
  const off = <K extends keyof E>(event: K, fn?: E[K]) => void (fn ? listeners.get(event)?.delete(fn) : listeners.delete(event));
  const on = <K extends keyof E>(event: K, fn: E[K]) => void listeners.set(event, (listeners.get(event) ?? new Set()).add(fn));
  return {
    on,
    off,
    once<K extends keyof E>(event: K, fn: E[K]) {
      const wrapper = ((payload: unknown) => (off(event, wrapper), fn(payload))) as E[K];
      on(event, wrapper);
    },
    emit<K extends keyof E>(event: K, payload: Parameters<E[K]>[0]) {
      listeners.get(event)?.forEach((fn) => {
        try {
          fn(payload);
        } catch (error) {
          // A game's listener bug must not break the flush; it surfaces asynchronously like any uncaught error.
          queueMicrotask(() => {
            throw error;
          });
        }
      });
    },
    count: (event: keyof E) => listeners.get(event)?.size ?? 0,
    clear: () => listeners.clear(),
  };
}
