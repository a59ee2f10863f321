#!/usr/bin/env python3
"""Marginal per-file cost of `schedlab analyze` against SchedCAT's native median per set.

For each task count n (160 and 640, m = 16) and each file shape (`pretty`: unit strings as
`schedlab gen` writes them; `compact`: one line, integer ns), this writes sets 0..49 of the
benchmark workload (`schedlab bench analysis --write-sets`, seed 1), then times ONE
`schedlab analyze DIR --cpus 16 --test T` call over 1 file and over 50 files, `--repeat` times
each (median wall time), and prints

    marginal µs per file = (median time over 50 files − median time over 1 file) / 49

so that process start does not count, next to SchedCAT's native median per set and the ratio
(how many times faster the whole file path is: read, parse, analysis, output). Standard output
of `analyze` goes to /dev/null; its exit code is checked.

    cargo build --release -p schedlab
    tools/analyze_speed.py                        # every test, both sizes, both shapes
    tools/analyze_speed.py --tasks 160 --test gedf-bcl --repeat 21 --format json
    SCHEDLAB=/path/to/schedlab tools/analyze_speed.py --json > speed.jsonl

The machine's load skews wall time: note it (`uptime`) next to any number you keep. Use
`--cpu-list 1` to pin the calls (`taskset -c`), as the process's threads then share one CPU.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get(
    "SCHEDLAB", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "schedlab")
)

# SchedCAT's native (C++) median µs per task set, m = 16, on the same workload (docs/benchmarks.md).
SCHEDCAT_MEDIAN_US = {
    "gedf-bak": {160: 575, 640: 2072},
    "gedf-bcl": {160: 246, 640: 962},
    "gedf-bcl-iter": {160: 2241, 640: 33709},
    "gedf-rta": {160: 47623, 640: 669259},
    "gedf-bar": {160: 5103, 640: 66108},
    "gedf": {160: 1045, 640: 2704},
}
REQUIRED_RATIO = 10.0


def run_checked(args):
    result = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {result.stderr.decode(errors='replace')}")


def write_sets(writer, folder, cpus, tasks, sets, shape):
    run_checked([writer, "bench", "analysis", "--cpus", str(cpus), "--tasks", str(tasks), "--sets", str(sets),
                 "--write-sets", folder, "--shape", shape])


def timed(args, repeat, prefix):
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run_checked(prefix + args)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, action="append", help="task counts (repeatable; default 160 and 640)")
    parser.add_argument("--test", action="append", help="tests (repeatable; default: the six of the check)")
    parser.add_argument("--shape", action="append", choices=["pretty", "compact"], help="file shapes (default both)")
    parser.add_argument("--cpus", type=int, default=16)
    parser.add_argument("--sets", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=9, help="timed calls per point (median)")
    parser.add_argument("--format", default="table", choices=["table", "json"], help="analyze's --format")
    parser.add_argument("--cpu-list", help="run analyze under `taskset -c LIST`")
    parser.add_argument("--json", action="store_true", help="one JSON object per row instead of the table")
    parser.add_argument("--writer", default=BIN,
                        help="the schedlab that writes the sets (to time an older build without --write-sets)")
    args = parser.parse_args()
    sizes = args.tasks or [160, 640]
    tests = args.test or list(SCHEDCAT_MEDIAN_US)
    shapes = args.shape or ["pretty", "compact"]
    prefix = ["taskset", "-c", args.cpu_list] if args.cpu_list else []
    if not os.path.exists(BIN):
        sys.exit(f"{BIN} not found: cargo build --release -p schedlab (or set SCHEDLAB)")
    if not args.json:
        print(f"{'n':>4} {'shape':<8} {'test':<14} {'1 file ms':>10} {f'{args.sets} files ms':>11} "
              f"{'µs/file':>9} {'SchedCAT µs':>12} {'ratio':>8}")
    worst = None
    with tempfile.TemporaryDirectory(prefix="schedlab-speed-") as root:
        for n in sizes:
            for shape in shapes:
                many = os.path.join(root, f"{shape}-{n}")
                write_sets(args.writer, many, args.cpus, n, args.sets, shape)
                one = os.path.join(root, f"{shape}-{n}-one")
                os.mkdir(one)
                first = sorted(os.listdir(many))[0]
                os.symlink(os.path.join(many, first), os.path.join(one, first))
                for test in tests:
                    options = ["--cpus", str(args.cpus), "--test", test, "--format", args.format]
                    t_one = timed([BIN, "analyze", one] + options, args.repeat, prefix)
                    t_many = timed([BIN, "analyze", many] + options, args.repeat, prefix)
                    per_file_us = (t_many - t_one) / (args.sets - 1) * 1e6
                    reference = SCHEDCAT_MEDIAN_US.get(test, {}).get(n)
                    ratio = reference / per_file_us if reference and per_file_us > 0 else None
                    if ratio is not None:
                        worst = ratio if worst is None else min(worst, ratio)
                    row = {"tasks": n, "cpus": args.cpus, "shape": shape, "test": test, "format": args.format,
                           "one_file_ms": t_one * 1e3, "files": args.sets, "many_files_ms": t_many * 1e3,
                           "per_file_us": per_file_us, "schedcat_median_us": reference, "ratio": ratio}
                    if args.json:
                        print(json.dumps(row), flush=True)
                    else:
                        ref = f"{reference:>12,}" if reference else f"{'-':>12}"
                        rat = f"{ratio:>7.1f}×" if ratio else f"{'-':>8}"
                        print(f"{n:>4} {shape:<8} {test:<14} {t_one * 1e3:>10.2f} {t_many * 1e3:>11.2f} "
                              f"{per_file_us:>9.1f} {ref} {rat}", flush=True)
    if worst is not None and not args.json:
        verdict = "meets" if worst >= REQUIRED_RATIO else "MISSES"
        print(f"smallest ratio {worst:.1f}× ({verdict} the {REQUIRED_RATIO:.0f}× target); load: {os.getloadavg()}")


if __name__ == "__main__":
    main()
