#!/usr/bin/env bash
# Coverage-guided fuzzing of the task-file and overhead-file parsers and of every analysis (libFuzzer through
# cargo-fuzz). cargo-fuzz needs nightly compiler features; RUSTC_BOOTSTRAP=1 enables them on
# the stable toolchain this project uses. Usage: scripts/fuzz.sh [SECONDS per target, default 120]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_PER_TARGET="${1:-120}"
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cd "$ROOT"
export RUSTC_BOOTSTRAP=1
mkdir -p fuzz/corpus/task_file fuzz/corpus/analysis fuzz/corpus/overhead_file
cp -n tests/corpus/bad/* examples/* fuzz/corpus/task_file/ 2>/dev/null || true
cp -n examples/overheads/* fuzz/corpus/overhead_file/ 2>/dev/null || true
cargo fuzz run -O --debug-assertions task_file fuzz/corpus/task_file -- \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=4096
cargo fuzz run -O --debug-assertions overhead_file fuzz/corpus/overhead_file -- \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=4096
cargo fuzz run -O --debug-assertions analysis fuzz/corpus/analysis -- \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=300 -timeout=30
