// The relay's side: RelayOptions `webhooks`, for startRelay (or createRelay with a ledger). The tests run the relay
// with these options against receiver.ts (test/relay/economy/webhooks-e2e.test.ts).
import type { WebhookOptions } from 'quest-points/relay';

/** The webhook options for one endpoint of yours; `more` overrides the defaults (the tests shorten the schedule). */
export function webhookOptions(url: string, more: Partial<WebhookOptions> = {}): WebhookOptions {
  // #region relay
  const webhooks: WebhookOptions = {
    // Your endpoint and its secret ("whsec_" + base64 of 24 to 64 random bytes; keep it out of your code and logs).
    endpoints: [{ url, secret: process.env.QP_WEBHOOK_SECRET as string }],
    // The defaults: 15 attempts over about 17 hours (35 at most), each answered within 10 s.
    attempts: 15,
    retry: { baseMs: 10_000, maxMs: 12 * 3_600_000 },
    timeoutMs: 10_000,
  };
  // then: startRelay({ redis: process.env.QP_REDIS_URL, webhooks }) — Redis keeps deliveries across restarts
  // #endregion relay
  return { ...webhooks, ...more };
}
