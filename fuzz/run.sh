#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (FUZZ_SECONDS each, default 60)
# from the committed corpus; fails on the first crash, leaving the input in
# fuzz/artifacts/<target>/. Installs cargo-fuzz when missing. The stable
# toolchain is enough: RUSTC_BOOTSTRAP lets it take cargo-fuzz's flags, and
# no sanitizer is used (the project has no unsafe code; panics, overflow
# checks and debug assertions are what the targets catch).
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH="${FUZZ_SECONDS:-60}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked --version 0.13.2
fi
export RUSTC_BOOTSTRAP=1
cargo fuzz build -s none
for target in message uri_template tool_arguments; do
    echo "== fuzz $target for ${SECONDS_EACH}s"
    # A scratch copy of the corpus: the run adds inputs, the checkout stays clean.
    work="$(mktemp -d)"
    cp -r "corpus/$target/." "$work/"
    timeout $((SECONDS_EACH * 3 + 120)) cargo fuzz run -s none "$target" "$work" -- -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>&1 \
        | grep -E "^(Done|stat::number_of_executed_units|==.*ERROR|thread .* panicked)" || true
    status="${PIPESTATUS[0]}"
    rm -rf "$work"
    if [ "$status" -ne 0 ]; then
        echo "fuzz target $target failed; the crashing input is under fuzz/artifacts/$target/"
        exit 1
    fi
done
