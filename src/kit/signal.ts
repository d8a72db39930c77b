// The one way every server face waits for something "unless the signal fires first" (a deadline, a client gone).
// No Node import: the relay's core uses it on every runtime.

/** What orAbort() resolves with when the signal fired first. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * The promise's value (or its rejection), or ABORTED as soon as the signal fires, whichever comes first. The
 * promise stays handled either way (no unhandled rejection), and the listener is removed once it is settled.
 */
export function orAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`: true, or false when the signal fired first (the timer is then cleared). */
export async function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slept = await orAbort(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), signal);
  clearTimeout(timer);
  return slept !== ABORTED;
}
