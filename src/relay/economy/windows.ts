// Calendar windows in an IANA time zone: where the minute, hour, day, week (from Monday) or month that holds an instant
// starts and ends, as instants. Wall-clock arithmetic through Intl's offsets, so a day across a DST change is 23 or 25
// hours long and a repeated hour (autumn) is two windows, each one real hour.
import type { CalendarWindow } from './rules.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at this instant, in ms (local = utc + offset). */
export function offsetAt(zone: string, at: number): number {
  if (zone === 'UTC') return 0;
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const local = Date.UTC(parts.year as number, (parts.month as number) - 1, parts.day, parts.hour, parts.minute, parts.second);
  return local - (at - (((at % 1000) + 1000) % 1000));
}

/** The instant a local wall-clock time (ms as if UTC) is in the zone; a time skipped by DST is the first instant after the gap. */
function instantOf(zone: string, local: number): number {
  const first = local - offsetAt(zone, local);
  const offset = offsetAt(zone, first);
  const second = local - offset;
  // In a gap (the local time does not exist) the two guesses disagree: the later offset's instant is the gap's end.
  return offsetAt(zone, second) === offset ? second : Math.max(first, second);
}

/** The calendar window of `kind` holding instant `at` in `zone`: [start, end) in ms since the epoch. */
export function calendarWindow(kind: CalendarWindow, zone: string, at: number): { start: number; end: number } {
  const offset = offsetAt(zone, at);
  if (kind === 'minute' || kind === 'hour') {
    // Truncated in the instant's own offset: a repeated hour is two windows, a 30-minute offset zone's hours are its own.
    const size = kind === 'minute' ? MINUTE : HOUR;
    const start = Math.floor((at + offset) / size) * size - offset;
    return { start, end: start + size };
  }
  const local = new Date(at + offset);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth();
  const day = local.getUTCDate();
  let from: number;
  let to: number;
  if (kind === 'day') {
    from = Date.UTC(year, month, day);
    to = from + DAY;
  } else if (kind === 'week') {
    // 1970-01-01 was a Thursday: days since then plus 3, modulo 7, is 0 on a Monday.
    const today = Date.UTC(year, month, day);
    from = today - ((((today / DAY + 3) % 7) + 7) % 7) * DAY;
    to = from + 7 * DAY;
  } else {
    from = Date.UTC(year, month, 1);
    to = Date.UTC(year, month + 1, 1);
  }
  return { start: instantOf(zone, from), end: instantOf(zone, to) };
}

/** An instant as ISO 8601 in the zone, with its offset: `2026-11-28T00:00:00+01:00` (what a budget's refusal states). */
export function formatInZone(at: number, zone: string): string {
  const offset = offsetAt(zone, at);
  const local = new Date(at + offset).toISOString().slice(0, 19);
  if (offset === 0) return `${local}Z`;
  const minutes = Math.abs(offset) / MINUTE;
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${local}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}
