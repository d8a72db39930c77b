// Two players on one browser profile (a family computer, a school lab, a logout and login): one storage name holds
// both players' awards, and each session sends only its own player's. alice's awards queued offline wait while bob
// plays, through the real relay (which refuses an award named for another player than the token's), and go when she
// is back: none dead-lettered, each applied once.
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, openSdkPage, setupBrowserStack, uniqueId, until } from './harness.js';

const inContext = setupBrowserStack();

describe('SDK in Chromium: two players on one profile', () => {
  it(
    "bob's session leaves alice's offline awards queued (none sent, none dead-lettered); alice's next session delivers them once",
    () =>
      inContext(async (stack, context) => {
        const storage = uniqueId('shared');
        const alice = uniqueId('alice');
        const bob = uniqueId('bob');

        const first = await openSdkPage(stack, context, { sub: alice, tab: 'alice', storage });
        first.expectNetworkErrors(/ERR_INTERNET_DISCONNECTED .*\/api\//);
        await context.setOffline(true);
        const keys = await first.sdk((page) => [page.award(1), page.award(2), page.award(3)]);
        expect(await first.sdk((page, k) => page.persisted(k), keys)).toEqual([true, true, true]);
        await first.page.close();
        await context.setOffline(false);

        const second = await openSdkPage(stack, context, { sub: bob, tab: 'bob', storage });
        const own = await second.sdk((page) => page.award(10));
        await until(async () => (await second.sdk((page) => page.outcomes))[own] === 'sent', "bob's award");
        await second.sdk((page) => page.qp.flush());
        // bob's token never carried alice's awards, and none is a dead letter.
        expect(stack.awards.filter((r) => r.tab === 'bob').flatMap((r) => r.keys)).toEqual([own]);
        expect(await second.sdk((page) => page.qp.deadLetters())).toEqual([]);
        expect((await second.sdk((page) => page.storedOutbox())).map((a) => a.key).sort()).toEqual([...keys].sort());
        await expectExactlyOnce(stack, bob, new Map([[own, 10]]));
        await second.page.close();

        const third = await openSdkPage(stack, context, { sub: alice, tab: 'alice-again', storage });
        await until(async () => (await third.sdk((page) => page.storedOutbox())).length === 0, "alice's awards to go");
        expect(await third.sdk((page) => page.qp.deadLetters())).toEqual([]);
        await expectExactlyOnce(stack, alice, new Map(keys.map((key, i) => [key, i + 1])));
        expect(first.errors).toEqual([]);
        expect(second.errors).toEqual([]);
        expect(third.errors).toEqual([]);
      }),
    60_000,
  );
});
