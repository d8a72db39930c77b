import type { FieldTable } from './field-table.js';
import { EventDescriptionSchema, EventNameSchema, EventPointsSchema, ServiceUserIdSchema } from './fields.js';

// The request bodies' fields and rules, written once: the servers' body schemas (bodies.ts) are built from them and
// the browser SDK checks the same fields one by one (see field-table.ts).

/** POST /group-quests/<questId>/points — the body's fields, in the order they are checked. */
export const AWARD_FIELDS = {
  serviceUserId: { schema: ServiceUserIdSchema },
  eventPoints: { schema: EventPointsSchema },
  eventName: { schema: EventNameSchema, optional: true },
  eventDescription: { schema: EventDescriptionSchema, optional: true },
} as const satisfies FieldTable;

/** POST /users/identify — the rule across its two fields. */
export const IDENTIFY_ONE_OF_MESSAGE = 'exactly one of email or wallet is required (not both, not neither)';
