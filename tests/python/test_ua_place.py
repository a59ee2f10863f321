"""Utility accrual from Python: ``analyze(..., tests="gnphvdf-uab")`` carries ``k``,
``guaranteed_tasks`` and ``utility_fraction`` as ``schedlab analyze --format json`` does (the
hand-worked set of crates/analysis/src/ua/gnphvdf_uab_tests.rs), results survive pickling and
``Result(**to_dict())``; the [ChronOS §8.5] placement lets overloaded sets run under
``pedf`` with ``partition="chronos"`` and under every registered utility-accrual policy."""

import pickle

import pytest

import schedlab

# Densities V/C = 5, 4, 1, 0.5 (ms); m = 2: k = 2 (8 ≤ min(8, 9)); value rates 1, 1, 0.25, 0.1.
UAB = [{"wcet": "2ms", "period": "10ms", "utility": 10},
       {"wcet": "3ms", "period": "12ms", "utility": 12},
       {"wcet": "5ms", "period": "20ms", "utility": 5},
       {"wcet": "8ms", "period": "40ms", "utility": 4}]

# U = 0.9 × 3 on 2 CPUs: overloaded; admission-based packing refuses it.
OVERLOAD = [{"wcet": "9ms", "period": "10ms", "utility": u} for u in (3, 2, 1)]

UA_POLICIES = ["ghvdf", "gnphvdf", "gmua", "nggua", "ggua", "phvdf", "plbesa", "pdasa"]


def test_the_bound_in_the_result():
    r = schedlab.analyze(UAB, cpus=2, tests="gnphvdf-uab")
    assert r.status == "not-shown"
    assert r.k == 2
    assert r.guaranteed_tasks == [0, 1]
    assert r.utility_fraction["k_over_n"] == 0.5
    assert r.utility_fraction["value_weighted"] == pytest.approx(2 / 2.35, abs=1e-12)
    d = r.to_dict()
    assert d["k"] == 2 and d["guaranteed_tasks"] == [0, 1]
    assert d["utility_fraction"] == r.utility_fraction
    assert schedlab.Result(**d) == r
    assert pickle.loads(pickle.dumps(r)) == r
    assert "k=2" in repr(r)
    other = schedlab.analyze(UAB, cpus=2, tests="gedf-gfb")
    assert other.k is None and other.guaranteed_tasks is None and other.utility_fraction is None
    with pytest.raises(schedlab.Error, match="go together"):
        schedlab.Result(test="x", status="not-shown", k=1)
    with pytest.raises(schedlab.Error, match="guaranteed_tasks lists"):
        schedlab.Result(test="x", status="not-shown", k=2, guaranteed_tasks=[0],
                        utility_fraction={"k_over_n": 0.5, "value_weighted": None})


def test_every_task_guaranteed_is_schedulable():
    r = schedlab.analyze(UAB[:2], cpus=2, tests="gnphvdf-uab")
    assert r.schedulable and r.k == 2 and r.utility_fraction["k_over_n"] == 1.0


def test_overload_runs_with_the_chronos_placement():
    with pytest.raises(schedlab.Error, match="found no placement"):
        schedlab.simulate(OVERLOAD, cpus=2, policy="pedf", duration="100ms")
    r = schedlab.simulate(OVERLOAD, cpus=2, policy="pedf", partition="chronos",
                          duration="100ms")
    assert r["deadline_misses"] > 0


@pytest.mark.parametrize("policy", UA_POLICIES)
def test_every_ua_policy_runs_overload(policy):
    try:
        r = schedlab.simulate(OVERLOAD, cpus=2, policy=policy, duration="100ms")
    except schedlab.Error as e:
        if "unknown policy" in str(e):
            pytest.skip(f"SKIPPED LOUDLY: policy `{policy}` is not registered in this build")
        raise
    assert r["policy"] == policy and r["jobs"] > 0
