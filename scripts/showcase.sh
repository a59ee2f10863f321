#!/usr/bin/env bash
# The main job: generate task sets on a 16-CPU platform and compare schedulers by analysis.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "==> building schedlab (release)"
cargo build --release --quiet -p schedlab
BIN="$ROOT/target/release/schedlab"
OUT="$ROOT/out/showcase"
"$BIN" showcase --out "$OUT" "$@"
