// A signal that fires after `ms` or when any of `parents` fires. Not AbortSignal.any + AbortSignal.timeout: Node
// holds the sources of AbortSignal.any weakly, so a timeout signal nobody else references can be collected before
// it fires, and the deadline never comes (seen with an 8 s deadline). A plain timer is held until dispose(). Not an
// AbortController either: one per award was 2 µs on Node 20 (kit/signal.ts `Cancel`).
import { Cancel, onAbort, type AnySignal } from '../kit/signal.js';

/**
 * What says the caller gave up: a signal, or a subscription (`watch(onGone)` returns its unsubscribe). On Node
 * the relay watches the response's 'close' (context.ts `clientGone`) instead of the request's signal, which
 * @hono/node-server builds as one more AbortController per request.
 */
export type Cancellation = AnySignal | ((onGone: () => void) => () => void);

export interface Deadline {
  signal: Cancel;
  /** When it fires at the latest, on performance.now()'s clock. */
  readonly at: number;
  /** Did the time run out (as opposed to a parent firing)? */
  readonly expired: boolean;
  /** Stops the timer and lets go of the parents; call when the work is done. */
  dispose(): void;
}

export function createDeadline(ms: number, ...parents: (Cancellation | null | undefined)[]): Deadline {
  const signal = new Cancel();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    signal.abort(new DOMException(`deadline of ${ms} ms passed`, 'TimeoutError'));
  }, ms);
  const onParent = () => signal.abort(new DOMException('cancelled by the caller', 'AbortError'));
  const unsubscribe: (() => void)[] = [];
  for (const parent of parents) {
    if (!parent) continue;
    if (typeof parent === 'function') unsubscribe.push(parent(onParent));
    else if (parent.aborted) onParent();
    else unsubscribe.push(onAbort(parent, onParent));
  }
  return {
    signal,
    at: performance.now() + ms,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      for (const stop of unsubscribe) stop();
    },
  };
}
