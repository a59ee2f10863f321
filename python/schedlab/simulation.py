"""Simulation from Python: the same policies, options, JSON fields and output files as
``schedlab simulate``; ``simulate_many`` runs many task sets over every core."""

from __future__ import annotations

import datetime
import os
from typing import Any, Dict, Iterable, List, Optional, Union

import numpy as np

from . import _native
from .taskset import TaskSet

PathLike = Union[str, "os.PathLike[str]"]
TaskSetLike = Union[TaskSet, Iterable[Any]]
Duration = Union[str, datetime.timedelta]

JOB_DTYPE = np.dtype([
    ("task", np.uint32), ("seq", np.uint64), ("release_ns", np.int64), ("deadline_ns", np.int64),
    ("start_ns", np.int64), ("completion_ns", np.int64), ("preemptions", np.uint32),
    ("migrations", np.uint32), ("tardiness_ns", np.int64), ("aborted", np.bool_),
])
"""Per-job records; ``start_ns``/``completion_ns`` are -1 when the job never started/finished."""

_JOB_MODES = ("numpy", "dicts", None)


def simulate(
    taskset: TaskSetLike,
    cpus: Optional[int] = None,
    policy: str = "gedf",
    priorities: str = "dm",
    duration: Duration = "1s",
    seed: int = 1,
    partition: str = "ffd",
    cluster_size: Optional[int] = None,
    arrivals: str = "periodic",
    exec: str = "wcet",
    abort_late: bool = False,
    jobs: Optional[str] = "numpy",
    overheads: Union[PathLike, Dict[str, Any], None] = None,
    overhead_arch: Optional[str] = None,
    overhead_stat: str = "avg",
    trace: Optional[PathLike] = None,
    gantt: Optional[PathLike] = None,
    perfetto: Optional[PathLike] = None,
    jobs_csv: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """Simulates ``taskset`` and returns the fields of ``schedlab simulate --format json``.

    ``policy``: ``gedf``, ``gnpedf``, ``gfp``, ``gfifo``, ``edzl``, ``pedf``, ``pfp``, ``cedf``,
    ``pfp-ts``, the utility-accrual ``ghvdf``, ``gnphvdf``, ``gmua``, ``nggua``, ``ggua``,
    ``phvdf``, ``plbesa``, ``pdasa``, and for parallel tasks ``rtws`` (G-EDF with priority
    work stealing [RTWS]) and ``federated`` (each heavy task, work > deadline, greedy on CPUs
    of its own, the light tasks by partitioned EDF: the allocation of
    ``analyze(..., tests="federated")``, light tasks packed by ``partition``, ``ff`` … ``nfd``
    only; pinned tasks are refused) [Li et al., ECRTS 2014]; ``gedf``, ``gnpedf``, ``gfp``,
    ``gfifo``, ``edzl``, ``pedf``, ``pfp``, ``cedf`` run a parallel task's threads as jobs, the
    others refuse parallel tasks; docs/simulation.md, "Parallel tasks") (partitioned/clustered
    ones use the tasks' ``cpu``/``cluster`` fields, else ``partition``, a packing heuristic — ``chronos``,
    ``chronos-ff``, ``chronos-lu`` are the never-failing rules of [ChronOS §8.5], which
    ``plbesa``/``pdasa``/``phvdf`` always use; ``cedf`` needs ``cluster_size``; semi-partitioned
    ``pfp-ts`` uses the tasks' ``cpu``/``split`` fields, else the split of
    ``analyze(..., tests="pfp-ts")``). ``duration`` needs a unit
    (``"10s"``, ``"250ms"``) or is a ``datetime.timedelta``; a bare number is an error.
    ``arrivals``: ``periodic`` or ``sporadic:MAXDELAY``; ``exec``: ``wcet``,
    ``uniform:LO..HI``, ``normal:MEAN,SD`` (fractions of the WCET) or
    ``overrun:PROB,FACTOR``. ``jobs``: ``"numpy"`` (a structured array of :data:`JOB_DTYPE`
    under ``result["jobs_records"]``), ``"dicts"`` (a list of dicts) or ``None`` (no per-job
    records).

    ``overheads``: an overhead file (path, TOML) or a dict of the same structure
    (``{"schema": 1, "arch": {...}, "cpmd": {...}}``, see ``docs/overheads.md``) to charge
    run-time overheads; ``overhead_arch`` picks its architecture (default: the only one; its
    ``"<arch>@m<M>"`` section for this machine's M when the file has one, else ``"<arch>"``),
    ``overhead_stat`` its statistic (``"avg"`` or ``"max"``). The result's
    ``"overheads"`` then names them and gives the time charged per kind (``charged_ns``).

    ``trace``, ``gantt``, ``perfetto``, ``jobs_csv``: write the binary trace, a Gantt chart
    (SVG), a Perfetto JSON and the per-job CSV there, the same files as ``schedlab simulate
    --trace/--gantt/--perfetto/--jobs-csv``. The GIL is released while simulating.
    """
    _check_jobs(jobs)
    out = _native.simulate(
        taskset, cpus, policy, priorities, duration, seed, partition, cluster_size, arrivals,
        exec, abort_late, jobs is not None, overheads, overhead_arch, overhead_stat, trace,
        gantt, perfetto, jobs_csv,
    )
    return _attach_jobs(out, jobs)


def simulate_many(
    tasksets: Iterable[TaskSetLike],
    cpus: Optional[int] = None,
    policy: str = "gedf",
    priorities: str = "dm",
    duration: Duration = "1s",
    seed: int = 1,
    partition: str = "ffd",
    cluster_size: Optional[int] = None,
    arrivals: str = "periodic",
    exec: str = "wcet",
    abort_late: bool = False,
    jobs: Optional[str] = None,
    overheads: Union[PathLike, Dict[str, Any], None] = None,
    overhead_arch: Optional[str] = None,
    overhead_stat: str = "avg",
    threads: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """Simulates every task set with the same options (those of :func:`simulate`), spread
    over every core (or ``threads`` threads) with the GIL released; returns the summaries in
    input order. Each equals what :func:`simulate` returns for that set (``wall_seconds`` and
    ``jobs_per_second`` aside). ``jobs`` defaults to ``None`` here: per-job records cost an
    allocation per job, which a sweep rarely needs.
    """
    _check_jobs(jobs)
    outs = _native.simulate_many(
        tasksets, cpus, policy, priorities, duration, seed, partition, cluster_size, arrivals,
        exec, abort_late, jobs is not None, overheads, overhead_arch, overhead_stat, threads,
    )
    return [_attach_jobs(out, jobs) for out in outs]


def _check_jobs(jobs: Optional[str]) -> None:
    if jobs not in _JOB_MODES:
        raise _native.Error(f"jobs= is \"numpy\", \"dicts\" or None, got {jobs!r}")


def _attach_jobs(out: Dict[str, Any], jobs: Optional[str]) -> Dict[str, Any]:
    """Turns the native result's numpy columns of jobs into ``out["jobs_records"]``: a numpy
    structured array of :data:`JOB_DTYPE` (``jobs="numpy"``) or a list of dicts (``"dicts"``)."""
    table = out.pop("jobs_table", None)
    if table is not None:
        names = JOB_DTYPE.names or ()
        arr = np.empty(len(table["task"]), dtype=JOB_DTYPE)
        for name in names:
            arr[name] = table[name]
        if jobs == "dicts":
            out["jobs_records"] = [dict(zip(names, row)) for row in arr.tolist()]
        else:
            out["jobs_records"] = arr
    return out
