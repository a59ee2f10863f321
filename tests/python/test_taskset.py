import json

import numpy as np
import pytest

import schedlab


def test_build_from_dicts_with_units():
    ts = schedlab.TaskSet([{"name": "t1", "wcet": "2ms", "period": "10ms", "deadline": "8ms"},
                           {"wcet": 1500, "period": "1.5us"}])
    assert len(ts) == 2
    assert ts[0].wcet == 2_000_000 and ts[0].deadline == 8_000_000
    assert ts[1].deadline == ts[1].period == 1500
    assert ts.utilization == pytest.approx(0.2 + 1.0)


def test_error_is_a_value_error_naming_task_and_field():
    with pytest.raises(schedlab.Error) as e:
        schedlab.TaskSet([{"name": "x", "wcet": "2ms", "perod": "10ms"}])
    assert isinstance(e.value, ValueError)
    assert "task 0 (`x`)" in str(e.value) and "did you mean `period`" in str(e.value)
    with pytest.raises(ValueError, match=r"exceeds period 10ms \(the implicit deadline\)"):
        schedlab.TaskSet([{"wcet": "20ms", "period": "10ms"}])
    with pytest.raises(ValueError, match="duplicate task name"):
        schedlab.TaskSet([{"name": "a", "wcet": 1, "period": 2}, {"name": "a", "wcet": 1, "period": 2}])


def test_numpy_round_trip():
    c = np.array([1, 2, 3], dtype=np.int64)
    t = np.array([10, 20, 30], dtype=np.int64)
    ts = schedlab.TaskSet.from_arrays(c, t)
    assert (ts.wcet == c).all() and (ts.period == t).all() and (ts.deadline == t).all()
    with pytest.raises(schedlab.Error):
        schedlab.TaskSet.from_arrays(np.array([1.5]), np.array([10.0]))


def test_files_round_trip(tmp_path):
    ts = schedlab.TaskSet([{"name": "a", "wcet": "1ms", "period": "4ms", "wss": "64KiB"}], cpus=2)
    for name in ("s.json", "s.toml"):
        p = tmp_path / name
        ts.save(p)
        again = schedlab.load(p)
        assert again.to_dicts() == ts.to_dicts()
        assert again.cpus == 2
    assert "1ms" in ts.dumps("toml")
    with pytest.raises(schedlab.Error, match="No such file"):
        schedlab.load(tmp_path / "missing.json")


def test_bad_text_never_crashes():
    for text in ["", "{", "tasks = 3", '{"tasks": [{"wcet": -1, "period": 1}]}',
                 '{"tasks": [{"wcet": "1e99s", "period": 1}]}', "[[tasks]]\nwcet = 1.5\nperiod = 2\n"]:
        with pytest.raises(schedlab.Error):
            schedlab.taskset.parse(text, "toml" if not text.startswith("{") else "json")
