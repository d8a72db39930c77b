import { createElement, useEffect, useReducer, useRef, type ReactNode } from 'react';
import { createQuestPoints, type QuestPoints, type QuestPointsOptions } from '../client/index.js';
import { QuestPointsContext } from './context.js';

/** QuestPointsProvider's props: the tree, and either a `client` the game made or the `options` to make one. */
export type QuestPointsProviderProps = { children?: ReactNode } & (
  | {
      /** A client the game made: the provider never closes it. */
      client: QuestPoints;
      options?: never;
    }
  | {
      /**
       * The provider makes the client from these on its first render and closes it when it unmounts. Read once: to
       * switch player or quest, give the provider a new `key`.
       */
      options: QuestPointsOptions;
      client?: never;
    }
);

/** A client the provider made, and whether its unmount closed it. */
interface Owned {
  client: QuestPoints;
  closing?: ReturnType<typeof setTimeout>;
  closed: boolean;
}

/**
 * Makes (or takes) the client and gives it to the tree. A client made here lives as long as the provider: made on
 * the first render so the children have it at once, closed a task after the provider's effects are cleaned up.
 * The delay is what makes StrictMode safe: its dev-only unmount + remount of effects runs synchronously, so the
 * remount cancels the close and the same client goes on. Anything that really closed it while the state survives
 * (an <Activity> hidden then shown, Fast Refresh) gets a new client on the next mount.
 */
export function QuestPointsProvider(props: QuestPointsProviderProps): ReactNode {
  const { options, children } = props;
  const owned = useRef<Owned | null>(null);
  const [, remade] = useReducer((n: number) => n + 1, 0);
  if (options && !owned.current) owned.current = { client: createQuestPoints(options), closed: false };
  // The client this provider owns, or null when the game gave one.
  const current = options ? owned.current : null;

  useEffect(() => {
    if (!current) return;
    if (current.closing !== undefined) {
      clearTimeout(current.closing);
      current.closing = undefined;
    }
    if (current.closed) {
      owned.current = null;
      remade();
      return;
    }
    return () => {
      current.closing = setTimeout(() => {
        current.closed = true;
        current.client.close().catch(() => {});
      }, 0);
    };
    // Keyed on the owned client, not on `options`: the options are read once (see the prop's doc), so a change of
    // their identity must not make a new client.
  }, [current]);

  // Neither (only possible from untyped code) provides null: the hooks then say there is no provider.
  const client = current?.client ?? props.client ?? null;
  return createElement(QuestPointsContext.Provider, { value: client }, children);
}
