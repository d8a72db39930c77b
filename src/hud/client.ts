// The only file that touches the SDK's API: its public events and `viewPoints()` / `subscribe()` (docs/sdk.md). The HUD
// keeps no points of its own — the client stays the one source of truth — so a renamed event or getter is a fix here.
import type { PendingAward, PointsView, QuestPoints, Snapshot } from '../client/index.js';

/** What the element needs of a client: a `createQuestPoints()` result, or anything with the same events. */
export type HudClient = Pick<QuestPoints, 'on' | 'off' | 'viewPoints' | 'subscribe'>;

/** The client's state as the HUD shows it, from the client's snapshot (subscribe). */
export interface HudStatus {
  online: boolean;
  /** Dead letters this tab knows of. */
  deadLetters: number;
  /** Awards are committed to IndexedDB (false: memory or degraded storage, lost if the page goes away). */
  durable: boolean;
  /** The client needs a token (auth:required): the player must sign in for awards to be sent. */
  signIn: boolean;
  /** The deployment refuses the queue (deployment:refused): the awards wait until the game server answers. */
  unreachable: boolean;
}

/** What the element hears, already filtered to the client's own quest and player. */
export interface HudListener {
  /** `persisted`: false when the award is only in memory (kept until the page is closed). */
  queued(award: PendingAward, persisted: Promise<boolean>): void;
  sent(key: string): void;
  /** No final answer yet: the award waits in the outbox for a retry. */
  retrying(key: string): void;
  rejected(key: string): void;
  view(view: PointsView): void;
  status(status: HudStatus): void;
}

type Pair = { questId: string; serviceUserId: string };

/** Listens to `client` for the pair of its own `viewPoints()`; returns the function that stops listening. */
export function listen(client: HudClient, to: HudListener): () => void {
  const own = client.viewPoints();
  const mine = (pair: Pair) => pair.questId === own.questId && pair.serviceUserId === own.serviceUserId;
  const handlers = {
    'award:queued': ({ award, persisted }: { award: PendingAward; persisted: Promise<boolean> }) => {
      if (mine(award)) to.queued(award, persisted);
    },
    'award:sent': ({ award }: { award: PendingAward }) => {
      if (mine(award)) to.sent(award.idempotencyKey);
    },
    'award:retrying': ({ award }: { award: PendingAward }) => {
      if (mine(award)) to.retrying(award.idempotencyKey);
    },
    'award:rejected': ({ deadLetter }: { deadLetter: PendingAward }) => {
      if (mine(deadLetter)) to.rejected(deadLetter.idempotencyKey);
    },
    'points:changed': ({ view }: { view: PointsView }) => {
      if (mine(view)) to.view(view);
    },
  };
  const names = Object.keys(handlers) as (keyof typeof handlers)[];
  for (const name of names) client.on(name, handlers[name] as never);
  to.view(own);
  const unsubscribe = client.subscribe((snapshot: Snapshot) =>
    to.status({
      online: snapshot.online,
      deadLetters: snapshot.deadLetterCount,
      durable: snapshot.storage === 'indexeddb',
      signIn: snapshot.authRequired,
      unreachable: snapshot.deploymentRefused,
    }),
  );
  return () => {
    for (const name of names) client.off(name, handlers[name] as never);
    unsubscribe();
  };
}
