"""Running task sets for real on Linux from Python: ``schedlab run`` with the same options and
JSON (docs/runtime.md)."""

from __future__ import annotations

import json
import os
from typing import Optional, Sequence, Union

from . import _native
from .simulation import _attach_jobs
from .taskset import TaskSet


def run(
    taskset: Union[TaskSet, Sequence[dict]],
    cpus: Optional[int] = None,
    cpu_list: Optional[Sequence[int]] = None,
    policy: str = "gedf",
    arch: str = "global-lock",
    lock: str = "ticket",
    duration: Union[str, int] = "1s",
    priorities: str = "dm",
    partition: str = "ffd",
    release_spin: Union[str, int] = "0",
    allow_non_rt: bool = False,
    jobs: Optional[str] = "numpy",
    trace: Union[str, "os.PathLike[str]", None] = None,
    background_load: Union[str, int, None] = None,
    dsp_poll: bool = True,
    dl_margin: Union[str, int] = "500us",
    dl_cpuset: bool = False,
    inline_completion: bool = True,
) -> dict:
    """Runs ``taskset`` for real (one thread per task, each job burning its WCET of CPU time)
    and returns the fields of ``schedlab run --format json``.

    ``cpus``/``cpu_list``: the number of CPUs and/or the physical CPUs (default: the first
    ``cpus`` CPUs this process may use). ``arch``: ``partitioned`` (``pedf``, ``pfp``),
    ``global-lock`` (``gedf``, ``gnpedf``, ``gfp``, ``gfifo``, ``edzl``) with ``lock``
    ``ticket``, ``mcs`` or ``mutex``, or ``message-passing`` (the same global policies; CPU 0
    schedules, the others run jobs) — see ``docs/runtime.md``. ``background_load``: the
    cache-thrashing background load, bytes per CPU (e.g. ``"16MiB"``). ``duration``,
    ``release_spin`` and ``dl_margin`` are time strings or integer ns. ``dsp_poll``
    (message-passing): the DSP polls its mailboxes while a client runs a job (bounded to 70%
    of its CPU); False: it sleeps until rung. ``dl_margin`` (linux-deadline): SCHED_DEADLINE
    runtime = WCET + this. ``dl_cpuset`` (linux-deadline): give the run's CPUs a root domain
    of their own for the run (a cgroup-v1 cpuset, removed afterwards), so the kernel's EDF
    runs on ``cpu_list`` only. ``inline_completion`` (message-passing): a completing job's
    thread runs its client's scheduling step itself (default); False: it wakes the client's
    dispatcher. ``allow_non_rt``: without permission for SCHED_FIFO, run under SCHED_OTHER
    (``result["real_time"]`` is then False and ``result["warnings"]`` says so). ``jobs``:
    ``"numpy"`` (a structured array of :data:`schedlab.simulation.JOB_DTYPE` under
    ``result["jobs_records"]``), ``"dicts"`` or ``None``. ``trace``: write the trace file
    there (read it with ``schedlab trace stats``).

    The result carries the simulator's fields plus ``arch``, ``overheads`` (per name:
    ``count``, ``min_ns``, ``mean_ns``, ``median_ns``, ``p99_ns``, ``p999_ns``, ``max_ns``),
    ``real_time``, ``interrupted``, ``dropped_events``, ``warnings`` and more. The GIL is
    released while the run lasts; the call returns after ``duration`` (plus setup).
    """
    ts = taskset if isinstance(taskset, TaskSet) else TaskSet(taskset)
    out = json.loads(_native.run(
        ts.to_json(), cpus, None if cpu_list is None else list(cpu_list), policy, arch, lock,
        str(duration), priorities, partition, str(release_spin), allow_non_rt,
        jobs is not None, None if trace is None else os.fspath(trace),
        None if background_load is None else str(background_load),
        dsp_poll, str(dl_margin), dl_cpuset, inline_completion,
    ))
    return _attach_jobs(out, jobs)
