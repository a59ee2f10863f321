#!/usr/bin/env bash
# The wheel as a user gets it (docs/python.md, "Install from the wheel"): `maturin build
# --release`, its metadata checked, `pip install` of that file into a fresh virtualenv in a
# temporary folder outside the repository (numpy from the package index), then, from a folder
# with no repository in sight, `import schedlab` doing real work and the `schedlab` command
# (analyze, simulate, gen, a usage error), with `schedlab --version` equal to
# `schedlab.__version__`, to the wheel's version and to the Cargo workspace version.
#
# "No repository in sight": the checks run in a private mount namespace with an empty tmpfs
# mounted over the repository (`unshare --mount`, as root, or with a user namespace), so a
# stray path into the source tree fails instead of passing quietly; they also check that
# `schedlab.__file__`, the `schedlab` command and every `sys.path` entry lie outside the
# repository. Where no mount namespace can be made, the path checks run alone and the script
# says so on a line starting with "SKIPPED LOUDLY" (scripts/test.sh lists it among the skips).
#
# Incremental: the build uses the repository's target folder and the interpreter of
# `maturin develop` (scripts/env.sh), so after the python-build stage of scripts/test.sh it
# only links the wheel. pip's own cache keeps numpy after the first download.
# A failure exits non-zero with what went wrong; a package index that pip cannot reach is a
# failure, never a pass.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"

fail() {
    echo "error: $*" >&2
    exit 1
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/schedlab-wheel.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
case "$WORK/" in "$ROOT"/*) fail "the temporary folder $WORK is inside the repository $ROOT" ;; esac
VERSION="$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)"
[ -n "$VERSION" ] || fail "no [workspace.package] version in Cargo.toml"

echo "==> maturin build --release (target folder $ROOT/target)"
maturin build --release --interpreter "$VENV/bin/python" --out "$WORK/dist"
shopt -s nullglob
WHEELS=("$WORK"/dist/schedlab-*.whl)
[ "${#WHEELS[@]}" -eq 1 ] || fail "expected one wheel in $WORK/dist, found ${#WHEELS[@]}"
WHEEL="${WHEELS[0]}"
echo "==> built $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"

echo "==> checking the wheel's metadata and files"
python - "$WHEEL" "$VERSION" <<'EOF'
import sys, zipfile
from email.parser import Parser

wheel, version = sys.argv[1], sys.argv[2]
problems = []
with zipfile.ZipFile(wheel) as z:
    names = set(z.namelist())
    info = f"schedlab-{version}.dist-info"
    meta = Parser().parsestr(z.read(f"{info}/METADATA").decode())
    entry_points = z.read(f"{info}/entry_points.txt").decode()
expected = {"Name": "schedlab", "Version": version, "License-Expression": "MIT OR Apache-2.0",
            "Requires-Python": ">=3.9"}
for key, value in expected.items():
    if meta.get(key) != value:
        problems.append(f"METADATA {key}: {meta.get(key)!r}, expected {value!r}")
requires = meta.get_all("Requires-Dist") or []
if not any(r.replace(" ", "").startswith("numpy>=") for r in requires):
    problems.append(f"METADATA Requires-Dist has no numpy: {requires}")
if "schedlab=schedlab._cli:main" not in entry_points.replace(" ", ""):
    problems.append(f"entry_points.txt has no `schedlab = schedlab._cli:main`:\n{entry_points}")
needed = ["schedlab/__init__.py", "schedlab/__main__.py", "schedlab/_cli.py", "schedlab/_native.pyi",
          "schedlab/py.typed", "schedlab/_native.abi3.so",
          f"{info}/licenses/LICENSE-MIT", f"{info}/licenses/LICENSE-APACHE"]
problems += [f"missing file {n}" for n in needed if n not in names]
stray = sorted(n for n in names if not n.startswith(("schedlab/", f"{info}/")) or "__pycache__" in n)
problems += [f"unexpected file {n}" for n in stray]
if problems:
    sys.exit("the wheel's metadata or files are wrong:\n  " + "\n  ".join(problems))
print(f"    {meta['Name']} {meta['Version']}, {meta['License-Expression']}, Python {meta['Requires-Python']},"
      f" {', '.join(requires)}; {len(names)} files incl. py.typed and _native.pyi")
EOF

echo "==> a fresh virtualenv in $WORK/venv, pip install of the wheel"
# Without a pip of its own (bootstrapping one costs more than the rest of this test): the
# project's pip installs into it (`pip --python`), exactly what the venv's own pip would.
"$PY" -m venv --without-pip "$WORK/venv"
NEW="$WORK/venv"
if ! python -m pip --python "$NEW/bin/python" install --disable-pip-version-check --no-input -q \
    "$WHEEL" >"$WORK/pip.log" 2>&1; then
    cat "$WORK/pip.log" >&2
    fail "pip could not install $(basename "$WHEEL") into a fresh virtualenv (its output above). The wheel" \
        "needs numpy from the package index (PyPI, or the index in pip's configuration): this test" \
        "installs it as a user would, so it cannot pass without reaching the index."
fi

# The checks, run with nothing of the repository or of its virtualenv in the environment.
cat >"$WORK/checks.sh" <<'EOF'
set -euo pipefail
unset PYTHONPATH PYTHONHOME PYTHONSTARTUP VIRTUAL_ENV CARGO_TARGET_DIR
export PATH="$NEW/bin:/usr/local/bin:/usr/bin:/bin"
mkdir -p "$WORK/run"
cd "$WORK/run"
if [ "$HIDDEN" = 1 ]; then
    [ -z "$(ls -A "$ROOT")" ] || { echo "error: the repository is still visible at $ROOT" >&2; exit 1; }
    echo "    the repository is hidden: $ROOT is an empty tmpfs here"
fi
[ "$(command -v schedlab)" = "$NEW/bin/schedlab" ] || { echo "error: schedlab is $(command -v schedlab), not the venv's" >&2; exit 1; }

echo "    python -c 'import schedlab; …' (generate, analyze, simulate)"
python - <<'PY'
import os, sys
import schedlab
root, venv = os.environ["ROOT"], os.environ["NEW"]
inside = lambda p, d: os.path.realpath(p).startswith(os.path.realpath(d) + os.sep)
assert inside(schedlab.__file__, venv), f"schedlab imported from {schedlab.__file__}, not from {venv}"
bad = [p for p in sys.path if p and inside(p, root)]
assert not bad, f"sys.path has entries in the repository: {bad}"
[ts] = schedlab.generate(tasks=8, utilization=1.5, seed=7, cpus=2)
assert len(ts) == 8 and abs(ts.utilization - 1.5) < 1e-3, ts.utilization
verdicts = {r.test: r.schedulable for r in schedlab.analyze(ts, cpus=2, tests=["gedf", "pedf-ffd"])}
assert verdicts == {"gedf": True, "pedf-ffd": True}, verdicts
sim = schedlab.simulate(ts, cpus=2, policy="pedf", duration="1s", jobs=None)
assert sim["jobs"] > 0 and sim["deadline_misses"] == 0, sim  # pedf-ffd accepted it
# Hand-checked: a (2 ms, 10 ms) and b (3 ms, 15 ms) on one CPU for 30 ms under G-EDF: a's 3 and
# b's 2 jobs, b waits for a (earlier deadline) and ends at 5 ms; RTA gives the same bounds.
two = schedlab.TaskSet([{"name": "a", "wcet": "2ms", "period": "10ms"},
                        {"name": "b", "wcet": "3ms", "period": "15ms"}], cpus=1)
two.save("two.toml")
sim = schedlab.simulate(two, policy="gedf", duration="30ms", jobs=None)
assert (sim["jobs"], sim["deadline_misses"], sim["max_response_ns"]) == (5, 0, 5_000_000), sim
assert schedlab.analyze(two, tests="fp-rta").response_time_bounds_ns == [2_000_000, 5_000_000]
import numpy
print(f"      schedlab {schedlab.__version__} from {schedlab.__file__} (numpy {numpy.__version__}):"
      f" generated U={ts.utilization:.3f}, gedf/pedf-ffd schedulable, simulated without a miss")
PY

echo "    schedlab --version, python -m schedlab --version, schedlab.__version__, the wheel's version"
cli="$(schedlab --version)"
mod="$(python -m schedlab --version)"
py="$(python -c 'import schedlab; print(schedlab.__version__)')"
dist="$(python -c 'import importlib.metadata as m; print(m.version("schedlab"))')"
[ "$cli" = "schedlab $py" ] && [ "$mod" = "$cli" ] && [ "$py" = "$VERSION" ] && [ "$dist" = "$VERSION" ] || {
    echo "error: versions disagree: schedlab --version '$cli', python -m schedlab '$mod'," \
        "schedlab.__version__ '$py', wheel '$dist', Cargo.toml '$VERSION'" >&2
    exit 1
}
echo "      all $VERSION"

echo "    schedlab analyze / simulate / gen on files written here"
schedlab analyze two.toml --test fp-rta --test pedf-ffd --format json >analyze.json
schedlab simulate two.toml --policy gedf --duration 30ms --format json >simulate.json
schedlab gen --tasks 6 --utilization 1.2 --seed 3 --cpus 2 --out gen.json
schedlab analyze gen.json --test gedf >/dev/null
status=0
schedlab no-such-command 2>usage.txt || status=$?
python - "$status" <<'PY'
import json, sys
a = json.load(open("analyze.json"))
by = {r["test"]: r for r in a["results"]}
assert by["fp-rta"]["response_time_bounds_ns"] == [2_000_000, 5_000_000] and by["pedf-ffd"]["schedulable"], a
s = json.load(open("simulate.json"))
assert (s["jobs"], s["deadline_misses"], s["max_response_ns"]) == (5, 0, 5_000_000), s
g = json.load(open("gen.json"))
assert len(g["tasks"]) == 6 and g["platform"]["cpus"] == 2, g
assert sys.argv[1] == "2" and "unrecognized subcommand" in open("usage.txt").read()
PY
echo "      the same answers as the Python calls; a usage error exits with 2"
EOF

export ROOT NEW WORK VERSION
HIDE=""
for cmd in "unshare --mount --propagation private" "unshare --user --map-root-user --mount --propagation private"; do
    if $cmd sh -c "mount -t tmpfs -o size=1m schedlab-hidden '$ROOT'" 2>/dev/null; then
        HIDE="$cmd"
        break
    fi
done
if [ -n "$HIDE" ]; then
    echo "==> checks from $WORK/run, the repository hidden ($HIDE)"
    HIDDEN=1 $HIDE bash -c 'mount -t tmpfs -o size=1m schedlab-hidden "$ROOT" && exec bash "$WORK/checks.sh"'
else
    echo "SKIPPED LOUDLY: wheel test: no mount namespace here (unshare --mount failed), so the repository" \
        "could not be hidden; checked by paths only (schedlab.__file__, sys.path, the command's path)"
    echo "==> checks from $WORK/run, the repository checked by paths"
    HIDDEN=0 bash "$WORK/checks.sh"
fi
echo "==> the wheel works without the repository: $(basename "$WHEEL")"
