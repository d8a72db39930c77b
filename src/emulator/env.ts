import type { FaultDecision } from './faults.js';
import type { RequestLogEntry } from './request-log.js';

/** What a Node adapter (@hono/node-server) passes as bindings; absent when called in-process. */
export type NodeBindings = { incoming?: { socket?: { destroy(error?: Error): void } } } | undefined;

export type EmulatorEnv = {
  Bindings: NodeBindings;
  Variables: {
    /** This request's log entry, filled in as it is answered. */
    log: RequestLogEntry;
    fault: FaultDecision;
    apiKey: string;
  };
};
