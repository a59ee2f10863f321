"""schedlab: a laboratory for multicore real-time scheduling.

Generate task sets, analyse them with every classic schedulability test, simulate them, and
run them on Linux under user-space schedulers. The heavy lifting is Rust (``schedlab._native``);
this package is the Python face of the same code the ``schedlab`` CLI uses, with the same test
names, the same file format and the same error messages.

>>> import schedlab
>>> ts = schedlab.TaskSet([{"name": "a", "wcet": "2ms", "period": "10ms"},
...                        {"name": "b", "wcet": "3ms", "period": "15ms"}])
>>> schedlab.analyze(ts, cpus=2, tests=["gedf-gfb"])[0].schedulable
True
"""

from ._native import Error
from .taskset import Task, TaskSet, load
from .analysis import Result, analyze, tests
from .generate import generate, utilizations
from .simulation import simulate
from .runtime import run
from . import experiment

__all__ = ["Error", "Task", "TaskSet", "load", "Result", "analyze", "tests", "generate", "utilizations", "simulate", "run", "experiment"]
