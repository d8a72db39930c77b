/**
 * A random (v4) UUID: crypto.randomUUID() where it exists. It exists only in secure contexts, so a game served over
 * plain http on a LAN address (a phone testing a dev build) has none, while crypto.getRandomValues(), which every
 * context has, fills the same pattern: each 0 or 1 a random hex digit, each 8 one of 8, 9, a, b (the variant), the
 * 4 kept (the version). Idempotency keys, tab ids and lease owners come from here.
 */
export const uuid = (): string =>
  crypto.randomUUID?.() ??
  '10000000-1000-4000-8000-100000000000'.replace(/[018]/g, (c) =>
    (Number(c) ^ ((crypto.getRandomValues(new Uint8Array(1))[0] ?? 0) & (15 >> (Number(c) / 4)))).toString(16),
  );
