export { createEmulator, buildEmulator } from './app.js';
export { startEmulator, type NodeEmulatorOptions, type RunningEmulator } from './server.js';
export type { EmulatorEnv, NodeBindings } from './env.js';
export type { EmulatorOptions, EmulatorMode, RunningServer } from './types.js';
export { FaultConfigSchema, type FaultConfig, type FaultDecision, type FaultName } from './faults.js';
export { EmulatorStateSchema, type EmulatorState } from './state.js';
export type { RequestLogEntry } from './request-log.js';
export { toMicro, fromMicro } from './micro-points.js';
