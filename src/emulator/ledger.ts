import { fromMicro } from './micro-points.js';

export interface LedgerEvent {
  questId: string;
  serviceUserId: string;
  createdAt: string;
  micro: bigint;
  eventName: string;
  eventDescription: string;
  /** The IDEMPOTENCY_KEY the award was applied under (lower-cased), or null. */
  idempotencyKey: string | null;
  /** The event as it appears in a history, as UTF-8 JSON, encoded once when applied: a read only copies bytes. */
  json: Uint8Array;
}

export interface Account {
  serviceUserId: string;
  enrolledAt: string;
  totalMicro: bigint;
  /** Oldest first (arrival order); histories are served by walking it backwards. */
  events: LedgerEvent[];
}

export type NewEvent = Omit<LedgerEvent, 'questId' | 'serviceUserId' | 'json'>;

/** Enrollments and points, per quest and user. Totals are integer micro-points, so total == sum(history) exactly. */
export function createLedger() {
  const quests = new Map<string, { accounts: Map<string, Account>; order: Account[] }>();
  const entries: LedgerEvent[] = [];

  function quest(questId: string) {
    let found = quests.get(questId);
    if (!found) {
      found = { accounts: new Map(), order: [] };
      quests.set(questId, found);
    }
    return found;
  }

  function enroll(questId: string, serviceUserId: string, enrolledAt: string): Account {
    const q = quest(questId);
    let account = q.accounts.get(serviceUserId);
    if (!account) {
      account = { serviceUserId, enrolledAt, totalMicro: 0n, events: [] };
      q.accounts.set(serviceUserId, account);
      q.order.push(account);
    }
    return account;
  }

  /** Apply an award (enrolling the user on the first one). Returns false, changing nothing, if the total would not be a finite number. */
  function award(questId: string, serviceUserId: string, event: NewEvent): boolean {
    const account = quests.get(questId)?.accounts.get(serviceUserId);
    const total = (account?.totalMicro ?? 0n) + event.micro;
    if (!Number.isFinite(fromMicro(total))) return false;
    const target = account ?? enroll(questId, serviceUserId, event.createdAt);
    const entry: LedgerEvent = { questId, serviceUserId, ...event, json: eventJson(event) };
    target.totalMicro = total;
    target.events.push(entry);
    entries.push(entry);
    return true;
  }

  return {
    enroll,
    award,
    account: (questId: string, serviceUserId: string) => quests.get(questId)?.accounts.get(serviceUserId),
    /** Enrolled accounts in enrollment order. */
    enrolled(questId: string): readonly Account[] {
      return quests.get(questId)?.order ?? [];
    },
    /** Every applied award, oldest first. */
    entries: (): readonly LedgerEvent[] => entries,
    enrollments() {
      const all: { questId: string; serviceUserId: string; enrolledAt: string }[] = [];
      for (const [questId, q] of quests) {
        for (const a of q.order) all.push({ questId, serviceUserId: a.serviceUserId, enrolledAt: a.enrolledAt });
      }
      return all;
    },
    clear() {
      quests.clear();
      entries.length = 0;
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;

// createdAt is our own ISO string (no characters to escape); names and descriptions are client text.
const encoder = new TextEncoder();
const eventJson = (e: NewEvent) =>
  encoder.encode(
    `{"createdAt":"${e.createdAt}","eventPoints":${JSON.stringify(fromMicro(e.micro))},"eventName":${JSON.stringify(e.eventName)},"eventDescription":${JSON.stringify(e.eventDescription)}}`,
  );

/** `{"success":true,"data":{"totalPoints":…,"history":[…]}}` newest first, as UTF-8: one allocation, one copy per event. */
export function pointsResponseBytes(account: Account | undefined): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(`{"success":true,"data":{"totalPoints":${JSON.stringify(fromMicro(account?.totalMicro ?? 0n))},"history":[`);
  const tail = encoder.encode(']}}');
  const events = account?.events ?? [];
  let size = head.byteLength + tail.byteLength + Math.max(0, events.length - 1);
  for (const event of events) size += event.json.byteLength;
  const out = new Uint8Array(size);
  out.set(head, 0);
  let offset = head.byteLength;
  for (let i = events.length - 1; i >= 0; i--) {
    const json = (events[i] as LedgerEvent).json;
    out.set(json, offset);
    offset += json.byteLength;
    if (i > 0) out[offset++] = 0x2c; // ','
  }
  out.set(tail, offset);
  return out;
}
