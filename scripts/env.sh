# Sourced by the other scripts: a project-local virtualenv with the Python tools schedlab needs
# (maturin, pytest, numpy, dask.distributed, mypy), created on first use. Nothing is installed outside the repository
# except Rust crates into cargo's cache.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo not found; install a Rust toolchain (rustup) first" >&2
    exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV"
    "$PY" -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import maturin, pytest, numpy, distributed, mypy" >/dev/null 2>&1; then
    echo "==> installing Python tools into $VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -r "$ROOT/scripts/requirements-dev.txt"
fi
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
build_python_package() {
    echo "==> building the Python package (maturin develop --release)"
    (cd "$ROOT" && maturin develop --release -q >/dev/null)
}
