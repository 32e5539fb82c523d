#!/usr/bin/env bash
# Runs the official MCP conformance suite against
# `switchboard serve --http 127.0.0.1:0 --fixtures conformance`, a fresh
# server per run. package.json pins two releases side by side, installed with
# the Node 22 they need from the npm registry into conformance/node_modules:
# the current release (@modelcontextprotocol/conformance) and the pre-release
# line that tests 2026-07-28 (npm alias conformance-alpha).
#
# Usage: conformance/run.sh [path/to/switchboard] [RUN...]
#   (default switchboard: builds target/debug/switchboard; default RUN: all of them)
# RUN is one of
#   stable            0.1.16, --suite all; expected-failures.yml (empty)
#   alpha-all         0.2.0-alpha.12, --suite all
#   alpha-2025-11-25  0.2.0-alpha.12, --requirements 2025-11-25
#   alpha-2026-07-28  0.2.0-alpha.12, --requirements 2026-07-28
#   alpha-skills      0.2.0-alpha.12, the sep-2640-skills-* scenarios against
#                     `switchboard serve conformance/skills-folder` (a skills
#                     folder on disk), each check run: a SKIPPED one fails it
#   (the alpha runs share expected-failures-alpha.yml)
# Exit status: 0 when every run passes. A run passes when exactly the
# scenarios its expected-failures file lists fail (a WARNING counts as a
# failure): a listed scenario that passes fails the run too, so the lists
# never go stale. The suite judges that for the scenarios it scores; judge()
# below holds every scenario that ran to it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
stable="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
alpha="$here/node_modules/conformance-alpha/dist/index.js"

. "$root/tests/node-packages.sh"
node_packages "$here" "the conformance suites" \
    @modelcontextprotocol/conformance/dist/index.js conformance-alpha/dist/index.js

switchboard="${1:-}"
if [ -z "$switchboard" ]; then
    (cd "$root" && cargo build -p switchboard)
    switchboard="$root/target/debug/switchboard"
fi
shift || true
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(stable alpha-all alpha-2025-11-25 alpha-2026-07-28 alpha-skills)

pid=
trap '[ -z "$pid" ] || { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }' EXIT

# Starts switchboard in $1 serving the rest of the arguments (default:
# --fixtures conformance) and sets $pid and $url.
start_switchboard() {
    local out="$1" served=("${@:2}")
    [ ${#served[@]} -gt 0 ] || served=(--fixtures conformance)
    "$switchboard" serve --http 127.0.0.1:0 "${served[@]}" >"$out/switchboard.out" 2>"$out/switchboard.err" &
    pid=$!
    url=
    for _ in $(seq 1 100); do
        url="$(grep -o 'http://[^ ]*' "$1/switchboard.out" || true)"
        [ -n "$url" ] && return 0
        sleep 0.1
    done
    echo "switchboard did not start:"; cat "$1/switchboard.err"; return 1
}

stop_switchboard() {
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    pid=
}

# Judges the results in $1 against the expected-failures file $2 (with a
# third argument no-skips, a SKIPPED check fails its scenario too), whatever
# the suite scored: every scenario that ran with a FAILURE or a WARNING must
# be listed, and every listed scenario that ran must have one. (With
# --requirements the suite scores only the revision's required scenarios;
# this holds the pending and extension ones to the list as well.) Prints the
# scenarios and checks per status.
judge() {
    python3 - "$1" "$2" <<'PY'
import collections, glob, json, os, re, sys
results, expected_file = sys.argv[1], sys.argv[2]
no_skips = sys.argv[3:] == ["no-skips"]
listed = {m.group(1) for m in re.finditer(r"^\s*-\s*([\w./-]+)\s*$", open(expected_file).read(), re.M)}
checks, ran, failed = collections.Counter(), set(), set()
for path in glob.glob(results + "/*/checks.json"):
    scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", os.path.basename(os.path.dirname(path)))
    statuses = [c["status"] for c in json.load(open(path))]
    checks.update(statuses)
    ran.add(scenario)
    if "FAILURE" in statuses or "WARNING" in statuses or (no_skips and "SKIPPED" in statuses):
        failed.add(scenario)
print(f"scenarios: {len(ran) - len(failed)} of {len(ran)} pass; checks: {dict(checks)}")
unexpected, stale = sorted(failed - listed), sorted((listed & ran) - failed)
for name in unexpected:
    print(f"unexpected failure: {name}")
for name in stale:
    print(f"listed as failing but passes: {name}")
sys.exit(1 if unexpected or stale or not ran else 0)
PY
}

# Runs one RUN; returns the suite's exit status.
run() {
    local name="$1" suite expected args served=() scenarios=() judging=()
    case "$name" in
        stable) suite="$stable" expected="$here/expected-failures.yml" args=(--suite all) ;;
        alpha-all) suite="$alpha" expected="$here/expected-failures-alpha.yml" args=(--suite all) ;;
        alpha-2025-11-25 | alpha-2026-07-28)
            suite="$alpha" expected="$here/expected-failures-alpha.yml" args=(--requirements "${name#alpha-}") ;;
        alpha-skills)
            suite="$alpha" expected="$here/expected-failures-alpha.yml" served=("$here/skills-folder")
            scenarios=(sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory)
            judging=(no-skips) ;;
        *) echo "unknown run $name"; return 2 ;;
    esac
    local out status=0
    out="$(mktemp -d)"
    start_switchboard "$out" "${served[@]}" || return 1
    if [ ${#scenarios[@]} -gt 0 ]; then
        echo "== conformance run $name: $(node "$suite" --version) ${scenarios[*]} against $url"
        for scenario in "${scenarios[@]}"; do
            node "$suite" server --url "$url" --scenario "$scenario" -o "$out/results" || status=$?
        done
    else
        echo "== conformance run $name: $(node "$suite" --version) ${args[*]} against $url"
        node "$suite" server --url "$url" "${args[@]}" --expected-failures "$expected" -o "$out/results" || status=$?
    fi
    stop_switchboard
    judge "$out/results" "$expected" "${judging[@]}" || status=1
    echo "== run $name: exit status $status"
    return $status
}

failed=()
for name in "${runs[@]}"; do
    run "$name" || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "== failed runs: ${failed[*]}"
    exit 1
fi
echo "== every run passed: ${runs[*]}"
