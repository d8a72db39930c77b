// The economy part of the designer console's policy editor: budgets (points per player over a calendar window in a
// time zone, or a rolling one, for an event and/or a quest), campaign windows per quest, and the players the policy
// bans. Once-only events and cooldowns are columns of the events table (policy-editor.ts). The form's rows become the
// policy's `budgets`, `campaigns` and `bans` (docs/economy.md); the relay validates them when the policy is applied.
import { byId } from './session.js';

/** One budget as the policy writes it (src/relay/policy.ts). */
export interface Budget {
  name?: string;
  points: number;
  window?: 'minute' | 'hour' | 'day' | 'week' | 'month';
  timeZone?: string;
  rollingSeconds?: number;
  event?: string;
  quest?: string;
}
/** The economy keys of a policy this editor shows. */
export interface EconomyRules {
  budgets?: Budget[];
  campaigns?: Record<string, { startsAt?: string; endsAt?: string }>;
  bans?: string[];
}

const WINDOWS = ['minute', 'hour', 'day', 'week', 'month', 'rolling'] as const;

function input(label: string, value = '', type = 'text'): HTMLInputElement {
  const el = document.createElement('input');
  Object.assign(el, { type, value, autocomplete: 'off' });
  el.setAttribute('aria-label', label);
  if (type === 'number') Object.assign(el, { step: 'any', min: '0' });
  return el;
}

function row(...cells: HTMLElement[]): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const remove = document.createElement('button');
  Object.assign(remove, { type: 'button', textContent: 'Remove', className: 'secondary' });
  remove.addEventListener('click', () => tr.remove());
  for (const cell of [...cells, remove]) {
    const td = document.createElement('td');
    td.append(cell);
    tr.append(td);
  }
  return tr;
}

function budgetRow(budget: Partial<Budget> = {}): HTMLTableRowElement {
  const window = document.createElement('select');
  window.setAttribute('aria-label', 'Window');
  window.append(...WINDOWS.map((w) => Object.assign(document.createElement('option'), { value: w, textContent: w })));
  window.value = budget.rollingSeconds !== undefined ? 'rolling' : (budget.window ?? 'day');
  return row(
    input('Budget name', budget.name ?? ''),
    input('Points per player', budget.points === undefined ? '' : String(budget.points), 'number'),
    window,
    input('Rolling window in seconds', budget.rollingSeconds === undefined ? '' : String(budget.rollingSeconds), 'number'),
    input('Time zone', budget.timeZone ?? ''),
    input('For the event', budget.event ?? ''),
    input('For the quest', budget.quest ?? ''),
  );
}

function campaignRow(quest = '', window: { startsAt?: string; endsAt?: string } = {}): HTMLTableRowElement {
  return row(input('Campaign quest', quest), input('Starts at (ISO 8601)', window.startsAt ?? ''), input('Ends at (ISO 8601)', window.endsAt ?? ''));
}

const budgets = () => byId<HTMLTableSectionElement>('economy-budgets');
const campaigns = () => byId<HTMLTableSectionElement>('economy-campaigns');
const text = (el: Element | undefined) => (el as HTMLInputElement | HTMLSelectElement | undefined)?.value.trim() ?? '';

/** Show a policy's economy rules in the form. */
export function fillEconomy(policy: EconomyRules): void {
  budgets().replaceChildren(...(policy.budgets ?? []).map((budget) => budgetRow(budget)));
  campaigns().replaceChildren(...Object.entries(policy.campaigns ?? {}).map(([quest, window]) => campaignRow(quest, window)));
  byId<HTMLTextAreaElement>('economy-bans').value = (policy.bans ?? []).join('\n');
}

/** The form's economy rules; a kind the form leaves empty is undefined (left out of the policy). */
export function readEconomy(): { budgets: Budget[] | undefined; campaigns: EconomyRules['campaigns'] | undefined; bans: string[] | undefined } {
  const budgetList: Budget[] = [];
  for (const tr of budgets().rows) {
    const [name, points, window, rolling, timeZone, event, quest] = [...tr.querySelectorAll('input, select')].map(text);
    if (!points) continue;
    const budget: Budget = { points: Number(points) };
    if (name) budget.name = name;
    if (window === 'rolling') budget.rollingSeconds = Number(rolling);
    else budget.window = window as Budget['window'];
    if (timeZone && window !== 'rolling') budget.timeZone = timeZone;
    if (event) budget.event = event;
    if (quest) budget.quest = quest;
    budgetList.push(budget);
  }
  const campaignMap: NonNullable<EconomyRules['campaigns']> = {};
  for (const tr of campaigns().rows) {
    const [quest, startsAt, endsAt] = [...tr.querySelectorAll('input')].map(text);
    if (quest) campaignMap[quest] = { ...(startsAt ? { startsAt } : {}), ...(endsAt ? { endsAt } : {}) };
  }
  const bans = byId<HTMLTextAreaElement>('economy-bans')
    .value.split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return {
    budgets: budgetList.length ? budgetList : undefined,
    campaigns: Object.keys(campaignMap).length ? campaignMap : undefined,
    bans: bans.length ? bans : undefined,
  };
}

/** The example the console offers: coins worth at most 10, 50 a minute per player, a first win that counts once. */
export const FARMING_EXAMPLE = {
  events: { coin: { maxPoints: 10 }, 'first-win': { points: 50, once: true } },
  budgets: [{ name: 'coins-per-minute', points: 50, window: 'minute', event: 'coin' }] as Budget[],
};

/** Wire the add buttons and the example; `addEvents` puts the example's events into the events table. */
export function setupEconomyEditor(addEvents: (events: Record<string, { points?: number; maxPoints?: number; once?: boolean }>) => void): void {
  byId('economy-add-budget').addEventListener('click', () => budgets().append(budgetRow()));
  byId('economy-add-campaign').addEventListener('click', () => campaigns().append(campaignRow()));
  byId('economy-example').addEventListener('click', () => {
    addEvents(FARMING_EXAMPLE.events);
    budgets().append(...FARMING_EXAMPLE.budgets.map((budget) => budgetRow(budget)));
  });
}
