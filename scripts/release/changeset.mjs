// `npm run changeset -- <command>`: the changesets CLI (add, version, status) on every Node this project supports.
// @changesets/cli 3's bin.js calls module.enableCompileCache(), which Node 20 lacks (TypeError before anything runs),
// while the CLI itself runs on Node 20.19 (`version` and `status` tried): this starts the CLI without that call.
await import('@changesets/cli');
