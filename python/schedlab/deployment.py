"""Exporting an analysed configuration as a Linux deployment: ``schedlab export`` from Python
(docs/export.md).

``export(taskset, cpus=2, policy="pedf", to="rt-app")`` runs the test that accepts the set
(``pedf-ffd`` for ``pedf``, the ``gedf`` battery for ``gedf``, …, with ``overheads=`` and
``arch=`` if given) and returns rt-app JSON, a POSIX shell script or systemd units as one
string, each starting with a header saying what accepted it, with which overheads and which
SCHED_DEADLINE margin. A policy Linux cannot express raises ``schedlab.Error`` naming the
``schedlab run --arch …`` that runs it.

>>> import schedlab
>>> ts = schedlab.TaskSet([{"name": "a", "wcet": "6ms", "period": "10ms"},
...                        {"name": "b", "wcet": "5ms", "period": "10ms"}])
>>> text = schedlab.export(ts, cpus=2, policy="pedf", to="rt-app")
>>> "Accepted by: pedf-ffd: schedulable" in text
True
"""

from __future__ import annotations

from ._native import export

__all__ = ["export"]
