import type { FaultName } from './faults.js';

/** One service request as the emulator saw it. Never a header value (API_KEY), never a body. */
export interface RequestLogEntry {
  /** 1, 2, 3... in arrival order; a full reset restarts it. */
  seq: number;
  /** ISO 8601 UTC, when the request arrived. */
  at: string;
  /** The HTTP method, as received. */
  method: string;
  /** Path and query as received (still percent-encoded). */
  path: string;
  /** The status sent; 0 when the connection was dropped instead (lost-ack fault). */
  status: number;
  /** The IDEMPOTENCY_KEY, lower-cased, when it was a valid UUID. */
  idempotencyKey?: string;
  /** The fault injected into this request, if any. */
  fault?: FaultName;
  /** Set on an award answered from the idempotency store. */
  replayed?: true;
}

/** The last `size` entries, oldest first, in a ring so a long run stays bounded. */
export function createRequestLog(size: number) {
  let ring: RequestLogEntry[] = [];
  let start = 0;
  let seq = 0;

  return {
    nextSeq: () => ++seq,
    add(entry: RequestLogEntry) {
      if (size <= 0) return;
      if (ring.length < size) ring.push(entry);
      else {
        ring[start] = entry;
        start = (start + 1) % size;
      }
    },
    list: (): RequestLogEntry[] => [...ring.slice(start), ...ring.slice(0, start)],
    /** Forget the entries; `resetSeq` also restarts numbering (a full reset). */
    clear({ resetSeq = false } = {}) {
      ring = [];
      start = 0;
      if (resetSeq) seq = 0;
    },
  };
}

export type RequestLog = ReturnType<typeof createRequestLog>;
