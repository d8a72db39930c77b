// The relay's access log on Node: pino on an asynchronous destination. A request's line goes into a buffer and
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

/** The longest a written line waits in the buffer. */
export const FLUSH_EVERY_MS = 1000;

export function createPinoSink(options: PinoSinkOptions = {}): PinoSink {
  const level = options.level ?? parseLogLevel(process.env.QP_LOG_LEVEL, 'QP_LOG_LEVEL') ?? 'info';
  // The buffer goes out at 4 KB, and at least once a second (SonicBoom's periodicFlush, no fsync): a quiet relay's
  // lines (and Bun's, whose stream wrote them only at exit) reach stderr within a second.
  const destination = pino.destination({ dest: options.destination ?? 2, sync: false, minLength: 4096, periodicFlush: FLUSH_EVERY_MS });
  // No pid/hostname, the record's own ISO time, the level as a word: the line the default sink writes.
  const logger = pino({ level, base: null, timestamp: false, formatters: { level: (label) => ({ level: label }) } }, destination);
  return {
    sink: (record) => {
      const { level: recordLevel, msg, ...fields } = record;
      logger[recordLevel](fields, msg);
    },
    flush: () => new Promise<void>((resolve) => logger.flush(() => resolve())),
  };
}
