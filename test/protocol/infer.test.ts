import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import type { EmulatorState, EmulatorStateSchema, FaultConfig, FaultConfigSchema } from '../../src/emulator/index.js';
import type { ObjectInput, ObjectOutput, PointsEvent, PointsEventSchema } from '../../src/protocol/index.js';

// ObjectOutput / ObjectInput exist only to give TypeDoc one declaration per key; they must stay valibot's types
// exactly. These are checked by the type checker (npm run typecheck), not at run time.

const Sample = v.object({
  /** A required key. */
  required: v.string(),
  /** An optional key. */
  optional: v.optional(v.number()),
  /** A key with a default: optional as input, present as output. */
  defaulted: v.optional(v.string(), 'x'),
  nullable: v.nullable(v.boolean()),
  nested: v.object({ inner: v.optional(v.string()) }),
});

describe("ObjectOutput and ObjectInput are valibot's inferred types", () => {
  it('for every kind of key', () => {
    expectTypeOf<ObjectOutput<typeof Sample>>().toEqualTypeOf<v.InferOutput<typeof Sample>>();
    expectTypeOf<ObjectInput<typeof Sample>>().toEqualTypeOf<v.InferInput<typeof Sample>>();
    // and the two differ where valibot's do, so the checks above can fail
    expectTypeOf<ObjectOutput<typeof Sample>>().not.toEqualTypeOf<v.InferInput<typeof Sample>>();
  });
  it('for the types declared over a schema', () => {
    expectTypeOf<PointsEvent>().toEqualTypeOf<v.InferOutput<typeof PointsEventSchema>>();
    expectTypeOf<FaultConfig>().toEqualTypeOf<v.InferOutput<typeof FaultConfigSchema>>();
    expectTypeOf<EmulatorState>().toEqualTypeOf<v.InferInput<typeof EmulatorStateSchema>>();
  });
});
