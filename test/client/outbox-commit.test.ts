// `persisted` of awards whose tick's commit found them already written by an earlier commit (issued before, run after
// they were added, because the store was busy): they are stored, so it is true. It was false (a slow store, e.g. one
// reopening a lost connection, showed it in Chromium: test/browser/sdk-connection.test.ts).
import { expect, it } from 'vitest';
import { createOutbox } from '../../src/client/outbox.js';
import { memoryKV, type KV } from '../../src/client/store.js';
import type { DeadLetter, PendingAward } from '../../src/client/types.js';

const award = (n: number): PendingAward => ({
  questId: 'q',
  serviceUserId: 'u',
  eventPoints: n,
  idempotencyKey: `00000000-0000-4000-8000-00000000000${n}`,
  queuedAt: 0,
  seq: n,
});
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

it('awards of three ticks behind a slow write: every persisted true, each stored once', async () => {
  const store = memoryKV<PendingAward>();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let writes = 0;
  const queue: KV<PendingAward> = {
    ...store,
    async setMany(pairs) {
      if (writes++ === 0) await gate;
      await store.setMany(pairs);
    },
  };
  const outbox = createOutbox({ queue, dead: memoryKV<DeadLetter>(), degraded: () => {} });
  const first = outbox.add(award(1));
  await tick();
  const second = outbox.add(award(2));
  await tick();
  const third = outbox.add(award(3));
  await tick();
  release();
  expect(await Promise.all([first, second, third])).toEqual([true, true, true]);
  expect((await store.keys()).sort()).toEqual([award(1), award(2), award(3)].map((a) => a.idempotencyKey));
});
