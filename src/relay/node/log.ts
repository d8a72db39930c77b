// The relay's access log on Node: pino's asynchronous destination (SonicBoom). A request's line goes into a buffer and
// reaches stderr in large writes off the request's path; console.error (the default sink) is a synchronous write
// per line. Same records as every sink: the core builds them, secrets already masked (context.ts), so this only
// filters by level and serialises.
import pino from 'pino';
import type { LogSink } from '../logger.js';
import { type LogLevel, parseLogLevel } from './settings.js';

export interface PinoSinkOptions {
  /** Lowest level written; default QP_LOG_LEVEL or 'info'. */
  level?: LogLevel | undefined;
  /** File descriptor or path; default 2 (stderr: stdout stays free for the CLI's own output). */
  destination?: number | string;
}

export interface PinoSink {
  sink: LogSink;
  /** Writes out what is buffered; call before the process exits (pino also does on a normal exit). */
  flush(): Promise<void>;
}

/** pino's level numbers: a record is written when its level is at least the sink's. */
const LEVEL_VALUES: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY };

/** The longest a written line waits in the buffer. */
export const FLUSH_EVERY_MS = 1000;

export function createPinoSink(options: PinoSinkOptions = {}): PinoSink {
  const level = options.level ?? parseLogLevel(process.env.QP_LOG_LEVEL, 'QP_LOG_LEVEL') ?? 'info';
  // The buffer goes out at 16 KB (about 80 lines; at 4 KB one profile put the writes at 5 % of busy time), and at least
  // once a second (SonicBoom's periodicFlush, no fsync): a quiet relay's lines (and Bun's, whose stream wrote them
  // only at exit) reach stderr within a second.
  const destination = pino.destination({
    dest: options.destination ?? 2,
    sync: false,
    minLength: 16_384,
    maxWrite: 65_536,
    periodicFlush: FLUSH_EVERY_MS,
    // Lines as Buffers: SonicBoom keeps each buffered chunk's length. Given strings, it appends each line to the
    // last chunk and measures that chunk's UTF-8 length again (Buffer.byteLength flattens it, a copy of up to
    // maxWrite bytes per line): 8.8 KB of garbage per award, the largest share of the relay's (42.9 KB in all).
    contentMode: 'buffer',
  });
  // The record is already the line (the core built it, secrets masked): serialised as the default sink does, and
  // written into the buffer; pino's logger on top would only re-serialise it (4 % of the relay's CPU per award).
  const lowest = LEVEL_VALUES[level];
  return {
    sink: (record) => {
      if (LEVEL_VALUES[record.level] >= lowest) destination.write(Buffer.from(`${JSON.stringify(record)}\n`) as unknown as string); // contentMode 'buffer' (its types say string only)
    },
    flush: () => new Promise<void>((resolve) => destination.flush(() => resolve())),
  };
}
