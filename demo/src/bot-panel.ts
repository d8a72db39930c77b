// The designer console's farming bot: what the economy rules stop, shown. A bot is a script with a valid token, not
// the SDK: it sends awards through the dev relay as fast as the page can, all at once, and tallies how the relay
// answered ("10 applied, 20 refused: budget"). Then the service's own total for the bot, read with the designer's
// admin token: the points that really landed.
import { byId, devToken, formatPoints } from './session.js';

type Tally = Map<string, number>;

/** Send `count` awards at once as `sub`; resolves with the answers tallied by status and refusal code. */
async function burst(sub: string, count: number, award: () => { questId: string; eventName: string; eventPoints: number }): Promise<Tally> {
  const token = await devToken({ sub })();
  const tally: Tally = new Map();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const { questId, ...body } = award();
      const response = await fetch(`/api/group-quests/${encodeURIComponent(questId)}/points`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', IDEMPOTENCY_KEY: crypto.randomUUID() },
        body: JSON.stringify({ serviceUserId: sub, ...body }),
      });
      const answer = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
      const label = response.ok ? 'applied' : `refused ${response.status}${answer.code ? ` ${answer.code}` : ''}`;
      tally.set(label, (tally.get(label) ?? 0) + 1);
      if (!response.ok && answer.message) byId('bot-last-refusal').textContent = answer.message;
    }),
  );
  return tally;
}

async function totalOf(questId: string, sub: string): Promise<number> {
  const token = await devToken({ sub: 'designer', role: 'admin' })();
  const response = await fetch(`/api/group-quests/${encodeURIComponent(questId)}/points/${encodeURIComponent(sub)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json().catch(() => ({}))) as { data?: { totalPoints?: number } };
  return body.data?.totalPoints ?? 0;
}

function show(tally: Tally, total: number) {
  const rows = [...tally].sort(([a], [b]) => a.localeCompare(b));
  byId('bot-rows').replaceChildren(
    ...rows.map(([label, n]) => {
      const tr = document.createElement('tr');
      for (const text of [label, String(n)]) tr.append(Object.assign(document.createElement('td'), { textContent: text }));
      return tr;
    }),
  );
  const result = byId('bot-result');
  result.textContent = `${tally.get('applied') ?? 0} applied, ${[...tally].filter(([l]) => l !== 'applied').reduce((n, [, c]) => n + c, 0)} refused; the service holds ${formatPoints(total)} points for the bot`;
  result.className = 'result ok';
  Object.assign(result.dataset, {
    applied: String(tally.get('applied') ?? 0),
    total: String(total),
    answers: JSON.stringify(Object.fromEntries(tally)),
  });
}

/** Ban (POST) or unban (DELETE) the bot at runtime through the relay's admin API, as an operator would. */
async function banBot(sub: string, ban: boolean): Promise<string> {
  const token = await devToken({ sub: 'designer', role: 'admin' })();
  const response = await fetch(ban ? '/api/admin/bans' : `/api/admin/bans/${encodeURIComponent(sub)}`, {
    method: ban ? 'POST' : 'DELETE',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(ban ? { body: JSON.stringify({ player: sub, reason: 'farming (designer console)' }) } : {}),
  });
  if (!response.ok) throw new Error(`${ban ? 'POST' : 'DELETE'} /admin/bans answered ${response.status}`);
  return ban ? `${sub} is banned on every relay of this store` : `${sub} may play again`;
}

/** Wire the bot's buttons: a burst of one event, an achievement tried many times at once, a ban and its lifting. */
export function setupBotPanel(quest: () => string): void {
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  const run = (button: string, count: () => number, award: () => { questId: string; eventName: string; eventPoints: number }) => {
    const element = byId<HTMLButtonElement>(button);
    element.addEventListener('click', () => {
      element.disabled = true;
      const sub = value('bot-player');
      burst(sub, count(), award)
        .then(async (tally) => show(tally, await totalOf(quest(), sub)))
        .catch((error: Error) => Object.assign(byId('bot-result'), { textContent: error.message, className: 'result bad' }))
        .finally(() => (element.disabled = false));
    });
  };
  run(
    'bot-farm',
    () => Number(value('bot-count')) || 30,
    () => ({ questId: quest(), eventName: value('bot-event'), eventPoints: Number(value('bot-points')) }),
  );
  for (const [id, ban] of [
    ['bot-ban', true],
    ['bot-unban', false],
  ] as const) {
    byId(id).addEventListener('click', () => {
      banBot(value('bot-player'), ban).then(
        (text) => Object.assign(byId('bot-result'), { textContent: text, className: 'result ok' }),
        (error: Error) => Object.assign(byId('bot-result'), { textContent: error.message, className: 'result bad' }),
      );
    });
  }
  run(
    'bot-achievement',
    () => 10,
    () => ({ questId: quest(), eventName: value('bot-achievement-event'), eventPoints: Number(value('bot-achievement-points')) }),
  );
}
