"""Running task sets for real on Linux from Python: ``schedlab run`` with the same options,
JSON fields and output files (docs/runtime.md)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

from . import _native
from ._native import JobContext
from .simulation import Duration, PathLike, TaskSetLike, _attach_jobs, _check_jobs


def run(
    taskset: TaskSetLike,
    cpus: Optional[int] = None,
    cpu_list: Optional[Sequence[int]] = None,
    policy: Optional[str] = None,
    arch: str = "global-lock",
    lock: str = "ticket",
    duration: Duration = "1s",
    priorities: str = "dm",
    partition: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    release_spin: Optional[Duration] = None,
    allow_non_rt: bool = False,
    jobs: Optional[str] = "numpy",
    trace: Optional[PathLike] = None,
    background_load: Optional[str] = None,
    dsp_poll: bool = True,
    dl_margin: Duration = "500us",
    dl_cpuset: bool = False,
    inline_completion: bool = True,
    gantt: Optional[PathLike] = None,
    perfetto: Optional[PathLike] = None,
    jobs_csv: Optional[PathLike] = None,
    overheads: Union[PathLike, Dict[str, Any], None] = None,
    overhead_stat: str = "max",
    granularity: Optional[Duration] = None,
    abort_late: bool = False,
    cluster_size: Optional[int] = None,
    threading: str = "per-task",
    bodies: Optional[Mapping[Union[int, str], Callable[[JobContext], None]]] = None,
) -> Dict[str, Any]:
    """Runs ``taskset`` for real (one thread per task, each job burning its WCET of CPU time)
    and returns the fields of ``schedlab run --format json``.

    ``cpus``/``cpu_list``: the number of CPUs and/or the physical CPUs (default: the first
    ``cpus`` CPUs this process may use). ``arch``: ``partitioned`` (``pedf``, ``pfp``),
    ``global-lock`` (``gedf``, ``gnpedf``, ``gfp``, ``gfifo``, ``edzl``) with ``lock``
    ``ticket``, ``mcs`` or ``mutex``, ``concurrent`` (ChronOS application-concurrent: the
    non-preemptive ``gfifo``, ``gnpedf``, ``gnphvdf``; each idle CPU pulls its own next job;
    ``lock`` as global-lock), or ``message-passing`` (the same global policies; CPU 0
    schedules, the others run jobs), or the kernel baselines ``linux-deadline`` and
    ``linux-fifo`` — see ``docs/runtime.md``. ``policy``: default ``"gedf"`` for the
    user-space architectures; the kernel baselines take none (naming one is an error, as
    ``schedlab run``). ``partition``: the packing heuristic of ``pedf``/``pfp`` (default
    ``"ffd"``); with ``linux-fifo`` it makes the run partitioned. Ranks and the placement are
    computed for the CPUs that run jobs (all but CPU 0 under ``message-passing`` or
    ``dedicated_irq_cpu``), by the same code as the CLI. ``dedicated_irq_cpu``
    (global-lock): CPU 0 takes every release and runs no job (GSN-EDF-DI). ``background_load``: the
    cache-thrashing background load, bytes per CPU (e.g. ``"16MiB"``). ``duration``,
    ``release_spin`` (default none) and ``dl_margin`` need a unit (``"2s"``, ``"60us"``) or are
    ``datetime.timedelta``\\ s; a bare number is an error. ``dsp_poll`` (message-passing): the
    DSP polls its mailboxes while a client runs a job (bounded to 70% of its CPU); False: it
    sleeps until rung. ``dl_margin`` (linux-deadline): SCHED_DEADLINE runtime = WCET + this.
    ``dl_cpuset`` (linux-deadline): give the run's CPUs a root domain of their own for the run
    (a cgroup-v1 cpuset, removed afterwards), so the kernel's EDF runs on ``cpu_list`` only.
    ``inline_completion`` (message-passing): a completing job's thread runs its client's
    scheduling step itself (default); False: it wakes the client's dispatcher.
    ``allow_non_rt``: without permission for SCHED_FIFO, run under SCHED_OTHER
    (``result["real_time"]`` is then False and ``result["warnings"]`` says so). ``jobs``:
    ``"numpy"`` (a structured array of :data:`schedlab.simulation.JOB_DTYPE` under
    ``result["jobs_records"]``), ``"dicts"`` or ``None``. ``trace``, ``gantt``, ``perfetto``,
    ``jobs_csv``: write the trace file (read it with ``schedlab trace stats``), a Gantt chart,
    a Perfetto JSON and the per-job CSV there, as ``schedlab run`` does. ``overheads`` (an
    overhead file's path or a dict, with ``overhead_stat`` and ``granularity``; ``pedf``,
    ``pfp``, ``cedf`` only): place the tasks as ``analyze(…, overheads=, arch=)`` does for this
    ``arch`` — the partition the overhead-aware analysis accepted (``schedlab run
    --overheads``; docs/overheads.md). ``abort_late``: abort every job unfinished at its
    deadline (``simulate(abort_late=True)``); a job that had started runs its task's abort
    handler (``abort_cost``) on its CPU (not under ``semi-partitioned``). Policies that abort
    (the utility-accrual ones) do so for real, handlers included (docs/runtime.md, "Aborts").
    ``cluster_size``: ``cedf``'s CPUs per cluster (dividing the CPUs that run jobs; as
    ``simulate(cluster_size=)`` and ``schedlab run --cluster-size``). ``threading``
    [ChronOS §3.3]: ``"per-task"`` (one thread runs all jobs of its task) or ``"per-job"``
    (each job on another thread than its task's previous one, from a pool created before
    the run; user-space architectures only; ``schedlab run --threading``). ``bodies``: a
    mapping of task index or name to a callable run instead of the burn body, called with a
    :class:`JobContext` (``task``, ``seq``, ``region``, ``thread``, ``strand``) once per job —
    for a parallel task once per *thread* of each job, region ``r + 1``'s calls only after
    every call of region ``r`` returned. The calls take the GIL, so Python bodies do not
    execute in parallel (they show what runs where and in which order; timing belongs to the
    burn body); an exception ends the run and becomes a warning.

    Parallel (fork-join) tasks run under ``arch="global-lock"`` (``rtws``; ``gedf`` and the
    other global policies as threads-as-jobs), ``"concurrent"`` and ``"work-stealing"`` (RTWS
    itself: a global EDF queue plus per-CPU priority queues of deques; its policy is ``rtws``,
    the default there); ``result["steals"]`` counts the threads stolen.

    Reservation groups [HCBS §3.2] (a task set's ``groups``, each task's ``group``) run under
    ``arch="reservations"`` — H-CBS servers in user space, the simulator's ``hcbs`` policy (its
    default there; no other policy), a server's budget enforced by budget timers, its
    replenishments by policy timers; ``result["groups"]`` and ``result["servers"]`` count them,
    ``result["overheads"]`` has the scheduler hooks of [HCBS §5] (``enqueue``, ``dequeue``,
    ``pick_next``, ``put_prev``, ``budget_update``, ``check_preempt``) — and under
    ``arch="linux-rt-groups"`` (Linux RT group cgroups); the other architectures ignore them
    with a note (docs/runtime.md, "Reservations").

    The result carries the simulator's fields plus ``arch``, ``overheads`` (per name:
    ``count``, ``min_ns``, ``mean_ns``, ``median_ns``, ``p99_ns``, ``p999_ns``, ``max_ns``),
    ``policy_cost`` (the policy callbacks alone, the same statistics; None under the kernel
    baselines), ``real_time``, ``interrupted``, ``dropped_events``, ``warnings``, ``job_errors``
    (a job that ended holding a resource) and more. Tasks' ``critical_sections`` are run as
    scheduler-managed mutexes under ``arch="global-lock"``, ``"message-passing"`` and
    ``"partitioned"`` (local resources only) and refused elsewhere (docs/runtime.md,
    "Resources"). The GIL is
    released while the run lasts; the call returns after ``duration`` (plus setup).
    """
    _check_jobs(jobs)
    out = _native.run(
        taskset, cpus, None if cpu_list is None else list(cpu_list), policy, arch, lock,
        duration, priorities, partition, dedicated_irq_cpu, release_spin, allow_non_rt,
        jobs is not None, trace,
        background_load, dsp_poll, dl_margin, dl_cpuset, inline_completion, gantt, perfetto,
        jobs_csv, overheads, overhead_stat, granularity, abort_late, cluster_size, threading,
        None if bodies is None else dict(bodies),
    )
    return _attach_jobs(out, jobs)
