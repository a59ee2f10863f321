import pickle

import pytest

import schedlab


def dhall(m=2):
    # Dhall's effect: m light tasks (2, 10) and one heavy task (10, 11) — G-EDF misses, yet the
    # set fits on m + ... CPUs partitioned. Every G-EDF test must reject it.
    light = [{"name": f"l{i}", "wcet": 2, "period": 10} for i in range(m)]
    return schedlab.TaskSet(light + [{"name": "h", "wcet": 10, "period": 11}])


def test_every_test_answers_with_the_documented_shape():
    ts = schedlab.TaskSet([{"wcet": "2ms", "period": "10ms"}, {"wcet": "3ms", "period": "15ms"}])
    results = schedlab.analyze(ts, cpus=2)
    names = [r.test for r in results]
    assert len(names) == len(set(names)) > 20
    for r in results:
        assert r.status in {"schedulable", "not-shown", "unschedulable", "not-applicable", "gave-up"}
        assert r.schedulable == (r.status == "schedulable")
        assert r.applicable == (r.status != "not-applicable")
        if r.status == "not-applicable":
            assert r.reason


def test_single_test_and_bounds():
    ts = schedlab.TaskSet([{"wcet": 1, "period": 4}, {"wcet": 2, "period": 6}, {"wcet": 3, "period": 13}])
    r = schedlab.analyze(ts, cpus=1, tests="fp-rta")
    assert r.schedulable
    # Hand-computed response times under RM: 1, 3 (1+2), and R3 = 3 + ⌈R/4⌉·1 + ⌈R/6⌉·2 → 10.
    assert r.response_time_bounds_ns == [1, 3, 10]


def test_dhall_effect_rejected_by_gedf_accepted_partitioned():
    ts = dhall()
    assert not schedlab.analyze(ts, cpus=2, tests="gedf").schedulable
    part = schedlab.analyze(ts, cpus=2, tests="pedf-ffd")
    assert part.schedulable
    assert sorted(i for cpu in part.partition for i in cpu) == [0, 1, 2]


def test_not_applicable_and_unknown():
    ts = schedlab.TaskSet([{"wcet": 1, "period": 4, "deadline": 2}])
    r = schedlab.analyze(ts, cpus=2, tests="gedf-sb")
    assert r.status == "not-applicable" and "implicit" in r.reason
    with pytest.raises(schedlab.Error, match="unknown test"):
        schedlab.analyze(ts, cpus=2, tests="gedf-bcll")
    with pytest.raises(schedlab.Error, match="CPUs"):
        schedlab.analyze(ts, tests="edf")


def test_catalogue_lists_citations():
    cat = schedlab.tests()
    assert any(t["test"] == "gedf-bcl" and "Bertogna" in t["citation"] for t in cat)


def test_given_priorities_and_their_absence():
    tasks = [{"name": "hi", "wcet": 1, "period": 4, "priority": 1},
             {"name": "lo", "wcet": 2, "period": 6, "priority": 0}]
    # "lo" (period 6) gets the higher priority: R(lo) = 2, R(hi) = 1 + 2 = 3.
    r = schedlab.analyze(tasks, cpus=1, tests="fp-rta", priorities="given")
    assert r.schedulable and r.response_time_bounds_ns == [3, 2]
    r = schedlab.analyze([{"wcet": 1, "period": 4}], cpus=1, tests="fp-rta", priorities="given")
    assert r.status == "not-applicable" and "priority" in r.reason
    with pytest.raises(schedlab.Error, match="priorit"):
        schedlab.analyze(tasks, cpus=1, tests="fp-rta", priorities="edf")


def test_tardiness_bounds_on_request():
    ts = dhall()
    plain = schedlab.analyze(ts, cpus=2, tests="gedf-soft")
    assert plain.schedulable and plain.tardiness_bounds_ns is None
    soft = schedlab.analyze(ts, cpus=2, tests="gedf-soft", tardiness=True)
    # Under G-EDF the heavy task is 1 ns late in the synchronous schedule: the bound covers it.
    assert len(soft.tardiness_bounds_ns) == 3 and soft.tardiness_bounds_ns[2] >= 1
    hard = schedlab.analyze(ts, cpus=2, tests="pedf-ffd", tardiness=True)
    assert hard.tardiness_bounds_ns == [0, 0, 0]


def test_generate_then_analyze_in_bulk():
    sets = schedlab.generate(tasks=20, utilization=2.0, seed=11, count=20)
    verdicts = [schedlab.analyze(s, cpus=4, tests="gedf").schedulable for s in sets]
    assert len(verdicts) == 20 and any(verdicts)


def test_parameters_in_test_names():
    # On m = 2 this set needs a second slack round (see the registry's Rust test).
    ts = schedlab.TaskSet([{"wcet": c, "period": t} for c, t in [(1, 13), (1, 18), (1, 5), (3, 17), (4, 13), (4, 11)]])
    default, one = schedlab.analyze(ts, cpus=2, tests=["gedf-rta", "gedf-rta:rounds=1"])
    assert default.test == "gedf-rta" and default.schedulable
    assert one.test == "gedf-rta:rounds=1" and one.status == "not-shown"
    with pytest.raises(schedlab.Error, match="no parameter `round`"):
        schedlab.analyze(ts, cpus=2, tests="gedf-rta:round=1")
    rta = next(t for t in schedlab.tests() if t["test"] == "gedf-rta")
    assert {p["name"]: p["default"] for p in rta["parameters"]}["rounds"] == "25"


# --- native results and batch calls --------------------------------------------------------

def test_results_are_objects_with_the_json_fields():
    ts = schedlab.TaskSet([{"wcet": 1, "period": 4}, {"wcet": 2, "period": 6}, {"wcet": 3, "period": 13}])
    r = schedlab.analyze(ts, cpus=1, tests="fp-rta")
    assert r.to_dict() == {"test": "fp-rta", "status": "schedulable", "schedulable": True, "applicable": True,
                           "reason": None, "response_time_bounds_ns": [1, 3, 10], "tardiness_bounds_ns": None,
                           "partition": None}
    assert schedlab.Result(**r.to_dict()) == r and pickle.loads(pickle.dumps(r)) == r
    assert repr(r).startswith("Result(test='fp-rta', status='schedulable', schedulable=True")
    assert r != schedlab.analyze(ts, cpus=1, tests="edf")
    with pytest.raises(schedlab.Error, match="disagree"):
        schedlab.Result("x", "schedulable", schedulable=False)
    with pytest.raises(schedlab.Error, match="unknown status"):
        schedlab.Result("x", "fine")
    with pytest.raises(AttributeError):
        r.status = "not-shown"  # type: ignore[misc]
    # A list of dicts works where a TaskSet does; one name in a list gives a list.
    assert schedlab.analyze(ts.to_dicts(), cpus=1, tests=["fp-rta"]) == [r]
    with pytest.raises(schedlab.Error, match="tests= is a test name or a list"):
        schedlab.analyze(ts, cpus=1, tests=3)
    with pytest.raises(schedlab.Error, match="cpus: must be an integer"):
        schedlab.analyze(ts, cpus=0, tests="edf")


def test_analyze_many_answers_in_input_order_as_single_calls_do():
    sets = schedlab.generate(tasks=12, utilization=3.0, seed=5, count=40)
    sets.append(schedlab.TaskSet(dhall(), cpus=2))  # its own platform, when cpus= is not given
    tests = ["gedf", "gedf-rta", "pedf-ffd", "gfp-rta"]
    for threads in (None, 1, 3):
        many = schedlab.analyze_many(sets[:-1], cpus=4, tests=tests, threads=threads)
        assert many == [schedlab.analyze(s, cpus=4, tests=tests) for s in sets[:-1]]
    one = schedlab.analyze_many(sets[:-1], cpus=4, tests="gedf")
    assert [r.schedulable for r in one] == [schedlab.analyze(s, cpus=4, tests="gedf").schedulable for s in sets[:-1]]
    assert len({r.schedulable for r in one}) == 2  # both answers occur: the order is checked
    mixed = schedlab.analyze_many([schedlab.TaskSet(sets[0], cpus=4), sets[-1]])
    assert mixed[0] == schedlab.analyze(sets[0], cpus=4) and mixed[1] == schedlab.analyze(sets[-1])
    assert any(r.test == "cedf-k2" for r in mixed[0]) and not any(r.test.startswith("cedf") for r in mixed[1])
    assert schedlab.analyze_many([], cpus=2, tests="gedf") == []
    assert schedlab.analyze_many(([{"wcet": 1, "period": 2}] for _ in range(2)), cpus=1, tests="edf")[1].schedulable


def test_analyze_many_errors_name_the_task_set():
    good = schedlab.TaskSet([{"wcet": 1, "period": 2}])
    with pytest.raises(schedlab.Error, match=r"task set 1: the number of CPUs is given neither"):
        schedlab.analyze_many([schedlab.TaskSet(good, cpus=2), good], tests="gedf")
    with pytest.raises(schedlab.Error, match=r"task set 2: task 0: missing field `period`"):
        schedlab.analyze_many([good, good, [{"wcet": 1}]], cpus=2)
    with pytest.raises(schedlab.Error, match="unknown test"):
        schedlab.analyze_many([good], cpus=2, tests=["gedf", "gedf-bcll"])
