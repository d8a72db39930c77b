import { describe, expect, it } from 'vitest';
import { classify } from '../../src/client/retry.js';
import { parseIdentify } from '../../src/client/account.js';
import { parseAward } from '../../src/client/validate.js';
import { QuestPointsError } from '../../src/client/errors.js';
import { STATUS_POLICY, statusRule, statusVerdict, WELL_FORMED_MESSAGE } from '../../src/protocol/index.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the SDK classifies by the protocol status table', () => {
  it("every status 100-599 gets the table's verdict", () => {
    for (const status of range(100, 599)) expect([status, classify(status)]).toEqual([status, statusVerdict(status)]);
  });

  it('the table: 2xx ok, 401 auth, 408/409/425/429 and every 5xx retried, every other 4xx final', () => {
    const byVerdict = (verdict: string) => range(200, 599).filter((s) => statusVerdict(s) === verdict);
    expect(byVerdict('ok')).toEqual(range(200, 299));
    expect(byVerdict('auth')).toEqual([401]);
    expect(byVerdict('retry')).toEqual([...range(300, 399), 408, 409, 425, 429, ...range(500, 599)]);
    expect(byVerdict('rejected')).toEqual(range(400, 499).filter((s) => ![401, 408, 409, 425, 429].includes(s)));
    // The red-team's four, dead-lettered by the SDK (and by both relay paths: test/relay/status-walk.test.ts).
    expect([402, 405, 410, 415].map(classify)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  });

  it('no answer (network error, timeout) is retried and resent at once; 409/429 wait to be resent', () => {
    expect([statusRule('network'), statusRule('timeout')]).toEqual([STATUS_POLICY.network, STATUS_POLICY.timeout]);
    expect([statusVerdict('network'), statusVerdict('timeout')]).toEqual(['retry', 'retry']);
    expect([409, 429].map((s) => statusRule(s).resend)).toEqual(['later', 'later']);
    expect([408, 500, 503, 599].map((s) => statusRule(s).resend)).toEqual(['now', 'now', 'now', 'now']);
  });
});

describe('award() refuses text that is not well-formed Unicode', () => {
  const ids = { questId: 'q', serviceUserId: 'u' };
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error instanceof QuestPointsError ? `${error.code}: ${error.message}` : String(error);
    }
    return 'accepted';
  };

  it.each([
    ['questId', { questId: '\ud800', eventPoints: 1 }],
    ['serviceUserId', { serviceUserId: 'a\udc00b', eventPoints: 1 }],
    ['eventName', { eventPoints: 1, eventName: '\ud83d' }],
    ['eventDescription', { eventPoints: 1, eventDescription: 'x\udfffy' }],
  ])('%s with a lone surrogate', (field, input) => {
    expect(refusal(() => parseAward(input, ids))).toBe(`invalid: ${field} ${WELL_FORMED_MESSAGE}`);
  });

  it('e-mail and wallet too; a surrogate pair (an emoji) is fine', () => {
    expect(refusal(() => parseIdentify({ email: 'a\ud800@example.com' }))).toBe(`invalid: email ${WELL_FORMED_MESSAGE}`);
    expect(refusal(() => parseIdentify({ wallet: { chain: 'eip155:1\udc00', address: '0xab' } }))).toBe(
      `invalid: wallet.chain ${WELL_FORMED_MESSAGE}`,
    );
    expect(refusal(() => parseIdentify({ wallet: { chain: 'eip155:1', address: '0x\ud800' } }))).toBe(
      `invalid: wallet.address ${WELL_FORMED_MESSAGE}`,
    );
    expect(parseAward({ eventPoints: 1, eventName: 'star \ud83c\udf1f' }, ids).eventName).toBe('star 🌟');
  });

  it('the rule holds without String.prototype.isWellFormed (older engines)', () => {
    const native = Object.getOwnPropertyDescriptor(String.prototype, 'isWellFormed');
    delete (String.prototype as { isWellFormed?: unknown }).isWellFormed;
    try {
      expect(refusal(() => parseAward({ eventPoints: 1, eventName: 'a\ud800' }, ids))).toBe(`invalid: eventName ${WELL_FORMED_MESSAGE}`);
      expect(parseAward({ eventPoints: 1, eventName: '\ud83c\udf1f' }, ids).eventName).toBe('🌟');
    } finally {
      if (native) Object.defineProperty(String.prototype, 'isWellFormed', native);
    }
  });
});
