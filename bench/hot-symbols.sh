#!/usr/bin/env bash
# Regenerates crates/switchboard/hot-symbols.txt, the order in which the linker
# lays out the functions switchboard runs at start-up and on its first requests.
#
# Why: a process's resident memory is mostly the code pages it touched, and
# the kernel maps code in 64 KB windows around each page fault. Scattered
# over a 14 MB .text, the few hundred functions that start the server and
# answer `initialize` touched almost 6 MB; laid out together they touch
# about 2.5 MB (RSS after initialize 11.3 MB -> 7.8 MB, see the README's
# Performance section). Names the file lists but the binary no longer has
# are skipped, so a stale file only loses some of the gain: rerun this after
# dependency upgrades (switchboard-bench's RSS column shows when it is due).
#
# Needs valgrind (callgrind lists every function a run executes).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p switchboard
bin="${CARGO_TARGET_DIR:-target}/release/switchboard"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sessions whose code goes first: the bench fixtures (what the memory
# and start-up figures measure), then project mode over this repository.
cat > "$work/session.jsonl" <<'JSON'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hot-symbols","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}
{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{}}
{"jsonrpc":"2.0","id":5,"method":"ping"}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"message":"hello"}}}
JSON
functions() {
    # Through a pipe, as clients connect (a file on stdin takes the
    # blocking-read path instead of the reactor's).
    cat "$work/session.jsonl" | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.out" "$@" \
        > /dev/null 2> "$work/valgrind.log"
    grep -oE '^c?fn=\([0-9]+\) .*' "$work/cg.out" | sed -E 's/^c?fn=\([0-9]+\) //' | sort -u
}
nm "$bin" | awk '{print $NF}' | sort -u > "$work/defined"
functions "$bin" serve --fixtures bench | comm -12 - "$work/defined" > "$work/first"
functions "$bin" serve . | comm -12 - "$work/defined" | comm -23 - "$work/first" > "$work/then"
cat "$work/first" "$work/then" > crates/switchboard/hot-symbols.txt
echo "crates/switchboard/hot-symbols.txt: $(wc -l < "$work/first") + $(wc -l < "$work/then") functions"
