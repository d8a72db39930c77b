import * as v from 'valibot';
import { EventPointsSchema, ServiceUserIdSchema } from './fields.js';

/** Every error body of the service (and the relay). */
export const ErrorBodySchema = v.object({ success: v.literal(false), message: v.string() });
export type ErrorBody = v.InferOutput<typeof ErrorBodySchema>;

/** 200 of POST /group-quests/<questId>/points. */
export const AwardResponseSchema = v.object({ success: v.literal(true) });
export type AwardResponse = v.InferOutput<typeof AwardResponseSchema>;

/** 200 of POST /users/identify. */
export const IdentifyResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ serviceUserId: ServiceUserIdSchema }),
});
export type IdentifyResponse = v.InferOutput<typeof IdentifyResponseSchema>;

/** One entry of a user's history. createdAt: ISO 8601 UTC with milliseconds. */
export const PointsEventSchema = v.object({
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  eventPoints: EventPointsSchema,
  eventName: v.string(),
  eventDescription: v.string(),
});
export type PointsEvent = v.InferOutput<typeof PointsEventSchema>;

/** History is newest first. */
export const PointsSummarySchema = v.object({ totalPoints: v.number(), history: v.array(PointsEventSchema) });
export type PointsSummary = v.InferOutput<typeof PointsSummarySchema>;
export const PointsResponseSchema = v.object({ success: v.literal(true), data: PointsSummarySchema });
export type PointsResponse = v.InferOutput<typeof PointsResponseSchema>;

export const EnrollmentStatusSchema = v.object({
  serviceUserId: ServiceUserIdSchema,
  enrolled: v.boolean(),
  currentPoints: v.number(),
});
export type EnrollmentStatus = v.InferOutput<typeof EnrollmentStatusSchema>;
export const EnrollmentResponseSchema = v.object({ success: v.literal(true), data: EnrollmentStatusSchema });
export type EnrollmentResponse = v.InferOutput<typeof EnrollmentResponseSchema>;

/** nextPage / previousPage: null at the ends, else the relative URL of that page. */
export const PaginationSchema = v.object({
  limit: v.number(),
  offset: v.number(),
  nextPage: v.nullable(v.string()),
  previousPage: v.nullable(v.string()),
});
export type Pagination = v.InferOutput<typeof PaginationSchema>;

export const EnrolledUserSchema = v.object({ serviceUserId: ServiceUserIdSchema, email: v.nullable(v.string()) });
export type EnrolledUser = v.InferOutput<typeof EnrolledUserSchema>;
export const EnrolledUsersResponseSchema = v.object({
  success: v.literal(true),
  data: v.array(EnrolledUserSchema),
  pagination: PaginationSchema,
});
export type EnrolledUsersResponse = v.InferOutput<typeof EnrolledUsersResponseSchema>;
