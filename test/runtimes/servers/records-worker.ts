// The idempotency record's Durable Object in workerd, for its sweep: the shipped IdempotencyRecords class with two
// test routes beside its own, POST /sweep (run the alarm's sweep now, as the runtime would when it rings) and GET /size
// (how many keys the storage holds). Cloudflare documents at most 128 keys per get/put/delete call of the storage API;
// workerd as miniflare 4.20260426 runs it does not enforce that (a 300-entry put and an 800-key delete pass, on both
// storage backends), so the object's storage here is workerd's own with the documented limit checked on top (limited-storage.ts).
import { IdempotencyRecords, type DurableObjectStorageLike } from '../../../src/relay/durable-object-records.js';
import { limited } from './limited-storage.js';

export class SweptRecords extends IdempotencyRecords {
  readonly storage: DurableObjectStorageLike;

  constructor(state: { storage: DurableObjectStorageLike }) {
    super({ storage: limited(state.storage) });
    this.storage = state.storage;
  }

  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/sweep') {
      try {
        await this.alarm();
        return Response.json({ ok: true, alarm: await this.storage.getAlarm() });
      } catch (error) {
        return Response.json({ ok: false, error: String(error) }, { status: 500 });
      }
    }
    if (pathname === '/size') return Response.json((await this.storage.list({ limit: 100_000 })).size);
    return super.fetch(request);
  }
}

interface Env {
  RECORDS: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.RECORDS.get(env.RECORDS.idFromName('one')).fetch(request);
  },
};
