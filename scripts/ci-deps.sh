#!/usr/bin/env bash
# System packages some tests run for real, installed when they are missing and this machine can
# install them; a test whose tool is still missing skips loudly (docs/testing.md).
# - rt-app (Debian package `rt-app`): crates/cli/tests/export_run.rs runs the exported rt-app
#   JSON with it (docs/export.md).
set -uo pipefail
if ! command -v rt-app > /dev/null 2>&1; then
    if command -v apt-get > /dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        { apt-get install -y rt-app || { apt-get update && apt-get install -y rt-app; }; } > /dev/null 2>&1
    fi
    if command -v rt-app > /dev/null 2>&1; then
        echo "==> installed rt-app"
    else
        echo "note: rt-app could not be installed (needs apt-get and root); the tests that run rt-app will skip, loudly"
    fi
fi
exit 0
