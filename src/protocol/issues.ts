import * as v from 'valibot';

/** The rule an issue states. A missing key reports the key's own schema failing on undefined: say "is required". */
export const ruleOf = (issue: v.BaseIssue<unknown>): string => (issue.input === undefined && issue.kind === 'schema' ? 'is required' : issue.message);

/** "wallet.chain must be a string": the dotted path of the first issue, then its rule. */
export function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return 'invalid input';
  const path = v.getDotPath(issue);
  const rule = ruleOf(issue);
  if (!path) return rule;
  return `${path} ${rule}`;
}

/** What parseWith() found: the schema's output, or a message naming the field and the rule. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Validate without throwing: the message names the field and the rule. */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown, prefix?: string): Parsed<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const message = formatIssues(result.issues);
  return { ok: false, message: prefix ? `${prefix}${message}` : message };
}
