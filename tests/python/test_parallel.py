"""Parallel (fork-join) tasks from Python [RTWS §III]: ``Task(parallel=[[c, ...], ...])`` takes
the task file's field (times as integer ns or strings with a unit) and is checked the same way;
``parallel``, ``work`` and ``critical_path`` give it back in ns; ``generate`` draws structures
(``parallel=``) and the task sets of [RTWS §VI, Table I] (``rtws=``, ``cpus=``); the tests of
sequential tasks, the policies that do not schedule parallel tasks and runs say so
(docs/task-files.md, docs/generators.md, docs/python.md)."""

import pathlib
import pickle

import pytest

import schedlab

ROOT = pathlib.Path(__file__).resolve().parents[2]
MS = 1_000_000


def test_a_parallel_task_reads_as_in_files():
    t = schedlab.Task(period="20ms", name="fj", parallel=[["2ms"], ["3ms", 1 * MS, (2 * MS)], ["1ms"]])
    assert t.parallel == [[2 * MS], [3 * MS, 1 * MS, 2 * MS], [1 * MS]]
    # wcet left out: the work, the sum of all threads; T∞ = 2 + 3 + 1.
    assert (t.wcet, t.work, t.critical_path) == (9 * MS, 9 * MS, 6 * MS)
    assert t.to_dict() == {"name": "fj", "wcet": 9 * MS, "period": 20 * MS, "deadline": 20 * MS,
                           "parallel": [[2 * MS], [3 * MS, 1 * MS, 2 * MS], [1 * MS]]}
    assert "parallel=[[2000000], [3000000, 1000000, 2000000], [1000000]]" in repr(t)
    assert schedlab.Task(**t.to_dict()) == t
    assert pickle.loads(pickle.dumps(t)) == t and hash(pickle.loads(pickle.dumps(t))) == hash(t)
    # A wcet equal to the work is accepted; the structure is part of equality and hashing.
    same = schedlab.Task(wcet="9ms", period="20ms", name="fj",
                         parallel=[[2 * MS], [3 * MS, 1 * MS, 2 * MS], [1 * MS]])
    assert same == t and hash(same) == hash(t)
    other = t.replace(parallel=[[2 * MS], [3 * MS, 2 * MS, 1 * MS], [1 * MS]])
    assert other != t and other.work == t.work
    # A sequential task: one region of one thread.
    seq = schedlab.Task(wcet="3ms", period="10ms")
    assert (seq.parallel, seq.work, seq.critical_path) == (None, 3 * MS, 3 * MS)
    assert "parallel" not in repr(seq) and "parallel" not in seq.to_dict()


def test_every_check_names_the_task_and_the_field():
    cases = [
        (dict(period="10ms", parallel=[]), "Task (`x`): field `parallel`: lists no region"),
        (dict(period="10ms", parallel=[["1ms"], []]), "region 1 is an empty region"),
        (dict(period="10ms", parallel=[["1ms", 0]]),
         "region 0, thread 1: a thread's length must be greater than zero"),
        (dict(period="10ms", parallel=[["11ms"]]),
         "region 0, thread 0 is 11ms long, a thread longer than the period 10ms"),
        (dict(wcet="5ms", period="10ms", parallel=[["2ms", "2ms"], ["2ms"]]),
         "`parallel` disagrees with `wcet`: the threads add up to 6ms (the work), but wcet is 5ms"),
        (dict(period="10ms", parallel=[["2ms"]],
              critical_sections=[{"resource": "bus", "start": 0, "length": "1ms"}]),
         "a parallel task with `critical_sections` is not supported"),
        (dict(period="10ms", parallel=[["2ms", "1ms"]],
              split=[{"cpu": 0, "budget": "2ms"}, {"cpu": 1, "budget": "1ms"}]),
         "a parallel task with `split` is not supported"),
        (dict(period="10ms", parallel=[[1] * 4097]), "4097 threads is more than the 4096 allowed"),
        (dict(period="10ms", parallel="2ms"), "must be a list of regions"),
        (dict(period="10ms"), "Task (`x`): missing field `wcet`"),
        (dict(wcet="1ms"), "Task (`x`): missing field `period`"),
    ]
    for kwargs, says in cases:
        with pytest.raises(schedlab.Error) as e:
            schedlab.Task(name="x", **kwargs)
        assert says in str(e.value), (kwargs, str(e.value))
    # In a set, the task's index is named.
    with pytest.raises(schedlab.Error, match=r"^task 1: field `parallel`: region 0 is an empty region"):
        schedlab.TaskSet([{"wcet": 1, "period": 2}, {"period": 10, "parallel": [[]]}])


def test_sets_keep_structures_through_text_and_pickling():
    ts = schedlab.load(ROOT / "examples" / "parallel.toml")
    assert ts.cpus == 2 and [t.work for t in ts] == [5 * MS, 10 * MS, 4 * MS]
    assert ts[1].parallel == [[2 * MS], [1 * MS, 3 * MS, 1 * MS, 3 * MS]]
    assert ts[1].critical_path == 5 * MS and ts[2].parallel is None
    for again in (schedlab.TaskSet.parse(ts.dumps("toml"), "toml"), schedlab.TaskSet.parse(ts.to_json()),
                  pickle.loads(pickle.dumps(ts)), schedlab.TaskSet(ts.to_dicts(), cpus=2),
                  schedlab.TaskSet(list(ts), cpus=2)):
        assert again == ts
        assert [t.parallel for t in again] == [t.parallel for t in ts]


def test_generate_draws_structures_and_the_rtws_workload():
    plain = schedlab.generate(utilization=2.0, util_dist="uni-medium", seed=4, count=3)
    fj = schedlab.generate(utilization=2.0, util_dist="uni-medium", seed=4, count=3,
                           parallel="forkjoin:regions=2..3,threads=1..4,lengths=equal")
    for a, b in zip(plain, fj):
        # Structures come from their own stream: the timing is unchanged.
        assert (a.wcet == b.wcet).all() and (a.period == b.period).all()
        for t in b:
            assert 2 <= len(t.parallel) <= 3 and all(1 <= len(r) <= 4 for r in t.parallel)
            assert sum(map(sum, t.parallel)) == t.wcet == t.work
    sets = schedlab.generate(rtws="0.73..0.75", cpus=4, count=5, seed=2)
    assert len(sets) == 5
    for ts in sets:
        assert ts.cpus == 4 and 2.92 <= ts.realised_utilization <= 3.0
        for t in ts:
            assert 700 * MS <= t.period <= 800 * MS and t.deadline == t.period
            assert 0.1 <= t.utilization <= 0.5 and len(t.parallel) == 3
            assert len(t.parallel[0]) == 1 == len(t.parallel[2]) and 1 <= len(t.parallel[1]) <= 8
    assert sets == schedlab.generate(rtws="0.73..0.75", cpus=4, count=5, seed=2)
    window = schedlab.generate(util_window="1.0..1.1", util_dist="uniform:0.1..0.5", count=4)
    assert all(1.0 <= ts.realised_utilization <= 1.1 for ts in window)
    for kwargs, says in [
        (dict(rtws="0.38..0.40"), "needs cpus=M"),
        (dict(rtws="0.38..0.40", cpus=2, tasks=3), "rtws= is the whole RTWS workload"),
        (dict(rtws="0.38..0.40", cpus=2, periods="uniform:1ms..2ms"), "rtws= is the whole RTWS workload"),
        (dict(rtws="0.38..1.5", cpus=2), "utilization window"),
        (dict(utilization=1.0, util_dist="uni-medium", parallel="rtws:0"), "cannot read parallel structure"),
        (dict(util_window="1..2", tasks=3, util_dist="uni-medium"), "util_window= needs util_dist="),
    ]:
        with pytest.raises(schedlab.Error, match=None) as e:
            schedlab.generate(**kwargs)
        assert says in str(e.value), (kwargs, str(e.value))


def test_analysis_simulation_and_runs_refuse_parallel_tasks():
    ts = schedlab.load(ROOT / "examples" / "parallel.toml")
    for r in schedlab.analyze(ts, cpus=2):
        if r.test in ("federated", "gedf-cab"):  # the tests of parallel tasks
            assert r.status in ("schedulable", "not-shown"), r.test
            continue
        assert r.status == "not-applicable", r.test
        assert r.reason.startswith("task 0 is parallel (field `parallel`): this test assumes sequential tasks")
    with pytest.raises(schedlab.Error, match="policy `ghvdf` does not schedule parallel tasks"):
        schedlab.simulate(ts, policy="ghvdf", duration="100ms")
    assert schedlab.simulate(ts, policy="rtws", duration="100ms")["steals"] >= 0
    with pytest.raises(schedlab.Error, match=r"`plbesa` places sequential tasks on CPUs"):
        schedlab.simulate(ts, policy="plbesa", duration="100ms")
    # Partitioned EDF places the (light) parallel tasks as sequential ones of their work.
    assert schedlab.simulate(ts, policy="pedf", duration="100ms")["deadline_misses"] == 0
    with pytest.raises(schedlab.Error, match="--arch message-passing does not run parallel tasks"):
        schedlab.run(ts, policy="gedf", arch="message-passing", duration="100ms")


def test_federated_simulates_the_analysis_allocation():
    """``simulate(policy="federated")`` runs the allocation of ``analyze(tests="federated")``:
    the heavy task of examples/federated.toml on CPUs 0-1, the light ones on CPU 2; over the
    hyperperiod nothing misses, the heavy jobs end at their deadline (Graham's bound 4 + 8/2 =
    8 ms). What the allocation cannot place is refused, naming the task and the CPUs."""
    ts = schedlab.load(ROOT / "examples" / "federated.toml")
    r = schedlab.analyze(ts, cpus=3, tests="federated")
    assert r.status == "schedulable"
    s = schedlab.simulate(ts, cpus=3, policy="federated", duration="24ms", jobs="dicts")
    assert (s["policy"], s["jobs"], s["deadline_misses"]) == ("federated", 11, 0)
    heavy = [j for j in s["jobs_records"] if j["task"] == 0]
    assert [j["completion_ns"] - j["release_ns"] for j in heavy] == [8_000_000] * 3
    assert all(j["migrations"] == 0 for j in s["jobs_records"] if j["task"] != 0)
    with pytest.raises(schedlab.Error, match=r"task 0 \(`heavy`\) is heavy and needs 2 dedicated CPUs"):
        schedlab.simulate(ts, cpus=1, policy="federated", duration="24ms")


def two_cpus():
    import os
    return len(os.sched_getaffinity(0)) >= 2


@pytest.mark.skipif(not two_cpus(), reason="needs two CPUs")
@pytest.mark.parametrize("arch", ["work-stealing", "global-lock"])
def test_a_python_body_runs_once_per_thread_in_region_order(arch):
    # One parallel task (1 ms, then 3 threads of 1 ms, then 1 ms; period 20 ms) and a
    # sequential one, 200 ms: each completed job of the parallel task calls its body once per
    # thread, and region r + 1's calls come after region r's (the join). `policy` is rtws:
    # work-stealing's own (the default there).
    ts = [{"name": "fj", "period": "20ms", "parallel": [["1ms"], ["1ms", "1ms", "1ms"], ["1ms"]]},
          {"name": "s", "wcet": "2ms", "period": "10ms"}]
    calls = []

    def body(cx):
        calls.append((cx.seq, cx.region, cx.thread, cx.strand))

    policy = None if arch == "work-stealing" else "rtws"
    r = schedlab.run(ts, cpus=2, arch=arch, policy=policy, duration="200ms", allow_non_rt=True,
                     bodies={"fj": body}, jobs="dicts")
    assert r["policy"] == "rtws" and r["arch"] == arch
    assert "steals" in r and "migrations" in r
    done = [j["seq"] for j in r["jobs_records"] if j["task"] == 0 and j["completion_ns"] >= 0]
    assert len(done) >= 8
    for seq in done:
        mine = [c for c in calls if c[0] == seq]
        assert sorted(c[1:] for c in mine) == [(0, 0, 0), (1, 0, 1), (1, 1, 2), (1, 2, 3), (2, 0, 4)]
        regions = [c[1] for c in mine]  # in call order (the list's appends happen under the GIL)
        assert regions == sorted(regions), regions
    # A body for a task that does not exist, or that is not callable: errors.
    with pytest.raises(schedlab.Error, match="no task named `nope`"):
        schedlab.run(ts, cpus=2, arch=arch, policy=policy, duration="10ms", bodies={"nope": body})
    with pytest.raises(schedlab.Error, match="not callable"):
        schedlab.run(ts, cpus=2, arch=arch, policy=policy, duration="10ms", bodies={0: 3})
