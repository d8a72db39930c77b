import type { FieldTable } from './field-table.js';
import { EventDescriptionSchema, EventNameSchema, EventPointsSchema, ServiceUserIdSchema } from './fields.js';
import { AWARD_RULES, IDENTIFY_ONE_OF_MESSAGE } from './rules.js';

/**
 * POST /group-quests/<questId>/points — the body's fields as schemas, for the servers' v.object (bodies.ts).
 * The same fields, optional flags and order as AWARD_RULES, which the browser SDK checks.
 */
export const AWARD_FIELDS = {
  serviceUserId: { schema: ServiceUserIdSchema },
  eventPoints: { schema: EventPointsSchema },
  eventName: { schema: EventNameSchema, optional: AWARD_RULES.eventName.optional },
  eventDescription: { schema: EventDescriptionSchema, optional: AWARD_RULES.eventDescription.optional },
} as const satisfies FieldTable;

export { IDENTIFY_ONE_OF_MESSAGE };
