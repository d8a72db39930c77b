// The designer console's economy, in real Chromium (issue 35, item 9): the rules edited live like the rest of the
// policy, a farming bot stopped by a budget and by a once-only achievement, a runtime ban, and the ledger following
// every decision.
import { describe, expect, it } from 'vitest';
import { minutesTouched } from '../redteam/farm.js';
import { setupDemoServer, uniqueId } from './harness.js';

const demo = setupDemoServer('economy');

describe('designer console: the economy rules, live', { timeout: 90_000 }, () => {
  it('applies the example rules, stops the bot at the budget and the achievement at once, bans it, and the ledger shows it', async () => {
    const opened = await demo.open('/console.html');
    const { page } = opened;
    // The bot's refusals are answers the test provokes (422, 403): Chromium logs each as a failed resource.
    opened.expectNetworkErrors(/\/api\/group-quests\//);
    const policyNow = async () => ((await (await fetch(`${demo.base}/__dev/policy`)).json()) as { policy: Record<string, unknown> }).policy;
    const quest = uniqueId('economy-quest');
    const bot = uniqueId('bot');
    await page.getByRole('textbox', { name: 'Quest id' }).fill(quest);
    await page.locator('#bot-player').fill(bot);
    await expect.poll(() => page.locator('#policy-unknown').isChecked()).toBe(true);

    // The example rules, then a campaign and a policy ban typed in, applied as one policy.
    await page.getByRole('button', { name: 'Example: stop farming' }).click();
    await page.getByRole('button', { name: 'Add a campaign' }).click();
    const campaign = page.locator('#economy-campaigns tr').last();
    await campaign.getByLabel('Campaign quest').fill('summer-2020');
    await campaign.getByLabel('Starts at (ISO 8601)').fill('2020-06-01T00:00:00Z');
    await campaign.getByLabel('Ends at (ISO 8601)').fill('2020-09-01T00:00:00+02:00');
    await page.locator('#economy-bans').fill('known-cheater\n');
    await page.click('#policy-form button[type=submit]');
    await expect.poll(() => page.locator('#policy-result').textContent()).toMatch(/^applied at/);
    expect(await policyNow()).toMatchObject({
      events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true } },
      budgets: [{ name: 'coins-per-minute', points: 50, window: 'minute', event: 'coin' }],
      campaigns: { 'summer-2020': { startsAt: '2020-06-01T00:00:00Z', endsAt: '2020-09-01T00:00:00+02:00' } },
      bans: ['known-cheater'],
    });
    // Read back into the form: the once box and the budget row show what the relay holds.
    await expect.poll(() => page.locator('#economy-budgets tr').count()).toBe(1);
    expect(await page.locator('#policy-events input[aria-label="Counts once per player and quest"]:checked').count()).toBe(1);

    // 30 coins of 10 at once: 50 points a minute lands, the rest is refused by the budget.
    const started = Date.now();
    await page.getByRole('button', { name: 'Farm: send them all at once' }).click();
    await expect.poll(() => page.locator('#bot-result').getAttribute('data-total'), { timeout: 15_000 }).not.toBeNull();
    const minutes = minutesTouched(started, Date.now());
    const total = Number(await page.locator('#bot-result').getAttribute('data-total'));
    const answers = JSON.parse((await page.locator('#bot-result').getAttribute('data-answers')) ?? '{}') as Record<string, number>;
    expect(total).toBeGreaterThanOrEqual(50);
    expect(total).toBeLessThanOrEqual(50 * minutes);
    expect(answers['refused 422 budget']).toBeGreaterThanOrEqual(30 - 5 * minutes);
    expect(await page.locator('#bot-last-refusal').textContent()).toMatch(/coins-per-minute/);

    // The achievement claimed 10 times at once: applied once.
    await page.getByRole('button', { name: 'Claim it 10 times at once' }).click();
    await expect
      .poll(async () => JSON.parse((await page.locator('#bot-result').getAttribute('data-answers')) ?? '{}'))
      .toEqual({
        applied: 1,
        'refused 422 once': 9,
      });
    expect(Number(await page.locator('#bot-result').getAttribute('data-total'))).toBe(total + 50);

    // Banned at runtime from the console: every award refused; the ban lifted, the bot plays again (the budget aside).
    await page.getByRole('button', { name: 'Ban the bot now' }).click();
    await expect.poll(() => page.locator('#bot-result').textContent()).toMatch(/is banned/);
    await page.locator('#bot-count').fill('5');
    await page.getByRole('button', { name: 'Farm: send them all at once' }).click();
    await expect
      .poll(async () => JSON.parse((await page.locator('#bot-result').getAttribute('data-answers')) ?? '{}'))
      .toEqual({
        'refused 403 banned': 5,
      });
    await page.getByRole('button', { name: 'Lift the ban' }).click();
    await expect.poll(() => page.locator('#bot-result').textContent()).toMatch(/may play again/);

    // The ledger follows: the bot's acknowledged coins, its refusals by rule, the ban, newest on top.
    const ledger = page.locator('#ledger-rows tr', { hasText: bot });
    await expect.poll(() => ledger.filter({ has: page.locator('td', { hasText: /^budget/ }) }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.locator(`#ledger-rows tr[data-code="once"]`, { hasText: bot }).count()).toBe(9);
    await expect.poll(() => page.locator(`#ledger-rows tr[data-outcome="acknowledged"]`, { hasText: bot }).count()).toBeGreaterThanOrEqual(6);
    await expect.poll(() => page.locator(`#ledger-rows tr[data-code="banned"]`, { hasText: bot }).count()).toBe(5);
    expect(Number(await page.locator('#ledger-status').getAttribute('data-seen'))).toBeGreaterThan(0);
    await opened.finish('console-economy');
  });
});
