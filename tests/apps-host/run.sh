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

. "$here/../node-packages.sh"
node_packages "$here" "the MCP Apps host packages" \
    @modelcontextprotocol/ext-apps puppeteer-core @anthropic-ai/mcpb esbuild
script="$1"
shift
exec node "$here/$script" "$@"
