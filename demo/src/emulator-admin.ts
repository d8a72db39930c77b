// The emulator's admin routes, mounted by the dev server at /__emulator (no API key: dev mode, loopback only).

export type FaultConfig = {
  seed?: number;
  latencyMs?: number;
  jitterMs?: number;
  errorRate?: number;
  errorStatuses?: (500 | 503 | 429)[];
  retryAfterSeconds?: number;
  lostAckRate?: number;
  lostAckMode?: '503' | 'drop' | 'mixed';
};

async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json().catch(() => ({}))) as { success?: boolean; data?: T; message?: string };
  if (!response.ok || json.success === false) throw new Error(json.message ?? `emulator ${method} ${path}: ${response.status}`);
  return (json.data ?? json) as T;
}

export const emulatorAdmin = {
  getMode: () => admin<{ mode: 'stateful' | 'sandbox' }>('GET', '/mode'),
  setMode: (mode: 'stateful' | 'sandbox') => admin<{ mode: string }>('PUT', '/mode', { mode }),
  getFaults: () => admin<FaultConfig>('GET', '/faults'),
  setFaults: (faults: FaultConfig) => admin<FaultConfig>('PUT', '/faults', faults),
  reset: () => admin<unknown>('POST', '/reset'),
  seed: (body: {
    users?: { serviceUserId?: string; email?: string }[];
    enrollments?: { questId: string; serviceUserId: string; points?: number }[];
  }) => admin<unknown>('POST', '/seed', body),
};
