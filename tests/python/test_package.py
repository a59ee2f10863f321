"""The package as a whole: its version, and that its typed stubs match the native module and
type-check a program using the whole API (``mypy --strict``), while catching misuse."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import schedlab

ROOT = Path(__file__).parents[2]


def test_version_is_the_cargo_package_version():
    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\][^\[]*?\nversion = "([^"]+)"', cargo).group(1)
    assert schedlab.__version__ == version


def _mypy(*args, cwd=ROOT):
    pytest.importorskip("mypy", reason="SKIPPED LOUDLY: mypy is not installed (scripts/requirements-dev.txt has it)")
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True)


def test_stubs_match_the_native_module(tmp_path):
    assert (Path(schedlab.__file__).parent / "py.typed").exists()
    done = _mypy("mypy.stubtest", "schedlab._native", "--mypy-config-file", "/dev/null", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("mypy-cache")


def test_the_whole_api_type_checks_strictly(mypy_cache):
    done = _mypy("mypy", "--strict", "--cache-dir", str(mypy_cache),
                 str(ROOT / "tests" / "python" / "typing_usage.py"), str(ROOT / "python" / "schedlab"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stubs_catch_misuse(tmp_path, mypy_cache):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import schedlab\n"
        "ts = schedlab.TaskSet([{'wcet': 1, 'period': 2}])\n"
        "r: int = schedlab.analyze(ts, cpus=2, tests='gedf')\n"
        "many: list[schedlab.Result] = schedlab.analyze_many([ts], cpus=2, tests=['gedf'])\n"
        "schedlab.simulate(ts, cpuz=2)\n"
        "ts[0].wcet = 3\n"
    )
    done = _mypy("mypy", "--strict", "--cache-dir", str(mypy_cache), str(bad))
    lines = [l for l in done.stdout.splitlines() if ": error:" in l]
    assert done.returncode == 1 and len(lines) == 4, done.stdout
    assert [int(l.split(":")[1]) for l in lines] == [3, 4, 5, 6]
