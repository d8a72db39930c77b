import { EventEmitter } from 'eventemitter3';
import type { QuestPointsEvents } from './types.js';

type Name = EventEmitter.EventNames<QuestPointsEvents>;
type Fn<E extends Name> = EventEmitter.EventListener<QuestPointsEvents, E>;

/**
 * The SDK's typed emitter: eventemitter3 over the QuestPointsEvents map. One addition: a listener that throws does
 * not stop the others nor the flush that emitted; its error surfaces asynchronously, like any uncaught error. Each
 * listener is wrapped once (the same wrapper for every event it is added to), so off() and once() keep
 * eventemitter3's meaning: once(fn) then off(fn) removes it.
 */
export class QuestPointsEmitter extends EventEmitter<QuestPointsEvents> {
  private readonly guards = new WeakMap<Function, Function>();

  private guard<E extends Name>(fn: Fn<E>): Fn<E> {
    let guarded = this.guards.get(fn);
    if (!guarded) {
      guarded = (...args: unknown[]) => {
        try {
          (fn as Function)(...args);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      };
      this.guards.set(fn, guarded);
    }
    return guarded as Fn<E>;
  }

  override on<E extends Name>(event: E, fn: Fn<E>, context?: unknown): this {
    return super.on(event, this.guard(fn), context);
  }

  override once<E extends Name>(event: E, fn: Fn<E>, context?: unknown): this {
    return super.once(event, this.guard(fn), context);
  }

  override off<E extends Name>(event: E, fn?: Fn<E>, context?: unknown, once?: boolean): this {
    return super.off(event, fn && (this.guards.get(fn) as Fn<E> | undefined), context, once);
  }
}
