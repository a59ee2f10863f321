"""schedlab.experiment: local runs and a real Dask LocalCluster (3 worker processes on
loopback) give identical output folders; bad files raise schedlab.Error with their lines."""

import json
import os
import re
import signal
import threading
from pathlib import Path

import pytest

import schedlab

EXPERIMENT = """
title = "python test"
seed = 3
samples = 10
chunk_size = 4
overheads = "ovh.toml"

[platform]
cpus = [2, 4]

[generator]
shape = "fixed-sum"
method = "randfixedsum"
tasks_per_cpu = 3
periods = "uniform:10ms..50ms/10ms"

[sweep]
variable = "utilization_per_cpu"
points = [0.5, 0.8]

[[analysis]]
test = "gedf"

[[analysis]]
test = "pedf-ffd"

[[simulation]]
policy = "gedf"
duration = "200ms"
overheads = false

[[simulation]]
policy = "gedf"
label = "gedf with overheads"
duration = "200ms"
"""

# Overheads large enough to change schedules (docs/overheads.md): the workers receive the
# file's contents with the validated experiment.
OVERHEADS = """
schema = 1
[arch.global-lock.release]
avg = [[1, 500000]]
[arch.global-lock.schedule]
avg = [[1, 300000]]
"""


def _results(folder: Path) -> dict:
    """Every results file (chunks, summary, per-set CSV) by relative path."""
    files = sorted((folder / "chunks").glob("*.jsonl")) + [folder / "summary.csv", folder / "sets.csv"]
    return {str(p.relative_to(folder)): p.read_bytes() for p in files}


def test_dask_local_cluster_matches_local_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    exp = tmp_path / "exp.toml"
    exp.write_text(EXPERIMENT)
    (tmp_path / "ovh.toml").write_text(OVERHEADS)
    report = schedlab.experiment.run(exp, out=tmp_path / "local", jobs=1)
    assert report.name == "report.html" and report.exists()
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 3
        schedlab.experiment.run(exp, out=tmp_path / "dask", client=client)
        with pytest.warns(schedlab.experiment.ResumeWarning, match=r"resuming .*local: 12 of 12 chunks already stored"):
            schedlab.experiment.run(exp, out=tmp_path / "local", client=client)
    local, dask = _results(tmp_path / "local"), _results(tmp_path / "dask")
    # 2 platforms × 2 points × ⌈10/4⌉ chunks.
    assert len([k for k in local if k.startswith("chunks")]) == 12
    assert local == dask
    # The charged simulation differs from the overhead-free one somewhere.
    summary = (tmp_path / "local" / "summary.csv").read_text().splitlines()
    ideal = [r.split(",")[4] for r in summary if r.startswith("sim-gedf,")]
    charged = [r.split(",")[4] for r in summary if r.startswith("gedf with overheads,")]
    assert len(ideal) == len(charged) == 4 and ideal != charged
    for name in ["acceptance.svg", "acceptance.png", "report.md"]:
        assert (tmp_path / "dask" / name).exists()


def test_bad_files_and_other_experiments_raise(tmp_path):
    (tmp_path / "ovh.toml").write_text(OVERHEADS)
    exp = tmp_path / "bad.toml"
    exp.write_text(EXPERIMENT.replace('test = "pedf-ffd"', 'test = "pedf-fdd"'))
    with pytest.raises(schedlab.Error, match=r"bad.toml:25: .*unknown test `pedf-fdd`"):
        schedlab.experiment.run(exp, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()
    good = tmp_path / "good.toml"
    good.write_text(EXPERIMENT.replace("samples = 10", "samples = 2"))
    schedlab.experiment.run(good, out=tmp_path / "out2")
    good.write_text(EXPERIMENT.replace("samples = 10", "samples = 3"))
    with pytest.raises(schedlab.Error, match="different experiment"):
        schedlab.experiment.run(good, out=tmp_path / "out2")


def test_a_rerun_says_that_it_resumes(tmp_path, recwarn):
    (tmp_path / "ovh.toml").write_text(OVERHEADS)
    exp = tmp_path / "small.toml"
    exp.write_text(EXPERIMENT.replace("samples = 10", "samples = 2"))
    first = schedlab.experiment.run(exp, out=tmp_path / "out", jobs=1)
    assert not [w for w in recwarn if issubclass(w.category, schedlab.experiment.ResumeWarning)]
    # Drop one stored chunk: the rerun computes it again and says how many it found.
    chunk = sorted((tmp_path / "out" / "chunks").glob("*.jsonl"))[0]
    text = chunk.read_bytes()
    chunk.unlink()
    with pytest.warns(schedlab.experiment.ResumeWarning) as caught:
        again = schedlab.experiment.run(exp, out=tmp_path / "out", jobs=1)
    assert again == first and chunk.read_bytes() == text
    [w] = [w for w in caught if issubclass(w.category, schedlab.experiment.ResumeWarning)]
    assert str(w.message) == f"resuming {tmp_path / 'out'}: 3 of 4 chunks already stored"
    assert w.filename == __file__  # attributed to the caller, not to schedlab


def test_ctrl_c_stops_a_local_run_that_a_rerun_resumes(tmp_path):
    (tmp_path / "ovh.toml").write_text(OVERHEADS)
    exp = tmp_path / "long.toml"
    # 4 cells × 5,000 chunks: far more than the half second before the interrupt.
    exp.write_text(EXPERIMENT.replace("samples = 10", "samples = 20000"))
    # Python turns SIGINT into KeyboardInterrupt only if SIGINT was not ignored when it
    # started; a shell ignores it in background jobs (`cmd &`), so install the handler
    # that Ctrl-C in a terminal gets, for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.warns(schedlab.experiment.ResumeWarning, match=r"stopped after \d+ of 20000 chunks .*; rerun") as caught, \
                pytest.raises(KeyboardInterrupt):
            schedlab.experiment.run(exp, out=tmp_path / "out", jobs=1)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    done = int(re.search(r"stopped after (\d+)", str(caught[-1].message)).group(1))
    plan = json.loads(schedlab._native.experiment_prepare(str(exp), str(tmp_path / "out")))
    assert len(plan["pending"]) == 20000 - done
    if done:
        assert plan["resume"] == f"resuming {tmp_path / 'out'}: {done} of 20000 chunks already stored"


def test_samples_reduces_a_run_as_the_cli_does(tmp_path):
    # `samples=` is `schedlab experiment --samples`: fewer sets per point, recorded in the
    # manifest; the folder resumes only with the same override; sets are the full run's first.
    exp = tmp_path / "exp.toml"
    exp.write_text(EXPERIMENT)
    (tmp_path / "ovh.toml").write_text(OVERHEADS)
    schedlab.experiment.run(exp, out=tmp_path / "five", jobs=1, samples=5)
    manifest = json.loads((tmp_path / "five" / "manifest.json").read_text())
    assert manifest["config"]["samples"] == 5 and manifest["config"]["file_samples"] == 10
    # 2 platforms × 2 points × ⌈5/4⌉ chunks.
    assert len(list((tmp_path / "five" / "chunks").glob("*.jsonl"))) == 8
    with pytest.raises(schedlab.Error, match="another experiment|different experiment"):
        schedlab.experiment.run(exp, out=tmp_path / "five", jobs=1)
    with pytest.raises(schedlab.Error, match="samples: the number of task sets per point must be at least 1"):
        schedlab.experiment.run(exp, out=tmp_path / "zero", jobs=1, samples=0)
    schedlab.experiment.run(exp, out=tmp_path / "full", jobs=1)
    five = (tmp_path / "five" / "sets.csv").read_text().splitlines()
    full = set((tmp_path / "full" / "sets.csv").read_text().splitlines())
    assert len(five) > 1 and all(row in full for row in five)
