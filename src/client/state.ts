import type { SendResult } from './send.js';
import type { Environment, Snapshot } from './types.js';

/**
 * The client's own state: what a snapshot shows besides the queue and the points, and its life cycle. Immutable.
 * The storage kind is held once, in `environment` (where awards are kept, and why); the snapshot's `storage` is
 * derived from it (storageOf).
 */
export interface ClientState extends Omit<Snapshot, 'queueSize' | 'points' | 'storage'> {
  closed: boolean;
  /** The start-up read of the outbox is in: before it, this tab's mirror is not the head of the queue. */
  loaded: boolean;
}

/**
 * Everything that happens to the client's state, as facts; the reducer alone decides what they mean (`online` among
 * them, in one place). Nothing else changes the state.
 */
export type Action =
  /** One batch of this tab's drain, answered or not (send.ts results, in the batch's order). */
  | { type: 'batch'; results: readonly SendResult[] }
  /** A call that is not an award (a read, identify...): answered, or no answer for lack of network. */
  | { type: 'call'; answered: boolean }
  /** The browser's `online` or `offline` event. */
  | { type: 'connection'; online: boolean }
  /** A drain ended: the queue is empty, or paused for a token, or held by a refusal about the deployment. */
  | { type: 'drain'; outcome: 'drained' | 'auth' | 'refused' }
  /** The dead letters as counted in the store. */
  | { type: 'dead-counted'; count: number }
  /** Letters just stored by this tab, counted at once (before the store's count comes back). */
  | { type: 'dead-added'; count: number }
  /** Where the game is played and what holds there, storage included (environment.ts, its one writer). */
  | { type: 'environment'; environment: Environment }
  | { type: 'loaded' }
  | { type: 'closed' };

/** `online` after a batch: decided by its first result; a token failure says nothing of the network. */
function onlineAfter(results: readonly SendResult[], online: boolean): boolean {
  const [first] = results;
  if (!first || first.outcome === 'auth') return online;
  // Offline only for lack of network: a retry the relay answered (deadline, relay_busy, upstream_auth...) is an answer.
  return !(first.outcome === 'retry' && first.noAnswer);
}

/** The fields an action changes. */
function patch(state: ClientState, action: Action): Partial<ClientState> {
  switch (action.type) {
    case 'batch': {
      // An award acknowledged or refused: a token worked and the relay itself answered.
      const through = action.results.some((r) => r.outcome === 'ok' || r.outcome === 'rejected');
      const online = onlineAfter(action.results, state.online);
      return through ? { online, authRequired: false, deploymentRefused: false } : { online };
    }
    case 'call':
      return { online: action.answered };
    case 'connection':
      return { online: action.online };
    case 'drain':
      if (action.outcome === 'auth') return { authRequired: true };
      return { deploymentRefused: action.outcome === 'refused' };
    case 'dead-counted':
      return { deadLetterCount: action.count };
    case 'dead-added':
      return { deadLetterCount: state.deadLetterCount + action.count };
    case 'environment':
      return { environment: action.environment };
    case 'loaded':
      return { loaded: true };
    case 'closed':
      return { closed: true };
  }
}

/** Pure: the state after an action (the same object when nothing changed). */
export function reduce(state: ClientState, action: Action): ClientState {
  const fields = patch(state, action);
  for (const key in fields) if (fields[key as keyof ClientState] !== state[key as keyof ClientState]) return { ...state, ...fields };
  return state;
}

/** The snapshot's `storage`, from the one place it is held: IndexedDB, memory as asked, or memory for lack of it. */
export const storageOf = ({ storage, storageReason }: Environment): Snapshot['storage'] =>
  storage === 'indexeddb' ? 'indexeddb' : storageReason === 'option' ? 'memory' : 'degraded';

/**
 * The one writer of the client's state (TanStack Query's `#dispatch`): every change is a typed action through
 * reduce(), and each new state is heard once, with the one before it, by the listeners (the notifier: its batched
 * tick and `connection:changed`). A listener that throws does not keep the others from hearing: its error surfaces
 * asynchronously, as an uncaught error.
 */
export function createClientState(initial: ClientState) {
  let state = initial;
  const listeners: ((next: ClientState, previous: ClientState) => void)[] = [];
  return {
    get: (): ClientState => state,
    dispatch(action: Action) {
      const previous = state;
      state = reduce(previous, action);
      if (state === previous) return;
      for (const listener of listeners) {
        try {
          listener(state, previous);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    listen(listener: (next: ClientState, previous: ClientState) => void) {
      listeners.push(listener);
    },
  };
}

export type ClientStore = ReturnType<typeof createClientState>;
