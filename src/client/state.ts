import type { Snapshot } from './types.js';

/** The client's own state: what a snapshot shows besides the queue and the points, and its life cycle. Immutable. */
export interface ClientState extends Omit<Snapshot, 'queueSize' | 'points'> {
  closed: boolean;
  /** The start-up read of the outbox is in: before it, this tab's mirror is not the head of the queue. */
  loaded: boolean;
}

/**
 * Everything that changes the client's state, and nothing else does: fields set (an answer came or none did, a
 * token worked or none could be had, the dead letters counted, storage failed or recovered, loaded, closed), or
 * `deadAdded` letters just stored here, counted at once.
 */
export type Action = Partial<ClientState> | { deadAdded: number };

/** Pure: the state after an action (the same object when nothing changed). */
export function reduce(state: ClientState, action: Action): ClientState {
  const patch: Partial<ClientState> = 'deadAdded' in action ? { deadLetterCount: state.deadLetterCount + action.deadAdded } : action;
  for (const key in patch) if (patch[key as keyof ClientState] !== state[key as keyof ClientState]) return { ...state, ...patch };
  return state;
}

/**
 * The one writer of the client's state (TanStack Query's `#dispatch`): every change is an action through reduce(),
 * and each new state is heard once, with the one before it, by the listeners (the notifier: its tick and
 * `connection:changed`).
 */
export function createClientState(initial: ClientState) {
  let state = initial;
  const listeners: ((next: ClientState, previous: ClientState) => void)[] = [];
  return {
    get: (): ClientState => state,
    dispatch(action: Action) {
      const previous = state;
      state = reduce(previous, action);
      if (state !== previous) for (const listener of listeners) listener(state, previous);
    },
    listen(listener: (next: ClientState, previous: ClientState) => void) {
      listeners.push(listener);
    },
  };
}

export type ClientStore = ReturnType<typeof createClientState>;
