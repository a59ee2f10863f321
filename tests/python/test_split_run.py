"""Split tasks for real from Python: ``schedlab.run(..., policy="pfp-ts",
arch="semi-partitioned")`` runs RTPS's mechanism (docs/runtime.md) on FP-TS's assignment, or on
the tasks' own ``cpu``/``split`` fields; every job of the split task exhausts its head budget on
the head CPU and runs its tail on the other. Structure only, never timing; ``allow_non_rt=True``
so it also runs without real-time permission (the mechanism is the same, the timing is not
real-time)."""

import json
import os

import pytest

import schedlab

# The split task first (highest priority by DM), whole tasks below it on both CPUs.
PINNED = [
    {"name": "s", "wcet": "3ms", "period": "10ms",
     "split": [{"cpu": 0, "budget": "2ms"}, {"cpu": 1, "budget": "1ms"}]},
    {"name": "a", "wcet": "2ms", "period": "20ms", "cpu": 0},
    {"name": "b", "wcet": "3ms", "period": "15ms", "cpu": 1},
]
# No pins: FP-TS splits task 0 (0.6 + 0.6 + 0.6 on 2 CPUs: no partition exists).
FREE = [{"name": "fast", "wcet": "3ms", "period": "5ms"},
        {"name": "mid", "wcet": "6ms", "period": "10ms"},
        {"name": "slow", "wcet": "12ms", "period": "20ms"}]


def two_cpus():
    return len(os.sched_getaffinity(0)) >= 2


def parts_by_job(perfetto):
    """(task, seq) → the CPUs of its execution slices in time order, and the budget-exhausted
    instants (task, seq, cpu)."""
    events = json.loads(perfetto.read_text())["traceEvents"]
    slices, exhausted = {}, set()
    for e in events:
        if e["ph"] == "X":
            slices.setdefault((e["args"]["task"], e["args"]["seq"]), []).append((e["ts"], e["tid"]))
        elif e.get("name", "").startswith("budget-exhausted"):
            exhausted.add((e["args"]["task"], e["args"]["seq"], e["tid"]))
    return {job: [cpu for _, cpu in sorted(v)] for job, v in slices.items()}, exhausted


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_pinned_split_task_moves_at_its_budget(tmp_path):
    perfetto = tmp_path / "run.json"
    r = schedlab.run(PINNED, cpus=2, policy="pfp-ts", arch="semi-partitioned", duration="500ms",
                     allow_non_rt=True, perfetto=perfetto, jobs="dicts")
    assert r["arch"] == "semi-partitioned" and r["policy"] == "pfp-ts"
    assert r["jobs"] == 50 + 25 + 34
    assert {"timer", "sleep_add", "sleep_take", "ready_add_local", "ready_add_remote",
            "ready_take", "schedule", "context_switch"} <= set(r["overheads"])
    cpus, exhausted = parts_by_job(perfetto)
    done = [j for j in r["jobs_records"] if j["task"] == 0 and j["completion_ns"] is not None]
    assert len(done) >= 40
    for j in done:
        seq = j["seq"]
        run = cpus[(0, seq)]
        if run[-1] != 1:
            print("diagnostics:", j, r["warnings"], r["real_time"], r["dropped_events"])
        # Head on CPU 0, then the tail on CPU 1, never back.
        assert run[0] == 0 and run[-1] == 1 and run == sorted(run), (seq, run)
        assert (0, seq, 0) in exhausted, seq
    # Whole tasks stay on their CPU.
    assert all(set(cpus[job]) == {0} for job in cpus if job[0] == 1)
    assert all(set(cpus[job]) == {1} for job in cpus if job[0] == 2)


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_unpinned_set_runs_the_analysis_split(tmp_path):
    trace = tmp_path / "run.trace"
    split = schedlab.analyze(FREE, cpus=2, tests="pfp-ts").split_tasks
    assert [s["task"] for s in split] == [0]
    # CPU 0 carries 1.0 (FP-TS fills the head's CPU): the kernel's RT throttling makes jobs
    # late, so only "some jobs migrated" is checked here.
    r = schedlab.run(FREE, cpus=2, policy="pfp-ts", arch="semi-partitioned", duration="300ms",
                     allow_non_rt=True, trace=trace, jobs=None)
    assert r["migrations"] > 0
    assert trace.stat().st_size > 0


def test_pfp_ts_is_refused_where_there_are_no_budgets():
    with pytest.raises(schedlab.Error, match=r"arch message-passing does not offer"):
        schedlab.run(PINNED, cpus=2, policy="pfp-ts", arch="message-passing", duration="100ms",
                     allow_non_rt=True)
    with pytest.raises(schedlab.Error, match=r"`semi-partitioned` runs `pfp-ts`"):
        schedlab.run(PINNED[1:], cpus=2, policy="gedf", arch="semi-partitioned", duration="100ms",
                     allow_non_rt=True)
