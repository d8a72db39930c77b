import type { Issued } from './harness.js';
import type { Sender } from './plan.js';
import { FORBIDDEN_EVENT } from './stack.js';

export interface LedgerEntry {
  questId: string;
  serviceUserId: string;
  eventPoints: number;
  eventName: string;
  eventDescription: string;
  idempotencyKey: string | null;
}

export interface Verdict {
  /** Awards the sender accepted (durably queued). */
  issued: number;
  /** Awards handed to a page that went away before it reported them accepted. */
  neverAccepted: number;
  /** ... of which the service applied anyway (at most once each, else they count as duplicated). */
  neverAcceptedApplied: number;
  /** Accepted awards the sender saw acknowledged. */
  acknowledged: number;
  lost: number;
  /** Awards applied more than once; `extraApplications` counts the surplus entries. */
  duplicated: number;
  extraApplications: number;
  /** Refused for good: in a dead-letter store (ours) or answered 4xx and dropped (naive). */
  deadLettered: number;
  /** Dead letters of an award the test did not mean to be refused. */
  unexpectedDeadLetters: number;
  /** Ledger entries of this quest that no page issued, or whose points differ from what was issued. */
  foreign: number;
  /** Per player: the ledger's total equals the points of every award it should hold. */
  totalsEqual: boolean;
  /** Awards still queued in a page's storage at the end (a failure of the run, but not counted as lost). */
  queueLeft: number;
  /**
   * Pairs of one tab's applied awards that the ledger holds in the other order than they were issued (by first
   * application: a replay after a lost acknowledgement adds no entry, so it is no inversion), of `orderPairs` pairs.
   */
  orderInversions: number;
  orderPairs: number;
  lostKeys: string[];
  duplicatedKeys: string[];
  problems: string[];
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * The ledger against what the pages issued. Ours are matched by idempotency key, the baseline (no key) by its
 * unique eventDescription. Expected: every accepted award exactly once with its points, the refused ones
 * (forbidden event) never, and in a dead-letter store.
 */
export function judge(input: {
  sender: Sender;
  issued: Issued[];
  ledger: LedgerEntry[];
  deadLetters: { key: string; description: string; status: number }[];
  answers: Map<number, number[]>;
  /** Keys (ours) or descriptions (naive) still in a queue at the end: undelivered, not lost. */
  stillQueued: Set<string>;
  /** The key the service saw for a player's client key (the relay derives one per player). */
  upstreamKey: (user: string, key: string) => string;
}): Verdict {
  const { sender, issued, ledger, deadLetters, answers, stillQueued, upstreamKey } = input;
  const queueLeft = stillQueued.size;
  const byKey = new Map<string, LedgerEntry[]>();
  const byDescription = new Map<string, LedgerEntry[]>();
  for (const e of ledger) {
    if (e.idempotencyKey) byKey.set(e.idempotencyKey, [...(byKey.get(e.idempotencyKey) ?? []), e]);
    byDescription.set(e.eventDescription, [...(byDescription.get(e.eventDescription) ?? []), e]);
  }
  const deadByDescription = new Set(deadLetters.map((d) => d.description));
  const v: Verdict = {
    issued: 0,
    neverAccepted: 0,
    neverAcceptedApplied: 0,
    acknowledged: 0,
    lost: 0,
    duplicated: 0,
    extraApplications: 0,
    deadLettered: 0,
    unexpectedDeadLetters: 0,
    foreign: 0,
    totalsEqual: true,
    queueLeft,
    orderInversions: 0,
    orderPairs: 0,
    lostKeys: [],
    duplicatedKeys: [],
    problems: [],
  };
  const explained = new Set<LedgerEntry>();
  const entriesOf = (it: Issued) =>
    sender === 'ours' && it.key ? (byKey.get(upstreamKey(it.user, it.key)) ?? []) : (byDescription.get(it.award.description) ?? []);

  for (const it of issued) {
    const { award } = it;
    const id = it.key ?? award.description;
    const entries = entriesOf(it);
    // A key found with another description or user is not this award.
    const mine = entries.filter((e) => e.eventDescription === award.description && e.serviceUserId === it.user);
    for (const e of mine) explained.add(e);
    if (mine.some((e) => e.eventPoints !== award.points)) v.problems.push(`${id}: applied with other points than ${award.points}`);
    if (mine.length > 1) {
      v.duplicated++;
      v.extraApplications += mine.length - 1;
      v.duplicatedKeys.push(id);
    }
    const forbidden = award.eventName === FORBIDDEN_EVENT;
    if (!it.accepted) {
      v.neverAccepted++;
      if (mine.length) v.neverAcceptedApplied++;
      continue;
    }
    v.issued++;
    if (forbidden) {
      if (mine.length) v.problems.push(`${id}: a refused event was applied`);
      const dead = sender === 'ours' ? deadByDescription.has(award.description) : (answers.get(award.n) ?? []).some((s) => s >= 400 && s < 500);
      if (dead) v.deadLettered++;
      else if (sender === 'ours') v.problems.push(`${id}: a refused award is not in the dead-letter store`);
      continue;
    }
    const queued = stillQueued.has(it.key ?? '') || stillQueued.has(award.description);
    if (!mine.length && !queued) {
      v.lost++;
      v.lostKeys.push(id);
    }
    if (sender === 'naive') {
      if ((answers.get(award.n) ?? []).some((s) => s >= 200 && s < 300)) v.acknowledged++;
    } else if (!deadByDescription.has(award.description) && !queued) v.acknowledged++;
  }

  const issuedDescriptions = new Map(issued.map((it) => [it.award.description, it]));
  for (const d of deadLetters) {
    const it = issuedDescriptions.get(d.description);
    if (!it || it.award.eventName !== FORBIDDEN_EVENT) {
      v.unexpectedDeadLetters++;
      v.problems.push(`${d.key}: dead-lettered (${d.status}) but not meant to be refused`);
    }
  }
  for (const e of ledger) {
    if (explained.has(e)) continue;
    v.foreign++;
    v.problems.push(`ledger entry ${e.idempotencyKey ?? e.eventDescription} matches no issued award`);
  }

  const actualTotal = new Map<string, number>();
  for (const e of ledger) actualTotal.set(e.serviceUserId, round((actualTotal.get(e.serviceUserId) ?? 0) + e.eventPoints));
  // Expected: one application of each award the ledger should hold (accepted, or applied before its page died).
  const should = new Map<string, number>();
  for (const it of issued) {
    if (it.award.eventName === FORBIDDEN_EVENT) continue;
    const applied = entriesOf(it).length;
    if (it.accepted || applied) should.set(it.user, round((should.get(it.user) ?? 0) + it.award.points));
  }
  for (const user of new Set([...should.keys(), ...actualTotal.keys()]))
    if ((should.get(user) ?? 0) !== (actualTotal.get(user) ?? 0)) v.totalsEqual = false;
  if (queueLeft) v.problems.push(`${queueLeft} awards still queued at the end`);

  // Award order per tab: issue order (n) against the ledger's arrival order of each award's first application.
  const position = new Map(ledger.map((e, index) => [e, index]));
  const byTab = new Map<string, number[]>();
  for (const it of [...issued].sort((a, b) => a.award.n - b.award.n)) {
    const mine = entriesOf(it).filter((e) => e.eventDescription === it.award.description && e.serviceUserId === it.user);
    if (!it.accepted || !mine.length) continue;
    byTab.set(it.tab, [...(byTab.get(it.tab) ?? []), Math.min(...mine.map((e) => position.get(e)!))]);
  }
  for (const positions of byTab.values())
    for (let i = 0; i < positions.length; i++)
      for (let j = i + 1; j < positions.length; j++) {
        v.orderPairs++;
        if (positions[i]! > positions[j]!) v.orderInversions++;
      }
  return v;
}

/** Zero lost, zero duplicated, nothing foreign or wrongly refused, totals equal, queues empty, award order kept. */
export const clean = (v: Verdict) =>
  v.orderInversions === 0 &&
  v.lost === 0 &&
  v.duplicated === 0 &&
  v.foreign === 0 &&
  v.unexpectedDeadLetters === 0 &&
  v.totalsEqual &&
  v.queueLeft === 0 &&
  v.problems.length === 0;
