import datetime
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import schedlab

TABLE_6_2 = [{"wcet": 51, "period": 100}] * 4 + [{"wcet": 100, "period": 1000, "deadline": 10000}]


def test_table_6_2_under_np_edf_and_edf():
    np_run = schedlab.simulate(TABLE_6_2, cpus=4, policy="gnpedf", duration="1000ns")
    assert np_run["deadline_misses"] == 1 and np_run["max_tardiness_ns"] == 2
    late = np_run["jobs_records"][np_run["jobs_records"]["tardiness_ns"] > 0]
    assert len(late) == 1 and late[0]["seq"] == 1 and late[0]["completion_ns"] == 202
    ed = schedlab.simulate(TABLE_6_2, cpus=4, policy="gedf", duration="1000ns", jobs="dicts")
    assert ed["schedulable"] and ed["deadline_misses"] == 0
    t5 = next(j for j in ed["jobs_records"] if j["task"] == 4)
    assert (t5["start_ns"], t5["completion_ns"], t5["preemptions"]) == (51, 253, 2)


def test_shape_and_options():
    ts = schedlab.generate(tasks=12, utilization=2.0, seed=4)[0]
    r = schedlab.simulate(ts, cpus=4, policy="pfp", duration="2s", exec="uniform:0.5..1", seed=3)
    for key in ["policy", "cpus", "duration_ns", "jobs", "deadline_misses", "dsr", "schedulable",
                "max_tardiness_ns", "preemptions", "migrations", "context_switches", "aur",
                "per_task", "wall_seconds", "jobs_per_second"]:
        assert key in r
    assert r["jobs_records"].dtype == schedlab.simulation.JOB_DTYPE
    assert len(r["per_task"]) == 12 and r["jobs"] == len(r["jobs_records"])
    again = schedlab.simulate(ts, cpus=4, policy="pfp", duration="2s", exec="uniform:0.5..1", seed=3)
    assert np.array_equal(r["jobs_records"], again["jobs_records"])  # deterministic


def test_bad_options_raise():
    with pytest.raises(schedlab.Error, match="unknown policy"):
        schedlab.simulate(TABLE_6_2, cpus=4, policy="gdf")
    with pytest.raises(schedlab.Error, match="cluster"):
        schedlab.simulate(TABLE_6_2, cpus=4, policy="cedf")
    with pytest.raises(schedlab.Error, match="exec"):
        schedlab.simulate(TABLE_6_2, cpus=4, exec="fast")


MP = {"schema": 1, "arch": {"message-passing": {
    "release_latency": {"avg": [[0, 1]]}, "release": {"avg": [[0, 1]]},
    "ipi": {"avg": [[0, 1]]}, "schedule": {"avg": [[0, 1]]}, "context_switch": {"avg": [[0, 1]]},
    "request": {"avg": [[0, 2]]}, "dsp": {"avg": [[0, 3]]}}}}


def test_overheads_from_a_dict_and_a_file():
    # The message-passing round trip of crates/sim/tests/overheads.rs: τ2 waits for τ0's
    # completion at 9 on CPU0, then the client idles Δreq + Δdsp + Δipi + Δsch + Δcxs = 8.
    ts = [{"wcet": 4, "period": 10}, {"wcet": 6, "period": 20}, {"wcet": 3, "period": 20}]
    r = schedlab.simulate(ts, cpus=2, policy="gedf", duration="20ns", overheads=MP, jobs="dicts")
    t2 = next(j for j in r["jobs_records"] if j["task"] == 2)
    assert (t2["start_ns"], t2["completion_ns"]) == (17, 20)
    assert r["overheads"] == {"file": "dict", "arch": "message-passing", "stat": "avg",
                              "charged_ns": {"release": 8, "dispatch": 17, "cpmd": 0,
                                             "interrupt": 0}}
    assert schedlab.simulate(ts, cpus=2, duration="20ns")["overheads"] is None
    with pytest.raises(schedlab.Error, match="no `max` values"):
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=MP, overhead_stat="max")
    example = Path(__file__).parents[2] / "examples" / "overheads" / "illustrative.toml"
    with pytest.raises(schedlab.Error, match="several architectures"):
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=example)
    r = schedlab.simulate(ts, cpus=2, duration="1ms", overheads=example,
                          overhead_arch="partitioned", overhead_stat="max")
    assert r["overheads"]["arch"] == "partitioned" and r["overheads"]["stat"] == "max"
    with pytest.raises(schedlab.Error, match="unknown overhead `relase`"):
        bad = {"schema": 1, "arch": {"x": {"relase": {"avg": [[0, 1]]}}}}
        schedlab.simulate(ts, cpus=2, duration="20ns", overheads=bad)


# --- times need a unit; batch simulation; the CLI's output files ------------------------------

def test_keyword_times_need_a_unit():
    for bad, shown in [(10, "10"), ("10", "10"), (1.5, "1.5"), (" 7 ", "7")]:
        with pytest.raises(schedlab.Error, match=rf"duration: time `{shown}` needs a unit: write `{shown}ms`"):
            schedlab.simulate(TABLE_6_2, cpus=4, duration=bad)
    with pytest.raises(schedlab.Error, match="duration: expected a time with a unit"):
        schedlab.simulate(TABLE_6_2, cpus=4, duration=[1])
    with pytest.raises(schedlab.Error, match="duration: negative time"):
        schedlab.simulate(TABLE_6_2, cpus=4, duration=datetime.timedelta(seconds=-1))
    a = schedlab.simulate(TABLE_6_2, cpus=4, duration=datetime.timedelta(microseconds=3), jobs=None)
    b = schedlab.simulate(TABLE_6_2, cpus=4, duration="3us", jobs=None)
    assert a["duration_ns"] == b["duration_ns"] == 3000
    # Task parameters stay integer nanoseconds, as in files.
    assert schedlab.simulate(TABLE_6_2, cpus=4, duration="1000ns")["jobs"] > 0


def _without_wall(summary):
    return {k: v for k, v in summary.items() if k not in ("wall_seconds", "jobs_per_second", "jobs_records")}


def test_simulate_many_gives_the_single_answers_in_order():
    sets = schedlab.generate(tasks=8, utilization=3.5, seed=9, count=12)
    for threads in (None, 1):
        many = schedlab.simulate_many(sets, cpus=4, policy="gedf", duration="200ms", seed=4,
                                      exec="uniform:0.5..1", threads=threads)
        single = [schedlab.simulate(s, cpus=4, policy="gedf", duration="200ms", seed=4,
                                    exec="uniform:0.5..1", jobs=None) for s in sets]
        assert [_without_wall(m) for m in many] == [_without_wall(s) for s in single]
    assert len({(m["jobs"], m["preemptions"]) for m in many}) == len(sets)  # the order is checked
    with_jobs = schedlab.simulate_many(sets[:2], cpus=4, duration="100ms", jobs="numpy")
    one = schedlab.simulate(sets[1], cpus=4, duration="100ms")
    assert np.array_equal(with_jobs[1]["jobs_records"], one["jobs_records"])
    assert "jobs_records" not in many[0]
    given = [{"wcet": 1, "period": 4, "priority": 0}]
    with pytest.raises(schedlab.Error, match=r"^task set 1: .*priorit"):
        schedlab.simulate_many([given, [{"wcet": 1, "period": 4}]], cpus=1, policy="gfp",
                               priorities="given", duration="1ms")
    with pytest.raises(schedlab.Error, match="jobs="):
        schedlab.simulate_many(sets, cpus=4, jobs="pandas")


CLI = Path(__file__).parents[2] / "target" / "release" / "schedlab"


def test_simulate_writes_the_files_of_the_cli(tmp_path):
    ts = schedlab.TaskSet([{"name": "a", "wcet": "2ms", "period": "5ms"},
                           {"name": "b", "wcet": "3ms", "period": "7ms", "deadline": "6ms"},
                           {"name": "c", "wcet": "4ms", "period": "9ms"}], cpus=2)
    names = ["t.trace", "g.svg", "p.json", "j.csv"]
    py = {n: tmp_path / f"py-{n}" for n in names}
    r = schedlab.simulate(ts, policy="gedf", duration="100ms", trace=py["t.trace"], gantt=py["g.svg"],
                          perfetto=py["p.json"], jobs_csv=py["j.csv"])
    assert py["g.svg"].read_text().startswith("<svg") and json.loads(py["p.json"].read_text())
    assert py["j.csv"].read_text().count("\n") == r["jobs"] + 1
    if not CLI.exists():
        pytest.skip(f"SKIPPED LOUDLY: {CLI} is not built (cargo build --release -p schedlab); "
                    "the files were written but not compared with the CLI's")
    ts.save(tmp_path / "set.json")
    cli = {n: tmp_path / f"cli-{n}" for n in names}
    subprocess.run([str(CLI), "simulate", str(tmp_path / "set.json"), "--policy", "gedf", "--duration", "100ms",
                    "--trace", str(cli["t.trace"]), "--gantt", str(cli["g.svg"]), "--perfetto", str(cli["p.json"]),
                    "--jobs-csv", str(cli["j.csv"])], check=True, capture_output=True)
    for n in names:
        assert py[n].read_bytes() == cli[n].read_bytes(), n
    with pytest.raises(schedlab.Error, match="cannot write"):
        schedlab.simulate(ts, duration="1ms", gantt=tmp_path / "missing" / "g.svg")


def test_parallel_tasks_under_rtws_and_refused_elsewhere():
    # [RTWS §V-A]'s fork-join set (examples/parallel.toml): rtws steals and reports it.
    ts = schedlab.load(Path(__file__).parents[2] / "examples" / "parallel.toml")
    r = schedlab.simulate(ts, cpus=2, policy="rtws", duration="100ms")
    assert r["steals"] == sum(t["steals"] for t in r["per_task"]) and r["steals"] > 0
    assert r["deadline_misses"] == 0 and r["jobs"] == len(r["jobs_records"]) == 21
    g = schedlab.simulate(ts, cpus=2, policy="gedf", duration="100ms")
    assert g["steals"] == 0 and g["jobs"] == 21
    with pytest.raises(schedlab.Error, match=r"policy `ghvdf` does not schedule parallel tasks; the policies that do: rtws"):
        schedlab.simulate(ts, cpus=2, policy="ghvdf", duration="100ms")
