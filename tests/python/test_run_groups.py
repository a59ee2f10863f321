"""``schedlab.run`` on sets with reservation groups [HCBS §3.2] (docs/runtime.md, "Reservation
groups under Linux"): a set failing admission [HCBS Eq. 17] is refused under every ``arch``; an
``arch`` that does not run groups ignores them with one note on standard error;
``arch="linux-rt-groups"`` runs them as Linux RT group cgroups, isolating a group whose task
overruns, and leaves no cgroup behind. The real run skips (with the reason) without root and the
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


@pytest.mark.parametrize("arch", ["global-lock", "linux-fifo", "linux-deadline", "linux-rt-groups"])
def test_groups_failing_admission_are_refused(arch):
    with pytest.raises(schedlab.Error, match=r"CPU 0: .*\[HCBS Eq. 17\]"):
        schedlab.run(grouped("17ms"), cpus=1, arch=arch, duration="10ms", allow_non_rt=True)


def test_other_architectures_note_that_they_ignore_groups(capfd):
    r = schedlab.run(grouped(), cpus=1, arch="linux-fifo", duration="40ms", allow_non_rt=True)
    assert r["jobs"] == 4
    err = capfd.readouterr().err
    assert err.count("note: groups are ignored by arch linux-fifo; use arch linux-rt-groups") == 1, err


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
