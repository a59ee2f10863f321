#!/usr/bin/env python3
"""What the Python layer of schedlab adds to the Rust work it calls (docs/benchmarks.md).

Two measurements on the workload of ``schedlab bench analysis`` (m = 16, set k of seed 1):

1. **Per call.** For each of ``--sets`` task sets of n tasks, the median time of
   ``schedlab.analyze(ts, cpus=16, tests=TEST)`` on a prebuilt native ``TaskSet`` (timeit:
   ``--repeat`` timings of ``--number`` back-to-back calls), against the median time of the
   same work in pure Rust — ``System::new`` + the test, the two things the call computes —
   timed the same way (``--repeat`` × ``--number``, per-call median) *inside the same native
   library* (``schedlab._native.bench_rust_analyze``: same compiler flags, allocator, test
   object and task set). The two are measured alternately, set by set, so that a change of
   machine load hits both. Overhead = Python − Rust per set; the table gives medians over sets.

2. **Batch.** ``schedlab.analyze_many(sets, cpus=16, tests=TEST)`` over ``--batch`` distinct
   sets against the pure-Rust batch of the same work on the same cores
   (``schedlab._native.bench_rust_analyze_many``: rayon over the same sets, no Python
   objects), each the median of ``--batch-repeat`` runs, alternating; and, for scale, one
   ``analyze`` per set in a Python loop.

Usage: ``python tools/python_overhead.py [--tasks 160,640] [--tests gedf-bcl,gedf]
[--cpu N] [--json]`` (after ``source scripts/env.sh; build_python_package``). ``--cpu N``
pins the per-call part to CPU N (``os.sched_setaffinity``); the batch part uses every CPU
this process may use.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any, Dict, List

import schedlab
from schedlab import _native

CPUS = 16


def per_call_ns(fn: Any, repeat: int, number: int) -> float:
    """Median over ``repeat`` timings of ``number`` calls, in ns per call."""
    timings = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        timings.append((time.perf_counter_ns() - start) / number)
    return statistics.median(timings)


def per_call(n: int, test: str, sets: int, repeat: int, number: int) -> Dict[str, Any]:
    workload = _native.bench_workload(CPUS, n, sets)
    python_ns: List[float] = []
    rust_ns: List[float] = []
    for ts in workload:
        rust_ns.append(_native.bench_rust_analyze([ts], CPUS, test, repeat, number)[0])
        python_ns.append(per_call_ns(lambda: schedlab.analyze(ts, cpus=CPUS, tests=test),
                                     repeat, number))
    overhead = [p - r for p, r in zip(python_ns, rust_ns)]
    return {
        "part": "per-call", "tasks": n, "test": test, "sets": sets,
        "python_us": statistics.median(python_ns) / 1e3,
        "rust_us": statistics.median(rust_ns) / 1e3,
        "overhead_us": statistics.median(overhead) / 1e3,
        "overhead_max_us": max(overhead) / 1e3,
    }


def batch(n: int, test: str, count: int, repeat: int) -> Dict[str, Any]:
    workload = _native.bench_workload(CPUS, n, count)
    many: List[float] = []
    rust: List[float] = []
    for _ in range(repeat):
        rust.append(_native.bench_rust_analyze_many(workload, CPUS, test))
        start = time.perf_counter()
        results = schedlab.analyze_many(workload, cpus=CPUS, tests=test)
        many.append(time.perf_counter() - start)
        assert len(results) == count
    start = time.perf_counter()
    for ts in workload:
        schedlab.analyze(ts, cpus=CPUS, tests=test)
    loop = time.perf_counter() - start
    return {
        "part": "batch", "tasks": n, "test": test, "sets": count,
        "threads": len(os.sched_getaffinity(0)),
        "analyze_many_s": statistics.median(many), "rust_s": statistics.median(rust),
        "ratio": statistics.median(many) / statistics.median(rust), "loop_s": loop,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="160,640", help="task counts n (comma-separated)")
    p.add_argument("--tests", default="gedf-bcl,gedf", help="test names (comma-separated)")
    p.add_argument("--sets", type=int, default=50, help="task sets per point (per call)")
    p.add_argument("--repeat", type=int, default=15, help="timings per set")
    p.add_argument("--number", type=int, default=20, help="calls per timing")
    p.add_argument("--batch", type=int, default=10_000, help="task sets in the batch")
    p.add_argument("--batch-repeat", type=int, default=5, help="runs of each batch")
    p.add_argument("--batch-tasks", type=int, default=160, help="n of the batch sets")
    p.add_argument("--cpu", type=int, help="pin the per-call part to this CPU")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    a = p.parse_args()
    tests = [t for t in a.tests.split(",") if t]
    rows = []
    everywhere = os.sched_getaffinity(0)
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    for n in [int(x) for x in a.tasks.split(",") if x]:
        for test in tests:
            rows.append(per_call(n, test, a.sets, a.repeat, a.number))
            if a.json:
                print(json.dumps(rows[-1]), flush=True)
    os.sched_setaffinity(0, everywhere)
    for test in tests:
        rows.append(batch(a.batch_tasks, test, a.batch, a.batch_repeat))
        if a.json:
            print(json.dumps(rows[-1]), flush=True)
    if a.json:
        return
    print(f"schedlab {schedlab.__version__}, load average {os.getloadavg()[0]:.1f} at the end")
    print("| n | test | Python µs/call | Rust µs/call | overhead µs (median) | overhead µs (max) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if r["part"] == "per-call":
            print(f"| {r['tasks']} | `{r['test']}` | {r['python_us']:.2f} | {r['rust_us']:.2f} "
                  f"| {r['overhead_us']:.2f} | {r['overhead_max_us']:.2f} |")
    print()
    print("| sets × n | test | threads | analyze_many s | Rust s | ratio | analyze() loop s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if r["part"] == "batch":
            print(f"| {r['sets']:,} × {r['tasks']} | `{r['test']}` | {r['threads']} "
                  f"| {r['analyze_many_s']:.3f} | {r['rust_s']:.3f} | {r['ratio']:.3f} "
                  f"| {r['loop_s']:.3f} |")


if __name__ == "__main__":
    main()
