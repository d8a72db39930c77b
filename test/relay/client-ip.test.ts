import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forwardedFor, rateLimitSubject } from '../../src/relay/client-ip.js';
import { OPEN_POLICY } from '../helpers/fixtures.js';
import { fakeRelay, RELAY } from './helpers.js';

describe('rateLimitSubject', () => {
  it('keys IPv4 as is, IPv4-mapped IPv6 as its IPv4, other IPv6 by its /64 whatever the text form', () => {
    expect(rateLimitSubject('203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitSubject('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(rateLimitSubject('::FFFF:cb00:7107')).toBe('203.0.113.7');
    const forms = [
      '2001:db8:1:2::1',
      '2001:0DB8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '[2001:db8:1:2::9]:443',
      '2001:db8:1:2::1%eth0',
    ];
    for (const form of forms) expect(rateLimitSubject(form), form).toBe('2001:db8:1:2::/64');
    expect(rateLimitSubject('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(rateLimitSubject('::1')).toBe('0:0:0:0::/64');
    expect(rateLimitSubject('198.51.100.4:5678')).toBe('198.51.100.4');
  });

  it('refuses anything that is not an IP address', () => {
    for (const garbage of [
      '',
      'unknown',
      '_hidden',
      'example.com',
      '127.1',
      '0x7f.0.0.1',
      '1.2.3.4.5',
      '256.1.1.1',
      '::g',
      '1.2.3.4, 5.6.7.8',
      '[::1',
      'for=1.2.3.4',
    ]) {
      expect(rateLimitSubject(garbage), garbage).toBeNull();
    }
  });

  it('any IPv6 address in one /64 gives one key (property)', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(fc.array(group, { minLength: 4, maxLength: 4 }), fc.array(group, { minLength: 4, maxLength: 4 }), (prefix, suffixA) => {
        if (prefix[0] === '0' && prefix[1] === '0' && prefix[2] === '0') return; // leave ::ffff: and friends aside
        const a = [...prefix, ...suffixA].join(':');
        const b = [...prefix, '0', '0', '0', '1'].join(':');
        expect(rateLimitSubject(a)).toBe(rateLimitSubject(b));
      }),
    );
  });
});

describe('per-IP limit over the Node socket and forwarded headers', () => {
  const policy = { ...OPEN_POLICY, rateLimits: { perIp: { limit: 2, windowSeconds: 60 } } };
  const socket = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress, remotePort: 1, remoteFamily: 'IPv6' } } });
  const from = (app: { fetch: (r: Request, env?: unknown) => Response | Promise<Response> }, address: string, headers: Record<string, string> = {}) =>
    Promise.resolve(app.fetch(new Request(`${RELAY}/x`, { headers }), socket(address))).then((r) => r.status);

  it('rotating addresses inside one IPv6 /64 gives no fresh bucket; another /64 does', async () => {
    const { app } = fakeRelay({ policy });
    expect(await from(app, '2001:db8:1:2::1')).toBe(401);
    expect(await from(app, '2001:db8:1:2:aaaa::1')).toBe(401);
    expect(await from(app, '2001:0db8:0001:0002:ffff:ffff:ffff:fffe')).toBe(429);
    expect(await from(app, '2001:db8:1:3::1')).toBe(401);
  });

  it('an IPv4-mapped IPv6 socket address counts as its IPv4 address', async () => {
    const { app } = fakeRelay({ policy });
    expect(await from(app, '::ffff:192.0.2.1')).toBe(401);
    expect(await from(app, '192.0.2.1')).toBe(401);
    expect(await from(app, '::ffff:192.0.2.1')).toBe(429);
  });

  it('with trustProxy, X-Forwarded-For is validated: garbage falls back to the socket address', async () => {
    const { app } = fakeRelay({ policy, trustProxy: 1 });
    expect(await from(app, '10.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).toBe(401);
    expect(await from(app, '10.0.0.1', { 'x-forwarded-for': 'spoofed, 198.51.100.1' })).toBe(401);
    expect(await from(app, '10.0.0.1', { 'x-forwarded-for': '198.51.100.1' })).toBe(429);
    // Not an IP: the proxy's socket address is the subject (its own bucket), never the raw text.
    for (const junk of ['garbage', '<script>', '1.2.3.4.5', 'a'.repeat(5000)])
      expect(await from(app, '10.0.0.9', { 'x-forwarded-for': junk })).not.toBe(500);
    expect(await from(app, '10.0.0.9', { 'x-forwarded-for': 'garbage' })).toBe(429);
  });

  it('with forwardedHeader "forwarded", the RFC 7239 for= is read (brackets and port allowed), X-Forwarded-For ignored', async () => {
    const { app } = fakeRelay({ policy, trustProxy: 1, forwardedHeader: 'forwarded' });
    const header = (forValue: string) => ({ forwarded: `for=${forValue};proto=https`, 'x-forwarded-for': '203.0.113.99' });
    expect(await from(app, '10.0.0.1', header('"[2001:db8:5:6::1]:4711"'))).toBe(401);
    expect(await from(app, '10.0.0.1', header('"[2001:db8:5:6::2]"'))).toBe(401);
    expect(await from(app, '10.0.0.1', header('"[2001:db8:5:6::3]:1"'))).toBe(429);
    // Unparseable Forwarded -> the socket address.
    expect(await from(app, '10.0.0.2', { forwarded: 'for=;;;' })).toBe(401);
    expect(await from(app, '10.0.0.2', { forwarded: 'for=_hidden' })).toBe(401);
    expect(await from(app, '10.0.0.2', { forwarded: 'nonsense' })).toBe(429);
  });
});

describe('forwardedFor (RFC 7239, parsed without Node)', () => {
  it("reads each element's for=, quoted or not, and refuses what breaks the grammar", () => {
    expect(forwardedFor('for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual(['192.0.2.60']);
    expect(forwardedFor('for="[2001:db8:cafe::17]:4711", for=198.51.100.17')).toEqual(['[2001:db8:cafe::17]:4711', '198.51.100.17']);
    expect(forwardedFor('For="a\\"b,c";proto=https,proto=http')).toEqual(['a"b,c', '']);
    for (const bad of ['for=;;;', 'nonsense', 'for=', 'for="unterminated', 'for=a,,for=b', 'for=a b']) expect(forwardedFor(bad), bad).toBeUndefined();
  });

  it('an address is taken only in its strict literal form', () => {
    const cases: [string, string | null][] = [
      ['127.1', null],
      ['0x7f.0.0.1', null],
      ['01.2.3.4', null],
      ['1.2.3.4:80', '1.2.3.4'],
      ['::ffff:1.2.3.4', '1.2.3.4'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['[::1]:80', '0:0:0:0::/64'],
    ];
    for (const [text, subject] of cases) expect(rateLimitSubject(text), text).toBe(subject);
  });
});
