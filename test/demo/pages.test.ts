import { describe, expect, it } from 'vitest';
import type { QuestPoints } from '../../src/client/index.js';
import type { QuestPointsHud } from '../../src/hud/index.js';
import { ledgerOf as ledgerAt, numberIn, shots, uniqueId, setupDemoServer, waitForNumber } from './harness.js';

// The demo in real Chromium, served by Vite's dev server with the quest-points plugin (emulator + dev relay).
const demo = setupDemoServer('pages');
const open = (path: string, prepare?: Parameters<typeof demo.open>[1]) => demo.open(path, prepare);
const ledgerOf = (serviceUserId: string) => ledgerAt(demo.base, serviceUserId);
const base = () => demo.base;

/** The Phaser demo's scene, as far as these tests read it. */
interface CatchScene {
  floats: { text: string; y: number }[];
  pointsText: { text: string };
  questPoints: { client: QuestPoints };
}
type SeenEvent = { name: string; key?: string; online?: boolean };
/** What the demo pages put on window.questPointsDemo (game.html: gameHud; phaser.html: a Phaser game), and what a test adds. */
interface DemoWindow {
  questPointsDemo: {
    client: QuestPoints;
    gameHud: QuestPointsHud;
    game: { scene: { isActive(key: string): boolean; getScene(key: string): CatchScene }; plugins: { get(key: string): { client: QuestPoints } } };
  };
  seenEvents: SeenEvent[];
}

// Generous: the first visit of a page makes Vite transform its modules (Phaser is large), on 2 busy cores.
describe('demo pages in Chromium', { timeout: 90_000 }, () => {
  it('the landing page links every demo page', async () => {
    const opened = await open('/');
    const links = await opened.page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['game.html', 'phaser.html', 'react.html', 'console.html', 'hud.html']);
    await opened.finish('index');
  });

  it('canvas game: catches award points, the HUD total follows; offline awards queue and land exactly once', async () => {
    const player = uniqueId('canvas');
    const opened = await open(`/game.html?player=${player}&autoplay`);
    const { page } = opened;
    // Reward feel: every spark the page adds over the game, counted as it comes (each lives under a second).
    await page.evaluate(() => {
      const seen = { sparks: 0 };
      Object.assign(window, { seen });
      new MutationObserver((records) => {
        for (const record of records) for (const node of record.addedNodes) if ((node as Element).classList?.contains('spark')) seen.sparks++;
      }).observe(document.getElementById('stage-box')!, { childList: true });
    });

    // Online: catches become confirmed points in the HUD, each acknowledged one with a burst of sparks.
    await waitForNumber(page, '#hud-total', 'v >= 3');
    await expect.poll(async () => (await ledgerOf(player)).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.evaluate(() => (window as unknown as { seen: { sparks: number } }).seen.sparks)).toBeGreaterThanOrEqual(10);

    // The demo's offline switch: the SDK's requests fail, awards wait in the outbox.
    await page.getByRole('switch', { name: /Offline switch/ }).check();
    await expect.poll(() => page.locator('#hud-connection').textContent(), { timeout: 10_000 }).toBe('offline');
    await waitForNumber(page, '#hud-queue', 'v >= 3');
    const sentBefore = (await ledgerOf(player)).length;
    await page.getByRole('button', { name: 'Pause' }).click();
    const caught = await numberIn(page, '#hud-caught');
    const queued = await numberIn(page, '#hud-queue');
    expect(sentBefore + queued).toBe(caught);
    // Nothing reaches the service while offline: the SDK tries now (flush ignores the backoff), its request fails as
    // a network error, and the ledger has not moved.
    const refused = page.evaluate(
      () =>
        new Promise<string>((resolve) =>
          (window as unknown as DemoWindow).questPointsDemo.client.once('award:retrying', (e: { reason: string }) => resolve(e.reason)),
        ),
    );
    await page.evaluate(() => (window as unknown as DemoWindow).questPointsDemo.client.flush());
    expect(await refused).toBe('network');
    expect((await ledgerOf(player)).length).toBe(sentBefore);

    // The in-game HUD says so on the newest toast, over the canvas.
    const hudState = () => page.locator('#stage-box quest-points-hud [part~=toast] [part~=state]').first().textContent();
    await expect.poll(hudState, { timeout: 10_000 }).toBe('saved — will sync');
    expect(await page.locator('#stage-box quest-points-hud [part~=connection]').textContent()).toBe('offline');
    await page.screenshot({ path: `${shots}/game-offline.png` });
    await page.locator('#stage-box').screenshot({ path: `${shots}/game-hud-offline.png` });
    // From here the page records what the SDK tells the game: the queued keys must each be reported sent once.
    const queuedKeys = await page.evaluate(async () => {
      const { client } = (window as unknown as DemoWindow).questPointsDemo;
      const seen: SeenEvent[] = [];
      (window as unknown as DemoWindow).seenEvents = seen;
      client.on('award:sent', (e: { award: { idempotencyKey: string } }) => seen.push({ name: 'award:sent', key: e.award.idempotencyKey }));
      client.on('connection:changed', (e: { online: boolean }) => seen.push({ name: 'connection:changed', online: e.online }));
      return ((await client.pending()) as { idempotencyKey: string }[]).map((award) => award.idempotencyKey);
    });
    expect(queuedKeys).toHaveLength(queued);
    await page.getByRole('switch', { name: /Offline switch/ }).uncheck();
    await waitForNumber(page, '#hud-queue', 'v === 0');
    await expect.poll(() => page.locator('#hud-connection').textContent(), { timeout: 10_000 }).toBe('online');

    const ledger = await ledgerOf(player);
    expect(ledger).toHaveLength(caught);
    expect(new Set(ledger.map((entry) => entry.idempotencyKey)).size).toBe(caught);
    const total = ledger.reduce((sum, entry) => sum + entry.eventPoints, 0);
    await expect.poll(() => numberIn(page, '#hud-total'), { timeout: 10_000 }).toBe(total);
    await expect.poll(() => page.locator('#hud-pending-points').textContent()).toBe('all confirmed');
    // The in-game HUD shows the same total, over the canvas's top-right corner, and its newest toast is confirmed.
    expect(await page.evaluate(() => (window as unknown as DemoWindow).questPointsDemo.gameHud.total)).toBe(total);
    await expect
      .poll(() => page.locator('#stage-box quest-points-hud [part~=total]').textContent(), { timeout: 5_000 })
      .toBe(total.toLocaleString('en-US'));
    await expect.poll(hudState, { timeout: 10_000 }).toBe('confirmed');
    const panel = (await page.locator('#stage-box quest-points-hud [part~=panel]').boundingBox())!;
    const canvas = (await page.locator('#stage').boundingBox())!;
    expect(panel.x).toBeGreaterThan(canvas.x + canvas.width / 2);
    expect(panel.x + panel.width).toBeLessThanOrEqual(canvas.x + canvas.width);
    expect(panel.y).toBeGreaterThanOrEqual(canvas.y);
    expect(panel.y + panel.height).toBeLessThan(canvas.y + canvas.height / 4);
    // The game heard it: back online, then each queued award reported sent exactly once; the HUD's log shows events.
    const seen = await page.evaluate(() => (window as unknown as DemoWindow).seenEvents);
    expect(seen.find((e) => e.name === 'connection:changed')).toEqual({ name: 'connection:changed', online: true });
    expect(
      seen
        .filter((e) => e.name === 'award:sent')
        .map((e) => e.key)
        .sort(),
    ).toEqual([...queuedKeys].sort());
    expect(await page.locator('#hud-events li[data-event="award:sent"]').count()).toBeGreaterThan(0);
    await opened.finish('game');
  });

  it('canvas game with the browser offline (context.setOffline): queued awards land exactly once', async () => {
    const player = uniqueId('netoff');
    const opened = await open(`/game.html?player=${player}&autoplay`);
    const { page, context } = opened;
    await waitForNumber(page, '#hud-total', 'v >= 1');
    opened.expectNetworkErrors(/\/api\//);
    await context.setOffline(true);
    const caughtAtCut = await numberIn(page, '#hud-caught');
    await waitForNumber(page, '#hud-caught', `v >= ${caughtAtCut + 3}`);
    await page.getByRole('button', { name: 'Pause' }).click();
    const caught = await numberIn(page, '#hud-caught');
    expect(await numberIn(page, '#hud-queue')).toBeGreaterThan(0);
    await context.setOffline(false);
    await waitForNumber(page, '#hud-queue', 'v === 0');
    const ledger = await ledgerOf(player);
    expect(ledger).toHaveLength(caught);
    expect(new Set(ledger.map((entry) => entry.idempotencyKey)).size).toBe(caught);
    await opened.finish('game-browser-offline');
  });

  it('Phaser scene: boots through the global plugin with its sprite art and shows the points', async () => {
    const player = uniqueId('phaser');
    // Every sprite the scene asks for, with its answer's status (a 404 would also be a console error).
    const sprites = new Map<string, number>();
    const opened = await open(`/phaser.html?player=${player}&autoplay`, (page) =>
      page.on('response', (response) => {
        const { pathname } = new URL(response.url());
        if (pathname.startsWith('/sprites/')) sprites.set(pathname, response.status());
      }),
    );
    const { page } = opened;
    await page.waitForFunction(() => (window as unknown as Partial<DemoWindow>).questPointsDemo?.game?.scene?.isActive('catch'), undefined, {
      timeout: 60_000,
    });
    expect(Object.fromEntries(sprites)).toEqual({
      '/sprites/sky.svg': 200,
      '/sprites/coin.svg': 200,
      '/sprites/gem.svg': 200,
      '/sprites/basket.svg': 200,
      '/sprites/spark.svg': 200,
    });
    // Loaded as textures at their size (not Phaser's missing-texture stand-in), and the falling things are sprites.
    const art = () =>
      page.evaluate(() => {
        const { game } = (window as unknown as DemoWindow).questPointsDemo as unknown as {
          game: {
            textures: { exists(key: string): boolean; get(key: string): { key: string; getSourceImage(): { width: number; height: number } } };
            scene: { getScene(key: string): { coins: { getChildren(): { texture: { key: string } }[] }; basket: { texture: { key: string } } } };
          };
        };
        const textures = Object.fromEntries(
          ['sky', 'coin', 'gem', 'basket', 'spark'].map((key) => {
            const image = game.textures.exists(key) && game.textures.get(key).getSourceImage();
            return [key, image ? [image.width, image.height] : null];
          }),
        );
        const scene = game.scene.getScene('catch');
        return { textures, basket: scene.basket.texture.key, falling: scene.coins.getChildren().map((c) => c.texture.key) };
      });
    await expect.poll(async () => (await art()).falling.length).toBeGreaterThan(0);
    const drawn = await art();
    expect(drawn.textures).toEqual({ sky: [480, 640], coin: [28, 28], gem: [30, 30], basket: [104, 44], spark: [14, 14] });
    expect(drawn.basket).toBe('basket');
    expect(
      drawn.falling.every((key) => key === 'coin' || key === 'gem'),
      drawn.falling.join(),
    ).toBe(true);
    await waitForNumber(page, '#scene-points', 'v >= 2');
    // Each catch floats a "+N" up from the catch point.
    const floats = () =>
      page.evaluate(() =>
        (window as unknown as DemoWindow).questPointsDemo.game.scene.getScene('catch').floats.map((t) => ({ text: t.text, y: t.y })),
      );
    const floating = await expect
      .poll(async () => (await floats()).length, { timeout: 10_000 })
      .toBeGreaterThan(0)
      .then(floats);
    expect(floating[0]!.text).toMatch(/^\+[15]$/);
    expect(floating[0]!.y).toBeLessThanOrEqual(640 - 40 - 16);
    await page.getByRole('switch', { name: 'Autoplay' }).uncheck();
    await waitForNumber(page, '#hud-queue', 'v === 0');
    const sceneText = () => page.evaluate(() => (window as unknown as DemoWindow).questPointsDemo.game.scene.getScene('catch').pointsText.text);
    const ledger = await ledgerOf(player);
    await expect.poll(async () => (await ledgerOf(player)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(ledger.length);
    await expect
      .poll(
        async () => {
          const total = (await ledgerOf(player)).reduce((sum, entry) => sum + entry.eventPoints, 0);
          return (await sceneText()) === `Points: ${total}`;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    // The scene's this.questPoints (a scene plugin) speaks through the global plugin's client, the page's client.
    expect(
      await page.evaluate(() => {
        const demo = (window as unknown as DemoWindow).questPointsDemo;
        const client = demo.game.scene.getScene('catch').questPoints.client;
        return client === demo.game.plugins.get('QuestPoints').client && client === demo.client;
      }),
    ).toBe(true);
    await opened.finish('phaser');
  });

  it('React HUD: the total and the last 8 awards follow the buttons, offline and back; 0 React warnings', async () => {
    const player = uniqueId('react');
    const opened = await open(`/react.html?player=${player}`);
    const { page } = opened;
    const states = () => page.locator('#react-history li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-state')));
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await page.getByRole('button', { name: 'Award a gem (+5)' }).click();
    await waitForNumber(page, '#react-total', 'v === 6');
    await expect.poll(states, { timeout: 10_000 }).toEqual(['confirmed', 'confirmed']);

    await page.getByRole('switch', { name: /Offline switch/ }).check();
    await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await waitForNumber(page, '#react-total', 'v === 7');
    await expect.poll(() => page.locator('#react-connection').getAttribute('data-online'), { timeout: 10_000 }).toBe('false');
    expect(await states()).toEqual(['pending', 'confirmed', 'confirmed']);
    expect(await numberIn(page, '#react-queue')).toBe(1);
    await page.screenshot({ path: `${shots}/react-offline.png` });

    await page.getByRole('switch', { name: /Offline switch/ }).uncheck();
    await waitForNumber(page, '#react-queue', 'v === 0');
    await expect.poll(states, { timeout: 10_000 }).toEqual(['confirmed', 'confirmed', 'confirmed']);
    for (let i = 0; i < 7; i++) await page.getByRole('button', { name: 'Award a coin (+1)' }).click();
    await waitForNumber(page, '#react-total', 'v === 14');
    await waitForNumber(page, '#react-queue', 'v === 0');
    await expect.poll(states, { timeout: 10_000 }).toEqual(Array(8).fill('confirmed'));
    const ledger = await ledgerOf(player);
    expect(ledger.map((entry) => entry.eventPoints).sort((a, b) => a - b)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 5]);
    expect(warnings).toEqual([]);
    await opened.finish('react');
  });

  it('HUD designer: a toast in each state, theme variables and words applied live, the CSS to copy', async () => {
    const opened = await open('/hud.html');
    const { page } = opened;
    const hud = page.locator('#preview-hud');
    const states = () => hud.locator('[part~=toast] [part~=state]').allTextContents();
    await expect.poll(states, { timeout: 10_000 }).toEqual(['sending', 'saved — will sync', 'not accepted', 'sent', 'confirmed']);
    expect(await hud.locator('[part~=notice]').textContent()).toBe('1 award(s) not accepted');
    expect(await page.locator('#contrast li').evaluateAll((lis) => lis.every((li) => Number(li.getAttribute('data-ratio')) >= 4.5))).toBe(true);

    await page.getByLabel('Background', { exact: true }).fill('#102030');
    await page.getByLabel('Text', { exact: true }).fill('#f0f0f0');
    await page.getByLabel('Corner radius (px)').evaluate((input: HTMLInputElement) => {
      input.value = '2';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.getByRole('textbox', { name: 'confirmed', exact: true }).fill('booked');
    expect(
      await hud
        .locator('[part~=panel]')
        .evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color, getComputedStyle(el).borderTopLeftRadius]),
    ).toEqual(['rgb(16, 32, 48)', 'rgb(240, 240, 240)', '2px']);
    await expect.poll(async () => (await states()).at(-1)).toBe('booked');
    const css = await page.locator('#css-output').inputValue();
    expect(css).toBe('quest-points-hud {\n  --qp-hud-bg: #102030;\n  --qp-hud-fg: #f0f0f0;\n  --qp-hud-radius: 2px;\n}\n');
    expect(await page.locator('#strings-output').inputValue()).toContain('"confirmed": "booked"');
    // A dark background under the default state colours: the contrast list says which fall below AA.
    expect(await page.locator('#contrast li[data-variable="--qp-hud-sent"]').textContent()).toMatch(/below AA/);

    await page.getByRole('button', { name: 'Copy CSS' }).click();
    await expect.poll(() => page.locator('#copy-result').textContent()).toMatch(/^CSS (copied|selected)/);
    await page.getByLabel('Position').selectOption('bottom-left');
    expect(await hud.getAttribute('position')).toBe('bottom-left');
    await page.getByRole('button', { name: 'Reset to defaults' }).click();
    expect(await page.locator('#css-output').inputValue()).toBe('/* the defaults: nothing to add */\n');
    await expect.poll(async () => (await states()).at(-1)).toBe('confirmed');
    await opened.finish('hud-designer');
  });

  it('HUD designer: a toast never looks like a history row, and no HUD text is cut, at any width or word length', async () => {
    const opened = await open('/hud.html');
    const { page } = opened;
    const hud = page.locator('#preview-hud');
    await expect.poll(() => hud.locator('[part~=toast]').count(), { timeout: 10_000 }).toBe(5);
    await expect.poll(() => hud.locator('[part~=history] li').count()).toBe(3);
    /** How a toast, a history row and the history list are drawn, and every text box that overflows its box. */
    const measure = () =>
      hud.evaluate((host) => {
        const root = host.shadowRoot!;
        const look = (el: Element) => {
          const s = getComputedStyle(el);
          return { shadow: s.boxShadow !== 'none', edge: s.borderLeftWidth, bg: s.backgroundColor, size: parseFloat(s.fontSize) };
        };
        const box = host.getBoundingClientRect();
        const cut: string[] = [];
        for (const el of root.querySelectorAll('[part~=panel], [part~=panel] > *, [part~=notice], li, li > span')) {
          const r = el.getBoundingClientRect();
          const name = `${el.getAttribute('part')} "${el.textContent}"`;
          if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) cut.push(`${name} overflows itself`);
          if (r.left < box.left - 0.5 || r.right > box.right + 0.5) cut.push(`${name} leaves the HUD`);
          const parent = el.tagName === 'SPAN' && el.parentElement!.getBoundingClientRect();
          if (parent && (r.left < parent.left - 0.5 || r.right > parent.right + 0.5)) cut.push(`${name} leaves its row`);
        }
        const toasts = [...root.querySelectorAll('[part~=toast]')];
        const history = root.querySelector('[part~=history]')!;
        const rows = [...history.querySelectorAll('li')];
        const within = (inner: DOMRect, outer: DOMRect) => inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
        return {
          toast: toasts.map(look),
          toastEdges: toasts.map((t) => getComputedStyle(t).borderLeftColor === getComputedStyle(t.querySelector('[part~=state]')!).color),
          row: rows.map(look),
          list: look(history),
          rowsInList: rows.every((r) => within(r.getBoundingClientRect(), history.getBoundingClientRect())),
          toastsAboveList: toasts.every((t) => t.getBoundingClientRect().bottom <= history.getBoundingClientRect().top),
          cut,
        };
      });
    const check = async (when: string) => {
      const m = await measure();
      expect(m.cut, when).toEqual([]);
      // A toast is a card of its own: a shadow and an edge in its state's colour. A history row is a line inside one
      // card (the list's), smaller, with neither: the same award is never shown as two look-alike cards.
      for (const toast of m.toast) expect(toast, when).toMatchObject({ shadow: true, edge: '4px' });
      expect(m.toastEdges, when).toEqual([true, true, true, true, true]);
      for (const row of m.row) {
        expect(row, when).toMatchObject({ shadow: false, edge: '0px', bg: 'rgba(0, 0, 0, 0)' });
        expect(row.size, when).toBeLessThan(m.toast[0]!.size);
      }
      expect(m.list.bg, when).toBe(m.toast[0]!.bg);
      expect(m.rowsInList && m.toastsAboveList, when).toBe(true);
    };
    await check('default width');
    // The event 'Too good to be true' and the state words, whole, at the narrowest width the designer offers.
    await page.getByLabel('Width (px)').evaluate((input: HTMLInputElement) => {
      input.value = input.min;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await expect
      .poll(() => hud.evaluate((host) => host.shadowRoot!.querySelector('[part~=panel]')!.getBoundingClientRect().width))
      .toBeLessThanOrEqual(160);
    await check('160px wide');
    // A designer's longer words (a translation) wrap; they are not cut either.
    await page.getByRole('textbox', { name: 'saved', exact: true }).fill('gespeichert — wird synchronisiert, sobald online');
    await page.getByRole('textbox', { name: 'rejected', exact: true }).fill('nicht angenommen (Regelverstoß)');
    await expect.poll(() => hud.locator('[part~=toast-rejected] [part~=state]').textContent()).toBe('nicht angenommen (Regelverstoß)');
    await check('160px wide, long words');
    expect(await hud.locator('[part~=toast-rejected] [part~=event]').textContent()).toBe('Too good to be true');
    await opened.finish('hud-designer-layout');
  });

  it('designer console: identify, award, history, enrollment (404 included), paging, dead letters, switches', async () => {
    const opened = await open('/console.html');
    const { page } = opened;
    const quest = uniqueId('console-quest');
    await page.getByRole('textbox', { name: 'Quest id' }).fill(quest);

    // Identify by e-mail, then by wallet: each gives an id and fills the other forms.
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).toBeTruthy();
    const ada = (await page.locator('#identify-result').getAttribute('data-service-user-id'))!;
    expect(await page.getByLabel('Service user id').first().inputValue()).toBe(ada);
    await page.getByLabel('Identify by').selectOption('wallet');
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).not.toBe(ada);
    await page.getByLabel('Identify by').selectOption('email');
    await page.getByRole('button', { name: 'Identify' }).click();
    await expect.poll(() => page.locator('#identify-result').getAttribute('data-service-user-id')).toBe(ada);

    // Award a custom event, then read it back in the history table.
    await page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Awarded/);
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await expect.poll(() => page.locator('#points-result').getAttribute('data-total')).toBe('25');
    expect(await page.locator('#history-rows tr').count()).toBe(1);
    expect(await page.locator('#history-rows tr td').nth(1).textContent()).toBe('boss_defeated');

    // Enrollment: the award enrolled ada; sandbox mode answers 404 for user_not_enrolled.
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.locator('#enrollment-result').getAttribute('data-enrolled')).toBe('true');
    opened.expectNetworkErrors(/\/enrolled-users\/user_not_enrolled$/);
    await page.getByRole('switch', { name: /Sandbox mode/ }).check();
    await expect.poll(() => page.locator('#switches-result').textContent()).toBe('Emulator in sandbox mode');
    await page.locator('#enrollment-user').fill('user_not_enrolled');
    await page.getByRole('button', { name: 'Check' }).click();
    await expect.poll(() => page.locator('#enrollment-result').getAttribute('data-enrolled')).toBe('false');
    expect(await page.locator('#enrollment-result').textContent()).toMatch(/not enrolled \(404/);
    await page.getByRole('switch', { name: /Sandbox mode/ }).uncheck();
    await expect.poll(() => page.locator('#switches-result').textContent()).toBe('Emulator in stateful mode');

    // Enrolled users: 12 seeded + ada = 13, in pages of 5.
    await page.getByRole('button', { name: 'Seed 12 players' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 1–5');
    expect(await page.locator('#enrolled-rows tr').count()).toBe(5);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 6–10');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 11–13');
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous page' }).click();
    await expect.poll(() => page.locator('#enrolled-result').textContent()).toBe('Users 6–10');
    const emails = await page.locator('#enrolled-rows td:nth-child(3)').allTextContents();
    expect(emails.every((email) => email.endsWith('@example.com'))).toBe(true);

    // A refused award becomes a dead letter, which can be discarded.
    opened.expectNetworkErrors(/\/api\/(batch\/points|group-quests\/[^/]+\/points)$/);
    await page.locator('#award-points').fill('5000');
    await page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Refused 4\d\d: /);
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-dead')).toBe('1');
    await page.getByRole('button', { name: /^Discard the award of 5000/ }).click();
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-dead')).toBe('0');

    // Offline switch: the award waits in the queue, then lands once.
    await page.locator('#award-points').fill('3');
    await page.getByRole('switch', { name: /Offline \(/ }).check();
    await page.getByRole('button', { name: 'Award' }).click();
    await expect.poll(() => page.locator('#queue-summary').getAttribute('data-pending')).toBe('1');
    await page.getByRole('switch', { name: /Offline \(/ }).uncheck();
    await expect.poll(() => page.locator('#award-result').textContent(), { timeout: 10_000 }).toMatch(/^Awarded/);
    await page.getByRole('button', { name: 'Load', exact: true }).click();
    await expect.poll(() => page.locator('#points-result').getAttribute('data-total')).toBe('28');

    // Fault switches reach the emulator.
    await page.getByRole('switch', { name: /30% of requests/ }).check();
    await expect.poll(async () => (await (await fetch(`${base()}/__emulator/faults`)).json()).data.errorRate).toBe(0.3);
    await page.getByRole('switch', { name: /30% of requests/ }).uncheck();
    await expect.poll(async () => (await (await fetch(`${base()}/__emulator/faults`)).json()).data.errorRate ?? 0).toBe(0);

    await opened.finish('console');
  });

  it("console: the policy editor changes the dev relay's policy live, and a bad one is refused naming the rule", async () => {
    const opened = await open('/console.html');
    const { page } = opened;
    const policyNow = async () => ((await (await fetch(`${base()}/__dev/policy`)).json()) as { policy: Record<string, unknown> }).policy;
    const before = await policyNow();
    try {
      await expect.poll(() => page.locator('#policy-unknown').isChecked()).toBe(true);
      await page.click('#policy-add');
      const row = page.locator('#policy-events tr').last();
      await row.getByLabel('Event name').fill('coin');
      await row.getByLabel('Fixed points').fill('7');
      await page.fill('#policy-max', '50');
      await page.click('#policy-form button[type=submit]');
      await expect.poll(() => page.locator('#policy-result').textContent()).toMatch(/^applied at/);
      expect(await policyNow()).toMatchObject({ allowUnknownEvents: true, maxPointsPerAward: 50, events: { coin: { points: 7 } } });

      // Both fixed points and a maximum: the relay's rule, named (a 400 the page expects), and nothing changed.
      opened.expectNetworkErrors(/\/__dev\/policy/);
      await row.getByLabel('Maximum points').fill('9');
      await page.click('#policy-form button[type=submit]');
      await expect.poll(() => page.locator('#policy-result').textContent()).toBe('policy: events.coin must set points or maxPoints, not both');
      expect(await policyNow()).toMatchObject({ events: { coin: { points: 7 } } });
      await opened.finish('console-policy');
    } finally {
      // The other tests of this file share the dev server: give them back its policy.
      await fetch(`${base()}/__dev/policy`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ policy: before }),
      });
    }
  });
});
