// Imported first by every engine page: counts the page's live timers (timeouts and intervals not yet fired or
// cleared, animation frames not yet run or cancelled), so a test can tell that destroying the engine left none —
// ours (the SDK's polls and backoff, the HUD's frames and toast timers) or the engine's.
const live = { timeout: new Set<number>(), interval: new Set<number>(), frame: new Set<number>() };
const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci, requestAnimationFrame: raf, cancelAnimationFrame: caf } = window;

window.setTimeout = ((fn: TimerHandler, ms?: number, ...args: unknown[]) => {
  const id: number = st(
    (...a: unknown[]) => {
      live.timeout.delete(id);
      if (typeof fn === 'function') fn(...a);
    },
    ms,
    ...args,
  );
  live.timeout.add(id);
  return id;
}) as typeof window.setTimeout;
window.clearTimeout = ((id?: number) => {
  if (id !== undefined) live.timeout.delete(id);
  ct(id);
}) as typeof window.clearTimeout;
window.setInterval = ((fn: TimerHandler, ms?: number, ...args: unknown[]) => {
  const id = si(fn, ms, ...args);
  live.interval.add(id);
  return id;
}) as typeof window.setInterval;
window.clearInterval = ((id?: number) => {
  if (id !== undefined) live.interval.delete(id);
  ci(id);
}) as typeof window.clearInterval;
window.requestAnimationFrame = (fn: FrameRequestCallback) => {
  const id = raf((now) => {
    live.frame.delete(id);
    fn(now);
  });
  live.frame.add(id);
  return id;
};
window.cancelAnimationFrame = (id: number) => {
  live.frame.delete(id);
  caf(id);
};

/** The page's live timers now, by kind. */
export function liveTimers(): { timeout: number; interval: number; frame: number } {
  return { timeout: live.timeout.size, interval: live.interval.size, frame: live.frame.size };
}
