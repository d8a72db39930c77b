/** Known stored: an award another tab (or an earlier page) committed to the shared outbox. */
const STORED = Promise.resolve(true);

/**
 * Each of this tab's awards' `persisted` promise, from award() until it settles, so every award:* event carries it
 * (the HUD says "kept until you close this page" for an award that is only in memory). Awards this tab did not make
 * came from the store: persisted.
 */
export function createDurability() {
  const promises = new Map<string, Promise<boolean>>();
  const of = (key: string): Promise<boolean> => promises.get(key) ?? STORED;
  return {
    track(key: string, persisted: Promise<boolean>) {
      promises.set(key, persisted);
    },
    of,
    /** The award left the outbox: its promise, forgotten here. */
    done(key: string): Promise<boolean> {
      const persisted = of(key);
      promises.delete(key);
      return persisted;
    },
    clear: () => promises.clear(),
  };
}

export type Durability = ReturnType<typeof createDurability>;
