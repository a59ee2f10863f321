"""``schedlab.run(..., arch="linux-deadline")`` on parallel (fork-join) tasks [RTWS §III]: the
kernel baseline runs one SCHED_DEADLINE thread per thread slot (the "SD" comparison of
[RTWS §VI]; docs/runtime.md, "Parallel tasks under the kernel baselines"). A real 300 ms
run on exactly two CPUs (SCHED_DEADLINE's affinity must span the root domain);
``allow_non_rt=True`` so it also runs without real-time permission. Checks accounting and
joins, never timing."""

import os
import pathlib

import pytest

import schedlab

ROOT = pathlib.Path(__file__).resolve().parents[2]
MS = 1_000_000


def exactly_two_cpus():
    return len(os.sched_getaffinity(0)) == 2


@pytest.mark.skipif(not exactly_two_cpus(), reason="needs exactly two CPUs (the root domain of SCHED_DEADLINE)")
def test_linux_deadline_runs_a_fork_join_task():
    ts = schedlab.TaskSet([
        {"name": "fj", "period": "20ms", "parallel": [["2ms"], ["1ms", "1ms", "1ms"], ["1ms"]]},
        {"name": "seq", "wcet": "3ms", "period": "10ms"},
    ])
    r = schedlab.run(ts, cpus=2, arch="linux-deadline", duration="300ms", allow_non_rt=True,
                     jobs="dicts")
    assert r["arch"] == "linux-deadline" and r["jobs"] == 15 + 30
    assert r["dropped_events"] == 0
    recs = r["jobs_records"]
    fj = [j for j in recs if j["task"] == 0]
    assert [j["seq"] for j in fj] == list(range(15))
    for j in fj:
        if j["completion_ns"] >= 0:
            # One record per job, completed at its final join: after its critical path
            # (2 + 1 + 1 ms) at least.
            assert j["release_ns"] <= j["start_ns"] <= j["completion_ns"]
            assert j["completion_ns"] - j["release_ns"] >= 4 * MS
    # Every job released 40 ms or more before the end completed (a job is cut only there).
    assert all(j["completion_ns"] >= 0 for j in recs if j["release_ns"] + 40 * MS <= 300 * MS)
    if not r["real_time"]:
        assert any("SCHED_OTHER" in w for w in r["warnings"])


def test_the_other_architectures_name_the_ones_that_run_parallel_tasks():
    ts = schedlab.load(ROOT / "examples" / "parallel.toml")
    with pytest.raises(
        schedlab.Error,
        match=r"--arch partitioned does not run parallel tasks; the architectures that do: "
        r"global-lock, concurrent, work-stealing, linux-deadline, linux-fifo",
    ):
        schedlab.run(ts, policy="pedf", arch="partitioned", duration="100ms", allow_non_rt=True)
