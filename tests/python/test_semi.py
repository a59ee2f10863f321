"""Semi-partitioned FP-TS from Python: ``analyze(..., tests="pfp-ts")`` returns the same
assignment and split tasks as ``schedlab analyze --test pfp-ts --format json`` (the hand-worked
split of crates/analysis/src/semi/tests.rs), results survive pickling, and the RTPS overheads
charge through ``overheads=..., arch="semi-partitioned"`` (the hand-worked case of
crates/analysis/src/semi/overhead_tests.rs)."""

import json
import pickle
import subprocess
from pathlib import Path

import pytest

import schedlab

CLI = Path(__file__).parents[2] / "target" / "release" / "schedlab"

# τ0 = (30, 50), τ1 = (60, 100), τ2 = (120, 200) ns on 2 CPUs: τ0 splits 20 (CPU 0) + 10.
TASKS = [{"name": "a", "wcet": 30, "period": 50},
         {"name": "b", "wcet": 60, "period": 100},
         {"name": "c", "wcet": 120, "period": 200}]

SPLIT = [{"task": 0, "parts": [{"cpu": 0, "budget_ns": 20, "kind": "head"},
                               {"cpu": 1, "budget_ns": 10, "kind": "tail"}]}]

RTPS_NAMES = ["schedule", "context_switch", "timer", "sleep_add", "sleep_take",
              "ready_add_local", "ready_add_remote", "ready_take"]


def test_split_tasks_and_assignment():
    r = schedlab.analyze(TASKS, cpus=2, tests="pfp-ts")
    assert r.schedulable
    assert r.assignment == "fp-ts"
    assert r.split_tasks == SPLIT
    assert r.partition == [[0, 2], [0, 1]]
    assert r.response_time_bounds_ns == [30, 80, 200]
    d = r.to_dict()
    assert d["split_tasks"] == SPLIT and d["assignment"] == "fp-ts"
    assert pickle.loads(pickle.dumps(r)) == r
    assert schedlab.Result(**d) == r
    other = schedlab.analyze(TASKS, cpus=2, tests="pfp-ffd")
    assert other.assignment is None and other.split_tasks is None
    with pytest.raises(schedlab.Error, match="split_tasks= needs assignment="):
        schedlab.Result(test="x", status="schedulable", split_tasks=SPLIT)


def test_same_as_the_cli(tmp_path):
    if not CLI.exists():
        pytest.skip(f"SKIPPED LOUDLY: {CLI} is not built (cargo build --release -p schedlab); "
                    "the Python answer was checked against the literal values only")
    (tmp_path / "set.json").write_text(json.dumps({"tasks": TASKS}))
    done = subprocess.run([str(CLI), "analyze", str(tmp_path / "set.json"), "--cpus", "2",
                           "--test", "pfp-ts", "--format", "json"],
                          capture_output=True, text=True, check=True)
    cli = json.loads(done.stdout)["results"][0]
    assert cli == schedlab.analyze(TASKS, cpus=2, tests="pfp-ts").to_dict()


def test_rtps_overheads():
    values = dict.fromkeys(RTPS_NAMES, 0)
    values["schedule"] = 10
    oh = {"schema": 1,
          "arch": {"semi-partitioned": {n: {"max": [[1, v]]} for n, v in values.items()}}}
    tasks = [{"wcet": 3000, "period": 5000}, {"wcet": 6000, "period": 10000},
             {"wcet": 12000, "period": 20000}]
    r = schedlab.analyze(tasks, cpus=2, tests="pfp-ts", overheads=oh, arch="semi-partitioned")
    assert r.split_tasks == [{"task": 0, "parts": [
        {"cpu": 0, "budget_ns": 1977, "kind": "head"},
        {"cpu": 1, "budget_ns": 1023, "kind": "tail"}]}]
    assert r.response_time_bounds_ns == [3050, 8116, 19998]
    # Every task charged as non-split: C̄ = C + sch.
    assert r.overhead_accounting["tasks"] == [[3010, 5000, 5000], [6010, 10000, 10000],
                                              [12010, 20000, 20000]]
    with pytest.raises(schedlab.Error, match="context_switch"):
        schedlab.analyze(tasks, cpus=2, tests="pfp-ts", arch="semi-partitioned",
                         overheads={"schema": 1, "arch": {"semi-partitioned": {
                             "schedule": {"max": [[1, 1]]}}}})
