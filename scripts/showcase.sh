#!/usr/bin/env bash
# The main job: build schedlab and run the showcase experiment (examples/experiments/showcase.toml):
# global vs partitioned EDF and RM on 8 CPUs, judged by schedulability analysis and by simulation
# with and without run-time overheads. Writes summary.csv, acceptance.svg/.png, report.md and a
# self-contained report.html into out/showcase (rerunning resumes; delete the folder to start over).
# It also leaves the Python package built into .venv (`import schedlab` works there).
# Extra arguments go to `schedlab experiment` (e.g. --jobs 1).
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "==> building schedlab (release)"
cargo build --release --quiet -p schedlab
BIN="$ROOT/target/release/schedlab"
build_python_package
OUT="$ROOT/out/showcase"
FILE="$ROOT/examples/experiments/showcase.toml"
echo "==> running $FILE"
# out/showcase may hold the results of an older showcase (another config, or the analysis
# report of earlier versions): the experiment refuses to mix them, so keep them aside and
# start fresh instead of failing.
if [ -e "$OUT" ] && ! "$BIN" experiment "$FILE" --out "$OUT" --check >/dev/null 2>&1; then
    ASIDE="$OUT.old-$(date +%Y%m%d-%H%M%S)"
    echo "==> $OUT holds another experiment's results: moved to $ASIDE"
    mv "$OUT" "$ASIDE"
fi
"$BIN" experiment "$FILE" --out "$OUT" "$@"
echo
sed -n '/^## Where acceptance drops/,/^## Run/p' "$OUT/report.md" | sed '$d'
echo "report:  $OUT/report.html  (and report.md)"
echo "plot:    $OUT/acceptance.png  (and .svg)"
echo "data:    $OUT/summary.csv, $OUT/sets.csv"
echo "python:  source .venv/bin/activate; python -c 'import schedlab; print(schedlab.__version__)'"
echo "         (or .venv/bin/python your_script.py; the API is in docs/python.md)"
