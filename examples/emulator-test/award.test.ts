// An operator's test against the emulator: run by this repository's suite (vitest includes examples/**/*.test.ts).
// #region test
import { startEmulator } from 'quest-points/emulator';
import { afterAll, beforeAll, expect, it } from 'vitest';

let emulator: Awaited<ReturnType<typeof startEmulator>>;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: ['test-key'] }); // a free port on 127.0.0.1
});
afterAll(() => emulator.close());

const call = (method: string, path: string, body?: object, key = crypto.randomUUID()) =>
  fetch(emulator.url + path, {
    method,
    headers: { API_KEY: 'test-key', IDEMPOTENCY_KEY: key, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });

it('applies an award once, however often it is resent with its key', async () => {
  const key = crypto.randomUUID();
  for (let i = 0; i < 3; i++) await call('POST', '/group-quests/summer/points', { serviceUserId: 'alice', eventPoints: 5 }, key);
  const read = await call('GET', '/group-quests/summer/points/alice');
  const { data } = (await read.json()) as { data: { totalPoints: number } };
  expect(data.totalPoints).toBe(5);
});
// #endregion test
