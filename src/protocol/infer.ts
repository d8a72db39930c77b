import type * as v from 'valibot';

// v.InferOutput reaches an optional key of an object schema through two mapped types (valibot's MarkOptional), so
// the key's property has its declaration twice: an editor still shows its doc comment, but TypeDoc warns that the
// property has "multiple declarations with a comment". These map over the schema's own entries instead, so each
// key keeps exactly one declaration (the entry, with its doc comment), and take every type from valibot's inference
// (a key made readonly by v.readonly() would lose that here; no schema of ours uses it).
// test/protocol/infer.test.ts checks that they are valibot's types exactly.

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type Flat<T> = { [K in keyof T]: T[K] };
type Documented<TEntries, T> = Flat<
  { -readonly [K in keyof TEntries as K extends OptionalKeys<T> ? never : K]: K extends keyof T ? T[K] : never } & {
    -readonly [K in keyof TEntries as K extends OptionalKeys<T> ? K : never]?: K extends keyof T ? T[K] : never;
  }
>;

/**
 * An object schema of valibot's (v.object, v.strictObject, v.looseObject...): a schema with its entries.
 * @internal
 */
export type ObjectSchemaLike = v.GenericSchema & { readonly entries: v.ObjectEntries };

/**
 * A valibot object schema's output type, exactly `v.InferOutput<S>`, each key with the doc comment of its entry.
 * For this package's own declarations (`interface X extends ObjectOutput<typeof XSchema> {}`), hence internal.
 * @internal
 */
export type ObjectOutput<S extends ObjectSchemaLike> = Documented<S['entries'], v.InferOutput<S>>;

/**
 * A valibot object schema's input type, exactly `v.InferInput<S>` (defaults make keys optional), documented alike.
 * @internal
 */
export type ObjectInput<S extends ObjectSchemaLike> = Documented<S['entries'], v.InferInput<S>>;
