// `quest-points relay --webhook-url URL` with QP_WEBHOOK_SECRET: an award through the CLI's relay reaches the
// receiver, signed; a missing or malformed secret stops the relay at start (exit 2) without printing it.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { signPlayerToken } from '../../../src/relay/token.js';
import { API_KEY, KEY_SECRET, SECRET } from '../../helpers/fixtures.js';
import { until } from '../../helpers/until.js';
import { startReceiver } from './webhook-receiver.js';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
const cleanup: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
const env = (more: Record<string, string>) => ({
  PATH: process.env.PATH,
  QP_API_KEY: API_KEY,
  QP_RELAY_SECRET: SECRET,
  QP_KEY_SECRET: KEY_SECRET,
  ...more,
});

describe('quest-points relay --webhook-url', () => {
  it('delivers an acknowledged award to the endpoint, signed with QP_WEBHOOK_SECRET', async () => {
    const emulator = await startEmulator({ host: '127.0.0.1', port: 0, apiKeys: [API_KEY] });
    cleanup.push(() => emulator.close());
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'relay', '--port', '0', '--upstream', emulator.url, '--webhook-url', receiver.url],
      {
        env: env({ QP_WEBHOOK_SECRET: secret }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    cleanup.push(async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const url = await until(() => stdout.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)?.[1], 'the relay listening');
    const token = await signPlayerToken({ sub: 'cli-player' }, { secret: SECRET });
    const answer = await fetch(`${url}/group-quests/q1/points`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      body: JSON.stringify({ serviceUserId: 'cli-player', eventPoints: 7 }),
    });
    expect(answer.status).toBe(200);
    await until(() => receiver.delivered().length === 1, 'the webhook');
    const [arrival] = receiver.arrivals;
    const event = new Webhook(secret).verify(arrival!.body, arrival!.headers) as { type: string; data: { eventPoints: number; key: string } };
    expect(event).toMatchObject({ type: 'award.acknowledged', data: { eventPoints: 7, key: arrival!.id } });
    expect(stderr).not.toContain(secret);
    // Counted for Prometheus: alert on dead letters.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/qp_relay_webhook_attempts_total\{result="delivered"\} 1/);
    expect(metrics).toMatch(/qp_relay_webhook_attempts_total\{result="dead"\} 0/);
  });

  it('refuses to start without the secret, or with a malformed one (exit 2, the secret never printed)', async () => {
    const run = promisify(execFile);
    const start = (more: Record<string, string>) =>
      run(
        process.execPath,
        ['--import', 'tsx', CLI, 'relay', '--port', '0', '--upstream', 'http://127.0.0.1:9', '--webhook-url', 'http://127.0.0.1:9/hooks'],
        {
          env: env(more),
        },
      );
    await expect(start({})).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('QP_WEBHOOK_SECRET is not set') });
    const bad = 'not-a-standard-webhooks-secret-at-all';
    const refused = await start({ QP_WEBHOOK_SECRET: bad }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('webhooks.endpoints[0].secret must be a Standard Webhooks secret') });
    expect((refused as { stderr: string }).stderr).not.toContain(bad);
  });
});
