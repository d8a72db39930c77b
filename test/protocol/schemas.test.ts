import { describe, expect, it } from 'vitest';
import * as p from '../../src/protocol/index.js';
import * as fc from 'fast-check';
import {
  AwardBodySchema,
  BatchEnvelopeSchema,
  QueuedAwardSchema,
  IdentifyBodySchema,
  PageQuerySchema,
  IdempotencyKeySchema,
  parseWith,
  paths,
} from '../../src/protocol/index.js';

const rejects = (schema: Parameters<typeof parseWith>[0], input: unknown) => {
  const parsed = parseWith(schema, input);
  expect(parsed.ok).toBe(false);
  return parsed.ok ? '' : parsed.message;
};

describe('award body', () => {
  it.each([
    [{}, 'serviceUserId is required'],
    [{ serviceUserId: 'u' }, 'eventPoints is required'],
    [{ serviceUserId: 'u', eventPoints: '5' }, 'eventPoints must be a number'],
    [{ serviceUserId: 'u', eventPoints: Number.NaN }, 'eventPoints must be a number'],
    [{ serviceUserId: 'u', eventPoints: Infinity }, 'eventPoints must be a finite number'],
    [{ serviceUserId: 7, eventPoints: 1 }, 'serviceUserId must be a string'],
    [{ serviceUserId: '', eventPoints: 1 }, 'serviceUserId must be at least 1 character'],
    [{ serviceUserId: 'u'.repeat(129), eventPoints: 1 }, 'serviceUserId must be at most 128 characters'],
    [{ serviceUserId: 'a\u0000b', eventPoints: 1 }, 'serviceUserId must not contain control characters'],
    [{ serviceUserId: 'u', eventPoints: 1, eventName: 'x'.repeat(129) }, 'eventName must be at most 128 characters'],
    [{ serviceUserId: 'u', eventPoints: 1, eventDescription: 'x'.repeat(2049) }, 'eventDescription must be at most 2048 characters'],
    [{ serviceUserId: 'u', eventPoints: 1, eventDescription: 'bell\u0007' }, 'eventDescription must not contain control characters'],
    [{ serviceUserId: '..', eventPoints: 1 }, 'serviceUserId must not be "." or ".." (they cannot be a URL path segment)'],
    [null, 'body must be a JSON object'],
    ['text', 'body must be a JSON object'],
  ])('%j -> %s', (input, message) => {
    expect(rejects(AwardBodySchema, input)).toBe(message);
  });

  it('accepts integers, floats, negatives, multi-line descriptions and unicode ids; drops unknown fields', () => {
    const parsed = parseWith(AwardBodySchema, {
      serviceUserId: 'ユーザー 1/2',
      eventPoints: -0.25,
      eventDescription: 'line 1\nline 2\tend',
      extra: true,
    });
    expect(parsed).toEqual({
      ok: true,
      value: { serviceUserId: 'ユーザー 1/2', eventPoints: -0.25, eventDescription: 'line 1\nline 2\tend' },
    });
  });
});

describe('identify body', () => {
  it.each([
    [{}, 'exactly one of email or wallet is required (not both, not neither)'],
    [{ email: 'a@b.co', wallet: { address: '0xab', chain: 'ethereum' } }, 'exactly one of email or wallet is required (not both, not neither)'],
    [{ email: 'not-an-email' }, 'email must be a valid e-mail address'],
    [{ email: 42 }, 'email must be a string'],
    [{ wallet: 'x' }, 'wallet must be an object with address and chain'],
    [{ wallet: { address: '0xab' } }, 'wallet.chain is required'],
    [{ wallet: { address: '0x ab', chain: 'ethereum' } }, 'wallet.address must be printable ASCII without spaces'],
    [{ wallet: { address: '0xab', chain: 'c'.repeat(65) } }, 'wallet.chain must be at most 64 characters'],
  ])('%j -> %s', (input, message) => {
    expect(rejects(IdentifyBodySchema, input)).toBe(message);
  });

  it('trims the e-mail', () => {
    expect(parseWith(IdentifyBodySchema, { email: '  Ada@Example.com ' })).toEqual({ ok: true, value: { email: 'Ada@Example.com' } });
  });
});

describe('page query', () => {
  it('defaults to offset 0, limit 100 and clamps limit to 250', () => {
    expect(parseWith(PageQuerySchema, {})).toEqual({ ok: true, value: { offset: 0, limit: 100 } });
    expect(parseWith(PageQuerySchema, { limit: '1000', offset: '5' })).toEqual({ ok: true, value: { offset: 5, limit: 250 } });
  });
  it.each([
    [{ limit: '0' }, 'limit must be at least 1'],
    [{ limit: '-1' }, 'limit must be a non-negative integer'],
    [{ offset: '1.5' }, 'offset must be a non-negative integer'],
    [{ offset: 'abc' }, 'offset must be a non-negative integer'],
    [{ offset: ' 1' }, 'offset must be a non-negative integer'],
    [{ limit: '' }, 'limit must be a non-negative integer'],
  ])('%j -> %s', (input, message) => {
    expect(rejects(PageQuerySchema, input)).toBe(message);
  });
});

describe('batch request', () => {
  // What the relay runs (src/relay/batch.ts): the envelope first, then each award on its own.
  const award = { questId: 'q', serviceUserId: 'u', eventPoints: 1, idempotencyKey: crypto.randomUUID() };
  it('a bad award is refused alone, naming its field', () => {
    expect(parseWith(BatchEnvelopeSchema, { awards: [award, { ...award, eventPoints: 'x' }] }).ok).toBe(true);
    expect(rejects(QueuedAwardSchema, { ...award, eventPoints: 'x' })).toBe('eventPoints must be a number');
    expect(parseWith(QueuedAwardSchema, award).ok).toBe(true);
  });
  it('holds 1 to 100 awards, each with an idempotency key', () => {
    expect(rejects(BatchEnvelopeSchema, { awards: [] })).toBe('awards must hold at least 1 award');
    expect(rejects(BatchEnvelopeSchema, { awards: Array(101).fill(award) })).toBe('awards must hold at most 100 awards');
    expect(rejects(BatchEnvelopeSchema, { awards: [{ ...award, idempotencyKey: 'nope' }] })).toMatch(/^awards\.0\.idempotencyKey /);
    expect(parseWith(BatchEnvelopeSchema, { awards: Array(100).fill(award) }).ok).toBe(true);
  });
});

describe('idempotency key', () => {
  it('accepts any UUID and refuses anything else', async () => {
    await fc.assert(fc.property(fc.uuid(), (key) => parseWith(IdempotencyKeySchema, key).ok));
    expect(rejects(IdempotencyKeySchema, 'not-a-uuid')).toMatch(/must be a UUID/);
  });
});

describe('paths', () => {
  it('keeps every id one segment, whatever it holds', async () => {
    await fc.assert(
      fc.property(
        fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('a/b', '?x=1', '#frag', '%2F', ' ')),
        fc.string({ minLength: 1 }),
        (questId, userId) => {
          fc.pre(questId !== '.' && questId !== '..' && userId !== '.' && userId !== '..'); // refused by IdSchema
          const url = new URL(paths.pointsOf(questId, userId), 'http://x');
          const segments = url.pathname.split('/');
          expect(segments).toHaveLength(5);
          expect(decodeURIComponent(segments[2]!)).toBe(questId);
          expect(decodeURIComponent(segments[4]!)).toBe(userId);
          expect(url.search).toBe('');
        },
      ),
    );
    expect(paths.points('../users/identify')).toBe('/group-quests/..%2Fusers%2Fidentify/points');
  });
});

describe('rules.ts is the one source of the field rules', () => {
  const pairs = [
    [p.ID_RULE, p.IdSchema],
    [p.EVENT_POINTS_RULE, p.EventPointsSchema],
    [p.EVENT_NAME_RULE, p.EventNameSchema],
    [p.EVENT_DESCRIPTION_RULE, p.EventDescriptionSchema],
    [p.EMAIL_RULE, p.EmailSchema],
    [p.WALLET_ADDRESS_RULE, p.WalletAddressSchema],
    [p.WALLET_CHAIN_RULE, p.WalletChainSchema],
  ] as const;
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom('', ' ', '.', '..', ' a@b.co ', '0xAbC', 'x'.repeat(129), 'x'.repeat(2049), 'tab\there', 'nl\nx'),
    fc.double(),
    fc.integer(),
    fc.anything(),
  );

  it('the SDK (checkRule) and the servers (valibot) accept and refuse the same values with the same message', async () => {
    await fc.assert(
      fc.property(value, (input) => {
        for (const [rule, schema] of pairs) {
          const sdk = p.checkRule(rule, input);
          const server = p.parseWith(schema, input);
          expect(sdk.ok).toBe(server.ok);
          if (sdk.ok && server.ok) expect(sdk.value).toBe(server.value);
          if (!sdk.ok && !server.ok) expect(sdk.message).toBe(server.message);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('control characters: ids, names and chains refuse C0, DEL and C1; descriptions refuse C0 but tab, LF and CR, and DEL', () => {
    const refused = (rule: p.FieldRule, code: number) => !p.checkRule(rule, `a${String.fromCharCode(code)}b`).ok;
    for (let code = 0; code <= 0xff; code++) {
      const control = code <= 0x1f || (code >= 0x7f && code <= 0x9f);
      const layout = code === 0x09 || code === 0x0a || code === 0x0d;
      expect([code, refused(p.ID_RULE, code)]).toEqual([code, control]);
      expect([code, refused(p.EVENT_NAME_RULE, code)]).toEqual([code, control]);
      expect([code, refused(p.WALLET_CHAIN_RULE, code)]).toEqual([code, control]);
      expect([code, refused(p.EVENT_DESCRIPTION_RULE, code)]).toEqual([code, (code <= 0x1f && !layout) || code === 0x7f]);
    }
  });

  it("the servers' award body has the fields, order and optional flags of AWARD_RULES", () => {
    const body = Object.entries(p.AwardBodySchema.entries).map(([key, schema]) => [key, schema.type === 'optional']);
    const rules = Object.entries(p.AWARD_RULES).map(([key, f]) => [key, 'optional' in f && !!f.optional]);
    expect(body).toEqual(rules);
  });
});
