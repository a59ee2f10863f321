"""Task-set generation from Python: the same generators and specification strings as ``schedlab gen``."""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from . import _native
from .taskset import TaskSet


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
) -> List[TaskSet]:
    """Generates task sets, reproducibly from ``seed`` (set k is the same whatever ``count``).

    * ``tasks=n, utilization=U``: n utilizations summing to U by ``util_method``
      (``uunifast``, ``uunifast-discard[:LO..HI]``, ``randfixedsum[:LO..HI]``, ``drs[:LO..HI]``);
    * ``tasks=n, util_dist=D``: n independent draws from D (``uniform:A..B``, ``exp:MEAN``,
      ``uni-light`` … ``bimo-heavy``);
    * ``utilization=U, util_dist=D``: draw until U is exceeded, drop the last [ChronOS §8.4];
    * ``grow=start, utilization=U, util_dist=D``: growing sequences [RTPS §VII], flattened;
    * ``util_window="LO..HI", util_dist=D``: draw until the total reaches LO, redraw sets above
      HI [RTWS §VI];
    * ``rtws="LO..HI", cpus=m``: the task sets of [RTWS §VI, Table I] for m CPUs, the window a
      fraction of m (``"0.38..0.40"``, ``"0.58..0.60"``, ``"0.73..0.75"``).

    ``parallel``: a fork-join structure for every task (``rtws:M`` or
    ``forkjoin:regions=A..B,threads=C..D[,lengths=uniform|equal]``), its work the task's C,
    drawn from a stream of its own (the timing is unchanged). ``cpus`` sets each set's
    platform, as ``schedlab gen --cpus`` writes ``platform.cpus``.

    ``periods``: ``uniform:A..B[/G]``, ``loguniform:A..B[/G]``, ``set:…``, ``harmonic``,
    ``automotive``. ``deadlines``: ``implicit``, ``constrained``, ``arbitrary``. Each returned
    set has ``.realised_utilization`` (after integer rounding of C). The sets are native
    :class:`TaskSet` objects, made in Rust with the GIL released.
    """
    return _native.generate(tasks, utilization, util_method, util_dist, grow, periods,
                            deadlines, rounding, seed, count, utility, util_window, parallel,
                            rtws, cpus)


def utilizations(method: str, n: int, total: float, seed: int = 1, index: int = 0) -> np.ndarray:
    """One utilization vector of ``n`` values summing to ``total`` by ``method``."""
    return np.array(_native.utilizations(method, n, total, seed, index))
