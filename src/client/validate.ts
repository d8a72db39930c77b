import * as v from 'valibot';
import type { AwardBody, IdentifyBody } from '../protocol/bodies.js';
import { AWARD_FIELDS, IDENTIFY_ONE_OF_MESSAGE } from '../protocol/body-fields.js';
import type { FieldTable } from '../protocol/field-table.js';
import { EmailSchema, QuestIdSchema, WALLET_FIELDS, WALLET_MESSAGE } from '../protocol/fields.js';
import { ruleOf } from '../protocol/issues.js';
import { QuestPointsError } from './errors.js';
import type { AwardInput } from './types.js';

// Fields are checked one by one with the protocol's field schemas (the same rules and messages as the servers' body
// schemas, which are built from the same tables): no v.object in the bundle. Imports name single modules (not
// protocol/index) so the bundle carries only these schemas.

const invalid = (message: string, field?: string) => new QuestPointsError(message, 'invalid', undefined, field);

/** One field's value, parsed; throws naming `path` (and `field`, the top-level key) and the rule. */
function check<S extends v.GenericSchema>(schema: S, value: unknown, path: string, field = path): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw invalid(`${path} ${ruleOf(result.issues[0])}`, field);
}

type Input = Record<string, unknown>;

/** The fields of a table present in `input` (required ones must be), parsed; unknown keys are dropped. */
function checkFields(fields: FieldTable, input: Input, parent?: string) {
  const out: Input = {};
  for (const [key, { schema, optional }] of Object.entries(fields))
    if (!optional || input[key] !== undefined) out[key] = check(schema, input[key], parent ? `${parent}.${key}` : key, parent);
  return out;
}

/** The award as it goes on the wire, defaults applied; throws QuestPointsError('invalid') naming the field and rule. */
export function parseAward(input: AwardInput, defaults: { questId?: string; serviceUserId?: string }): AwardBody & { questId: string } {
  const { questId = defaults.questId, serviceUserId = defaults.serviceUserId, ...rest } = (input ?? {}) as AwardInput;
  const body = checkFields(AWARD_FIELDS, { ...rest, serviceUserId }) as AwardBody;
  return { ...body, questId: check(QuestIdSchema, questId, 'questId') };
}

/** Exactly one of email or wallet, as IdentifyBodySchema says. */
export function parseIdentify(input: unknown): IdentifyBody {
  const { email, wallet } = (input ?? {}) as Input;
  const body: IdentifyBody = {};
  if (email !== undefined) body.email = check(EmailSchema, email, 'email');
  if (wallet !== undefined) {
    if (!wallet || typeof wallet !== 'object') throw invalid(`wallet ${WALLET_MESSAGE}`, 'wallet');
    body.wallet = checkFields(WALLET_FIELDS, wallet as Input, 'wallet') as IdentifyBody['wallet'];
  }
  if ((email === undefined) === (wallet === undefined)) throw invalid(IDENTIFY_ONE_OF_MESSAGE);
  return body;
}

/** questId / serviceUserId of a read, defaults applied. */
export function parseIds(questId: string | undefined, serviceUserId?: string | undefined | false) {
  return {
    questId: check(QuestIdSchema, questId, 'questId'),
    serviceUserId: serviceUserId === false ? '' : check(QuestIdSchema, serviceUserId, 'serviceUserId'),
  };
}
