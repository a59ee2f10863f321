"""Type stubs of ``schedlab._native``, the Rust core of the ``schedlab`` package.

Times in task fields and arrays are integer nanoseconds (or, in task fields, strings with a
unit such as ``"2ms"``); times in keyword arguments (``duration=``, ``release_spin=``,
``dl_margin=``, ``granularity=``) need a unit or are ``datetime.timedelta`` objects.
"""

import datetime
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union, final, overload

from typing_extensions import Self

import numpy as np
import numpy.typing as npt

__all__ = [
    "Error",
    "__version__",
    "Task",
    "TaskSet",
    "Result",
    "JobContext",
    "Imported",
    "load",
    "import_file",
    "import_str",
    "analyze",
    "analyze_many",
    "catalogue",
    "design_reservations",
    "charge_overheads",
    "generate",
    "utilizations",
    "simulate",
    "scale",
    "simulate_many",
    "run",
    "export",
    "experiment_prepare",
    "experiment_chunk",
    "experiment_store",
    "experiment_finish",
    "experiment_run",
    "bench_workload",
    "bench_rust_analyze",
    "bench_rust_analyze_many",
    "trace_costs",
    "cli_main",
]

__version__: str

_PathLike = Union[str, "os.PathLike[str]"]
_Time = Union[int, str]
_Duration = Union[str, datetime.timedelta]
_TaskEntry = Union["Task", Mapping[str, Any]]
_TaskSetLike = Union["TaskSet", Iterable[_TaskEntry], Mapping[str, Any]]
_Tests = Union[str, Sequence[str], None]
_Overheads = Union[_PathLike, Mapping[str, Any]]

class Error(ValueError):
    """Bad input to schedlab: the message names the task and the field."""

@final
class Task:
    """A sporadic task (C, D, T) with its optional attributes; times in integer nanoseconds.

    Built with the fields of the task-file schema and checked like a task in a file.
    """

    def __new__(
        cls,
        wcet: Optional[_Time] = None,
        period: Optional[_Time] = None,
        deadline: Optional[_Time] = None,
        name: Optional[str] = None,
        offset: Optional[_Time] = None,
        priority: Optional[int] = None,
        utility: Optional[float] = None,
        wss: Union[int, str, None] = None,
        cpu: Optional[int] = None,
        cluster: Optional[int] = None,
        affinity: Optional[Sequence[int]] = None,
        split: Optional[Sequence[Mapping[str, Any]]] = None,
        tuf: Optional[Mapping[str, Any]] = None,
        abortable: Optional[bool] = None,
        abort_cost: Optional[_Time] = None,
        critical_sections: Optional[Sequence[Mapping[str, Any]]] = None,
        parallel: Optional[Sequence[Sequence[_Time]]] = None,
        group: Optional[str] = None,
    ) -> Self:
        """``period`` is required; ``wcet`` too, unless ``parallel`` gives the task's regions
        of thread lengths (then ``wcet`` is their sum, the work). ``group`` names the
        reservation group the task runs in (checked when the task joins a ``TaskSet``)."""
    @property
    def wcet(self) -> int: ...
    @property
    def period(self) -> int: ...
    @property
    def deadline(self) -> int: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def offset(self) -> int: ...
    @property
    def priority(self) -> Optional[int]: ...
    @property
    def utility(self) -> Optional[float]: ...
    @property
    def wss(self) -> Optional[int]: ...
    @property
    def cpu(self) -> Optional[int]: ...
    @property
    def cluster(self) -> Optional[int]: ...
    @property
    def affinity(self) -> Optional[List[int]]: ...
    @property
    def split(self) -> Optional[List[Dict[str, int]]]: ...
    @property
    def tuf(self) -> Optional[Dict[str, Any]]:
        """The time/utility function in the task-file form with times in ns:
        ``{"kind": "step", "value": V}``, ``{"kind": "linear", "value": V, "zero_at": ns}``
        or ``{"kind": "points", "points": [[ns, V], ...]}``; ``None`` if not given."""
    @property
    def abortable(self) -> bool: ...
    @property
    def abort_cost(self) -> int: ...
    @property
    def critical_sections(self) -> List[Dict[str, Any]]:
        """``{"resource": name, "start": ns, "length": ns}`` dicts, in the order given."""
    @property
    def parallel(self) -> Optional[List[List[int]]]:
        """The regions of a parallel (fork-join) task, each a list of thread lengths in ns;
        ``None`` for a sequential task."""
    @property
    def group(self) -> Optional[str]:
        """The name of the reservation group the task runs in; ``None`` if not reserved."""
    @property
    def work(self) -> int:
        """T1 in ns: the sum of all threads (the ``wcet`` of a parallel task); ``wcet`` for a
        sequential task."""
    @property
    def critical_path(self) -> int:
        """T∞ in ns: the sum over regions of the longest thread; ``wcet`` for a sequential
        task."""
    @property
    def utilization(self) -> float: ...
    @property
    def density(self) -> float: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def replace(self, **changes: Any) -> "Task": ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class TaskSet:
    """An ordered, validated set of tasks held in Rust, optionally with a platform (``cpus``).

    Built from task dicts (the task-file schema), ``Task`` objects, a task-file document
    (``{"tasks": [...], "platform": {...}}``), numpy arrays (:meth:`from_arrays`) or files
    (:meth:`from_file`, :func:`load`). Invalid input raises :class:`Error`.
    """

    def __new__(
        cls,
        tasks: _TaskSetLike,
        cpus: Optional[int] = None,
        groups: Optional[Sequence[Mapping[str, Any]]] = None,
    ) -> Self:
        """``groups``: reservation groups as in task files, ``{"name", "budget", "period",
        "cpus"?, "parent"?}`` (times as ns or strings with a unit)."""
    @staticmethod
    def from_arrays(
        wcet: npt.ArrayLike,
        period: npt.ArrayLike,
        deadline: Optional[npt.ArrayLike] = None,
        names: Optional[Sequence[str]] = None,
        cpus: Optional[int] = None,
    ) -> "TaskSet": ...
    @staticmethod
    def from_file(path: _PathLike) -> "TaskSet": ...
    @staticmethod
    def parse(text: str, format: str = "json") -> "TaskSet": ...
    @property
    def cpus(self) -> Optional[int]: ...
    @property
    def realised_utilization(self) -> Optional[float]: ...
    @property
    def wcet(self) -> npt.NDArray[np.int64]: ...
    @property
    def period(self) -> npt.NDArray[np.int64]: ...
    @property
    def deadline(self) -> npt.NDArray[np.int64]: ...
    @property
    def offset(self) -> npt.NDArray[np.int64]: ...
    @property
    def utilization(self) -> float: ...
    @property
    def density(self) -> float: ...
    @property
    def groups(self) -> List[Dict[str, Any]]:
        """The reservation groups as task-file dicts with ``budget`` and ``period`` in ns
        (``cpus`` and ``parent`` when given), in the order given."""
    @property
    def resources(self) -> List[str]:
        """Resource names by id (numbered in order of first appearance in the set)."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> Task: ...
    @overload
    def __getitem__(self, index: slice, /) -> List[Task]: ...
    def __iter__(self) -> Iterator[Task]: ...
    def __reversed__(self) -> Iterator[Task]: ...
    def __contains__(self, task: object, /) -> bool: ...
    def index(self, task: Task) -> int: ...
    def count(self, task: Task) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def to_json(self) -> str: ...
    def to_dicts(self) -> List[Dict[str, Any]]: ...
    def dumps(self, format: str = "json") -> str: ...
    def save(self, path: _PathLike) -> None: ...

@final
class JobContext:
    """What a Python job body (``run(…, bodies=)``) is told: the job, and for a parallel
    task the thread (region ``region``'s thread ``thread``, the trace's ``strand``)."""

    @property
    def task(self) -> int: ...
    @property
    def seq(self) -> int: ...
    @property
    def region(self) -> int: ...
    @property
    def thread(self) -> int: ...
    @property
    def strand(self) -> int: ...

@final
class Result:
    """One test's answer, as ``schedlab analyze --format json`` gives it."""

    def __new__(
        cls,
        test: str,
        status: str,
        schedulable: Optional[bool] = None,
        applicable: Optional[bool] = None,
        reason: Optional[str] = None,
        response_time_bounds_ns: Optional[Sequence[int]] = None,
        tardiness_bounds_ns: Optional[Sequence[int]] = None,
        partition: Optional[Sequence[Sequence[int]]] = None,
        accounting: Optional[Mapping[str, Any]] = None,
        overhead_accounting: Optional[Mapping[str, Any]] = None,
        assignment: Optional[str] = None,
        split_tasks: Optional[Sequence[Mapping[str, Any]]] = None,
        k: Optional[int] = None,
        guaranteed_tasks: Optional[Sequence[int]] = None,
        utility_fraction: Optional[Mapping[str, Optional[float]]] = None,
        groups: Optional[Sequence[Mapping[str, Any]]] = None,
    ) -> Self: ...
    @property
    def test(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def schedulable(self) -> bool: ...
    @property
    def applicable(self) -> bool: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def response_time_bounds_ns(self) -> Optional[List[int]]: ...
    @property
    def tardiness_bounds_ns(self) -> Optional[List[int]]: ...
    @property
    def partition(self) -> Optional[List[List[int]]]: ...
    @property
    def accounting(self) -> Optional[Dict[str, Any]]: ...
    @property
    def overhead_accounting(self) -> Optional[Dict[str, Any]]: ...
    @property
    def assignment(self) -> Optional[str]: ...
    @property
    def split_tasks(self) -> Optional[List[Dict[str, Any]]]: ...
    @property
    def k(self) -> Optional[int]: ...
    @property
    def guaranteed_tasks(self) -> Optional[List[int]]: ...
    @property
    def utility_fraction(self) -> Optional[Dict[str, Optional[float]]]: ...
    @property
    def groups(self) -> Optional[List[Dict[str, Any]]]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class Imported:
    """A task set read from another tool's format (``import_file``, ``import_str``)."""

    @property
    def taskset(self) -> TaskSet:
        """The task set, with the platform's CPU count where the source gives one."""
    @property
    def policy(self) -> Optional[str]:
        """The schedlab policy the source's scheduler maps to (``None``: the format names none)."""
    @property
    def unmapped(self) -> List[str]:
        """Every element or field of the source that did not map, one line each."""
    @property
    def source(self) -> str:
        """The format read: ``simso``, ``csv`` or ``rt-app``."""
    @property
    def simulate_args(self) -> List[str]:
        """The ``schedlab simulate`` arguments that run the set as its source would."""

def load(path: _PathLike) -> TaskSet: ...
def import_file(path: _PathLike, from_: Optional[str] = None) -> Imported:
    """Imports a SimSo XML configuration, a SchedCAT-style CSV task list or an rt-app JSON
    workload; ``from_`` (``simso``, ``csv``, ``rt-app``) or else the extension or content decides."""
def import_str(text: str, from_: Optional[str] = None) -> Imported:
    """Imports text in format ``from_`` (``simso``, ``csv``, ``rt-app``; ``None``: the content decides)."""
@overload
def analyze(  # type: ignore[overload-overlap]
    taskset: _TaskSetLike,
    cpus: Optional[int],
    tests: str,
    priorities: str = "dm",
    tardiness: bool = False,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> Result: ...
@overload
def analyze(  # type: ignore[overload-overlap]
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    *,
    tests: str,
    priorities: str = "dm",
    tardiness: bool = False,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> Result: ...
@overload
def analyze(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    tests: Optional[Sequence[str]] = None,
    priorities: str = "dm",
    tardiness: bool = False,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> List[Result]: ...
@overload
def analyze_many(  # type: ignore[overload-overlap]
    tasksets: Iterable[_TaskSetLike],
    cpus: Optional[int],
    tests: str,
    priorities: str = "dm",
    tardiness: bool = False,
    threads: Optional[int] = None,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> List[Result]: ...
@overload
def analyze_many(  # type: ignore[overload-overlap]
    tasksets: Iterable[_TaskSetLike],
    cpus: Optional[int] = None,
    *,
    tests: str,
    priorities: str = "dm",
    tardiness: bool = False,
    threads: Optional[int] = None,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> List[Result]: ...
@overload
def analyze_many(
    tasksets: Iterable[_TaskSetLike],
    cpus: Optional[int] = None,
    tests: Optional[Sequence[str]] = None,
    priorities: str = "dm",
    tardiness: bool = False,
    threads: Optional[int] = None,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> List[List[Result]]: ...
def catalogue() -> List[Dict[str, Any]]: ...
def design_reservations(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    priorities: str = "dm",
) -> Dict[str, Any]: ...
def charge_overheads(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    *,
    overheads: _Overheads,
    arch: str,
    dedicated_irq_cpu: bool = False,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
) -> Dict[str, Any]: ...
def generate(
    tasks: Optional[int] = None,
    utilization: Optional[float] = None,
    util_method: str = "uunifast-discard",
    util_dist: Optional[str] = None,
    grow: Optional[int] = None,
    periods: str = "loguniform:10ms..1000ms/1ms",
    deadlines: str = "implicit",
    rounding: str = "floor",
    seed: int = 1,
    count: int = 1,
    utility: Optional[str] = None,
    util_window: Optional[str] = None,
    parallel: Optional[str] = None,
    rtws: Optional[str] = None,
    cpus: Optional[int] = None,
) -> List[TaskSet]: ...
def utilizations(method: str, n: int, total: float, seed: int = 1, index: int = 0) -> List[float]: ...
def simulate(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    policy: str = "gedf",
    priorities: str = "dm",
    duration: Optional[_Duration] = None,
    seed: int = 1,
    partition: str = "ffd",
    cluster_size: Optional[int] = None,
    arrivals: str = "periodic",
    exec: str = "wcet",
    abort_late: bool = False,
    jobs: bool = True,
    overheads: Union[_PathLike, Mapping[str, Any], None] = None,
    overhead_arch: Optional[str] = None,
    overhead_stat: str = "avg",
    trace: Optional[_PathLike] = None,
    gantt: Optional[_PathLike] = None,
    perfetto: Optional[_PathLike] = None,
    jobs_csv: Optional[_PathLike] = None,
) -> Dict[str, Any]: ...
def simulate_many(
    tasksets: Iterable[_TaskSetLike],
    cpus: Optional[int] = None,
    policy: str = "gedf",
    priorities: str = "dm",
    duration: Optional[_Duration] = None,
    seed: int = 1,
    partition: str = "ffd",
    cluster_size: Optional[int] = None,
    arrivals: str = "periodic",
    exec: str = "wcet",
    abort_late: bool = False,
    jobs: bool = False,
    overheads: Union[_PathLike, Mapping[str, Any], None] = None,
    overhead_arch: Optional[str] = None,
    overhead_stat: str = "avg",
    threads: Optional[int] = None,
) -> List[Dict[str, Any]]: ...
def run(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    cpu_list: Optional[Sequence[int]] = None,
    policy: Optional[str] = None,
    arch: str = "global-lock",
    lock: str = "ticket",
    duration: Optional[_Duration] = None,
    priorities: str = "dm",
    partition: Optional[str] = None,
    dedicated_irq_cpu: bool = False,
    release_spin: Optional[_Duration] = None,
    allow_non_rt: bool = False,
    jobs: bool = True,
    trace: Optional[_PathLike] = None,
    background_load: Optional[str] = None,
    dsp_poll: bool = True,
    dl_margin: Optional[_Duration] = None,
    dl_cpuset: bool = False,
    inline_completion: bool = True,
    gantt: Optional[_PathLike] = None,
    perfetto: Optional[_PathLike] = None,
    jobs_csv: Optional[_PathLike] = None,
    overheads: Union[_PathLike, Mapping[str, Any], None] = None,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
    abort_late: bool = False,
    cluster_size: Optional[int] = None,
    threading: str = "per-task",
    bodies: Optional[Mapping[Union[int, str], Callable[["JobContext"], None]]] = None,
) -> Dict[str, Any]: ...
def export(
    taskset: _TaskSetLike,
    cpus: Optional[int] = None,
    *,
    policy: str,
    to: str = "shell",
    partition: str = "ffd",
    priorities: str = "dm",
    cluster_size: Optional[int] = None,
    test: Optional[str] = None,
    overheads: Optional[_Overheads] = None,
    arch: Optional[str] = None,
    overhead_stat: str = "max",
    granularity: Optional[_Duration] = None,
    duration: Optional[_Duration] = None,
    dl_margin: Optional[_Duration] = None,
    force: bool = False,
    launcher: str = "schedlab",
    source: Optional[str] = None,
) -> str:
    """The set as a Linux deployment: ``to`` is ``"rt-app"`` (JSON), ``"shell"`` (a POSIX sh
    script) or ``"systemd"`` (units, each after a ``### <file>`` line), with the header of
    ``schedlab export``. ``policy``: ``gedf``/``sd``, ``pedf``, ``cedf`` (SCHED_DEADLINE),
    ``gfp``, ``pfp`` (SCHED_FIFO); any other raises ``schedlab.Error`` naming ``schedlab run
    --arch …``. ``duration``: the default run length (``"10s"``; ``"inf"``: until stopped).
    ``dl_margin``: SCHED_DEADLINE runtime = WCET + this (default ``"500us"``). ``force``:
    export a set the accepting test does not accept (the header says NOT ACCEPTED). ``source``
    names the set in the header and in unit and log names; ``launcher``: the schedlab binary
    of the default task body."""
    ...
def experiment_prepare(path: str, out: str, samples: Optional[int] = None) -> str: ...
def experiment_chunk(config: str, chunk: str) -> str: ...
def experiment_store(out: str, chunk: str, text: str) -> None: ...
def experiment_finish(out: str) -> str: ...
def experiment_run(
    path: str,
    out: str,
    jobs: int = 0,
    notify: Optional[Callable[[str], None]] = None,
    samples: Optional[int] = None,
) -> str: ...
def bench_workload(cpus: int, tasks: int, count: int, seed: int = 1) -> List[TaskSet]: ...
def bench_rust_analyze(
    tasksets: Iterable[TaskSet], cpus: int, test: str, repeat: int = 15, number: int = 20
) -> List[float]: ...
def bench_rust_analyze_many(
    tasksets: Iterable[TaskSet], cpus: int, test: str, threads: Optional[int] = None
) -> float: ...
def trace_costs(
    paths: Sequence[_PathLike],
    *,
    iterations: int = 8,
    seed: int = 0,
    check: Optional[Sequence[_PathLike]] = None,
    out: Optional[_PathLike] = None,
) -> Dict[str, Any]: ...

def scale(
    tasksets: List[TaskSet],
    arch: str,
    cpus: List[int],
    costs: Union[str, "os.PathLike[str]", Dict[str, Any], None] = None,
    duration: Any = None,
    lock: Optional[str] = None,
    seed: int = 0,
    priorities: str = "dm",
    partition: str = "ffd",
) -> Dict[str, Any]:
    """The scaling model (``schedlab scale``): ``{"overheads": dict, "rows": [dict, ...]}``."""
    ...

def cli_main(argv: Sequence[str]) -> int:
    """Runs the ``schedlab`` command line (``argv[0]`` is the program name, as in ``sys.argv``)
    with the GIL released; returns its exit status (0 success, 1 failure, 2 usage error).
    The wheel's ``schedlab`` script; from Python code prefer the API (docs/python.md)."""
    ...
