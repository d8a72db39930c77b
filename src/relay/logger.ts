/** One structured log line. Never carries a header value, a token or the API key. */
export interface LogRecord {
  time: string;
  level: 'info' | 'warn' | 'error';
  /** Absent on records about the relay itself (a counter store outage), not about one request. */
  requestId?: string;
  method?: string;
  path?: string;
  status?: number;
  ms?: number;
  /** A refusal's code (protocol/refusal.ts), on the access line of a request the relay refused with one. */
  code?: string;
  /** Why the request was refused: the refusal's message, secrets masked (on the access line of every refusal). */
  reason?: string;
  msg: string;
}

/** Where the relay writes its log records (RelayOptions `logger`); default one JSON line per record on stderr. */
export type LogSink = (record: LogRecord) => void;

/** Default sink: one JSON line per record on stderr (stdout stays free for the CLI's own output). */
export const jsonLinesToStderr: LogSink = (record) => {
  console.error(JSON.stringify(record));
};

export const levelOfStatus = (status: number): LogRecord['level'] => (status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info');
