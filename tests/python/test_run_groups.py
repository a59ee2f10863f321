"""``schedlab.run`` on sets with reservation groups [HCBS §3.2] (docs/runtime.md, "Reservation
groups under Linux"): a set failing admission [HCBS Eq. 17] is refused under every ``arch``; an
``arch`` that does not run groups ignores them with one note on standard error;
``arch="reservations"`` runs them under H-CBS servers in user space (policy ``hcbs``, its
default) and ``arch="linux-rt-groups"`` as Linux RT group cgroups, each isolating a group whose
task overruns; the latter leaves no cgroup behind. The real run skips (with the reason) without root and the
cgroup-v1 ``cpu`` hierarchy with RT group files."""

import glob
import os
import time

import pytest

import schedlab

CPU_ROOT = "/sys/fs/cgroup/cpu"


def grouped(b_budget="6ms"):
    tasks = [schedlab.Task(wcet="1ms", period="20ms", name="ta", group="a"),
             schedlab.Task(wcet="2ms", period="20ms", name="tb", group="b")]
    groups = [{"name": "a", "budget": "4ms", "period": "20ms"},
              {"name": "b", "budget": b_budget, "period": "20ms"}]
    return schedlab.TaskSet(tasks, groups=groups)


def rt_groups_here():
    return os.geteuid() == 0 and os.path.exists(os.path.join(CPU_ROOT, "cpu.rt_runtime_us"))


@pytest.mark.parametrize("arch", ["global-lock", "linux-fifo", "linux-deadline", "reservations",
                                  "linux-rt-groups"])
def test_groups_failing_admission_are_refused(arch):
    with pytest.raises(schedlab.Error, match=r"CPU 0: .*\[HCBS Eq. 17\]"):
        schedlab.run(grouped("17ms"), cpus=1, arch=arch, duration="10ms", allow_non_rt=True)


def test_other_architectures_note_that_they_ignore_groups(capfd):
    r = schedlab.run(grouped(), cpus=1, arch="linux-fifo", duration="40ms", allow_non_rt=True)
    assert r["jobs"] == 4
    err = capfd.readouterr().err
    assert err.count(
        "note: groups are ignored by arch linux-fifo; use arch reservations or linux-rt-groups") == 1, err


@pytest.mark.skipif(not rt_groups_here(), reason="needs root and the cgroup-v1 cpu hierarchy with RT group files")
def test_an_overrunning_group_does_not_make_the_other_miss():
    def overrun(ctx):
        # 15 ms of CPU time for a task declared with 1 ms: group a's budget (4 ms / 20 ms)
        # throttles it.
        end = time.thread_time() + 0.015
        while time.thread_time() < end:
            pass

    cpu = sorted(os.sched_getaffinity(0))[-1]
    r = schedlab.run(grouped(), cpu_list=[cpu], arch="linux-rt-groups", duration="1s",
                     bodies={"ta": overrun})
    assert r["real_time"] and r["arch"] == "linux-rt-groups"
    assert [g["name"] for g in r["rt_groups"]] == ["a", "b"]
    assert r["rt_groups"][0]["rt_runtime_us"] == 4000
    a, b = r["per_task"]
    assert b["misses"] == 0, r["warnings"]
    assert a["misses"] > 0
    assert glob.glob(os.path.join(CPU_ROOT, "schedlab-*")) == []


def rt_permitted():
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (PermissionError, OSError):
        return False
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return True


def test_reservations_runs_the_groups_under_hcbs():
    r = schedlab.run(grouped(), cpus=1, arch="reservations", duration="200ms", allow_non_rt=True)
    assert (r["arch"], r["policy"], r["groups"], r["servers"]) == ("reservations", "hcbs", 2, 2)
    assert r["jobs"] == 20
    for hook in ["enqueue", "dequeue", "pick_next", "check_preempt"]:
        assert r["overheads"][hook]["count"] > 0, hook
    with pytest.raises(schedlab.Error, match=r"reservations runs policy `hcbs`"):
        schedlab.run(grouped(), cpus=1, arch="reservations", policy="gfp", duration="10ms",
                     allow_non_rt=True)


@pytest.mark.skipif(not rt_permitted(), reason="needs SCHED_FIFO (real-time permission)")
def test_reservations_isolate_an_overrunning_group():
    def overrun(ctx):
        # 15 ms of CPU time for a task declared with 1 ms: group a's servers (4 ms / 20 ms)
        # throttle it.
        end = time.thread_time() + 0.015
        while time.thread_time() < end:
            pass

    cpu = sorted(os.sched_getaffinity(0))[-1]
    r = schedlab.run(grouped(), cpu_list=[cpu], arch="reservations", duration="1s",
                     bodies={"ta": overrun})
    assert r["real_time"] and r["arch"] == "reservations"
    a, b = r["per_task"]
    assert b["misses"] == 0, r["warnings"]
    assert a["misses"] > 0
