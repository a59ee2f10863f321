"""Task sets in Python, held in Rust: built from dicts, :class:`Task` objects, numpy arrays or
files, validated by the same code (and with the same messages) as task files.

:class:`TaskSet` and :class:`Task` are native classes (``schedlab._native``): analysis and
simulation read a ``TaskSet`` in place, without converting it. A ``TaskSet`` is an immutable
sequence of ``Task`` objects (indexing, slicing, ``len``, iteration, ``in``, ``index``,
``count``) and is registered as a :class:`collections.abc.Sequence`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from ._native import Task, TaskSet, load

Time = Union[int, str]
"""A task's time field: integer nanoseconds or a string with a unit ("2ms", "150us", "1.5ms")."""

Sequence.register(TaskSet)

parse = TaskSet.parse
"""Parses task-file text: ``parse(text, format="json")`` (``json`` or ``toml``)."""

__all__ = ["Task", "TaskSet", "load", "parse", "Time"]
