import * as v from 'valibot';

/**
 * A body's fields as a table: the servers build their v.object from it (entriesOf), and the browser SDK checks the
 * fields one by one with the same schemas, so its bundle carries no v.object.
 */
export interface BodyField {
  schema: v.GenericSchema;
  optional?: true;
}
export type FieldTable = Record<string, BodyField>;

type ObjectEntries<T extends FieldTable> = {
  [K in keyof T]: T[K] extends { optional: true } ? v.OptionalSchema<T[K]['schema'], undefined> : T[K]['schema'];
};

/** v.object entries from a field table: an optional field may be absent. */
export function entriesOf<T extends FieldTable>(fields: T): ObjectEntries<T> {
  const entries: Record<string, v.GenericSchema> = {};
  for (const [key, { schema, optional }] of Object.entries(fields)) entries[key] = optional ? v.optional(schema) : schema;
  return entries as ObjectEntries<T>;
}
