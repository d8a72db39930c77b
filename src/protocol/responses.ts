import * as v from 'valibot';
import { EventPointsSchema, ServiceUserIdSchema } from './fields.js';
import type { ObjectOutput } from './infer.js';

/** Every error body of the service (and the relay). */
export const ErrorBodySchema = v.object({ success: v.literal(false), message: v.string() });
/** `{ success: false, message }`: the message names the field and the rule, or is one of MESSAGES. */
export type ErrorBody = v.InferOutput<typeof ErrorBodySchema>;

/** 200 of POST /group-quests/<questId>/points. */
export const AwardResponseSchema = v.object({ success: v.literal(true) });
/** `{ success: true }`: the award is applied (or was, when this answers a replayed IDEMPOTENCY_KEY). */
export type AwardResponse = v.InferOutput<typeof AwardResponseSchema>;

/** 200 of POST /users/identify. */
export const IdentifyResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ serviceUserId: ServiceUserIdSchema }),
});
/** `{ success: true, data: { serviceUserId } }`: the id to award and read points under. */
export type IdentifyResponse = v.InferOutput<typeof IdentifyResponseSchema>;

/** One entry of a user's history. createdAt: ISO 8601 UTC with milliseconds. */
export const PointsEventSchema = v.object({
  /** When the service received the award (not when the game made it): ISO 8601 UTC with milliseconds. */
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  /** The points awarded; negative for a deduction. */
  eventPoints: EventPointsSchema,
  /** The award's eventName, or DEFAULT_EVENT_NAME when it had none. */
  eventName: v.string(),
  /** The award's eventDescription, or `""` when it had none. */
  eventDescription: v.string(),
});
/** One applied award as a user's history reports it (PointsEventSchema). */
export interface PointsEvent extends ObjectOutput<typeof PointsEventSchema> {}

/** History is newest first. */
export const PointsSummarySchema = v.object({ totalPoints: v.number(), history: v.array(PointsEventSchema) });
/** `{ totalPoints, history }`: the total is exactly the sum of the history, to POINTS_DECIMALS places. */
export type PointsSummary = v.InferOutput<typeof PointsSummarySchema>;
/** 200 of GET /group-quests/{questId}/points/{serviceUserId}: a user's total and history in one quest. */
export const PointsResponseSchema = v.object({ success: v.literal(true), data: PointsSummarySchema });
/** `{ success: true, data: PointsSummary }`, as PointsResponseSchema reads it. */
export type PointsResponse = v.InferOutput<typeof PointsResponseSchema>;

/** A user's standing in one quest: whether they are enrolled, and `currentPoints`, their total there. */
export const EnrollmentStatusSchema = v.object({
  serviceUserId: ServiceUserIdSchema,
  enrolled: v.boolean(),
  currentPoints: v.number(),
});
/** `{ serviceUserId, enrolled, currentPoints }`, as EnrollmentStatusSchema reads it. */
export type EnrollmentStatus = v.InferOutput<typeof EnrollmentStatusSchema>;
/** 200 of GET /group-quests/{questId}/enrolled-users/{serviceUserId}. */
export const EnrollmentResponseSchema = v.object({ success: v.literal(true), data: EnrollmentStatusSchema });
/** `{ success: true, data: EnrollmentStatus }`, as EnrollmentResponseSchema reads it. */
export type EnrollmentResponse = v.InferOutput<typeof EnrollmentResponseSchema>;

/** nextPage / previousPage: null at the ends, else the relative URL of that page. */
export const PaginationSchema = v.object({
  limit: v.number(),
  offset: v.number(),
  nextPage: v.nullable(v.string()),
  previousPage: v.nullable(v.string()),
});
/** `{ limit, offset, nextPage, previousPage }`: `limit` is the page size applied (after clamping to PAGE_LIMIT_MAX). */
export type Pagination = v.InferOutput<typeof PaginationSchema>;

/** One enrolled user: the id, and the e-mail it was identified by (null when identified by wallet only). */
export const EnrolledUserSchema = v.object({ serviceUserId: ServiceUserIdSchema, email: v.nullable(v.string()) });
/** `{ serviceUserId, email }`, as EnrolledUserSchema reads it. */
export type EnrolledUser = v.InferOutput<typeof EnrolledUserSchema>;
/** 200 of GET /group-quests/{questId}/enrolled-users: one page, in enrollment order. */
export const EnrolledUsersResponseSchema = v.object({
  success: v.literal(true),
  data: v.array(EnrolledUserSchema),
  pagination: PaginationSchema,
});
/** `{ success: true, data: EnrolledUser[], pagination }`, as EnrolledUsersResponseSchema reads it. */
export type EnrolledUsersResponse = v.InferOutput<typeof EnrolledUsersResponseSchema>;
