// The only file that touches the SDK's API: its public events and `viewPoints()` / `subscribe()` (docs/sdk.md). The HUD
// keeps no points of its own — the client stays the one source of truth — so a renamed event or getter is a fix here.
import type { DeadLetter, PendingAward, PointsView, QuestPoints, Snapshot } from '../client/index.js';

/** What the element needs of a client: a `createQuestPoints()` result, or anything with the same events. */
export type HudClient = Pick<QuestPoints, 'on' | 'off' | 'viewPoints' | 'subscribe'>;

/**
 * The client's state as the HUD reads it, from the client's snapshot (subscribe): online, the dead letters this tab
 * knows of, where awards are kept (not 'indexeddb': lost if the page goes away), whether the player must sign in
 * (auth:required) and whether the deployment refuses the queue (deployment:refused: the awards wait).
 */
export type HudStatus = Pick<Snapshot, 'online' | 'deadLetterCount' | 'storage' | 'authRequired' | 'deploymentRefused'>;

/** What the element hears, already filtered to the client's own quest and player. */
export interface HudListener {
  /** `persisted`: false when the award is only in memory (kept until the page is closed). */
  queued(award: PendingAward, persisted: Promise<boolean>): void;
  sent(key: string): void;
  /** No final answer yet: the award waits in the outbox for a retry. */
  retrying(key: string): void;
  /** Refused for good; `code`: the relay's refusal code (the dead letter's), if it sent one. */
  rejected(key: string, code?: string): void;
  view(view: PointsView): void;
  status(status: HudStatus): void;
}

type Pair = { questId: string; serviceUserId: string };

/** Listens to `client` for the pair of its own `viewPoints()`; returns the function that stops listening. */
export function listen(client: HudClient, to: HudListener): () => void {
  const own = client.viewPoints();
  // Each event, for the own pair only (an award's, a dead letter's or a view's).
  const handlers = {
    'award:queued': (e: { award: PendingAward; persisted: Promise<boolean> }) => to.queued(e.award, e.persisted),
    'award:sent': (e: { award: PendingAward }) => to.sent(e.award.idempotencyKey),
    'award:retrying': (e: { award: PendingAward }) => to.retrying(e.award.idempotencyKey),
    'award:rejected': (e: { deadLetter: DeadLetter }) => to.rejected(e.deadLetter.idempotencyKey, e.deadLetter.code),
    'points:changed': (e: { view: PointsView }) => to.view(e.view),
  };
  type Heard = { award?: Pair; deadLetter?: Pair; view?: Pair };
  const mine = (e: Heard) => {
    const pair = (e.award ?? e.deadLetter ?? e.view) as Pair;
    return pair.questId === own.questId && pair.serviceUserId === own.serviceUserId;
  };
  // No destructuring here: the script-tag build lowers it to helper calls (bytes of its budget).
  const names = Object.keys(handlers) as (keyof typeof handlers)[];
  const bound = names.map((name) => (e: Heard) => mine(e) && handlers[name](e as never));
  names.forEach((name, i) => {
    client.on(name, bound[i] as never);
  });
  to.view(own);
  const unsubscribe = client.subscribe(to.status);
  return () => {
    names.forEach((name, i) => {
      client.off(name, bound[i] as never);
    });
    unsubscribe();
  };
}
