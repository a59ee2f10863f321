"""``schedlab.export``: the same deployments as ``schedlab export``, refusals as
``schedlab.Error`` naming the alternative, and the rt-app JSON within rt-app's documented
fields (the full checks, and the real runs, are the Rust tests: crates/cli/tests/export*.rs)."""

import json

import pytest

import schedlab

THREE = [
    {"name": "t1", "wcet": "6ms", "period": "10ms"},
    {"name": "t2", "wcet": "5ms", "period": "10ms"},
    {"name": "t3", "wcet": "4ms", "period": "20ms"},
]


def _json(text: str) -> dict:
    """The JSON after the ``/* … */`` header."""
    return json.loads(text[text.index("\n{") + 1:])


def test_pedf_to_rt_app_has_the_pedf_ffd_partition_and_the_margin():
    text = schedlab.export(schedlab.TaskSet(THREE), cpus=2, policy="pedf", to="rt-app")
    assert text.startswith("/*\n * Exported by schedlab ")
    assert " * Accepted by: pedf-ffd: schedulable\n" in text
    doc = _json(text)
    tasks = doc["tasks"]
    assert [tasks[n]["cpus"] for n in ("t1", "t2", "t3")] == [[0], [1], [0]]
    assert tasks["t1"]["dl-runtime"] == 6500 and tasks["t1"]["dl-period"] == 10000
    assert tasks["t1"]["run"] == 6000 and tasks["t1"]["timer"]["period"] == 10000
    documented = {"policy", "dl-runtime", "dl-deadline", "dl-period", "cpus", "loop", "run", "timer"}
    assert all(set(t) <= documented for t in tasks.values())
    text = schedlab.export(schedlab.TaskSet(THREE), cpus=2, policy="pedf", to="rt-app", dl_margin="100us")
    assert _json(text)["tasks"]["t1"]["dl-runtime"] == 6100


def test_shell_and_systemd():
    script = schedlab.export(schedlab.TaskSet(THREE), cpus=2, policy="pfp", duration="2s")
    assert script.startswith("#!/bin/sh\n# Exported by schedlab ")
    assert 'launch t3 - taskset -c "$CPU_0" chrt -f 98 "$@"' in script
    assert "DURATION=${DURATION:-2s}" in script
    units = schedlab.export(schedlab.TaskSet(THREE), cpus=2, policy="gfp", to="systemd",
                            launcher="/usr/bin/schedlab", duration="inf")
    assert "\n### schedlab-taskset-t1.service\n" in units
    named = schedlab.export(schedlab.TaskSet(THREE), cpus=2, policy="gfp", to="systemd", source="plant/ctl.toml")
    assert "# Exported by schedlab " in named and " from plant/ctl.toml: policy gfp" in named
    assert "\n### schedlab-ctl-t1.service\n" in named
    assert "CPUSchedulingPriority=99\nCPUAffinity=0 1\n" in units


def test_refusals_name_what_is_possible():
    ts = schedlab.TaskSet(THREE)
    with pytest.raises(schedlab.Error, match=r"policy `rtws` cannot be exported to Linux: .*`schedlab run FILE --arch work-stealing --policy rtws`"):
        schedlab.export(ts, cpus=2, policy="rtws")
    with pytest.raises(schedlab.Error, match="linux-rt-groups"):
        schedlab.export(ts, cpus=2, policy="hcbs")
    with pytest.raises(ValueError, match="unknown policy `x`"):
        schedlab.export(ts, cpus=2, policy="x")
    with pytest.raises(schedlab.Error, match="to: unknown export format `docker`"):
        schedlab.export(ts, cpus=2, policy="pedf", to="docker")
    with pytest.raises(schedlab.Error, match="duration: "):
        schedlab.export(ts, cpus=2, policy="pedf", duration=10)
    heavy = schedlab.TaskSet([{"wcet": "9ms", "period": "10ms"}] * 3)
    with pytest.raises(schedlab.Error, match="--force"):
        schedlab.export(heavy, cpus=2, policy="gfp")
    assert "NOT ACCEPTED: gfp" in schedlab.export(heavy, cpus=2, policy="gfp", force=True)
