import { createQuestPoints, type DeadLetter, type PendingAward } from '../../src/client/index.js';
import { setupBotPanel } from './bot-panel.js';
import { emulatorAdmin, type FaultConfig } from './emulator-admin.js';
import { logEvents } from './event-log.js';
import { setupLedgerView } from './ledger-view.js';
import { setupPolicyEditor } from './policy-editor.js';
import { bindOfflineCheckbox, byId, createOfflineSwitch, devToken, formatPoints } from './session.js';

const offline = createOfflineSwitch();
const client = createQuestPoints({
  relayUrl: '/api',
  // A designer may read anyone's points and list enrolled users: an admin token.
  getToken: devToken({ sub: 'designer', role: 'admin' }),
  storageName: 'qp-demo-console',
  fetch: offline.fetch,
  backoff: { baseMs: 250, maxMs: 4000 },
});

const quest = () => byId<HTMLInputElement>('quest').value.trim();
const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function show(id: string, text: string, tone: 'ok' | 'bad' | '' = '') {
  const element = byId(id);
  element.textContent = text;
  element.className = `result ${tone}`;
}

function row(cells: (string | Node)[]): HTMLTableRowElement {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    const td = document.createElement('td');
    td.append(cell);
    tr.append(td);
  }
  return tr;
}

/** Run a form's action with its button disabled, errors shown in its result line. */
function onSubmit(formId: string, resultId: string, action: () => Promise<void>) {
  const form = byId<HTMLFormElement>(formId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]') as HTMLButtonElement;
    button.disabled = true;
    action()
      .catch((error) => show(resultId, errorText(error), 'bad'))
      .finally(() => (button.disabled = false));
  });
}

function useUser(serviceUserId: string) {
  for (const id of ['award-user', 'points-user', 'enrollment-user']) byId<HTMLInputElement>(id).value = serviceUserId;
}

// Identify ------------------------------------------------------------------------------------------
const kind = byId<HTMLSelectElement>('identify-kind');
kind.addEventListener('change', () => {
  byId('identify-email-label').hidden = kind.value !== 'email';
  byId('identify-wallet').hidden = kind.value !== 'wallet';
});
onSubmit('identify-form', 'identify-result', async () => {
  const serviceUserId = await client.identify(
    kind.value === 'email' ? { email: value('identify-email') } : { wallet: { address: value('identify-address'), chain: value('identify-chain') } },
  );
  useUser(serviceUserId);
  show('identify-result', `serviceUserId: ${serviceUserId}`, 'ok');
  byId('identify-result').dataset.serviceUserId = serviceUserId;
});

// Award ---------------------------------------------------------------------------------------------
onSubmit('award-form', 'award-result', async () => {
  const eventName = value('award-event');
  const eventDescription = value('award-description');
  // award() validates at once and throws on bad input; nothing is queued then.
  const handle = client.award({
    questId: quest(),
    serviceUserId: value('award-user'),
    eventPoints: Number(byId<HTMLInputElement>('award-points').value),
    ...(eventName ? { eventName } : {}),
    ...(eventDescription ? { eventDescription } : {}),
  });
  show('award-result', `Queued under key ${handle.idempotencyKey}; waiting for the service…`);
  void refreshQueue();
  const outcome = await handle.settled;
  if (outcome.outcome === 'sent') show('award-result', `Awarded (key ${outcome.idempotencyKey})`, 'ok');
  else if (outcome.outcome === 'rejected')
    show('award-result', `Refused ${outcome.deadLetter.status}: ${outcome.deadLetter.message} (kept as a dead letter)`, 'bad');
  else show('award-result', 'The client closed before an answer; the award stays queued');
});

// Points and history --------------------------------------------------------------------------------
onSubmit('points-form', 'points-result', async () => {
  const view = await client.fetchPoints(quest(), value('points-user'));
  const pending = view.pendingPoints ? `, ${formatPoints(view.pendingPoints)} pending` : '';
  show(
    'points-result',
    `Total ${formatPoints(view.totalPoints)} points (${formatPoints(view.confirmedPoints)} confirmed${pending}); ${view.history.length} events`,
    'ok',
  );
  byId('points-result').dataset.total = String(view.totalPoints);
  // Pending awards (still in the outbox) first, marked, then the confirmed history; both newest first.
  byId('history-rows').replaceChildren(
    ...view.pending.map((entry) =>
      row(['pending', entry.eventName ?? 'DefaultPointsEvent', formatPoints(entry.eventPoints), entry.eventDescription ?? '']),
    ),
    ...view.history.map((entry) =>
      row([new Date(entry.createdAt).toLocaleString('en-GB'), entry.eventName, formatPoints(entry.eventPoints), entry.eventDescription]),
    ),
  );
});

// Enrollment ----------------------------------------------------------------------------------------
onSubmit('enrollment-form', 'enrollment-result', async () => {
  const serviceUserId = value('enrollment-user');
  const status = await client.fetchEnrollment(quest(), serviceUserId);
  const result = byId('enrollment-result');
  if (status) {
    show('enrollment-result', `${status.serviceUserId} is enrolled, ${formatPoints(status.currentPoints)} points`, 'ok');
    result.dataset.enrolled = 'true';
  } else {
    show('enrollment-result', `${serviceUserId} is not enrolled (404: User is not enrolled in the quest)`, 'bad');
    result.dataset.enrolled = 'false';
  }
});

// Enrolled users, paged by offset --------------------------------------------------------------------
let offset = 0;
async function loadPage(nextOffset: number) {
  const limit = Math.max(1, Math.min(250, Number(byId<HTMLInputElement>('enrolled-limit').value) || 5));
  const pages = client.enrolledUsers(quest(), { limit, offset: nextOffset });
  const first = await pages.next();
  await pages.return?.();
  const users = first.done ? [] : first.value;
  offset = nextOffset;
  byId('enrolled-rows').replaceChildren(...users.map((user, i) => row([String(offset + i + 1), user.serviceUserId, user.email ?? '—'])));
  show(
    'enrolled-result',
    users.length ? `Users ${offset + 1}–${offset + users.length}` : offset ? 'No more users' : 'Nobody is enrolled yet',
    users.length ? 'ok' : '',
  );
  byId<HTMLButtonElement>('enrolled-prev').disabled = offset === 0;
  byId<HTMLButtonElement>('enrolled-next').disabled = users.length < limit;
}
onSubmit('enrolled-form', 'enrolled-result', () => loadPage(0));
const limitNow = () => Number(byId<HTMLInputElement>('enrolled-limit').value) || 5;
byId('enrolled-next').addEventListener('click', () => void loadPage(offset + limitNow()).catch((e) => show('enrolled-result', errorText(e), 'bad')));
byId('enrolled-prev').addEventListener(
  'click',
  () => void loadPage(Math.max(0, offset - limitNow())).catch((e) => show('enrolled-result', errorText(e), 'bad')),
);
byId('seed').addEventListener('click', () => {
  const ids = Array.from({ length: 12 }, (_, i) => `seed-player-${String(i + 1).padStart(2, '0')}`);
  emulatorAdmin
    .seed({
      users: ids.map((serviceUserId) => ({ serviceUserId, email: `${serviceUserId}@example.com` })),
      enrollments: ids.map((serviceUserId, i) => ({ questId: quest(), serviceUserId, points: (i + 1) * 10 })),
    })
    .then(() => loadPage(0))
    .catch((error) => show('enrolled-result', errorText(error), 'bad'));
});

// Queue and dead letters ----------------------------------------------------------------------------
function pendingRow(award: PendingAward) {
  return row([award.serviceUserId, award.eventName ?? 'DefaultPointsEvent', formatPoints(award.eventPoints), award.idempotencyKey.slice(0, 8)]);
}
function actionButton(text: string, label: string, action: () => Promise<unknown>) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = text;
  button.setAttribute('aria-label', label);
  button.addEventListener('click', () => void action().then(refreshQueue, (error) => show('queue-summary', errorText(error), 'bad')));
  return button;
}
function deadRow(letter: DeadLetter) {
  const actions = document.createElement('span');
  const what = `the award of ${letter.eventPoints} to ${letter.serviceUserId}`;
  const retry = actionButton('Retry', `Retry ${what}`, () => client.retryDeadLetter(letter.idempotencyKey));
  const discard = actionButton('Discard', `Discard ${what}`, () => client.discardDeadLetter(letter.idempotencyKey));
  actions.append(retry, ' ', discard);
  return row([letter.serviceUserId, formatPoints(letter.eventPoints), `${letter.status}: ${letter.message}`, actions]);
}
async function refreshQueue() {
  const [pending, dead] = await Promise.all([client.pending(), client.deadLetters()]);
  byId('pending-rows').replaceChildren(...pending.map(pendingRow));
  byId('dead-rows').replaceChildren(...dead.map(deadRow));
  show('queue-summary', `${pending.length} pending, ${dead.length} dead letter${dead.length === 1 ? '' : 's'}`);
  Object.assign(byId('queue-summary').dataset, { pending: String(pending.length), dead: String(dead.length) });
}
for (const event of ['queue:changed', 'award:rejected', 'award:sent'] as const) client.on(event, () => void refreshQueue());
void refreshQueue();

// Switches ------------------------------------------------------------------------------------------
bindOfflineCheckbox(byId<HTMLInputElement>('offline-switch'), offline);
const connection = byId('connection');
client.subscribe((snapshot) => {
  connection.textContent = snapshot.online ? 'online' : 'offline';
  connection.className = `badge ${snapshot.online ? 'online' : 'offline'}`;
});
logEvents(client, byId<HTMLOListElement>('console-events'), 15);
setupPolicyEditor();
setupBotPanel(quest);
setupLedgerView();

const sandbox = byId<HTMLInputElement>('sandbox-switch');
sandbox.addEventListener('change', () => {
  emulatorAdmin
    .setMode(sandbox.checked ? 'sandbox' : 'stateful')
    .then(({ mode }) => show('switches-result', `Emulator in ${mode} mode`, 'ok'))
    .catch((error) => show('switches-result', errorText(error), 'bad'));
});

const faultSwitches = {
  errors: byId<HTMLInputElement>('fault-errors'),
  lostAcks: byId<HTMLInputElement>('fault-lost-acks'),
  latency: byId<HTMLInputElement>('fault-latency'),
};
function faultsFromSwitches(): FaultConfig {
  return {
    ...(faultSwitches.errors.checked ? { errorRate: 0.3 } : {}),
    ...(faultSwitches.lostAcks.checked ? { lostAckRate: 0.3 } : {}),
    ...(faultSwitches.latency.checked ? { latencyMs: 400, jitterMs: 200 } : {}),
  };
}
for (const input of Object.values(faultSwitches)) {
  input.addEventListener('change', () => {
    emulatorAdmin
      .setFaults(faultsFromSwitches())
      .then(() => show('switches-result', 'Faults updated', 'ok'))
      .catch((error) => show('switches-result', errorText(error), 'bad'));
  });
}
byId('reset').addEventListener('click', () => {
  emulatorAdmin
    .reset()
    .then(() => {
      for (const input of Object.values(faultSwitches)) input.checked = false;
      show('switches-result', 'Emulator reset: empty ledger, faults off', 'ok');
    })
    .catch((error) => show('switches-result', errorText(error), 'bad'));
});

// Reflect the emulator's current mode and faults (another tab may have changed them).
void Promise.all([emulatorAdmin.getMode(), emulatorAdmin.getFaults()])
  .then(([{ mode }, faults]) => {
    sandbox.checked = mode === 'sandbox';
    faultSwitches.errors.checked = !!faults.errorRate;
    faultSwitches.lostAcks.checked = !!faults.lostAckRate;
    faultSwitches.latency.checked = !!faults.latencyMs;
  })
  .catch((error) => show('switches-result', errorText(error), 'bad'));

Object.assign(window, { questPointsDemo: { client, offline } });
