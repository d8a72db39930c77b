// A Durable Object's storage with Cloudflare's documented limit of 128 keys per get/put/delete call checked on top:
// workerd as miniflare 4.20260426 runs it does not enforce that (a 300-entry put and an 800-key delete pass, on both
// storage backends), so the test workers wrap workerd's own storage in this.
import type { DurableObjectStorageLike } from '../../../src/relay/durable-object-records.js';

const MAX_KEYS = 128;

/** `storage`, each get/put/delete of more than 128 keys refused with a RangeError naming the call. */
export const limited = (storage: DurableObjectStorageLike): DurableObjectStorageLike => {
  const check = <T>(n: number, call: string, then: () => Promise<T>): Promise<T> => {
    if (n > MAX_KEYS) throw new RangeError(`storage.${call}: ${n} keys in one call, the limit is ${MAX_KEYS}`);
    return then();
  };
  return {
    get: (keys) => check(keys.length, 'get', () => storage.get(keys)),
    put: (entries) => check(Object.keys(entries).length, 'put', () => storage.put(entries)),
    delete: (keys) => check(keys.length, 'delete', () => storage.delete(keys)),
    list: (options) => storage.list(options),
    getAlarm: () => storage.getAlarm(),
    setAlarm: (at) => storage.setAlarm(at),
  };
};
