#!/usr/bin/env node
// `quest-points <command>`: each face owns its command; this file only dispatches.
const USAGE = `usage: quest-points <command> [options]

commands:
  emulator   run a local Quest Points Service (stateful or sandbox mode)
  relay      run the operator relay in front of a Quest Points Service
  token      print a player token signed with QP_RELAY_SECRET
  dev        run emulator + dev relay on loopback for a game's own dev server
  ledger     export a relay's ledger as NDJSON (quest-points ledger export)
  reverse    reverse an acknowledged award through a relay's admin API
  ban        ban a player on a relay (and every relay sharing its store)
  unban      lift a player's ban
  webhooks   list a relay's webhook dead letters, replay them

quest-points <command> --help shows the command's options.`;

const commands: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  emulator: async () => (await import('./emulator/cli.js')).emulatorCommand,
  relay: async () => (await import('./relay/cli.js')).relayCommand,
  token: async () => (await import('./relay/cli.js')).tokenCommand,
  dev: async () => (await import('./dev/cli.js')).devCommand,
  ledger: async () => (await import('./relay/economy/cli.js')).ledgerCommand,
  reverse: async () => (await import('./relay/economy/cli.js')).reverseCommand,
  ban: async () => (await import('./relay/economy/cli.js')).banCommand,
  unban: async () => (await import('./relay/economy/cli.js')).unbanCommand,
  webhooks: async () => (await import('./relay/economy/webhooks-cli.js')).webhooksCommand,
};

const [name, ...argv] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  console.log(USAGE);
  process.exit(name ? 0 : 2);
}
const load = commands[name];
if (!load) {
  console.error(`quest-points: unknown command "${name}"\n\n${USAGE}`);
  process.exit(2);
}
await (await load())(argv);
