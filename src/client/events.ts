import { EventEmitter } from 'eventemitter3';
import type { QuestPointsEvents } from './client-types.js';

type Name = EventEmitter.EventNames<QuestPointsEvents>;

/**
 * The SDK's typed emitter: eventemitter3 over the QuestPointsEvents map. One addition: a listener that throws does
 * not break the flush or the tick that emitted; its error surfaces asynchronously, like any uncaught error (the
 * listeners after it miss that one event, as with eventemitter3 itself).
 */
export class QuestPointsEmitter extends EventEmitter<QuestPointsEvents> {
  override emit<E extends Name>(event: E, ...payload: EventEmitter.EventArgs<QuestPointsEvents, E>): boolean {
    try {
      return super.emit(event, ...payload);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
      return true;
    }
  }
}
