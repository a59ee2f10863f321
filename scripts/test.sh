#!/usr/bin/env bash
# Runs every test: formatting and lints, the Rust test suite (unit, property, doc tests), the
# loom models of the runtime's lock-free protocols, and the Python test suite against a freshly
# built package.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$ROOT"
echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "==> cargo test"
cargo test --workspace --release --quiet 2>&1 | tee /tmp/schedlab-cargo-test.log | grep -E "^(test result|running|error|failures|---- )|panicked|FAILED" || true
if grep -qE "FAILED|error(\[|:)" /tmp/schedlab-cargo-test.log || ! grep -q "test result" /tmp/schedlab-cargo-test.log; then
    echo "cargo test failed" >&2
    tail -n 60 /tmp/schedlab-cargo-test.log >&2
    exit 1
fi
echo "==> loom models (the mailbox, the client step lock)"
RUSTFLAGS="--cfg loom" cargo test --quiet -p schedlab-runtime --lib --target-dir target/loom loom_tests \
    2>&1 | tee /tmp/schedlab-loom.log | grep -E "^test result" || true
if ! grep -q "test result: ok. 2 passed" /tmp/schedlab-loom.log; then
    echo "loom models failed" >&2
    tail -n 40 /tmp/schedlab-loom.log >&2
    exit 1
fi
build_python_package
echo "==> pytest"
python -m pytest -q tests/python
