import * as v from 'valibot';
import { AwardBodySchema, IdentifyBodySchema } from '../protocol/bodies.js';
import { QuestIdSchema } from '../protocol/fields.js';
import { formatIssues } from '../protocol/issues.js';
import type { IdentifyBody } from '../protocol/bodies.js';
import { QuestPointsError } from './errors.js';
import type { AwardInput } from './types.js';

// Imports name single modules (not protocol/index) so the bundle carries only these schemas.

const AwardInputSchema = v.object({ ...AwardBodySchema.entries, questId: QuestIdSchema }, 'award input must be an object');

function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw new QuestPointsError(formatIssues(result.issues), 'invalid', undefined, issue && v.getDotPath(issue)?.split('.')[0]);
}

/** The award as it goes on the wire, defaults applied; throws QuestPointsError('invalid') naming the field and rule. */
export function parseAward(input: AwardInput, defaults: { questId?: string; serviceUserId?: string }) {
  const { questId = defaults.questId, serviceUserId = defaults.serviceUserId, ...rest } = (input ?? {}) as AwardInput;
  return parse(AwardInputSchema, { ...rest, questId, serviceUserId });
}

export const parseIdentify = (input: unknown): IdentifyBody => parse(IdentifyBodySchema, input);

/** questId / serviceUserId of a read, defaults applied. */
export function parseIds(questId: string | undefined, serviceUserId?: string | undefined | false) {
  const q = parse(QuestIdSchema, questId);
  return { questId: q, serviceUserId: serviceUserId === false ? '' : parse(QuestIdSchema, serviceUserId) };
}
