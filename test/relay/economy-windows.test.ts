// The economy's policy schema (unknown keys refused, errors naming field and rule) and its calendar windows in a time
// zone: days across both DST changes, a repeated autumn hour, weeks from Monday, month ends.
import { describe, expect, it } from 'vitest';
import { resolvePolicy } from '../../src/relay/index.js';
import { calendarWindow, formatInZone } from '../../src/relay/economy/windows.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('economy policy schema', () => {
  it('accepts the agreed shape', () => {
    const policy = resolvePolicy({
      events: { coin: { maxPoints: 10, cooldownSeconds: 2 }, 'first-win': { points: 50, once: true } },
      budgets: [
        { points: 1000, window: 'day', timeZone: 'Europe/Paris', event: 'coin' },
        { points: 5000, window: 'week', quest: 'summer' },
        { points: 300, rollingSeconds: 3600, name: 'hourly' },
      ],
      campaigns: { summer: { startsAt: '2026-06-01T00:00:00Z', endsAt: '2026-09-01T00:00:00+02:00' } },
      bans: ['player-sub-1'],
    });
    expect(policy.budgets).toHaveLength(3);
    expect(policy.bans).toEqual(['player-sub-1']);
  });

  it.each([
    [{ budgets: [{ points: 10, window: 'day', extra: 1 }] }, /budgets\.0\.extra/],
    [{ budgets: [{ points: 10 }] }, /budgets\.0.*exactly one of window and rollingSeconds/],
    [{ budgets: [{ points: 10, window: 'day', rollingSeconds: 60 }] }, /exactly one of window and rollingSeconds/],
    [{ budgets: [{ points: 10, window: 'fortnight' }] }, /budgets\.0\.window must be one of minute, hour, day, week, month/],
    [{ budgets: [{ points: 10, window: 'day', timeZone: 'Mars/Olympus' }] }, /budgets\.0\.timeZone must be an IANA time zone/],
    [{ budgets: [{ points: 10, rollingSeconds: 60, timeZone: 'UTC' }] }, /timeZone applies to a calendar window only/],
    [{ budgets: [{ points: -1, window: 'day' }] }, /budgets\.0\.points must be greater than 0/],
    [{ campaigns: { s: { startsAt: '2026-06-01' } } }, /campaigns\.s\.startsAt must be an ISO 8601 time with an offset/],
    [{ campaigns: { s: { startsAt: '2026-06-02T00:00:00Z', endsAt: '2026-06-01T00:00:00Z' } } }, /startsAt must be before endsAt/],
    [{ campaigns: { s: {} } }, /must set startsAt and\/or endsAt/],
    [{ bans: 'x' }, /bans must be an array of player subs/],
    [{ events: { e: { once: 'yes' } } }, /events\.e\.once must be a boolean/],
    [{ events: { e: { cooldownSeconds: 0 } } }, /events\.e\.cooldownSeconds must be greater than 0/],
  ])('refuses %j', (policy, message) => {
    expect(() => resolvePolicy(policy as never)).toThrow(message);
  });
});

describe('calendar windows', () => {
  it('a day in Paris across the spring change is 23 hours, across the autumn change 25', () => {
    const spring = calendarWindow('day', 'Europe/Paris', at('2026-03-29T12:00:00Z'));
    expect([iso(spring.start), iso(spring.end)]).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    const autumn = calendarWindow('day', 'Europe/Paris', at('2026-10-25T12:00:00Z'));
    expect([iso(autumn.start), iso(autumn.end)]).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
  });

  it('the repeated autumn hour is two windows of one hour each', () => {
    const first = calendarWindow('hour', 'Europe/Paris', at('2026-10-25T00:30:00Z'));
    const second = calendarWindow('hour', 'Europe/Paris', at('2026-10-25T01:30:00Z'));
    expect(iso(first.start)).toBe('2026-10-25T00:00:00.000Z');
    expect(iso(second.start)).toBe('2026-10-25T01:00:00.000Z');
    expect(second.end - second.start).toBe(3_600_000);
  });

  it('a day where midnight does not exist starts at the first instant after the gap', () => {
    // Santiago skips 00:00-01:00 local on 2026-09-06 (UTC-4 -> UTC-3).
    const day = calendarWindow('day', 'America/Santiago', at('2026-09-06T15:00:00Z'));
    expect(iso(day.start)).toBe('2026-09-06T04:00:00.000Z');
    expect(iso(day.end)).toBe('2026-09-07T03:00:00.000Z');
  });

  it('weeks start on Monday in the zone', () => {
    // Sunday 2026-11-29 23:30 in Tokyo is Sunday 14:30 UTC: the week began Monday 2026-11-23 00:00 Tokyo.
    const week = calendarWindow('week', 'Asia/Tokyo', at('2026-11-29T14:30:00Z'));
    expect([iso(week.start), iso(week.end)]).toEqual(['2026-11-22T15:00:00.000Z', '2026-11-29T15:00:00.000Z']);
    const monday = calendarWindow('week', 'UTC', at('2026-11-30T00:00:00Z'));
    expect(iso(monday.start)).toBe('2026-11-30T00:00:00.000Z');
  });

  it('month ends: February in a leap year, December into January, in a zone west of UTC', () => {
    const feb = calendarWindow('month', 'UTC', at('2028-02-29T23:59:59Z'));
    expect([iso(feb.start), iso(feb.end)]).toEqual(['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    const dec = calendarWindow('month', 'America/New_York', at('2027-01-01T03:00:00Z'));
    expect([iso(dec.start), iso(dec.end)]).toEqual(['2026-12-01T05:00:00.000Z', '2027-01-01T05:00:00.000Z']);
  });

  it('minutes in a zone with a 45-minute offset', () => {
    const hour = calendarWindow('hour', 'Asia/Kathmandu', at('2026-01-01T00:20:00Z'));
    // 00:20 UTC is 06:05 in Kathmandu (+05:45): the hour began at 06:00 local.
    expect(iso(hour.start)).toBe('2026-01-01T00:15:00.000Z');
    const minute = calendarWindow('minute', 'Asia/Kathmandu', at('2026-01-01T00:20:30Z'));
    expect(iso(minute.start)).toBe('2026-01-01T00:20:00.000Z');
  });

  it('formats an instant with its zone offset', () => {
    expect(formatInZone(at('2026-11-27T23:00:00Z'), 'Europe/Paris')).toBe('2026-11-28T00:00:00+01:00');
    expect(formatInZone(at('2026-11-27T23:00:00Z'), 'UTC')).toBe('2026-11-27T23:00:00Z');
    expect(formatInZone(at('2026-11-27T23:00:00Z'), 'America/St_Johns')).toBe('2026-11-27T19:30:00-03:30');
  });
});
