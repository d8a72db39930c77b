// The designer console's policy editor: what each event is worth (fixed points or a maximum), whether it counts once
// and its cooldown, the cap per award, the per-player rate limit and the economy rules (economy-editor.ts) of the dev
// relay, read from and applied to GET/PUT /__dev/policy while the games run.
// Dev only: the dev server swaps its relay's policy; a production relay's policy stays a file or an option.
import { fillEconomy, readEconomy, setupEconomyEditor, type EconomyRules } from './economy-editor.js';
import { byId } from './session.js';

interface EventRule {
  points?: number;
  maxPoints?: number;
  once?: boolean;
  cooldownSeconds?: number;
}
interface Policy extends EconomyRules {
  allowUnknownEvents?: boolean;
  maxPointsPerAward?: number;
  events?: Record<string, EventRule>;
  rateLimits?: { perPlayer?: { limit: number; windowSeconds: number }; perIp?: { limit: number; windowSeconds: number } };
  [other: string]: unknown;
}

const rows = () => byId<HTMLTableSectionElement>('policy-events');
const numberOrUndefined = (input: HTMLInputElement) => (input.value.trim() === '' ? undefined : Number(input.value));

function eventRow(name = '', rule: EventRule = {}): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const cell = (input: HTMLInputElement | HTMLButtonElement) => {
    const td = document.createElement('td');
    td.append(input);
    tr.append(td);
  };
  const input = (label: string, value: string, type = 'text') => {
    const el = document.createElement('input');
    Object.assign(el, { type, value, autocomplete: 'off' });
    el.setAttribute('aria-label', label);
    if (type === 'number') Object.assign(el, { step: 'any', min: '0' });
    return el;
  };
  const optional = (n: number | undefined) => (n === undefined ? '' : String(n));
  cell(input('Event name', name));
  cell(input('Fixed points', optional(rule.points), 'number'));
  cell(input('Maximum points', optional(rule.maxPoints), 'number'));
  const once = input('Counts once per player and quest', '', 'checkbox');
  once.checked = rule.once === true;
  cell(once);
  cell(input('Cooldown in seconds', optional(rule.cooldownSeconds), 'number'));
  const remove = document.createElement('button');
  Object.assign(remove, { type: 'button', textContent: 'Remove' });
  remove.addEventListener('click', () => tr.remove());
  cell(remove);
  return tr;
}

function fill(policy: Policy) {
  byId<HTMLInputElement>('policy-unknown').checked = policy.allowUnknownEvents ?? false;
  byId<HTMLInputElement>('policy-max').value = policy.maxPointsPerAward === undefined ? '' : String(policy.maxPointsPerAward);
  byId<HTMLInputElement>('policy-limit').value = String(policy.rateLimits?.perPlayer?.limit ?? '');
  byId<HTMLInputElement>('policy-window').value = String(policy.rateLimits?.perPlayer?.windowSeconds ?? '');
  rows().replaceChildren(...Object.entries(policy.events ?? {}).map(([name, rule]) => eventRow(name, rule)));
  fillEconomy(policy);
}

/**
 * The form as a policy: what it does not show (quests, per-IP limits) is kept from the policy it was loaded with; an
 * economy rule the form leaves empty (no budget, no campaign, no ban) is left out.
 */
function read(base: Policy): Policy {
  const events: Record<string, EventRule> = {};
  for (const tr of rows().rows) {
    const [name, points, max, once, cooldown] = [...tr.querySelectorAll('input')];
    const key = name?.value.trim();
    if (!key || !points || !max || !once || !cooldown) continue;
    const rule: EventRule = {};
    const fixed = numberOrUndefined(points);
    const maximum = numberOrUndefined(max);
    const cooldownSeconds = numberOrUndefined(cooldown);
    if (fixed !== undefined) rule.points = fixed;
    if (maximum !== undefined) rule.maxPoints = maximum;
    if (once.checked) rule.once = true;
    if (cooldownSeconds !== undefined) rule.cooldownSeconds = cooldownSeconds;
    events[key] = rule;
  }
  const limit = numberOrUndefined(byId<HTMLInputElement>('policy-limit'));
  const windowSeconds = numberOrUndefined(byId<HTMLInputElement>('policy-window'));
  const maxPointsPerAward = numberOrUndefined(byId<HTMLInputElement>('policy-max'));
  return {
    ...base,
    ...readEconomy(),
    allowUnknownEvents: byId<HTMLInputElement>('policy-unknown').checked,
    events,
    ...(maxPointsPerAward === undefined ? {} : { maxPointsPerAward }),
    rateLimits: { ...base.rateLimits, ...(limit !== undefined && windowSeconds !== undefined ? { perPlayer: { limit, windowSeconds } } : {}) },
  };
}

function show(text: string, tone: 'ok' | 'bad' | '') {
  const result = byId('policy-result');
  result.textContent = text;
  result.className = `result ${tone}`;
}

async function call(init?: RequestInit): Promise<Policy> {
  const response = await fetch('/__dev/policy', init);
  const body = (await response.json()) as { policy?: Policy; message?: string };
  if (!response.ok || !body.policy) throw new Error(body.message ?? `HTTP ${response.status}`);
  return body.policy;
}

export function setupPolicyEditor(): void {
  let loaded: Policy = {};
  const load = () =>
    call()
      .then((policy) => {
        loaded = policy;
        fill(policy);
      })
      .catch((error: Error) => show(`could not read the dev relay's policy: ${error.message}`, 'bad'));
  byId('policy-add').addEventListener('click', () => rows().append(eventRow()));
  setupEconomyEditor((events) => {
    // The example's events join the table (replacing rows of the same name).
    for (const tr of [...rows().rows]) if (Object.hasOwn(events, tr.querySelector('input')?.value.trim() ?? '')) tr.remove();
    rows().append(...Object.entries(events).map(([name, rule]) => eventRow(name, rule)));
  });
  byId<HTMLFormElement>('policy-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const policy = read(loaded);
    call({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ policy }) })
      .then((applied) => {
        loaded = applied;
        fill(applied);
        show(`applied at ${new Date().toLocaleTimeString('en-GB')}: the next awards of every page follow it`, 'ok');
      })
      .catch((error: Error) => show(error.message, 'bad'));
  });
  void load();
}
