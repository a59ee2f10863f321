"""Overhead-aware analysis from Python: ``analyze(..., overheads=, arch=, ...)``,
``analyze_many`` with the same keywords and ``charge_overheads``, on the hand-worked case of
crates/cli/tests/overheads_charge.rs, compared with the CLI's answers for the same inputs."""

import json
import pickle
import subprocess
from pathlib import Path

import pytest

import schedlab

CLI = Path(__file__).parents[2] / "target" / "release" / "schedlab"

# Two tasks: a = (100, 1000, 1000), b = (200, 500, 400), in ns.
TASKS = [{"name": "a", "wcet": 100, "period": 1000},
         {"name": "b", "wcet": 200, "period": 500, "deadline": 400}]

VALUES = {"release_latency": 2, "release": 5, "schedule": 3, "context_switch": 1, "ipi": 7,
          "tick": 10, "request": 4, "dsp": 6}
ARCHS = ["global-lock", "message-passing", "partitioned"]


# Δreq and Δdsp are message-passing's only (a curve of them elsewhere is an error).
ONLY_MP = {"request", "dsp"}


def overheads_dict(values=VALUES):
    return {"schema": 1, "tick_period": "1us",
            "arch": {a: {n: {"max": [[1, v]]} for n, v in values.items()
                         if a == "message-passing" or n not in ONLY_MP} for a in ARCHS}}


def overheads_toml(values=VALUES):
    return _to_toml(overheads_dict(values))


@pytest.fixture
def files(tmp_path):
    """The task set and the overhead file on disk (for the path form and the CLI)."""
    (tmp_path / "set.json").write_text(json.dumps({"tasks": TASKS}))
    (tmp_path / "oh.toml").write_text(overheads_toml())
    return tmp_path


def cli_json(*args):
    if not CLI.exists():
        pytest.skip(f"SKIPPED LOUDLY: {CLI} is not built (cargo build --release -p schedlab); "
                    "the answers were checked against the literal values only")
    done = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_global_lock_charges_the_hand_worked_set():
    r = schedlab.analyze(TASKS, cpus=4, tests="gedf-gfb", overheads=overheads_dict(),
                         arch="global-lock")
    assert r.overhead_accounting == {
        "arch": "global-lock", "stat": "max", "cpus_for_jobs": 4, "status": "ok",
        "failed_task": None, "tasks": [[159, 998, 998], [262, 498, 398]]}
    # A whole-set test has no per-bin accounting.
    assert r.accounting is None and "accounting" not in r.to_dict()


def test_message_passing_keeps_a_cpu_for_the_dsp():
    rs = schedlab.analyze(TASKS, cpus=4, overheads=overheads_dict(), arch="message-passing")
    acc = rs[0].overhead_accounting
    assert acc["cpus_for_jobs"] == 3
    assert acc["tasks"] == [[163, 998, 998], [264, 498, 398]]
    # "Every test" is every test for the 3 CPUs left for jobs, as in the CLI.
    assert [r.test for r in rs] == [r.test for r in schedlab.analyze(TASKS, cpus=3)]
    assert all(r.overhead_accounting == acc for r in rs)


def test_partitioned_charges_each_cpu():
    ffd, edf = schedlab.analyze(TASKS, cpus=2, tests=["pedf-ffd", "edf"],
                                overheads=overheads_dict(), arch="partitioned")
    assert ffd.schedulable and ffd.partition == [[0, 1], []]
    per_cpu = ffd.accounting["per_cpu"]
    assert per_cpu[0]["tasks"] == [[152, 998, 998], [255, 498, 398]]
    assert per_cpu[0]["cpus_for_jobs"] == 1 and per_cpu[1]["tasks"] == []
    assert ffd.accounting["misfits"] == []
    assert ffd.to_dict()["accounting"] == ffd.accounting
    assert edf.accounting is None


def test_results_equal_the_cli_json(files):
    oh = files / "oh.toml"
    for arch, cpus, tests in [("global-lock", 4, ["gedf-gfb"]),
                              ("message-passing", 4, ["gedf-gfb", "gedf"]),
                              ("partitioned", 2, ["pedf-ffd", "edf"])]:
        line = cli_json("analyze", files / "set.json", "--cpus", cpus, "--overheads", oh,
                        "--arch", arch, "--format", "json", *[a for t in tests for a in ("--test", t)])
        for form in (oh, str(oh), overheads_dict()):
            rs = schedlab.analyze(schedlab.load(files / "set.json"), cpus=cpus, tests=tests,
                                  overheads=form, arch=arch)
            assert [r.to_dict() for r in rs] == line["results"]
            assert all(r.overhead_accounting == line["accounting"] for r in rs)


def test_every_option_reaches_the_accounting_as_in_the_cli(files):
    oh = files / "oh.toml"
    # The avg curves are the max curves plus one; a dedicated interrupt CPU reads
    # [arch.global-lock-di]; a granularity of 2ns rounds C up and T, D down to even numbers.
    d = overheads_dict()
    d["arch"]["global-lock-di"] = d["arch"]["global-lock"]
    for a in d["arch"].values():
        for curve in a.values():
            curve["avg"] = [[1, curve["max"][0][1] + 1]]
    oh.write_text(_to_toml(d))
    line = cli_json("analyze", files / "set.json", "--cpus", 4, "--overheads", oh, "--arch",
                    "global-lock", "--dedicated-irq-cpu", "--overhead-stat", "avg",
                    "--granularity", "2ns", "--test", "gedf", "--format", "json")
    r = schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d, arch="global-lock",
                         dedicated_irq_cpu=True, overhead_stat="avg", granularity="2ns")
    assert r.overhead_accounting == line["accounting"]
    assert r.overhead_accounting["arch"] == "global-lock-di"
    assert r.overhead_accounting["stat"] == "avg"
    assert all(x % 2 == 0 for task in r.overhead_accounting["tasks"] for x in task)
    assert r.to_dict() == line["results"][0]


def _to_toml(d):
    text = f'schema = {d["schema"]}\ntick_period = "{d["tick_period"]}"\n'
    for a, curves in d["arch"].items():
        for n, c in curves.items():
            text += f"[arch.{a}.{n}]\n" + "".join(f"{k} = {v}\n" for k, v in c.items())
    return text


def test_analyze_many_shares_the_file_and_answers_as_analyze():
    sets = [TASKS, TASKS[:1], TASKS[1:]]
    many = schedlab.analyze_many(sets, cpus=4, tests=["gedf-gfb", "gedf"],
                                 overheads=overheads_dict(), arch="message-passing", threads=2)
    assert many == [schedlab.analyze(s, cpus=4, tests=["gedf-gfb", "gedf"],
                                     overheads=overheads_dict(), arch="message-passing")
                    for s in sets]
    assert many[1][0].overhead_accounting["tasks"] != many[0][0].overhead_accounting["tasks"]
    with pytest.raises(schedlab.Error, match="task set 0: .*cpus=2 or more"):
        schedlab.analyze_many(sets, cpus=1, tests="gedf", overheads=overheads_dict(),
                              arch="message-passing")


def test_charge_overheads_equals_overheads_charge(files):
    c = schedlab.charge_overheads(TASKS, cpus=4, overheads=overheads_dict(), arch="global-lock")
    ts = c.pop("taskset")
    # The terms `overheads charge` prints (hand-worked: uscale = 39/40, cpre = 802/39,
    # C'_0 = 108·40/39 + 1604/39 + 7, C'_1 = 208·40/39 + 1604/39 + 7).
    b = c.pop("breakdown")
    assert b["overheads_ns"]["release"] == 5 and b["overheads_ns"]["tick_period"] == 1000
    assert b["uscale"] == pytest.approx(39 / 40) and b["cpre_ns"] == pytest.approx(802 / 39)
    assert b["per_job_ns"] == 8 and b["extra_ns"] == 7 and b["cpmd_ns"] == [0, 0]
    assert b["inflated_ns"] == pytest.approx([5924 / 39 + 7, 9924 / 39 + 7])
    assert c == {"arch": "global-lock", "stat": "max", "cpus_for_jobs": 4, "status": "ok",
                 "failed_task": None, "tasks": [[159, 998, 998], [262, 498, 398]]}
    assert [(t.name, t.wcet, t.period, t.deadline) for t in ts] == [
        ("a", 159, 998, 998), ("b", 262, 498, 398)]
    mp = schedlab.charge_overheads(TASKS, cpus=4, overheads=files / "oh.toml",
                                   arch="message-passing")
    assert mp["cpus_for_jobs"] == 3 and mp["taskset"].cpus == 3
    assert mp["tasks"] == [[163, 998, 998], [264, 498, 398]]
    # The CLI's inflated file is the same task set (names, fields, platform = CPUs for jobs).
    for arch, result in [("global-lock", ts), ("message-passing", mp["taskset"])]:
        out = files / f"charged-{arch}.json"
        if not CLI.exists():
            pytest.skip(f"SKIPPED LOUDLY: {CLI} is not built (cargo build --release -p schedlab)")
        subprocess.run([str(CLI), "overheads", "charge", str(files / "set.json"), "--cpus", "4",
                        "--overheads", str(files / "oh.toml"), "--arch", arch, "-o", str(out)],
                       check=True, capture_output=True)
        assert schedlab.load(out) == result
    # The same accounting as analyze's.
    r = schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=files / "oh.toml",
                         arch="message-passing")
    assert r.overhead_accounting == {k: v for k, v in mp.items() if k not in ("taskset", "breakdown")}


def test_a_failed_accounting_gives_no_set_and_not_shown():
    d = overheads_dict(dict(VALUES, release_latency=500))
    c = schedlab.charge_overheads(TASKS, cpus=4, overheads=d, arch="global-lock")
    assert (c["status"], c["failed_task"], c["tasks"], c["taskset"]) == (
        "task-infeasible", 1, None, None)
    r = schedlab.analyze(TASKS, cpus=4, tests="gedf-gfb", overheads=d, arch="global-lock")
    assert r.status == "not-shown" and "task-infeasible (task 1)" in r.reason
    assert r.overhead_accounting == {k: v for k, v in c.items() if k not in ("taskset", "breakdown")}


def test_results_with_accounting_survive_to_dict_and_pickle():
    rs = schedlab.analyze(TASKS, cpus=2, tests=["pedf-ffd", "gedf"], overheads=overheads_dict(),
                          arch="partitioned")
    for r in rs:
        assert pickle.loads(pickle.dumps(r)) == r
        rebuilt = schedlab.Result(**r.to_dict(), overhead_accounting=r.overhead_accounting)
        assert rebuilt == r and repr(rebuilt) == repr(r)
    # The whole-set accounting is part of a result's identity.
    assert schedlab.Result(**rs[1].to_dict()) != rs[1]
    with pytest.raises(schedlab.Error, match="accounting: unknown `status` `fine`"):
        schedlab.Result(**dict(rs[1].to_dict(), overhead_accounting=dict(
            rs[1].overhead_accounting, status="fine")))
    with pytest.raises(schedlab.Error, match="per_cpu"):
        schedlab.Result(**dict(rs[0].to_dict(), accounting={"misfits": []}))


def test_option_errors_name_the_keywords():
    d = overheads_dict()
    with pytest.raises(schedlab.Error, match=r"overheads= needs arch= \(global-lock, "):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d)
    for stray in [{"arch": "global-lock"}, {"dedicated_irq_cpu": True},
                  {"overhead_stat": "avg"}, {"granularity": "1us"}]:
        with pytest.raises(schedlab.Error, match=f"{next(iter(stray))}=.* needs overheads="):
            schedlab.analyze(TASKS, cpus=4, tests="gedf", **stray)
    with pytest.raises(schedlab.Error, match="unknown architecture `global-lok` .*did you mean "
                                             "`global-lock`.*known: global-lock, global-lock-di"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d, arch="global-lok")
    with pytest.raises(schedlab.Error, match='arch="message-passing" keeps one CPU from jobs, '
                                             "so it needs cpus=2 or more"):
        schedlab.analyze(TASKS, cpus=1, tests="gedf", overheads=d, arch="message-passing")
    with pytest.raises(schedlab.Error, match="cpus=2 or more"):
        schedlab.charge_overheads(TASKS, cpus=1, overheads=d, arch="global-lock-di")
    with pytest.raises(schedlab.Error, match="dedicated_irq_cpu=True applies to "
                                             'arch="global-lock" only'):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d, arch="partitioned",
                         dedicated_irq_cpu=True)
    with pytest.raises(schedlab.Error, match="overhead_stat: .*neither `avg` nor `max`"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d, arch="global-lock",
                         overhead_stat="mean")
    # Times typed by a person need a unit (as --granularity does); 0 rounds nothing.
    with pytest.raises(schedlab.Error, match="granularity: time `5` needs a unit"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=d, arch="global-lock",
                         granularity=5)
    with pytest.raises(schedlab.Error, match="granularity must be at least 1ns"):
        schedlab.charge_overheads(TASKS, cpus=4, overheads=d, arch="global-lock",
                                  granularity="0ns")
    with pytest.raises(TypeError):
        schedlab.charge_overheads(TASKS, cpus=4, overheads=d)  # type: ignore[call-arg]


def test_missing_curves_give_the_librarys_message(files):
    no_ipi = {k: v for k, v in VALUES.items() if k != "ipi"}
    with pytest.raises(schedlab.Error, match="no `ipi` curve"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=overheads_dict(no_ipi),
                         arch="global-lock")
    with pytest.raises(schedlab.Error, match="no architecture `linux-deadline`"):
        schedlab.charge_overheads(TASKS, cpus=4, overheads=files / "oh.toml",
                                  arch="linux-deadline")
    with pytest.raises(schedlab.Error, match="no `avg` values"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=overheads_dict(),
                         arch="global-lock", overhead_stat="avg")
    with pytest.raises(schedlab.Error, match="missing.toml"):
        schedlab.analyze(TASKS, cpus=4, tests="gedf", overheads=files / "missing.toml",
                         arch="global-lock")
