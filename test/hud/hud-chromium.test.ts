// <quest-points-hud> in real Chromium over a canvas, bound to a real client (relay + emulator behind the browser
// harness's same-origin proxy): the live total, the toast states through offline -> online, reduced motion, the
// theme variables and parts, and axe.
import { AxeBuilder } from '@axe-core/playwright';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectExactlyOnce, uniqueId, until, setupBrowserStack, type Stack } from '../browser/harness.js';
import type { HudPage } from './pages/hud-page.js';

const inContext = setupBrowserStack({ hud: fileURLToPath(new URL('pages/hud-page.ts', import.meta.url)) });

interface Opened {
  page: Page;
  errors: string[];
  run<R, A = undefined>(fn: (page: HudPage, arg: A) => R, arg?: A): Promise<Awaited<R>>;
  /** Text of the HUD's parts of one name, in document order. */
  parts(name: string): Promise<string[]>;
  /** [points, event, state] of each toast, newest first. */
  toasts(): Promise<string[][]>;
}

async function openHud(stack: Stack, context: BrowserContext, query: Record<string, string | number> = {}): Promise<Opened> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  const sub = uniqueId('hud');
  await page.goto(`${stack.origin}/hud.html?${new URLSearchParams(Object.entries({ sub, ...query }).map(([k, v]) => [k, String(v)]))}`);
  await page.waitForFunction(() => 'hudPage' in window, undefined, { timeout: 10_000 });
  const run: Opened['run'] = (fn, arg) =>
    page.evaluate(
      ([source, a]) => new Function('page', 'arg', `return (${source})(page, arg)`)((window as unknown as { hudPage: HudPage }).hudPage, a),
      [fn.toString(), arg] as const,
    );
  return {
    page,
    errors,
    run,
    parts: (name) => page.locator(`quest-points-hud [part~="${name}"]`).allTextContents(),
    toasts: () =>
      page.locator('quest-points-hud [part~=toast]').evaluateAll((lis) => lis.map((li) => [...li.children].map((span) => span.textContent ?? ''))),
  };
}

const subOf = (opened: Opened) => opened.run((p) => p.qp.viewPoints().serviceUserId);

describe('<quest-points-hud> in Chromium', { timeout: 60_000 }, () => {
  it('live total: the client’s total, counted up over a few frames, in the page’s locale', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { lang: 'de-DE', toastMs: 0 });
      await until(async () => (await opened.parts('total'))[0] === '0', 'the first total');
      await opened.run((p) => p.award(250, 'boss', 'Boss defeated'));
      const samples = await opened.run((p) => p.sampleTotal(30));
      // Intermediate values between 0 and 250 on the way: a count-up, not a jump.
      const between = samples.map((text) => Number(text.replace(/\./g, ''))).filter((n) => n > 0 && n < 250);
      expect(between.every(Number.isInteger), samples.join(' ')).toBe(true);
      expect(between.length, samples.join(' ')).toBeGreaterThan(2);
      await opened.run((p) => p.award(1000, 'jackpot'));
      await until(async () => (await opened.parts('total'))[0] === '1.250', 'the total formatted for de-DE');
      expect(await opened.run((p) => [p.hud!.total, p.qp.viewPoints().totalPoints])).toEqual([1250, 1250]);
      expect(await opened.toasts()).toEqual([
        ['+1.000', 'jackpot', expect.any(String)],
        ['+250', 'Boss defeated', expect.any(String)],
      ]);
      // Settled: the service's total is what the HUD shows.
      await until(async () => (await opened.toasts()).every((t) => t[2] === 'confirmed'), 'both toasts confirmed');
      expect((await stack.ledgerOf(await subOf(opened))).reduce((sum, e) => sum + e.eventPoints, 0)).toBe(1250);
      expect(opened.errors).toEqual([]);
    }));

  it('toast states through offline -> online: saved — will sync, then sent, then confirmed; announced politely; each award once', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { toastMs: 0 });
      await until(async () => (await opened.parts('connection'))[0] === 'online', 'online');
      // The start-up read answered: no request is in flight whose answer would mark the client online again (any
      // answer does, rightly) right after the offline event.
      await until(() => opened.run((p) => !p.qp.viewPoints().stale && p.qp.viewPoints().confirmedAt !== null), 'the start-up read');
      await context.setOffline(true);
      await until(async () => (await opened.parts('connection'))[0] === 'offline', 'the offline indicator');
      const keys = await opened.run((p) => [p.award(5, 'gem', 'Gem caught'), p.award(1, 'coin')]);
      // A request that was in flight when the network went can still answer and make the SDK think it is online:
      // then the toast says sending until the send fails.
      await until(async () => (await opened.toasts()).map((t) => t[2]).join() === 'saved — will sync,saved — will sync', 'two saved toasts');
      expect(await opened.toasts()).toEqual([
        ['+1', 'coin', 'saved — will sync'],
        ['+5', 'Gem caught', 'saved — will sync'],
      ]);
      const live = opened.page.locator('quest-points-hud [role=status]');
      await until(async () => /saved — will sync/.test((await live.textContent()) ?? ''), 'the live region saying it');
      expect(await live.textContent()).toMatch(/^(offline\. )?Points: 6\. \+1 coin, saved — will sync$/);
      const persisted = await opened.run((p) => p.qp.pending().then((list) => list.length));
      expect(persisted).toBe(2);

      // Back online: the outbox drains; each toast shows sent, then confirmed once the read after the drain has it.
      await context.setOffline(false);
      await until(async () => (await opened.toasts()).every((t) => t[2] === 'confirmed'), 'both confirmed');
      const drawn = await opened.run((p) => p.drawn);
      console.info(`[hud] toast states drawn, offline -> online: ${JSON.stringify(drawn)}`);
      for (const states of Object.values(drawn))
        expect(states.filter((state) => state !== 'sending')).toEqual(['saved — will sync', 'sent', 'confirmed']);
      expect(Object.keys(drawn).sort()).toEqual(['+1 coin', '+5 Gem caught']);
      expect((await opened.parts('connection'))[0]).toBe('online');
      const ledger = await expectExactlyOnce(
        stack,
        await subOf(opened),
        new Map([
          [keys[0]!, 5],
          [keys[1]!, 1],
        ]),
      );
      expect(ledger).toHaveLength(2);
      expect((await opened.parts('total'))[0]).toBe('6');
      expect(opened.errors).toEqual([]);
    }));

  it('a refused award: its toast says not accepted and a quiet notice counts the dead letters', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { toastMs: 0 });
      await opened.run((p) => p.award(5000, 'too-much'));
      await until(async () => (await opened.toasts())[0]?.[2] === 'not accepted', 'the refused toast');
      await until(async () => (await opened.parts('notice'))[0] === '1 award(s) not accepted', 'the notice');
      expect(await opened.page.locator('quest-points-hud [part~=notice]').isVisible()).toBe(true);
    }));

  it('reduced motion: the total jumps (no count-up) and toasts do not slide in', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { toastMs: 0 });
      await opened.page.emulateMedia({ reducedMotion: 'reduce' });
      await until(async () => (await opened.parts('total'))[0] === '0', 'the first total');
      await opened.run((p) => p.award(250));
      const samples = await opened.run((p) => p.sampleTotal(20));
      expect(
        samples.filter((s) => s !== '0' && s !== '250'),
        samples.join(' '),
      ).toEqual([]);
      expect(samples.at(-1)).toBe('250');
      expect(
        await opened.page
          .locator('quest-points-hud [part~=toast]')
          .first()
          .evaluate((li) => getComputedStyle(li).animationName),
      ).toBe('none');
      // With motion allowed, the same toast would animate: the check above can fail.
      await opened.page.emulateMedia({ reducedMotion: 'no-preference' });
      expect(
        await opened.page
          .locator('quest-points-hud [part~=toast]')
          .first()
          .evaluate((li) => getComputedStyle(li).animationName),
      ).not.toBe('none');
    }));

  it('themed without code: --qp-hud-* properties and ::part() from the page, over the canvas without taking its pointer', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { toastMs: 0 });
      const { page } = opened;
      await page.addStyleTag({
        content: `quest-points-hud { --qp-hud-bg: rgb(10, 20, 30); --qp-hud-fg: rgb(250, 240, 230); --qp-hud-radius: 3px; --qp-hud-ok: rgb(0, 200, 100); }
          quest-points-hud::part(total) { font-size: 40px; } quest-points-hud::part(toast-confirmed) { outline: 2px solid rgb(1, 2, 3); }`,
      });
      await opened.run((p) => p.award(3));
      await until(async () => (await opened.toasts())[0]?.[2] === 'confirmed', 'a confirmed toast');
      const styles = await page.evaluate(() => {
        const root = document.querySelector('quest-points-hud')!.shadowRoot!;
        const css = (selector: string) => getComputedStyle(root.querySelector(selector)!);
        return {
          panelBg: css('[part~=panel]').backgroundColor,
          panelRadius: css('[part~=panel]').borderTopLeftRadius,
          ink: css('[part~=total]').color,
          totalSize: css('[part~=total]').fontSize,
          toastOutline: css('[part~=toast]').outlineColor,
          stateColor: css('[part~=toast] [part~=state]').color,
        };
      });
      expect(styles).toEqual({
        panelBg: 'rgb(10, 20, 30)',
        panelRadius: '3px',
        ink: 'rgb(250, 240, 230)',
        totalSize: '40px',
        toastOutline: 'rgb(1, 2, 3)',
        stateColor: 'rgb(0, 200, 100)',
      });
      // The HUD sits over the canvas's top-right corner, and a click there reaches the canvas.
      const box = (await page.locator('quest-points-hud [part~=panel]').boundingBox())!;
      const canvas = (await page.locator('canvas').boundingBox())!;
      expect(box.x + box.width).toBeGreaterThan(canvas.x + canvas.width - 40);
      expect(box.y).toBeLessThan(canvas.y + 40);
      expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.tagName, [box.x + box.width / 2, box.y + box.height / 2])).toBe(
        'CANVAS',
      );
      // Strings from the page: the designer's words.
      await opened.run((p) => {
        p.hud!.strings = { total: 'Score', confirmed: 'booked' };
      });
      await until(async () => (await opened.toasts())[0]?.[2] === 'booked', 'the new word');
      expect(await opened.parts('label')).toEqual(['Score']);
      // No focus stealing: nothing in the HUD is focusable, and the page's focus stays where it was.
      expect(await page.evaluate(() => document.activeElement === document.body)).toBe(true);
    }));

  it('axe: no violation in light or dark, with confirmed, refused and saved toasts, the history, offline and a dead letter', () =>
    inContext(async (stack, context) => {
      const opened = await openHud(stack, context, { toastMs: 0, history: 5 });
      const { page } = opened;
      await opened.run((p) => p.award(5000, 'too-much'));
      await opened.run((p) => p.award(7, 'quest', 'Quest done'));
      await until(async () => (await opened.toasts()).map((t) => t[2]).join() === 'confirmed,not accepted', 'confirmed and refused');
      await context.setOffline(true);
      await until(async () => (await opened.parts('connection'))[0] === 'offline', 'offline');
      await opened.run((p) => p.award(2, 'coin'));
      await until(async () => (await opened.toasts()).length === 3, 'three toasts');
      const report: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        const results = await new AxeBuilder({ page })
          .include('quest-points-hud')
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
          .analyze();
        const violations = results.violations.map((v) => `${v.impact} ${v.id}: ${v.help}`);
        report.push(
          `${scheme}: ${results.passes.length} rules passed (${results.passes.map((rule) => rule.id).join(', ')}), ${violations.length} violations, ${results.incomplete.length} to review${results.incomplete.length ? ` (${results.incomplete.map((rule) => `${rule.id}: ${rule.nodes.map((n) => n.any.map((c) => c.message).join(' ')).join('; ')}`).join(', ')})` : ''}`,
        );
        expect(violations, scheme).toEqual([]);
        // The contrast rule ran on the HUD's text (AA, 4.5:1) and passed, in this scheme.
        expect(
          results.passes.map((rule) => rule.id),
          scheme,
        ).toContain('color-contrast');
      }
      console.info(`[hud axe] ${report.join('; ')}`);
      await context.setOffline(false);
    }));
});
