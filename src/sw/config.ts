// The contract between the ready-made worker (worker.ts) and what serves it configured (the Vite plugin): a global set
// by a statement put before the worker's code. The worker is one ES module without imports, so that statement runs
// first.

/** The global holding the configuration written into a served worker: { relayUrl, tokenUrl, storageName?, ... }. */
export const SW_CONFIG_GLOBAL = 'QUEST_POINTS_SW';

export interface WrittenSwConfig {
  relayUrl: string;
  tokenUrl: string;
  storageName?: string;
  tag?: string;
  budgetMs?: number;
}

/** The worker's script with this configuration written in (the registration URL's query still wins over it). */
export function withConfig(workerSource: string, config: WrittenSwConfig): string {
  const defined = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  return `globalThis.${SW_CONFIG_GLOBAL} = ${JSON.stringify(defined)};\n${workerSource}`;
}

/** In the worker: what was written in, or nothing. */
export const writtenConfig = (): Partial<Record<keyof WrittenSwConfig, string | number>> =>
  ((globalThis as Record<string, unknown>)[SW_CONFIG_GLOBAL] ?? {}) as Partial<Record<keyof WrittenSwConfig, string | number>>;
