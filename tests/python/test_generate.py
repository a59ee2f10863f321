import numpy as np
import pytest

import schedlab


def test_fixed_sum_is_reproducible_and_bounded():
    a = schedlab.generate(tasks=8, utilization=3.0, util_method="randfixedsum", seed=5, count=3)
    b = schedlab.generate(tasks=8, utilization=3.0, util_method="randfixedsum", seed=5, count=1)
    assert len(a) == 3 and len(a[0]) == 8
    assert a[0].to_dicts() == b[0].to_dicts()
    for ts in a:
        assert ts.realised_utilization <= 3.0 + 1e-9
        assert (ts.wcet <= ts.deadline).all()


def test_distributions_and_shapes():
    fill = schedlab.generate(utilization=4.0, util_dist="uni-medium", seed=2)[0]
    assert fill.utilization <= 4.0
    grow = schedlab.generate(grow=5, utilization=4.0, util_dist="uniform:0.1..0.3", seed=1)
    assert [len(s) for s in grow] == list(range(5, 5 + len(grow)))
    cons = schedlab.generate(tasks=20, util_dist="exp:0.25", deadlines="constrained", seed=3)[0]
    assert (cons.deadline <= cons.period).all()


def test_utilization_vectors():
    u = schedlab.utilizations("drs:0.01..0.5", 10, 2.5, seed=9)
    assert u.shape == (10,) and abs(u.sum() - 2.5) < 1e-9 and (u <= 0.5 + 1e-12).all()


def test_bad_specs_raise():
    with pytest.raises(schedlab.Error, match="periods|period"):
        schedlab.generate(tasks=3, utilization=1.0, periods="weekly")
    with pytest.raises(schedlab.Error):
        schedlab.generate(tasks=3, utilization=5.0)
    with pytest.raises(schedlab.Error, match="say what to generate"):
        schedlab.generate(tasks=3)
