import type { QueuedAward } from '../protocol/batch.js';
import type { DeadLetter, PendingAward, RetryReason } from './types.js';

/** What became of one award in one attempt. `skipped`: not tried, an earlier award must go first. */
export type SendResult =
  | { outcome: 'ok' }
  /** The relay's or the service's status and message, and the relay's refusal `code` when it sent one. */
  | { outcome: 'rejected'; status: number; message: string; code?: string }
  /**
   * `status` when there was an answer; `reason`: 'status', 'network', 'timeout', or the relay's reason. `noAnswer`:
   * the request itself failed (network, timeout), so the relay is not known reachable; a relay's own 'network' or
   * 'timeout' reason (its upstream failed) is an answer.
   */
  | { outcome: 'retry'; reason: RetryReason; status?: number; retryAfterMs?: number; noAnswer?: true; refused?: DeploymentRefusal }
  /** Why no token could be had, or the refusal. */
  | { outcome: 'auth'; error: unknown }
  | { outcome: 'skipped' };

/**
 * A refusal about the deployment, not the award (protocol/status.ts `answerHandling` 'held'): the relay's `code`
 * (origin, route) when it sent one; undefined when something else answered (a proxy's HTML page, a WAF's empty 403;
 * `message` is then `HTTP <status>`) or an older relay. The award is retried (reason 'deployment'), never dead-lettered.
 */
export interface DeploymentRefusal {
  status: number;
  message: string;
  code?: string;
}

/** What one batch's results take out of the outbox: the acknowledged keys, and the refused awards as dead letters. */
export function settlement(head: PendingAward[], results: SendResult[], now = Date.now()): { ok: string[]; dead: DeadLetter[] } {
  const ok: string[] = [];
  const dead: DeadLetter[] = [];
  head.forEach((award, i) => {
    const r = results[i];
    if (r?.outcome === 'ok') ok.push(award.idempotencyKey);
    if (r?.outcome === 'rejected') {
      // Status, message and the relay's code when it sent one (the HUD words it for the player).
      const { outcome, ...refusal } = r;
      dead.push({ ...award, ...refusal, rejectedAt: now });
    }
  });
  return { ok, dead };
}

/** Only the wire fields: the outbox record also carries queuedAt and seq. */
export const toWire = ({ queuedAt, seq, ...wire }: QueuedAward & { queuedAt?: number; seq?: number }): QueuedAward => wire;
