"""Reservation groups from Python [HCBS §3.2]: ``Task(group=...)`` names the task's group,
``TaskSet(tasks, groups=[...])`` and task-file documents with ``groups`` carry them, checked as
in files (errors name the group); ``TaskSet.groups`` gives them back as task-file dicts with
times in ns (docs/task-files.md)."""

import pickle

import pytest

import schedlab

MS = 1_000_000
GROUPS = [{"name": "video", "budget": "4ms", "period": "10ms", "cpus": [0, 1]},
          {"name": "decoder", "budget": 1 * MS, "period": "5ms", "parent": "video"}]


def test_a_task_names_its_group_and_a_set_checks_it():
    t = schedlab.Task(wcet="1ms", period="20ms", name="d", group="decoder")
    assert t.group == "decoder" and t.to_dict()["group"] == "decoder"
    assert "group='decoder'" in repr(t)
    assert t.replace(group="video").group == "video"
    assert schedlab.Task(wcet=1, period=2).group is None
    ts = schedlab.TaskSet([t, schedlab.Task(wcet="1ms", period="20ms", name="free")], groups=GROUPS)
    assert [g["name"] for g in ts.groups] == ["video", "decoder"]
    assert ts.groups[0] == {"name": "video", "budget": 4 * MS, "period": 10 * MS, "cpus": [0, 1]}
    assert ts.groups[1]["parent"] == "video"
    assert ts[0].group == "decoder" and ts[1].group is None
    # Kept through text, pickling and documents.
    assert schedlab.TaskSet.parse(ts.to_json()) == ts
    assert schedlab.TaskSet.parse(ts.dumps("toml"), "toml") == ts
    assert pickle.loads(pickle.dumps(ts)) == ts
    doc = {"groups": GROUPS, "tasks": [t.to_dict()]}
    assert schedlab.TaskSet(doc).groups == ts.groups


def test_bad_groups_are_errors_naming_the_group():
    t = schedlab.Task(wcet="1ms", period="20ms", name="d", group="audio")
    with pytest.raises(schedlab.Error, match=r"task 0 \(`d`\): field `group`: unknown group `audio`"):
        schedlab.TaskSet([t], groups=GROUPS)
    with pytest.raises(schedlab.Error, match="unknown group `audio`"):
        schedlab.TaskSet([t])
    over = [{"name": "g", "budget": "6ms", "period": "5ms"}]
    with pytest.raises(schedlab.Error, match=r"group `g`: `budget` 6ms exceeds `period` 5ms"):
        schedlab.TaskSet([schedlab.Task(wcet=1, period=2)], groups=over)
    cycle = [{"name": "a", "budget": 1, "period": 5, "parent": "b"},
             {"name": "b", "budget": 1, "period": 5, "parent": "a"}]
    with pytest.raises(schedlab.Error, match="cycle"):
        schedlab.TaskSet([schedlab.Task(wcet=1, period=2)], groups=cycle)
    with pytest.raises(schedlab.Error, match="field `group`: must be a group's name"):
        schedlab.Task(wcet=1, period=2, group=3)
    with pytest.raises(schedlab.Error, match="given twice"):
        schedlab.TaskSet({"groups": GROUPS, "tasks": [{"wcet": 1, "period": 2}]}, groups=GROUPS)


def test_mpr_gfp_analyses_the_groups():
    """``mpr-gfp`` reads the set's groups (the MPR comparison test, docs/analysis.md): the
    hand-checked set of the Rust tests (group (5, 10) on 2 CPUs, bounds 12 and 15 ns), an
    overloaded CPU as a verdict naming Eq. 17, and a set without groups not applicable."""
    tasks = [schedlab.Task(wcet=2, period=40, group="a"), schedlab.Task(wcet=3, period=40, group="a")]
    ts = schedlab.TaskSet(tasks, groups=[{"name": "a", "budget": 5, "period": 10}])
    r = schedlab.analyze(ts, cpus=2, tests="mpr-gfp")
    assert r.status == "schedulable" and r.response_time_bounds_ns == [12, 15]
    over = schedlab.TaskSet(tasks, groups=[{"name": "a", "budget": 11, "period": 20},
                                           {"name": "b", "budget": 5, "period": 10}])
    r = schedlab.analyze(over, cpus=2, tests="mpr-gfp")
    assert r.status == "not-shown" and "Eq. 17" in r.reason and "CPU 0" in r.reason
    plain = schedlab.TaskSet([schedlab.Task(wcet=2, period=40)])
    assert schedlab.analyze(plain, cpus=2, tests="mpr-gfp").status == "not-applicable"
