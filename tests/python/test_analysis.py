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
