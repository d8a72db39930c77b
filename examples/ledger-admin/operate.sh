#!/bin/sh
# The operator's commands against a relay: test/relay/ledger-example.test.ts runs this file with QUEST and KEY set.
set -eu

# #region cli
export QP_RELAY_URL=https://relay.example.com   # or --relay URL
export QP_ADMIN_TOKEN="$(quest-points token --sub ops --role admin --ttl 10m)"   # or QP_RELAY_SECRET in the env

# the ledger as NDJSON: one entry a line, every page
quest-points ledger export --quest "$QUEST" --outcome acknowledged --from 2026-11-01T00:00:00Z > acknowledged.ndjson
# reverse an award (its key from the ledger): twice is once
quest-points reverse --quest "$QUEST" --key "$KEY"
# ban a bot on every relay sharing the store, and lift it
quest-points ban bot-7 --reason "farming coins"
quest-points unban bot-7
# #endregion cli
