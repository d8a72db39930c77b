// The relay the wire fuzzer attacks, in a process of its own (node --expose-gc): a crash is its exit, and its heap
// can be measured after a full collection. Options come as JSON in argv[2]; it answers "gc" with its memory.
import { startRelay, type StartRelayOptions } from '../../src/relay/node/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as StartRelayOptions;
const relay = await startRelay({ ...options, host: '127.0.0.1', port: 0 });
const collect = (globalThis as { gc?: () => void }).gc;
process.on('message', (message) => {
  if (message !== 'gc') return;
  // Twice: the first pass may only queue finalizers.
  collect?.();
  collect?.();
  process.send!({ t: 'memory', ...process.memoryUsage() });
});
process.on('SIGTERM', () => void relay.close().then(() => process.exit(0)));
process.send!({ t: 'ready', url: relay.url });
