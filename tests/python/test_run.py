"""``schedlab.run``: a real 1 s run on 2 CPUs (``allow_non_rt=True``, so it also works without
real-time permission). Checks structure and accounting, never timing."""

import json
import os

import numpy as np
import pytest

import schedlab

# U = 1.2 on 2 CPUs (0.6 per CPU), periods 10–30 ms.
SET = [
    {"name": "a", "wcet": "3ms", "period": "10ms"},
    {"name": "b", "wcet": "4ms", "period": "20ms"},
    {"name": "c", "wcet": "7.5ms", "period": "25ms"},
    {"name": "d", "wcet": "6ms", "period": "30ms"},
]


def two_cpus():
    return len(os.sched_getaffinity(0)) >= 2


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_run_one_second_on_two_cpus(tmp_path):
    trace = tmp_path / "run.trace"
    r = schedlab.run(SET, cpus=2, policy="gedf", arch="global-lock", duration="1s",
                     allow_non_rt=True, trace=trace)
    for key in ["policy", "cpus", "duration_ns", "jobs", "deadline_misses", "dsr",
                "max_tardiness_ns", "preemptions", "migrations", "per_task", "arch",
                "overheads", "real_time", "interrupted", "dropped_events", "warnings"]:
        assert key in r, key
    assert r["arch"] == "global-lock" and r["cpus"] == 2 and r["duration_ns"] == 10**9
    # Releases at 0, T, 2T, … before 1 s: 100 + 50 + 40 + 34 jobs.
    assert r["jobs"] == 224
    recs = r["jobs_records"]
    assert recs.dtype == schedlab.simulation.JOB_DTYPE and len(recs) == 224
    done = recs[recs["completion_ns"] >= 0]
    assert np.all(done["start_ns"] >= done["release_ns"])
    assert np.all(done["completion_ns"] >= done["start_ns"])
    assert set(r["overheads"]) >= {"release_latency", "release", "schedule"}
    assert r["overheads"]["release_latency"]["count"] > 0
    assert trace.stat().st_size > 0
    if not r["real_time"]:
        assert any("SCHED_OTHER" in w for w in r["warnings"])


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_partitioned_run_and_dicts():
    r = schedlab.run(SET, cpus=2, policy="pedf", arch="partitioned", duration="300ms",
                     allow_non_rt=True, jobs="dicts")
    assert r["migrations"] == 0
    assert isinstance(r["jobs_records"], list) and r["jobs_records"][0]["task"] == 0


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_message_passing_with_background_load():
    # U = 0.6 on the one client CPU: the first two tasks.
    r = schedlab.run(SET[:2], cpus=2, policy="gedf", arch="message-passing", duration="300ms",
                     allow_non_rt=True, background_load="1MiB", jobs=None)
    assert r["arch"] == "message-passing" and r["background_load_bytes"] == 1 << 20
    assert r["jobs"] == 30 + 15
    assert {"dsp", "request", "release_to_run"} <= set(r["overheads"])
    assert r["dsp_poll"] is True and r["inline_completion"] is True


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_message_passing_with_a_sleeping_dsp():
    r = schedlab.run(SET[:2], cpus=2, policy="gedf", arch="message-passing", duration="300ms",
                     allow_non_rt=True, dsp_poll=False, inline_completion=False, jobs=None)
    assert r["dsp_poll"] is False and r["inline_completion"] is False and r["jobs"] == 45


def cpuset_v1():
    return os.path.exists("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance") and os.geteuid() == 0


@pytest.mark.skipif(not (two_cpus() and cpuset_v1()), reason="needs two CPUs, root and cgroup-v1 cpusets")
def test_linux_deadline_on_the_client_cpu():
    cpu = sorted(os.sched_getaffinity(0))[1]
    r = schedlab.run(SET[:2], cpu_list=[cpu], arch="linux-deadline", duration="300ms",
                     dl_cpuset=True, dl_margin="400us", jobs="dicts")
    assert r["dl_cpuset"] is True and r["dl_margin_ns"] == 400_000 and r["cpu_list"] == [cpu]
    assert r["jobs"] == 45 and r["migrations"] == 0
    assert not [d for d in os.listdir("/sys/fs/cgroup/cpuset") if d.startswith("schedlab-")]


def test_bad_options_raise():
    with pytest.raises(schedlab.Error, match="unknown architecture"):
        schedlab.run(SET, cpus=2, arch="nope", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="lock"):
        schedlab.run(SET, cpus=2, lock="spin", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="duration"):
        schedlab.run(SET, cpus=2, duration="soon", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="background_load"):
        schedlab.run(SET, cpus=2, background_load="lots", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="dl_margin"):
        schedlab.run(SET, cpus=2, arch="linux-deadline", dl_margin="x", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="dl_cpuset applies to arch linux-deadline only"):
        schedlab.run(SET, cpus=2, dl_cpuset=True, allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="dedicated_irq_cpu applies to arch global-lock only"):
        schedlab.run(SET, cpus=2, arch="message-passing", dedicated_irq_cpu=True, allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="policy `gedf` does not apply to the kernel baseline linux-fifo"):
        schedlab.run(SET, cpus=2, arch="linux-fifo", policy="gedf", allow_non_rt=True)


def test_run_places_on_the_cpus_that_run_jobs():
    # As `schedlab run`: under message-passing (and GSN-EDF-DI) CPU 0 schedules, so a
    # partitioned policy is placed on the other CPUs only — here one, which cannot hold a
    # set of U = 1.2 (the error comes before anything runs). Python used to place it on both
    # CPUs and fail inside the runtime ("task 1 is placed on CPU 1, but there are only 1").
    heavy = schedlab.TaskSet([{"wcet": "6ms", "period": "10ms"}, {"wcet": "6ms", "period": "10ms"}])
    with pytest.raises(schedlab.Error, match="found no placement on 1 CPUs"):
        schedlab.run(heavy, cpus=2, policy="pedf", arch="message-passing", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="needs at least 2 CPUs"):
        schedlab.run(heavy, cpu_list=[0], policy="gedf", arch="message-passing", allow_non_rt=True)


def test_run_times_need_a_unit():
    cpu = sorted(os.sched_getaffinity(0))[0]
    for kwargs, shown in [({"duration": 1}, "duration: time `1` needs a unit"),
                          ({"duration": "300"}, "duration: time `300` needs a unit"),
                          ({"release_spin": 20}, "release_spin: time `20` needs a unit"),
                          ({"arch": "linux-deadline", "dl_margin": "500"}, "dl_margin: time `500` needs a unit")]:
        with pytest.raises(schedlab.Error, match=shown):
            schedlab.run(SET[:1], cpu_list=[cpu], allow_non_rt=True, **kwargs)


def test_run_writes_the_trace_files(tmp_path):
    cpu = sorted(os.sched_getaffinity(0))[0]
    files = {"trace": tmp_path / "r.trace", "gantt": tmp_path / "r.svg", "perfetto": tmp_path / "r.json",
             "jobs_csv": tmp_path / "r.csv"}
    r = schedlab.run(SET[:1], cpu_list=[cpu], policy="pedf", arch="partitioned", duration="100ms",
                     allow_non_rt=True, jobs=None, **files)
    assert r["jobs"] == 10 and "jobs_records" not in r
    assert files["gantt"].read_text().startswith("<svg") and files["trace"].stat().st_size > 0
    assert files["jobs_csv"].read_text().count("\n") == 11
    assert "traceEvents" in files["perfetto"].read_text()


# Every overhead 0 except Δsch = 0.5 ms · n (n = the tasks on the CPU): on one CPU
# C'' = C + 1 ms · n. For C = 4, 3, 3, 2 ms (T = 10 ms), the overhead-aware FFD packs
# [[0, 3], [1, 2]]; the overhead-free one [[0, 1, 2], [3]].
SCHEDULE_HALF_MS_PER_TASK = {
    "schema": 1, "tick_period": "1ms",
    "arch": {"partitioned": {
        **{name: {"max": [[1, 0]]}
           for name in ["release_latency", "release", "context_switch", "tick"]},
        "schedule": {"max": [[1, 500_000], [2, 1_000_000]]},
    }},
}
FOUR = [{"wcet": f"{c}ms", "period": "10ms"} for c in (4, 3, 3, 2)]


def cpus_of_tasks(perfetto):
    events = json.loads(perfetto.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    return {e["args"]["task"]: e["tid"] for e in events if e.get("ph") == "X"}


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_overheads_place_the_partition_the_analysis_accepted(tmp_path):
    v = schedlab.analyze(FOUR, cpus=2, tests="pedf-ffd", overheads=SCHEDULE_HALF_MS_PER_TASK,
                         arch="partitioned")
    assert v.partition == [[0, 3], [1, 2]]
    charged, free = tmp_path / "charged.json", tmp_path / "free.json"
    schedlab.run(FOUR, cpus=2, policy="pedf", arch="partitioned", duration="100ms",
                 allow_non_rt=True, jobs=None, perfetto=charged,
                 overheads=SCHEDULE_HALF_MS_PER_TASK)
    placed = cpus_of_tasks(charged)
    assert placed[0] == placed[3] != placed[1] == placed[2]
    schedlab.run(FOUR, cpus=2, policy="pedf", arch="partitioned", duration="100ms",
                 allow_non_rt=True, jobs=None, perfetto=free)
    placed = cpus_of_tasks(free)
    assert placed[0] == placed[1] == placed[2] != placed[3]


def test_overhead_aware_placement_errors():
    with pytest.raises(schedlab.Error, match="`gedf` needs no placement"):
        schedlab.run(FOUR, cpus=2, policy="gedf", arch="global-lock", duration="100ms",
                     overheads=SCHEDULE_HALF_MS_PER_TASK)
    with pytest.raises(schedlab.Error, match="overhead_stat= needs overheads="):
        schedlab.run(FOUR, cpus=2, policy="pedf", arch="partitioned", duration="100ms",
                     overhead_stat="avg")


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_cedf_cluster_size_reaches_the_placement():
    # A cluster size that does not divide the 2 CPUs is refused before any thread starts;
    # clusters of 1 run (C-EDF = one G-EDF domain per CPU), with the policy's own cost reported.
    with pytest.raises(schedlab.Error, match="cluster size 3"):
        schedlab.run(SET, cpus=2, policy="cedf", cluster_size=3, allow_non_rt=True)
    r = schedlab.run(SET, cpus=2, policy="cedf", cluster_size=1, duration="300ms",
                     allow_non_rt=True, jobs=None)
    assert r["policy"] == "cedf" and r["policy_cost"]["count"] > 0
    assert r["policy_cost"]["min_ns"] <= r["policy_cost"]["max_ns"]


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
def test_per_job_threading_is_a_run_option():
    # Thread-per-job under a user-space architecture: every job accounted for, the summary
    # says so; the kernel baselines refuse it, naming the architectures that take it; an
    # unknown model is an error naming the two.
    r = schedlab.run(SET, cpus=2, policy="gedf", duration="300ms", threading="per-job",
                     allow_non_rt=True, jobs=None)
    assert r["threading"] == "per-job" and r["jobs"] == 30 + 15 + 12 + 10
    assert schedlab.run(SET, cpus=2, policy="gedf", duration="100ms", allow_non_rt=True,
                        jobs=None)["threading"] == "per-task"
    with pytest.raises(schedlab.Error, match="threading per-job applies to arch .*global-lock"):
        schedlab.run(SET, cpus=2, arch="linux-fifo", threading="per-job", allow_non_rt=True)
    with pytest.raises(schedlab.Error, match="per-task, per-job"):
        schedlab.run(SET, cpus=2, policy="gedf", threading="per-thread", allow_non_rt=True)
