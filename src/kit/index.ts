// The server kit: what the relay, the emulator and the dev server share (they never import each other).
// Imports only node built-ins, @hono/node-server and protocol.
export * from './errors.js';
export * from './http.js';
export * from './server.js';
export * from './cli.js';
export * from './loopback.js';
export * from './signal.js';
