#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through cargo-fuzz) of every input schedlab reads: task
# files, overhead files, costs files, trace files, experiment files, imported SimSo XML and CSV
# task lists, and every analysis on arbitrary task parameters (fuzz/fuzz_targets/, docs/testing.md).
#
# Usage: scripts/fuzz.sh [SECONDS per target, default 120] [--seed N] [TARGET...]
#
# scripts/test.sh runs this for 20 s per target with a fixed seed; run it longer by hand to
# search deeper (the working corpus in fuzz/corpus/ keeps what earlier runs found). Each target's
# corpus starts from the committed seeds (tests/corpus/, examples/, crates/exp/tests/bad/).
# A crash, a panic, an abort, an input slower than the timeout or an allocation above the limit
# ends the script with a non-zero status; the reproducer is in fuzz/artifacts/TARGET/ and can be
# replayed with `RUSTC_BOOTSTRAP=1 cargo fuzz run -O --debug-assertions -s none TARGET FILE`.
#
# cargo-fuzz (pinned below) is installed on first use. It needs nightly compiler features;
# RUSTC_BOOTSTRAP=1 enables them on the stable toolchain this project uses. The build checks
# integer overflow and debug assertions (--debug-assertions) and uses no sanitizer: the fuzzed
# code is safe Rust, so AddressSanitizer would only slow it down.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO_FUZZ_VERSION=0.13.2
SECONDS_PER_TARGET=120
SEED=1
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
    --seed)
        SEED="$2"
        shift 2
        ;;
    [0-9]*)
        SECONDS_PER_TARGET="$1"
        shift
        ;;
    *)
        TARGETS+=("$1")
        shift
        ;;
    esac
done
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=(task_file overhead_file costs_file trace_file experiment_file analysis simso_xml csv_tasks)
fi

if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    echo "==> installing cargo-fuzz $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --quiet
fi
cd "$ROOT"
export RUSTC_BOOTSTRAP=1
BUILD=(-O --debug-assertions --sanitizer none)
echo "==> building the fuzz targets"
cargo fuzz build "${BUILD[@]}"

# The committed seeds of each target.
seeds() {
    case "$1" in
    task_file) echo tests/corpus/bad tests/corpus/task-files examples/avionics.toml examples/dhall.json examples/ua.toml examples/parallel.toml ;;
    overhead_file) echo tests/corpus/overheads examples/overheads ;;
    costs_file) echo tests/corpus/costs/bad tests/corpus/costs/good examples/costs ;;
    trace_file) echo tests/corpus/traces ;;
    experiment_file) echo tests/corpus/experiments examples/experiments crates/exp/tests/bad ;;
    analysis) echo tests/corpus/analysis ;;
    simso_xml) echo tests/corpus/simso/bad tests/corpus/simso/good examples/simso ;;
    csv_tasks) echo tests/corpus/csv/bad tests/corpus/csv/good ;;
    *)
        echo "unknown fuzz target $1" >&2
        return 1
        ;;
    esac
}

# Per-target libFuzzer options: the largest input and the time one input may take.
options() {
    case "$1" in
    trace_file) echo -max_len=16384 -timeout=20 ;;
    experiment_file) echo -max_len=8192 -timeout=20 ;;
    analysis) echo -max_len=300 -timeout=30 ;;
    simso_xml) echo -max_len=8192 -timeout=20 ;;
    *) echo -max_len=4096 -timeout=20 ;;
    esac
}

LOGS="$ROOT/target/fuzz-logs"
mkdir -p "$LOGS"
for target in "${TARGETS[@]}"; do
    corpus="fuzz/corpus/$target"
    mkdir -p "$corpus"
    for s in $(seeds "$target"); do
        if [ -d "$s" ]; then
            find "$s" -maxdepth 2 -type f -exec cp -n {} "$corpus/" \;
        elif [ -f "$s" ]; then
            cp -n "$s" "$corpus/"
        fi
    done
    log="$LOGS/$target.log"
    echo "==> fuzzing $target for ${SECONDS_PER_TARGET}s (seed $SEED; log $log)"
    # shellcheck disable=SC2046 # options() is a list of words
    if ! cargo fuzz run "${BUILD[@]}" "$target" "$corpus" -- \
        -max_total_time="$SECONDS_PER_TARGET" -seed="$SEED" -rss_limit_mb=2048 \
        -malloc_limit_mb=512 -print_final_stats=1 $(options "$target") >"$log" 2>&1; then
        echo "FUZZ FAILURE in $target; the end of its log:" >&2
        tail -n 60 "$log" >&2
        exit 1
    fi
    runs=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" | grep -oE '[0-9]+' | head -n 1 || true)
    echo "fuzzed $target: ${runs:-?} inputs in ${SECONDS_PER_TARGET}s, corpus of $(find "$corpus" -type f | wc -l) files, no crash"
done
