/**
 * Polls until fn() is truthy and returns that value; throws naming `what` after timeoutMs. Tests wait on conditions
 * like this, never on a fixed sleep.
 */
export async function until<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 15_000, intervalMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
