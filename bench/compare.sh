#!/usr/bin/env bash
# Side-by-side throughput of switchboard, rmcp 3.11.0 and the bare ceilings, under the
# shared load generator (../shared/bench: mcp-bench, the hyper+serde and serde
# line-echo ceilings, the rmcp peer), with the server pinned to CPU 1 and the
# load generator to CPU 0. Prints a ratio table of medians.
#
# Usage: bench/compare.sh            (REPS=3 DUR=5 LAB=/tmp/switchboard-lab by default)
# Needs ../shared/bench beside the checkout; builds it into $LAB on first use.
# Every load loop is bounded (switchboard-bench stops after DUR seconds) and targets
# 127.0.0.1 only.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${SHARED_BENCH:-$root/../shared/bench}"
LAB="${LAB:-/tmp/switchboard-lab}"
REPS="${REPS:-3}"
DUR="${DUR:-5}"
[ -d "$shared" ] || { echo "needs the shared harness at $shared (set SHARED_BENCH)"; exit 1; }
if [ ! -x "$LAB/harness/target/release/mcp-bench" ] || [ ! -x "$LAB/peers/rmcp-peer/target/release/rmcp-peer" ]; then
    mkdir -p "$LAB"
    cp -r "$shared/harness" "$shared/peers" "$LAB/" && chmod -R u+w "$LAB"
    (cd "$LAB/harness" && cargo build --release --locked)
    (cd "$LAB/peers/rmcp-peer" && cargo build --release --locked)
fi
(cd "$root" && cargo build --release -p switchboard)
B="$LAB/harness/target/release/mcp-bench"
M="$root/target/release/switchboard"
R="$LAB/peers/rmcp-peer/target/release/rmcp-peer"
out="$(mktemp)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for rep in $(seq 1 "$REPS"); do
    for peer in ceiling rmcp switchboard; do
        case $peer in
            ceiling) cmd=("$LAB/harness/target/release/stdio_echo") ;;
            rmcp) cmd=("$R" stdio) ;;
            switchboard) cmd=("$M" serve --fixtures bench) ;;
        esac
        taskset -c 0 "$B" stdio --window 64 --n 5000000 --duration "$DUR" --warmup-n 2000 --label "$peer|stdio" \
            -- taskset -c 1 "${cmd[@]}" >>"$out"
        port="$(free_port)"
        case $peer in
            ceiling) taskset -c 1 "$LAB/harness/target/release/hello" "$port" jsonrpc >/dev/null 2>&1 & ;;
            rmcp) taskset -c 1 "$R" http "$port" stateless >/dev/null 2>&1 & ;;
            switchboard) taskset -c 1 "$M" serve --fixtures bench --stateless --sse never --http "127.0.0.1:$port" >/dev/null 2>&1 & ;;
        esac
        pid=$!
        sleep 1
        taskset -c 0 "$B" http --url "http://127.0.0.1:$port/mcp" --c 16 --n 5000000 --duration "$DUR" --warmup 1 \
            --pid "$pid" --label "$peer|http" >>"$out" || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
done
python3 - "$out" <<'PY'
import json, statistics, sys, collections
rate = collections.defaultdict(list)
cpu = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    peer, mode = d["label"].split("|")
    r = d.get("msgs_per_s") or d.get("rps")
    if r:
        rate[(peer, mode)].append(r)
    c = d.get("server_cpu_us_per_msg") or d.get("server_cpu_us_per_req")
    if c:
        cpu[(peer, mode)].append(c)
med = lambda xs: statistics.median(xs) if xs else float("nan")
print("| workload | ceiling | rmcp 3.11.0 | switchboard | switchboard / rmcp | switchboard / ceiling |")
print("|---|---|---|---|---|---|")
for mode, name in (("http", "HTTP stateless tools/call, 16 connections (req/s)"), ("stdio", "stdio tools/call, 64 in flight (msgs/s)")):
    c, r, m = (med(rate[(p, mode)]) for p in ("ceiling", "rmcp", "switchboard"))
    print(f"| {name} | {c:,.0f} | {r:,.0f} ({med(cpu[('rmcp', mode)]):.1f} µs CPU) | {m:,.0f} ({med(cpu[('switchboard', mode)]):.1f} µs CPU) | {m / r:.2f}x | {m / c:.0%} |")
PY
rm -f "$out"
