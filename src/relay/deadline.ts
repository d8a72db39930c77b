// A signal that fires after `ms` or when any of `parents` fires. Not AbortSignal.any + AbortSignal.timeout: Node
// holds the sources of AbortSignal.any weakly, so a timeout signal nobody else references can be collected before
// it fires, and the deadline never comes (seen with an 8 s deadline). A plain timer is held until dispose().

export interface Deadline {
  signal: AbortSignal;
  /** When it fires at the latest, on performance.now()'s clock. */
  readonly at: number;
  /** Did the time run out (as opposed to a parent firing)? */
  readonly expired: boolean;
  /** Stops the timer and lets go of the parents; call when the work is done. */
  dispose(): void;
}

export function createDeadline(ms: number, ...parents: (AbortSignal | null | undefined)[]): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`deadline of ${ms} ms passed`, 'TimeoutError'));
  }, ms);
  const linked = parents.filter((parent): parent is AbortSignal => Boolean(parent));
  const onAbort = () => controller.abort(new DOMException('cancelled by the caller', 'AbortError'));
  for (const parent of linked) {
    if (parent.aborted) onAbort();
    else parent.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    at: performance.now() + ms,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      for (const parent of linked) parent.removeEventListener('abort', onAbort);
    },
  };
}
