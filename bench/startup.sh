#!/usr/bin/env bash
# Cold start, RSS after `initialize`, and the full `resources/list` walk (10,000 resources in
# pages of 100) of switchboard and rmcp 3.11.0, in one run, under the shared harness's
# `mcp-bench` (`../shared/bench`): stdio, and stateless HTTP (handshake revision, no session;
# switchboard with `--stateless --sse never`, as `../shared/bench/run_all.sh` starts it).
# Servers pinned to CPU 1, mcp-bench to CPU 0; the servers take turns in every repetition, so
# the ratios compare numbers from the same minutes. Prints medians and ratios.
#
# Usage: bench/startup.sh [SWITCHBOARD_BIN]   (REPS=5 by default; LAB as in bench/compare.sh)
#        BEFORE=OTHER_BIN bench/startup.sh ...  also runs another build (e.g. main's) as "before"
# Every loop is bounded (mcp-bench: --reps walks or starts); all traffic is to 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${SHARED_BENCH:-$root/../shared/bench}"
LAB="${LAB:-/tmp/switchboard-lab}"
REPS="${REPS:-5}"
M="${1:-${CARGO_TARGET_DIR:-$root/target}/release/switchboard}"
[ -x "$M" ] || { echo "no switchboard binary at $M (cargo build --release -p switchboard)"; exit 1; }
if [ ! -x "$LAB/harness/target/release/mcp-bench" ] || [ ! -x "$LAB/peers/rmcp-peer/target/release/rmcp-peer" ]; then
    [ -d "$shared" ] || { echo "needs the shared harness at $shared (set SHARED_BENCH)"; exit 1; }
    mkdir -p "$LAB"
    cp -r "$shared/harness" "$shared/peers" "$LAB/" && chmod -R u+w "$LAB"
    (cd "$LAB/harness" && cargo build --release --locked)
    (cd "$LAB/peers/rmcp-peer" && cargo build --release --locked)
fi
B="$LAB/harness/target/release/mcp-bench"
R="$LAB/peers/rmcp-peer/target/release/rmcp-peer"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for rep in $(seq 1 "$REPS"); do
    for peer in rmcp switchboard ${BEFORE:+before}; do
        case $peer in
            rmcp) stdio=("$R" stdio) ;;
            switchboard) stdio=("$M" serve --fixtures bench) ;;
            before) stdio=("$BEFORE" serve --fixtures bench) ;;
        esac
        taskset -c 0 "$B" cold --reps 5 --label "$peer|cold" -- taskset -c 1 "${stdio[@]}" >>"$out"
        taskset -c 0 "$B" list --reps 3 --label "$peer|list-stdio" -- taskset -c 1 "${stdio[@]}" >>"$out"
        port="$(free_port)"
        case $peer in
            rmcp) taskset -c 1 "$R" http "$port" stateless >/dev/null 2>&1 & ;;
            switchboard | before) taskset -c 1 "${stdio[0]}" serve --fixtures bench --stateless --sse never --http "127.0.0.1:$port" >/dev/null 2>&1 & ;;
        esac
        pid=$!
        for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
        taskset -c 0 "$B" list --url "http://127.0.0.1:$port/mcp" --reps 3 --label "$peer|list-http" >>"$out" || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
done
python3 - "$out" <<'PY'
import json, statistics, sys, collections
ms, rss = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    d = json.loads(line)
    peer, what = d["label"].split("|")
    ms[(peer, what)].extend(d.get("all_ms") or [d["median_ms"]])
    if "rss_after_init_kb" in d:
        rss[peer].append(d["rss_after_init_kb"] / 1024)
med = lambda xs: statistics.median(xs) if xs else float("nan")
before = any(peer == "before" for peer, _ in ms)
head = "| measure | switchboard | rmcp 3.11.0 | switchboard / rmcp |" + (" before | before / rmcp |" if before else "")
print(head)
print("|---" * (head.count("|") - 1) + "|")
rows = [(name, {p: med(ms[(p, what)]) for p in ("switchboard", "rmcp", "before")}, 2)
        for what, name in (("cold", "cold start, spawn -> `initialize` answered (stdio), ms"),
                           ("list-stdio", "10,000 resources in pages of 100, stdio, ms"),
                           ("list-http", "10,000 resources in pages of 100, stateless HTTP, ms"))]
rows.append(("RSS after `initialize` (stdio), MB", {p: med(rss[p]) for p in ("switchboard", "rmcp", "before")}, 1))
for name, v, digits in rows:
    line = f"| {name} | {v['switchboard']:.{digits}f} | {v['rmcp']:.{digits}f} | {v['switchboard'] / v['rmcp']:.2f}x |"
    if before:
        line += f" {v['before']:.{digits}f} | {v['before'] / v['rmcp']:.2f}x |"
    print(line)
PY
