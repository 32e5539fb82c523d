#!/usr/bin/env bash
# Runs a script of clients/ with the pinned official MCP client SDKs and the
# Node 22 they run on (package.json), installing them from the npm registry
# into clients/node_modules on first use.
#
# Usage: clients/run.sh <script.mjs> [args...]
# Example: clients/run.sh progress.mjs v1 stdio 20 target/debug/switchboard
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

. "$here/../tests/node-packages.sh"
node_packages "$here" "the MCP client SDKs" @modelcontextprotocol/sdk @modelcontextprotocol/client
script="$1"
shift
exec node "$here/$script" "$@"
