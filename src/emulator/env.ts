import type { FaultDecision } from './faults.js';
import type { RequestLogEntry } from './request-log.js';

/** What a Node adapter (@hono/node-server) passes as bindings; absent when called in-process. */
export type NodeBindings =
  | {
      incoming?: {
        socket?: {
          /** Cut the connection without an answer: how the lost-acknowledgement fault drops one. */
          destroy(error?: Error): void;
        };
      };
    }
  | undefined;

/** The Hono environment of the emulator's app: what its middleware hands the route handlers. */
export type EmulatorEnv = {
  /** Set by @hono/node-server; absent when the app is called in-process. */
  Bindings: NodeBindings;
  /** Per-request values the middleware sets. */
  Variables: {
    /** This request's log entry, filled in as it is answered. */
    log: RequestLogEntry;
    /** The faults drawn for this request. */
    fault: FaultDecision;
    /** The API_KEY the request was accepted under. */
    apiKey: string;
  };
};
