// The listeners one owner (an engine object, a Phaser scene) added to a client, so that owner can remove exactly its
// own: the client's off(event) without a listener would remove the game's and every other owner's too.
import type { QuestPoints, QuestPointsEvents } from '../client/index.js';

type Listener = [event: keyof QuestPointsEvents, fn: (payload: never) => void];

export class OwnListeners {
  #list: Listener[] = [];

  /** Adds `fn` to `client` (once: for the next event only) and remembers it. */
  add<E extends keyof QuestPointsEvents>(client: QuestPoints, event: E, fn: QuestPointsEvents[E], once = false): void {
    if (once) client.once(event, fn);
    else client.on(event, fn);
    this.#list.push([event, fn as Listener[1]]);
  }

  /** Removes this owner's `fn` of `event`, or without `fn` all of this owner's listeners of `event`. */
  remove<E extends keyof QuestPointsEvents>(client: QuestPoints, event: E, fn?: QuestPointsEvents[E]): void {
    const removed = ([name, listener]: Listener) => name === event && (fn === undefined || listener === fn);
    for (const entry of this.#list) if (removed(entry)) client.off(entry[0], entry[1] as never);
    this.#list = this.#list.filter((entry) => !removed(entry));
  }

  /** Removes every listener of this owner (from `client`, when there still is one) and forgets them. */
  clear(client: QuestPoints | undefined): void {
    for (const [event, fn] of this.#list.splice(0)) client?.off(event, fn as never);
  }
}
