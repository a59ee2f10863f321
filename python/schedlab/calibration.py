"""Calibrating the scaling model from runtime traces: ``schedlab trace costs`` from Python
(docs/scaling-calibration.md)."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Union

from . import _native

PathLike = Union[str, "os.PathLike[str]"]


def trace_costs(
    paths: Union[PathLike, Sequence[PathLike]],
    *,
    iterations: int = 8,
    seed: int = 0,
    check: Optional[Sequence[PathLike]] = None,
    out: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """The per-operation costs of the scaling model calibrated from runtime traces (their
    metadata names the architecture and m), as ``schedlab trace costs PATHS --json``.

    Returns a dict: ``costs`` (the costs file as a dict, accepted by ``schedlab.scale(costs=…)``
    and the costs-file reader), ``measured`` (arch → overhead → ``avg_ns``, ``max_ns``,
    ``count``), ``iterations`` (the refinement: per iteration and overhead the measured and
    predicted means), ``converged`` (arch → bool) and ``check`` (with ``check=``: the model
    with the calibrated costs against those other traces). ``iterations=0``: the direct
    mapping only. ``out``: also write the costs file (TOML).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return _native.trace_costs(
        [os.fspath(p) for p in paths],
        iterations=iterations,
        seed=seed,
        check=None if check is None else [os.fspath(p) for p in check],
        out=None if out is None else os.fspath(out),
    )
