"""schedlab: a laboratory for multicore real-time scheduling.

Generate task sets, analyse them with every classic schedulability test, simulate them, and
run them on Linux under user-space schedulers. The heavy lifting is Rust (``schedlab._native``):
task sets are held in Rust, results are built directly as Python objects, the GIL is released
while anything is computed, and the batch calls (``analyze_many``, ``simulate_many``) use every
core. This package is the Python face of the same code the ``schedlab`` CLI uses, with the same
test names, the same file format and the same error messages.

>>> import schedlab
>>> ts = schedlab.TaskSet([{"name": "a", "wcet": "2ms", "period": "10ms"},
...                        {"name": "b", "wcet": "3ms", "period": "15ms"}])
>>> schedlab.analyze(ts, cpus=2, tests="gedf-gfb").schedulable
True
"""

from ._native import Error, Imported, JobContext, __version__, import_file, import_str
from .taskset import Task, TaskSet, load, parse
from .analysis import (
    Result, analyze, analyze_many, charge_overheads, design_reservations, tests,
)
from .generate import generate, utilizations
from .simulation import simulate, simulate_many
from .runtime import run
from .deployment import export
from .scaling import ScaleResult, scale
from . import experiment
from .calibration import trace_costs

__all__ = [
    "Error", "__version__", "Task", "TaskSet", "load", "parse", "Result", "analyze",
    "analyze_many", "charge_overheads", "design_reservations", "tests", "generate", "utilizations", "simulate",
    "simulate_many", "run", "export", "JobContext", "experiment",
    "trace_costs",
    "scale", "ScaleResult",
    "import_file", "import_str", "Imported",
]
