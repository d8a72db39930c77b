export { createDevServer, DEV_PATHS, DEV_PREFIXES, type DevServer, type DevServerOptions, type DevBindings } from './server.js';
export { startDevServer, assertLoopbackHost, devUrls, originOf, type RunningDevServer } from './serve.js';
export { ConfigError, type ConfigErrorCode } from '../kit/index.js';
export { isLoopbackAddress, isLoopbackHost, isLoopbackOrigin } from '../kit/loopback.js';
export { DEV_POLICY } from './policy.js';
export { DEV_TOKEN_TTL_SECONDS } from './token.js';
