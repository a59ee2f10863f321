"""Schedulability analysis from Python: the same tests, names and answers as ``schedlab analyze``.

``analyze`` and ``analyze_many`` are native functions: the task set is read in place, the GIL
is released while the tests run, and ``analyze_many`` spreads its task sets over every core.
With ``overheads=`` and ``arch=`` they run the tests on the set charged with an architecture's
overheads, as ``schedlab analyze --overheads`` does; ``charge_overheads`` is
``schedlab overheads charge``. ``design_reservations`` is ``schedlab design reservations``:
the smallest budget per reservation group that ``hcbs-gfp`` accepts.
"""

from __future__ import annotations

from typing import Any, Dict, List

from . import _native
from ._native import Result, analyze, analyze_many, charge_overheads, design_reservations


def tests() -> List[Dict[str, Any]]:
    """Every test with its family, kind, citation, assumptions, complexity and parameters."""
    return _native.catalogue()


__all__ = [
    "Result", "analyze", "analyze_many", "charge_overheads", "design_reservations", "tests",
]
