// The ledger's Durable Object in workerd: the shipped LedgerObject, its storage held to Cloudflare's documented 128
// keys per call (limited-storage.ts), with two test routes: POST /alarm (run the hourly trim now) and GET /size.
// The Worker forwards POST /?name=N to the object named N, so each test has an empty ledger of its own.
import type { DurableObjectStorageLike } from '../../../src/relay/durable-object-records.js';
import { LedgerObject } from '../../../src/relay/economy/durable-object-ledger.js';
import { limited } from './limited-storage.js';

export class TestLedger extends LedgerObject {
  readonly storage: DurableObjectStorageLike;

  constructor(state: { storage: DurableObjectStorageLike }) {
    super({ storage: limited(state.storage) });
    this.storage = state.storage;
  }

  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/alarm') {
      await this.alarm();
      return Response.json({ ok: true });
    }
    if (pathname === '/size') return Response.json((await this.storage.list({ limit: 100_000 })).size);
    return super.fetch(request);
  }
}

interface Env {
  LEDGER: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const stub = env.LEDGER.get(env.LEDGER.idFromName(url.searchParams.get('name') ?? 'default'));
    return stub.fetch(new Request(`https://ledger${url.pathname}`, request));
  },
};
