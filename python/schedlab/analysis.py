"""Schedulability analysis from Python: the same tests, names and answers as ``schedlab analyze``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import List, Optional, Sequence, Union

from . import _native
from .taskset import TaskSet


@dataclass(frozen=True)
class Result:
    """One test's answer.

    ``status`` is one of ``schedulable``, ``not-shown``, ``unschedulable``, ``not-applicable``,
    ``gave-up``. Bounds are per task in nanoseconds (or ``None``); ``partition`` lists task
    indices per CPU (partitioned tests) or per cluster (clustered tests).
    """

    test: str
    status: str
    schedulable: bool
    applicable: bool
    reason: Optional[str]
    response_time_bounds_ns: Optional[List[int]]
    tardiness_bounds_ns: Optional[List[int]]
    partition: Optional[List[List[int]]]


def analyze(
    taskset: Union[TaskSet, Sequence[dict]],
    cpus: Optional[int] = None,
    tests: Optional[Union[str, Sequence[str]]] = None,
    priorities: str = "dm",
    tardiness: bool = False,
) -> Union[List[Result], Result]:
    """Runs schedulability tests.

    ``tests`` is one name (returns one :class:`Result`), a list of names, or ``None`` for every
    test (returns a list). ``cpus`` overrides the task set's platform. ``priorities`` is
    ``dm`` (default), ``rm`` or ``given`` for fixed-priority tests. ``tardiness=True`` fills
    tardiness bounds where defined (zero for tasks a hard test shows schedulable).
    """
    ts = taskset if isinstance(taskset, TaskSet) else TaskSet(taskset)
    single = isinstance(tests, str)
    names = [tests] if single else (None if tests is None else list(tests))
    raw = json.loads(_native.analyze(ts.to_json(), cpus, names, priorities, tardiness))
    results = [Result(**r) for r in raw]
    return results[0] if single else results


def tests() -> List[dict]:
    """Every test with its family, kind, citation, assumptions and complexity."""
    return json.loads(_native.catalogue())
