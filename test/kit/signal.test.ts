// The relay's cheap cancellation (kit/signal.ts): what its per-award deadline relies on, on its own.
import { describe, expect, it } from 'vitest';
import { ABORTED, Cancel, onAbort, orAbort } from '../../src/kit/signal.js';

describe('Cancel', () => {
  it('fires once: each listener in order, with the first reason; later aborts change nothing', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    cancel.subscribe(() => calls.push(`a:${String(cancel.reason)}`));
    cancel.subscribe(() => calls.push('b'));
    cancel.abort('first');
    cancel.abort('second');
    expect(calls).toEqual(['a:first', 'b']);
    expect(cancel).toMatchObject({ aborted: true, reason: 'first' });
  });

  it('an unsubscribed listener is not called, and subscribing after it fired calls nothing (as an AbortSignal)', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const stop = cancel.subscribe(() => calls.push('gone'));
    cancel.subscribe(() => calls.push('kept'));
    stop();
    stop();
    cancel.abort('x');
    cancel.subscribe(() => calls.push('late'));
    expect(calls).toEqual(['kept']);
  });

  it('its AbortSignal is made on first read and follows it, before or after it fired', () => {
    const before = new Cancel();
    const signal = before.signal;
    expect(signal.aborted).toBe(false);
    expect(before.signal).toBe(signal);
    before.abort(new Error('stop'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stop');
    const after = new Cancel();
    after.abort('done');
    expect(after.signal).toMatchObject({ aborted: true, reason: 'done' });
  });

  it('orAbort and onAbort take it as they take an AbortSignal', async () => {
    for (const make of [() => new Cancel(), () => new AbortController()]) {
      const source = make();
      const signal = source instanceof Cancel ? source : source.signal;
      let heard = 0;
      onAbort(signal, () => heard++);
      const pending = orAbort(new Promise(() => {}), signal);
      source.abort('now');
      await expect(pending).resolves.toBe(ABORTED);
      await expect(orAbort(Promise.resolve(1), signal)).resolves.toBe(ABORTED);
      expect(heard).toBe(1);
    }
    const open = new Cancel();
    await expect(orAbort(Promise.resolve(7), open)).resolves.toBe(7);
  });
});
