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
#
# `bench/hot-symbols.sh --check` changes nothing: it says how many of the
# functions that run until the fixtures answer `initialize` the file still
# orders in the binary, and fails below 98%. Renaming a module renames its
# functions (the house moves of 2026-11 left 453 of 984), and thin LTO renames
# the functions it promotes across crates whenever their crate's code changes
# (`....llvm.<hash>`; 36 of 911 after one day's changes, 1.4 MB more RSS), so
# run it after changing a crate start-up runs, moves and dependency upgrades.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then check=1; fi
# HOT_BIN=path uses that binary as built instead of building one.
if [ -z "${HOT_BIN:-}" ]; then cargo build --release -p switchboard; fi
bin="${HOT_BIN:-${CARGO_TARGET_DIR:-target}/release/switchboard}"
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
# Until `initialize` is answered and `notifications/initialized` is read: what
# a client has made the server run when it measures the memory after start-up.
head -n 2 "$work/session.jsonl" > "$work/initialize.jsonl"
functions() {
    # Through a pipe, as clients connect (a file on stdin takes the
    # blocking-read path instead of the reactor's). Three runs, united: some
    # functions run only when a message arrives while the reader polls.
    # Functions callgrind names only by address (crtbegin's `frame_dummy`,
    # run before `main`) get the name the binary's symbol table gives the
    # address they start at.
    local session=$1
    shift
    for run in 1 2 3; do
        cat "$session" | valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$run" "$@" \
            > /dev/null 2> "$work/valgrind.log"
    done
    cat "$work"/cg.? | grep -oE '^c?fn=\([0-9]+\) .*' | sed -E 's/^c?fn=\([0-9]+\) //' | sort -u > "$work/ran"
    {
        grep -v '^0x' "$work/ran"
        grep '^0x' "$work/ran" | awk 'NR == FNR { start[$1] = $2; next } ($1 in start) { print start[$1] }' \
            "$work/starts" -
    } | sort -u
}
nm "$bin" | awk '{print $NF}' | sort -u > "$work/defined"
# Where each function of the binary starts, as callgrind writes an unnamed one.
nm "$bin" | awk '$2 ~ /^[tT]$/ { print "0x" $1, $3 }' > "$work/starts"
if [ "$check" = 1 ]; then
    functions "$work/initialize.jsonl" "$bin" serve --fixtures bench | comm -12 - "$work/defined" > "$work/start"
    ordered=$(sort -u crates/switchboard/hot-symbols.txt | comm -12 - "$work/start" | wc -l)
    total=$(wc -l < "$work/start")
    echo "hot-symbols.txt orders $ordered of the $total functions that run until initialize is answered and initialized read"
    [ $((ordered * 50)) -ge $((total * 49)) ] || { echo "stale: rerun bench/hot-symbols.sh"; exit 1; }
    exit 0
fi
# Three tiers, each laid out after the one before: what runs until the
# fixtures answer `initialize` and read `notifications/initialized` (the
# cold-start and memory figures), the rest
# of the fixtures' session (a tool's schema compiles on its first call), then
# what project mode on this repository adds.
# Plus what a real start runs and callgrind cannot see (found with
# `perf record -e page-faults -d` on the binary laid out without them):
# crt1's `_start`, which callgrind calls "(below main)", and the SHA-256
# block functions, which `sha2` picks by the CPU's features at run time
# (valgrind's emulated CPU lacks the ones this machine's has).
{
    functions "$work/initialize.jsonl" "$bin" serve --fixtures bench
    grep -E '^(_start|_ZN4sha26sha256.*)$' "$work/defined"
} | sort -u | comm -12 - "$work/defined" > "$work/start"
functions "$work/session.jsonl" "$bin" serve --fixtures bench | comm -12 - "$work/defined" \
    | comm -23 - "$work/start" > "$work/first"
functions "$work/session.jsonl" "$bin" serve . | comm -12 - "$work/defined" \
    | comm -23 - <(sort -u "$work/start" "$work/first") > "$work/then"
cat "$work/start" "$work/first" "$work/then" > crates/switchboard/hot-symbols.txt
echo "crates/switchboard/hot-symbols.txt: $(wc -l < "$work/start") + $(wc -l < "$work/first") + $(wc -l < "$work/then") functions"
