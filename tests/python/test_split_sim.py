"""Split tasks in the simulator from Python: ``Task(split=...)`` is the task file's ``split``
(checked the same way), and ``simulate(..., policy="pfp-ts")`` runs exactly the split
``analyze(..., tests="pfp-ts")`` reports, or the tasks' own ``cpu``/``split`` fields; its Perfetto
export shows every part under its task and job, within its budget (docs/simulation.md)."""

import json
import pickle

import pytest

import schedlab

# examples/split.toml without its pins: 0.6 + 0.6 + 0.6 on 2 CPUs; FP-TS splits `fast`.
FREE = [{"name": "fast", "wcet": "3ms", "period": "5ms"},
        {"name": "mid", "wcet": "6ms", "period": "10ms"},
        {"name": "slow", "wcet": "12ms", "period": "20ms"}]
SPLIT = [{"cpu": 0, "budget": 2_000_000}, {"cpu": 1, "budget": 1_000_000}]


def test_task_split_round_trips_and_is_checked():
    t = schedlab.Task(wcet="3ms", period="5ms", name="fast",
                      split=[{"cpu": 0, "budget": "2ms"}, {"cpu": 1, "budget": 1_000_000}])
    assert t.split == SPLIT
    assert t.to_dict()["split"] == SPLIT
    assert "split=[{'cpu': 0, 'budget': 2000000}, {'cpu': 1, 'budget': 1000000}]" in repr(t)
    assert pickle.loads(pickle.dumps(t)) == t
    assert hash(t) != hash(t.replace(split=[{"cpu": 1, "budget": "2ms"}, {"cpu": 0, "budget": "1ms"}]))
    assert schedlab.Task(wcet=1, period=2).split is None
    with pytest.raises(schedlab.Error, match=r"field `split`: the part budgets add up to 2ms, but wcet is 3ms"):
        schedlab.Task(wcet="3ms", period="5ms", split=[{"cpu": 0, "budget": "1ms"}, {"cpu": 1, "budget": "1ms"}])
    with pytest.raises(schedlab.Error, match=r"a split on one CPU is no split; use `cpu = 0`"):
        schedlab.Task(wcet="3ms", period="5ms", split=[{"cpu": 0, "budget": "3ms"}])
    with pytest.raises(schedlab.Error, match=r"either `cpu` \(here 1\) or `split`, not both"):
        schedlab.Task(wcet="3ms", period="5ms", cpu=1, split=SPLIT)


def _slices_within_budgets(perfetto, split):
    """No deadline miss, no job on two CPUs, every split part within its budget; returns the
    number of (split job, CPU) pairs."""
    events = json.loads(perfetto.read_text())["traceEvents"]
    assert not [e for e in events if e.get("cat") == "deadline-miss"]
    by_job, used = {}, {}
    for e in events:
        if e["ph"] != "X":
            continue
        job = (e["args"]["task"], e["args"]["seq"])
        start = round(e["ts"] * 1000)
        end = start + round(e["dur"] * 1000)
        by_job.setdefault(job, []).append((start, end, e["tid"]))
        if job[0] in split:
            key = job + (e["tid"],)
            used[key] = used.get(key, 0) + end - start
            part = e["args"]["part"]
            assert split[job[0]][part] == {"cpu": e["tid"], "budget_ns": e["args"]["budget_ns"],
                                           "kind": e["args"]["part_kind"]}
    for ivs in by_job.values():
        ivs.sort()
        assert all(b[0] >= a[1] for a, b in zip(ivs, ivs[1:]))
    for (task, _, cpu), ran in used.items():
        budget = next(p["budget_ns"] for p in split[task] if p["cpu"] == cpu)
        assert ran <= budget
    return len(used)


def test_pfp_ts_simulates_the_analysis_split(tmp_path):
    a = schedlab.analyze(FREE, cpus=2, tests="pfp-ts")
    assert a.schedulable
    split = {s["task"]: s["parts"] for s in a.split_tasks}
    assert split == {0: [{"cpu": 0, "budget_ns": 2_000_000, "kind": "head"},
                         {"cpu": 1, "budget_ns": 1_000_000, "kind": "tail"}]}
    free = tmp_path / "free.json"
    r = schedlab.simulate(FREE, cpus=2, policy="pfp-ts", duration="2s", perfetto=free)
    assert r["deadline_misses"] == 0 and r["per_task"][0]["jobs"] == 400
    assert _slices_within_budgets(free, split) == 800
    # The same placement written into the tasks: the same schedule.
    pinned = [dict(FREE[0], split=SPLIT), dict(FREE[1], cpu=1), dict(FREE[2], cpu=0)]
    fixed = tmp_path / "pinned.json"
    schedlab.simulate(schedlab.TaskSet(pinned), cpus=2, policy="pfp-ts", duration="2s", perfetto=fixed)
    assert json.loads(fixed.read_text())["traceEvents"] == json.loads(free.read_text())["traceEvents"]
    with pytest.raises(schedlab.Error, match=r"task 0 \(`fast`\) has a `cpu` or `split` field but task 1 \(`mid`\) has neither"):
        schedlab.simulate([pinned[0], FREE[1], FREE[2]], cpus=2, policy="pfp-ts", duration="1s")
