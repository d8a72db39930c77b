import type { QuestPoints, QuestPointsEvents } from '../client/index.js';

/** Every SDK event, re-emitted on a bound scene's `scene.events` under the same name. */
export const FORWARDED_EVENTS = [
  'award:queued',
  'award:sent',
  'award:retrying',
  'award:rejected',
  'points:changed',
  'queue:changed',
  'queue:drained',
  'connection:changed',
  'auth:required',
  'deployment:refused',
  'storage:degraded',
  'sync:failed',
  'error',
] as const satisfies readonly (keyof QuestPointsEvents)[];

/** What the plugin needs of a Phaser scene: its event emitter (Phaser.Events.EventEmitter, eventemitter3). */
export interface SceneLike {
  events: {
    /** Emit `event` to the scene's listeners; true when it had any. */
    emit(event: string, ...args: unknown[]): boolean;
    /** Add a listener. */
    on(event: string, fn: (...args: unknown[]) => void, context?: unknown): unknown;
    /** Add a listener that is removed after its first call. */
    once(event: string, fn: (...args: unknown[]) => void, context?: unknown): unknown;
    /** Remove a listener (without `fn`: every listener of `event`). */
    off(event: string, fn?: (...args: unknown[]) => void, context?: unknown, once?: boolean): unknown;
  };
}

// Phaser.Scenes.Events.SHUTDOWN / DESTROY: a stopped or restarted scene shuts down, a removed one is destroyed.
const SCENE_SHUTDOWN = 'shutdown';
const SCENE_DESTROY = 'destroy';

/**
 * Forward the SDK's events to `scene.events` until the scene shuts down or is destroyed, then remove every
 * listener this added (on the client and on the scene). Returns the unbind function.
 */
export function bindScene(
  client: QuestPoints,
  scene: SceneLike,
  { events = FORWARDED_EVENTS, onUnbind }: { events?: readonly (keyof QuestPointsEvents)[]; onUnbind?: () => void } = {},
): () => void {
  const forwarders = events.map((name) => {
    const forward = (payload: unknown) => scene.events.emit(name, payload);
    client.on(name, forward as QuestPointsEvents[typeof name]);
    return [name, forward] as const;
  });
  let bound = true;
  const unbind = () => {
    if (!bound) return;
    bound = false;
    for (const [name, forward] of forwarders) client.off(name, forward as QuestPointsEvents[typeof name]);
    scene.events.off(SCENE_SHUTDOWN, unbind);
    scene.events.off(SCENE_DESTROY, unbind);
    onUnbind?.();
  };
  scene.events.once(SCENE_SHUTDOWN, unbind);
  scene.events.once(SCENE_DESTROY, unbind);
  return unbind;
}
