export * from './limits.js';
export * from './headers.js';
export * from './fields.js';
export * from './bodies.js';
export * from './responses.js';
export * from './batch.js';
export * from './paths.js';
export * from './issues.js';
