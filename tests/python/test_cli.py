"""The ``schedlab`` command of the Python package (``schedlab._native.cli_main``, the console
script ``schedlab`` and ``python -m schedlab``): the binary's command line, exit statuses and
version; Ctrl-C as in the binary; Python's Ctrl-C handling back after a command that replaced
it. The wheel itself, installed in a fresh virtualenv, is tested by scripts/test-wheel.sh."""

import importlib.metadata
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import schedlab
from schedlab import _native

ROOT = Path(__file__).parents[2]
SCRIPT = Path(sys.executable).parent / "schedlab"
TASKS = """
platform = { cpus = 2 }
[[tasks]]
name = "a"
wcet = "2ms"
period = "10ms"
[[tasks]]
name = "b"
wcet = "3ms"
period = "15ms"
"""


def _cargo_version() -> str:
    cargo = (ROOT / "Cargo.toml").read_text()
    return re.search(r'\[workspace\.package\][^\[]*?\nversion = "([^"]+)"', cargo).group(1)


def test_version_returns_0_and_prints_the_package_version(capfd):
    assert _native.cli_main(["schedlab", "--version"]) == 0
    out, err = capfd.readouterr()
    assert (out, err) == (f"schedlab {schedlab.__version__}\n", "")


def test_a_usage_error_returns_2_and_a_failure_1(capfd, tmp_path):
    assert _native.cli_main(["schedlab", "no-such-command"]) == 2
    assert "unrecognized subcommand 'no-such-command'" in capfd.readouterr().err
    assert _native.cli_main(["schedlab", "analyze", str(tmp_path / "absent.json"), "--cpus", "2"]) == 1
    err = capfd.readouterr().err
    assert err.startswith("error: ") and "absent.json" in err


def test_an_empty_argv_is_refused():
    with pytest.raises(schedlab.Error, match=r"argv: empty; give the program name first"):
        _native.cli_main([])
    with pytest.raises(TypeError):
        _native.cli_main("schedlab --version")  # a str is not an argument list


def test_every_version_agrees():
    """``schedlab --version`` (console script and ``python -m``), ``schedlab.__version__``, the
    installed distribution's metadata and the Cargo workspace version are one version."""
    if not SCRIPT.exists():
        pytest.skip(f"SKIPPED LOUDLY: no console script at {SCRIPT} (package not installed by maturin/pip)")
    version = _cargo_version()
    assert schedlab.__version__ == version
    assert importlib.metadata.version("schedlab") == version
    for cmd in ([str(SCRIPT), "--version"], [sys.executable, "-m", "schedlab", "--version"]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"schedlab {version}\n", ""), cmd


def test_the_script_runs_the_binarys_command_line(tmp_path):
    """The same command gives the same bytes and status through the console script as through
    the Rust binary (when the build left one in target/release)."""
    (tmp_path / "set.toml").write_text(TASKS)
    args = ["analyze", "set.toml", "--test", "gedf", "--test", "pedf-ffd", "--format", "json"]
    via_python = subprocess.run([sys.executable, "-m", "schedlab", *args], cwd=tmp_path,
                                capture_output=True, timeout=60)
    assert via_python.returncode == 0, via_python.stderr
    assert b'"pedf-ffd"' in via_python.stdout
    usage = subprocess.run([sys.executable, "-m", "schedlab"], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "Usage: schedlab <COMMAND>" in usage.stderr  # not __main__.py
    binary = ROOT / "target" / "release" / "schedlab"
    if not binary.exists():
        pytest.skip(f"SKIPPED LOUDLY: no binary at {binary} to compare with (cargo build --release -p schedlab)")
    via_rust = subprocess.run([str(binary), *args], cwd=tmp_path, capture_output=True, timeout=60)
    assert (via_rust.returncode, via_rust.stdout, via_rust.stderr) == \
        (via_python.returncode, via_python.stdout, via_python.stderr)


def test_ctrl_c_ends_the_console_script_as_it_ends_the_binary(tmp_path):
    """The command blocks reading a FIFO, inside the Rust code; SIGINT then ends the process
    at once, as it ends the binary. Python's handler would only have recorded it: the command
    would have read the set, printed its table, and Python would have raised KeyboardInterrupt
    afterwards (a traceback, then the same exit by SIGINT, so the output tells them apart)."""
    fifo = tmp_path / "set.toml"
    os.mkfifo(fifo)
    child = subprocess.Popen(
        [sys.executable, "-m", "schedlab", "analyze", str(fifo), "--test", "gedf"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        # As from a terminal: a test run in a background job inherits an ignored SIGINT.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        with open(fifo, "w") as writer:  # returns once the command has opened the FIFO
            child.send_signal(signal.SIGINT)
            writer.write(TASKS)  # read only by a child that survived the signal
    except BrokenPipeError:
        pass
    out, err = child.communicate(timeout=60)
    assert (child.returncode, out, err) == (-signal.SIGINT, b"", b"")


EXPERIMENT = """
title = "cli signal test"
seed = 1
samples = 2
chunk_size = 2

[platform]
cpus = [2]

[generator]
shape = "fixed-sum"
method = "randfixedsum"
tasks_per_cpu = 2
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization_per_cpu"
points = [0.5]

[[analysis]]
test = "gedf"
"""


def test_ctrl_c_raises_keyboard_interrupt_again_after_a_command_that_caught_it(tmp_path, capfd):
    """``experiment`` installs its own SIGINT handler (for the rest of the process); after the
    call, Python's is back: SIGINT raises KeyboardInterrupt in the interpreter again."""
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    # As in a terminal (a background job would start with SIGINT ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status = _native.cli_main(["schedlab", "experiment", str(tmp_path / "exp.toml"),
                                   "--out", str(tmp_path / "out"), "--jobs", "1"])
        assert status == 0, capfd.readouterr().err
        assert (tmp_path / "out" / "summary.csv").exists()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            # The handler runs between bytecodes; give it some.
            for _ in range(1000):
                pass
    finally:
        signal.signal(signal.SIGINT, previous)
