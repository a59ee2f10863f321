"""Task sets in Python: built from dicts, numpy arrays or files, validated by the Rust core."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

from . import _native

Time = Union[int, str]
"""A time: integer nanoseconds or a string with a unit ("2ms", "150us", "1.5ms", "3s")."""


@dataclass(frozen=True)
class Task:
    """A sporadic task (C, D, T); times in integer nanoseconds.

    ``priority`` is a fixed priority (smaller = higher) for ``priorities="given"``.
    """

    wcet: int
    period: int
    deadline: int
    name: Optional[str] = None
    offset: int = 0
    priority: Optional[int] = None
    utility: Optional[float] = None
    wss: Optional[int] = None
    cpu: Optional[int] = None
    cluster: Optional[int] = None
    affinity: Optional[list] = None

    @property
    def utilization(self) -> float:
        """C / T."""
        return self.wcet / self.period

    @property
    def density(self) -> float:
        """C / min(D, T)."""
        return self.wcet / min(self.deadline, self.period)

    def to_dict(self) -> dict:
        """The task-file form of this task (omits unset optional fields)."""
        d = {"wcet": self.wcet, "period": self.period, "deadline": self.deadline}
        for key in ("name", "priority", "utility", "wss", "cpu", "cluster", "affinity"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.offset:
            d["offset"] = self.offset
        return d


def _plain(value: Any) -> Any:
    """numpy scalars/arrays → plain Python for JSON."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


class TaskSet(Sequence[Task]):
    """An ordered, validated set of tasks, optionally with a platform (``cpus``).

    Build it from a list of dicts in the task-file schema (times as integer ns or strings with a
    unit), from :class:`Task` objects, from numpy arrays (:meth:`from_arrays`) or from a file
    (:func:`load`). Invalid input raises :class:`schedlab.Error` naming the task and the field.
    """

    def __init__(self, tasks: Iterable[Union[dict, Task]], cpus: Optional[int] = None):
        dicts = []
        for t in tasks:
            d = t.to_dict() if isinstance(t, Task) else dict(t)
            dicts.append({k: _plain(v) for k, v in d.items()})
        doc: dict = {"tasks": dicts}
        if cpus is not None:
            doc["platform"] = {"cpus": int(cpus)}
        self._init_from_canonical(json.loads(_native.normalize(json.dumps(doc))))

    def _init_from_canonical(self, doc: dict) -> None:
        self._doc = doc
        self._tasks = [Task(**t) for t in doc["tasks"]]

    @classmethod
    def _from_canonical_json(cls, text: str) -> "TaskSet":
        obj = cls.__new__(cls)
        obj._init_from_canonical(json.loads(text))
        return obj

    @classmethod
    def from_arrays(
        cls,
        wcet: Any,
        period: Any,
        deadline: Any = None,
        names: Optional[Sequence[str]] = None,
        cpus: Optional[int] = None,
    ) -> "TaskSet":
        """Builds a task set from integer-nanosecond arrays (numpy or lists)."""
        c = np.asarray(wcet)
        t = np.asarray(period)
        d = t if deadline is None else np.asarray(deadline)
        if not (c.shape == t.shape == d.shape) or c.ndim != 1:
            raise _native.Error("wcet, period and deadline must be one-dimensional arrays of one length")
        for label, arr in (("wcet", c), ("period", t), ("deadline", d)):
            if not np.issubdtype(arr.dtype, np.integer):
                raise _native.Error(f"{label} must hold integers (nanoseconds), got dtype {arr.dtype}")
        tasks = []
        for i in range(len(c)):
            entry = {"wcet": int(c[i]), "period": int(t[i]), "deadline": int(d[i])}
            if names is not None:
                entry["name"] = names[i]
            tasks.append(entry)
        return cls(tasks, cpus=cpus)

    @property
    def cpus(self) -> Optional[int]:
        """The platform's CPU count, if the task set carries one."""
        platform = self._doc.get("platform")
        return None if platform is None else platform["cpus"]

    def __len__(self) -> int:
        return len(self._tasks)

    def __getitem__(self, i):  # type: ignore[override]
        return self._tasks[i]

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks)

    def __repr__(self) -> str:
        return f"TaskSet(n={len(self)}, U={self.utilization:.4f})"

    @property
    def wcet(self) -> np.ndarray:
        """WCETs (ns) as an int64 array."""
        return np.array([t.wcet for t in self._tasks], dtype=np.int64)

    @property
    def period(self) -> np.ndarray:
        """Periods (ns) as an int64 array."""
        return np.array([t.period for t in self._tasks], dtype=np.int64)

    @property
    def deadline(self) -> np.ndarray:
        """Relative deadlines (ns) as an int64 array."""
        return np.array([t.deadline for t in self._tasks], dtype=np.int64)

    @property
    def utilization(self) -> float:
        """Total utilization Σ C/T (float, for reports)."""
        return float(sum(t.utilization for t in self._tasks))

    def to_json(self) -> str:
        """The task set as task-file JSON text (integer nanoseconds)."""
        return json.dumps(self._doc)

    def to_dicts(self) -> list:
        """The tasks as task-file dicts."""
        return [dict(t) for t in self._doc["tasks"]]

    def dumps(self, format: str = "json") -> str:
        """Task-file text in ``json`` or ``toml`` with times in readable units."""
        return _native.dump(self.to_json(), format)

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes a task file; the format comes from the extension (.json or .toml)."""
        path = os.fspath(path)
        fmt = "toml" if path.lower().endswith(".toml") else "json"
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.dumps(fmt))


def load(path: Union[str, os.PathLike]) -> TaskSet:
    """Reads a task file (.json or .toml)."""
    return TaskSet._from_canonical_json(_native.load(os.fspath(path)))


def parse(text: str, format: str = "json") -> TaskSet:
    """Parses task-file text in ``json`` or ``toml``."""
    return TaskSet._from_canonical_json(_native.parse(text, format))


__all__ = ["Task", "TaskSet", "load", "parse", "Time", "field"]
