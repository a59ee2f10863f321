#!/usr/bin/env bash
# Overhead curves as functions of n at m = 2, like [MP Fig. 7] (docs/overheads.md, "Curves in n"):
# builds the CLI with --release, then runs `schedlab measure curves` for every architecture this
# build knows (unknown ones are skipped with a note), writing the plots, curves.csv and a fitted
# overheads.toml under docs/overheads/, and measures CPMD into the same file.
# Takes about (number of architectures) x 8 x 3 s of runs plus the build; extra arguments go to
# `schedlab measure curves` (e.g. --arch partitioned,global-lock --duration 1s). The tick (Δtck
# and tick_period) is measured too (--measure-tick), as the overhead-aware analysis needs it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --release -q -p schedlab
BIN="$ROOT/target/release/schedlab"
OUT="${OUT:-docs/overheads}"
"$BIN" measure curves --out "$OUT" --cpus 2 --tasks 2,5,10,20,40,60,80,100 \
    --util-per-cpu 0.6 --periods loguniform:10ms..100ms/1ms --duration 3s --sets 1 --measure-tick "$@"
"$BIN" measure cpmd -o "$OUT/overheads.toml"
