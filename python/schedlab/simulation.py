"""Simulation from Python: the same policies, options and JSON as ``schedlab simulate``."""

from __future__ import annotations

import json
import os
from typing import Optional, Sequence, Union

import numpy as np

from . import _native
from .taskset import TaskSet

JOB_DTYPE = np.dtype([
    ("task", np.uint32), ("seq", np.uint64), ("release_ns", np.int64), ("deadline_ns", np.int64),
    ("start_ns", np.int64), ("completion_ns", np.int64), ("preemptions", np.uint32),
    ("migrations", np.uint32), ("tardiness_ns", np.int64), ("aborted", np.bool_),
])
"""Per-job records; ``start_ns``/``completion_ns`` are -1 when the job never started/finished."""


def simulate(
    taskset: Union[TaskSet, Sequence[dict]],
    cpus: Optional[int] = None,
    policy: str = "gedf",
    priorities: str = "dm",
    duration: Union[str, int] = "1s",
    seed: int = 1,
    partition: str = "ffd",
    cluster_size: Optional[int] = None,
    arrivals: str = "periodic",
    exec: str = "wcet",
    abort_late: bool = False,
    jobs: Optional[str] = "numpy",
    overheads: Union[str, "os.PathLike[str]", dict, None] = None,
    overhead_arch: Optional[str] = None,
    overhead_stat: str = "avg",
) -> dict:
    """Simulates ``taskset`` and returns the fields of ``schedlab simulate --format json``.

    ``policy``: ``gedf``, ``gnpedf``, ``gfp``, ``gfifo``, ``edzl``, ``pedf``, ``pfp``, ``cedf``
    (partitioned/clustered ones use the tasks' ``cpu``/``cluster`` fields, else ``partition``,
    a packing heuristic; ``cedf`` needs ``cluster_size``). ``duration`` is a time string or
    integer ns. ``arrivals``: ``periodic`` or ``sporadic:MAXDELAY``; ``exec``: ``wcet``,
    ``uniform:LO..HI``, ``normal:MEAN,SD`` (fractions of the WCET) or ``overrun:PROB,FACTOR``. ``jobs``: ``"numpy"``
    (a structured array of :data:`JOB_DTYPE` under ``result["jobs_records"]``), ``"dicts"`` (a
    list of dicts) or ``None`` (no per-job records).

    ``overheads``: an overhead file (path, TOML) or a dict of the same structure
    (``{"schema": 1, "arch": {...}, "cpmd": {...}}``, see ``docs/overheads.md``) to charge
    run-time overheads; ``overhead_arch`` picks its architecture section (default: the only
    one), ``overhead_stat`` its statistic (``"avg"`` or ``"max"``). The result's
    ``"overheads"`` then names them and gives the time charged per kind (``charged_ns``).
    """
    ts = taskset if isinstance(taskset, TaskSet) else TaskSet(taskset)
    overheads_path = overheads_json = None
    if isinstance(overheads, dict):
        overheads_json = json.dumps(overheads)
    elif overheads is not None:
        overheads_path = os.fspath(overheads)
    out = json.loads(_native.simulate(
        ts.to_json(), cpus, policy, priorities, str(duration), seed, partition, cluster_size,
        arrivals, exec, abort_late, jobs is not None, overheads_path, overheads_json,
        overhead_arch, overhead_stat,
    ))
    return _attach_jobs(out, jobs)


def _attach_jobs(out: dict, jobs: Optional[str]) -> dict:
    """Turns the native result's column table of jobs into ``out["jobs_records"]``: a numpy
    structured array of :data:`JOB_DTYPE` (``jobs="numpy"``) or a list of dicts (``"dicts"``)."""
    table = out.pop("jobs_table", None)
    if table is not None:
        n = len(table["task"])
        if jobs == "dicts":
            out["jobs_records"] = [{k: table[k][i] for k in table} for i in range(n)]
        else:
            arr = np.zeros(n, dtype=JOB_DTYPE)
            for name in JOB_DTYPE.names:
                arr[name] = table[name]
            out["jobs_records"] = arr
    return out
