// An operator's webhook receiver on Node: verifies each delivery's Standard Webhooks signature, acts on each award once
// (deliveries are at least once: the same webhook-id may come again), answers 2xx fast. The tests run it against the
// relay (test/relay/economy/webhooks-e2e.test.ts).
import { createServer, type Server } from 'node:http';
import type { WebhookPayload } from 'quest-points/relay';
import { Webhook } from 'standardwebhooks';

/** Starts the receiver on 127.0.0.1:port (0: a free one); `apply` is called once per award or reversal. */
export function startReceiver(port: number, apply: (event: WebhookPayload) => Promise<void>): Promise<Server> {
  // #region verify
  // The endpoint's secret, as configured on the relay: webhooks.endpoints[].secret ("whsec_...").
  const webhook = new Webhook(process.env.QP_WEBHOOK_SECRET as string);
  const seen = new Set<string>(); // your database's unique index in production

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8'); // the raw body: verify before parsing
      let event: WebhookPayload;
      try {
        event = webhook.verify(body, request.headers as Record<string, string>) as WebhookPayload;
      } catch {
        return response.writeHead(400).end(); // bad signature, or a timestamp more than 5 minutes off
      }
      const id = request.headers['webhook-id'] as string; // the award's key: the same award, the same id
      try {
        if (!seen.has(id)) await apply(event); // event.type: 'award.acknowledged' | 'award.reversed'
        seen.add(id);
      } catch {
        return response.writeHead(500).end(); // not applied: the relay sends it again later
      }
      response.writeHead(204).end(); // 2xx: delivered. 410: stop sending. Anything else: retried with backoff
    });
  });
  // #endregion verify
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
