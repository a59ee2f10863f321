"""The scaling model: predicted overheads of an architecture at M CPUs (``schedlab scale``).

See docs/scaling.md. ``scale`` executes the architecture's scheduler code paths on simulated
CPUs (locks with ticket/MCS handoff, the DSP's mailboxes, IPIs, push/pull) beside the policy
simulator's schedule, and measures the overheads of [MP §IV-A] as spans.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _native
from .taskset import TaskSet, load

PathLike = Union[str, "os.PathLike[str]"]


class ScaleResult:
    """What ``scale`` predicted.

    ``overheads``: the overhead file as a dict (sections ``<arch>`` for one ``cpus`` value,
    ``<arch>@m<M>`` for several), accepted as is by ``overheads=`` of ``analyze`` and
    ``simulate``. ``rows``: one dict per task set, M and overhead, as ``schedlab scale --json``
    (``arch``, ``cpus``, ``n``, ``overhead``, ``symbol``, ``avg_ns``, ``max_ns``, ``count``,
    ``events``, ``jobs``, ``paths``, ``wall_ms``, ``saturated``, ``counters``).
    """

    def __init__(self, overheads: Dict[str, Any], rows: List[Dict[str, Any]]) -> None:
        self.overheads = overheads
        self.rows = rows

    def __repr__(self) -> str:
        return f"ScaleResult({len(self.rows)} rows, sections {sorted(self.overheads.get('arch', {}))})"


def _as_set(x: Any) -> Any:
    if isinstance(x, (str, os.PathLike)):
        return load(x)
    if isinstance(x, TaskSet):
        return x
    return TaskSet(x)


def scale(
    tasks: Any,
    arch: str,
    cpus: Union[int, Sequence[int]],
    costs: Union[PathLike, Dict[str, Any], None] = None,
    duration: Any = "10s",
    lock: Optional[str] = None,
    seed: int = 0,
    priorities: str = "dm",
    partition: str = "ffd",
) -> ScaleResult:
    """Predicts the overheads of ``arch`` at each of ``cpus`` (every CPU counted).

    ``tasks``: a task set, a path, or a list of them (one point each, at its n). ``arch``:
    ``global-lock``, ``global-lock-di``, ``message-passing``, ``partitioned``, ``push-pull``.
    ``costs``: a costs file's path or a dict of the same structure (default: every cost at
    its default). ``lock``: ``ticket`` or ``mcs`` (overrides the costs file's).

    >>> import schedlab
    >>> ts = schedlab.TaskSet([{"wcet": "2ms", "period": "10ms"}] * 4)
    >>> r = schedlab.scale(ts, arch="message-passing", cpus=3, duration="100ms")
    >>> sorted(r.overheads["arch"])
    ['message-passing']
    """
    if isinstance(tasks, list) and tasks and not isinstance(tasks[0], dict):
        sets = [_as_set(t) for t in tasks]
    else:
        sets = [_as_set(tasks)]
    ms = [int(cpus)] if isinstance(cpus, int) else [int(m) for m in cpus]
    out = _native.scale(
        sets, arch, ms, costs, duration, lock, seed, priorities, partition,
    )
    return ScaleResult(out["overheads"], out["rows"])
