import collections.abc
import json
import pickle

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


# --- the native TaskSet: construction paths and their errors ----------------------------------

def test_tasks_dicts_documents_and_copies_give_one_set():
    dicts = [{"name": "a", "wcet": "1ms", "period": "4ms"}, {"wcet": 2, "period": 8, "deadline": 6}]
    ts = schedlab.TaskSet(dicts, cpus=2)
    from_tasks = schedlab.TaskSet(list(ts), cpus=2)
    mixed = schedlab.TaskSet([ts[0], dicts[1]], cpus=2)
    document = schedlab.TaskSet({"platform": {"cpus": 2}, "tasks": dicts})
    copy = schedlab.TaskSet(ts)
    assert ts == from_tasks == mixed == document == copy
    assert schedlab.TaskSet(ts, cpus=3).cpus == 3 and ts.cpus == 2
    assert schedlab.TaskSet(ts, cpus=np.int64(5)).cpus == 5
    assert schedlab.TaskSet((d for d in dicts)) != ts  # no platform
    # numpy scalars and arrays inside dicts are plain numbers and lists.
    np_dict = {"wcet": np.int64(1_000_000), "period": np.uint32(4_000_000), "affinity": np.array([0, 1])}
    assert schedlab.TaskSet([np_dict])[0].affinity == [0, 1]


def test_dict_errors_name_the_task_and_the_field():
    cases = [
        ([{"wcet": 1, "period": 2}, {"name": "b", "wcet": 1, "period": object()}],
         "task 1 (`b`): field `period`: cannot use a value of Python type `object`"),
        ([{"wcet": 1, "period": 2}, {"wcet": -3, "period": 10}], "task 1: field `wcet`: negative time -3"),
        ([{"wcet": 1.5, "period": 10}], "task 0: field `wcet`: 1.5 is not an integer number of nanoseconds"),
        ([{"wcet": 1, "period": float("nan")}], "task 0: field `period`"),
        ([{"wcet": 1, "period": 2 ** 70}], "task 0: field `period`: time"),
        ([{"wcet": 1}], "task 0: missing field `period`"),
        ([{"wcet": 1, "period": 4, "utility": -1}], "task 0: field `utility`"),
        ([{"wcet": 1, "period": 4, 3: 1}], "task 0: field names are strings"),
        ([{"wcet": 1, "period": 4}, 7], "task 1: a task must be a table/object"),
        ([{"wcet": "3ms", "period": "2ms"}], "task 0: wcet 3ms exceeds"),
    ]
    for tasks, message in cases:
        with pytest.raises(schedlab.Error) as e:
            schedlab.TaskSet(tasks)
        assert message in str(e.value), (tasks, str(e.value))
    with pytest.raises(schedlab.Error, match="use schedlab.load"):
        schedlab.TaskSet("tasks.json")
    with pytest.raises(schedlab.Error, match="list of task dicts"):
        schedlab.TaskSet(3)
    with pytest.raises(schedlab.Error, match=r"platfrom.*did you mean `platform`"):
        schedlab.TaskSet({"tasks": [], "platfrom": {"cpus": 2}})
    for bad in (0, -1, "2", True, 2.0):
        with pytest.raises(schedlab.Error, match="cpus: must be an integer from 1"):
            schedlab.TaskSet([{"wcet": 1, "period": 2}], cpus=bad)


def test_a_task_is_checked_like_a_task_in_a_file():
    t = schedlab.Task(wcet="2ms", period="10ms", deadline="8ms", name="t", wss="4KiB", priority=3)
    assert (t.wcet, t.period, t.deadline, t.offset, t.wss, t.priority) == (2_000_000, 10_000_000, 8_000_000, 0, 4096, 3)
    assert schedlab.Task(1, 4).deadline == 4 and schedlab.Task(1, 4, 3).deadline == 3
    assert t.utilization == pytest.approx(0.2) and t.density == pytest.approx(0.25)
    assert t.to_dict() == {"name": "t", "wcet": 2_000_000, "period": 10_000_000, "deadline": 8_000_000,
                           "priority": 3, "wss": 4096}
    assert schedlab.Task(**t.to_dict()) == t and hash(schedlab.Task(**t.to_dict())) == hash(t)
    assert t.replace(wcet="1ms").wcet == 1_000_000 and t.wcet == 2_000_000
    assert "Task(wcet=2000000, period=10000000, deadline=8000000, name='t'" in repr(t)
    with pytest.raises(schedlab.Error, match=r"^Task \(`x`\): wcet 20ms exceeds period 10ms \(the implicit deadline\)"):
        schedlab.Task("20ms", "10ms", name="x")
    with pytest.raises(schedlab.Error, match=r"^Task: field `period`: cannot read `soon` as a time"):
        schedlab.Task(1, "soon")
    with pytest.raises(schedlab.Error, match=r"^Task: field `cpu`"):
        schedlab.Task(1, 2, cpu=-1)
    with pytest.raises(AttributeError):
        t.wcet = 3  # type: ignore[misc]


def test_from_arrays_reads_every_integer_dtype_in_place():
    t = np.array([10, 20, 30])
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, ">i8"):
        ts = schedlab.TaskSet.from_arrays(np.array([1, 2, 3], dtype=dtype), t.astype(dtype))
        assert ts.wcet.tolist() == [1, 2, 3] and ts.deadline.tolist() == [10, 20, 30], dtype
    strided = np.arange(12, dtype=np.int64)[::4] + 1  # 1, 5, 9: not contiguous
    ts = schedlab.TaskSet.from_arrays(strided, np.array([10, 10, 10]), deadline=[9, 9, 9],
                                      names=np.array(["a", "b", "c"]), cpus=2)
    assert ts.wcet.tolist() == [1, 5, 9] and ts.deadline.tolist() == [9, 9, 9]
    assert [x.name for x in ts] == ["a", "b", "c"] and ts.cpus == 2
    assert schedlab.TaskSet.from_arrays([1, 2], [4, 8]).period.tolist() == [4, 8]  # lists too
    assert ts.wcet.dtype == np.int64


def test_from_arrays_errors_name_the_task_and_the_field():
    ok = np.array([10, 10])
    cases = [
        ((np.array([1.0, 2.0]), ok), "wcet must hold integers (nanoseconds), got dtype float64"),
        ((np.array([[1, 2]]), ok), "wcet must be a one-dimensional array, got 2 dimensions"),
        ((np.array([1, 2, 3]), ok), "must have one length, got 3, 2, 2"),
        ((np.array([1, -2]), ok), "task 1: field `wcet`: negative time -2"),
        ((np.array([1, 20]), ok), "task 1: wcet 20ns exceeds deadline 10ns"),
        ((np.array([1, 2]), np.array([10, 0])), "task 1: field `period`: must be greater than zero"),
    ]
    for args, message in cases:
        with pytest.raises(schedlab.Error) as e:
            schedlab.TaskSet.from_arrays(*args)
        assert message in str(e.value), (args, str(e.value))
    with pytest.raises(schedlab.Error, match="duplicate task name `a`"):
        schedlab.TaskSet.from_arrays([1, 1], [4, 4], names=["a", "a"])
    with pytest.raises(schedlab.Error, match="names must be a sequence of strings"):
        schedlab.TaskSet.from_arrays([1], [4], names=[3])
    with pytest.raises(schedlab.Error, match="deadline must hold integers"):
        schedlab.TaskSet.from_arrays([1], [4], deadline=["x"])


def test_a_task_set_is_an_immutable_sequence():
    ts = schedlab.TaskSet([{"name": n, "wcet": 1, "period": p} for n, p in [("a", 4), ("b", 8), ("c", 16)]])
    assert isinstance(ts, collections.abc.Sequence) and len(ts) == 3
    assert ts[-1].name == "c" and [t.name for t in ts[::-1]] == ["c", "b", "a"]
    assert [t.name for t in reversed(ts)] == ["c", "b", "a"] and ts[5:] == []
    assert ts[1] in ts and schedlab.Task(1, 5) not in ts and 3 not in ts
    assert ts.index(ts[2]) == 2 and ts.count(ts[0]) == 1
    with pytest.raises(IndexError):
        ts[3]
    with pytest.raises(TypeError):
        ts["a"]
    with pytest.raises(AttributeError):
        ts.cpus = 4  # type: ignore[misc]
    assert repr(ts) == "TaskSet(n=3, U=0.4375)"
    assert ts.realised_utilization is None and ts.offset.tolist() == [0, 0, 0]


def test_pickling_and_json_round_trips():
    ts = schedlab.generate(tasks=5, utilization=1.5, seed=2)[0]
    again = pickle.loads(pickle.dumps(ts))
    assert again == ts and again.realised_utilization == ts.realised_utilization
    assert pickle.loads(pickle.dumps(ts[0])) == ts[0]
    assert schedlab.TaskSet.parse(ts.to_json()) == ts == schedlab.parse(ts.dumps("toml"), "toml")
    assert json.loads(ts.to_json())["tasks"][0]["wcet"] == ts[0].wcet


def test_files(tmp_path):
    p = tmp_path / "s.json"
    p.write_text('{"platform": {"cpus": 4}, "tasks": [{"name": "x", "wcet": "1ms", "period": "3ms"}]}')
    assert schedlab.TaskSet.from_file(p) == schedlab.load(str(p)) and schedlab.load(p).cpus == 4
    p.write_text('{"tasks": [{"name": "x", "wcet": "1ms", "perod": "3ms"}]}')
    with pytest.raises(schedlab.Error, match=r"task 0 \(`x`\): unknown field `perod` \(did you mean `period`\?\)"):
        schedlab.load(p)
    with pytest.raises(schedlab.Error, match="unknown format `yaml`"):
        schedlab.TaskSet.parse("{}", "yaml")
