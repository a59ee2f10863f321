"""[RTWS Tables II–III, Figs. 3–4] on this machine (m = 2), for real: the Table I sets of
`schedlab gen --rtws LO..HI --cpus 2` (the paper's periods, 700–800 ms) run under RTWS
(`--arch work-stealing`), SCHED_DEADLINE with one thread per thread slot (`--arch
linux-deadline`, the paper's "SD") and G-EDF with threads as jobs (`--arch global-lock
--policy gedf`), in rotating order per set (so drift in the machine's load favours none), and
simulated under `rtws`, `sd` and `gedf` for the same duration. Prints one Markdown row per
set and architecture (jobs, misses, migrations, steals, context switches, preemptions), then
the means per window (docs/reproductions.md, RTWS section).

    cargo build --release -p schedlab
    python3 tools/rtws_real_m2.py --duration 10s --seeds 4

Every real run is bounded (`timeout`); check first that no other program runs real-time
threads (`ps -eLo cls,comm | grep -E 'FF|DLN'`); the load average is printed.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))
WINDOWS = ["0.38..0.40", "0.58..0.60", "0.73..0.75"]
REAL = [
    ("RTWS", ["--arch", "work-stealing"]),
    ("SD", ["--arch", "linux-deadline"]),
    ("G-EDF", ["--arch", "global-lock", "--policy", "gedf"]),
]
SIM = {"RTWS": "rtws", "SD": "sd", "G-EDF": "gedf"}
FIELDS = ["jobs", "deadline_misses", "migrations", "steals", "context_switches", "preemptions"]


def run_json(args, bound):
    out = subprocess.run(["timeout", str(bound), BIN, *args, "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--bound", type=int, default=120, help="timeout of one real run, s")
    a = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().strip()}")
    rows = {}
    order = 0
    with tempfile.TemporaryDirectory() as tmp:
        print("| window | seed | run | " + " | ".join(FIELDS) + " |")
        print("|---|---|---|" + "---|" * len(FIELDS))
        for w in WINDOWS:
            for seed in range(1, a.seeds + 1):
                path = os.path.join(tmp, f"set-{w}-{seed}.json")
                subprocess.run([BIN, "gen", "--rtws", w, "--cpus", "2", "--seed", str(seed), "--out", path],
                               check=True, capture_output=True)
                k = order % len(REAL)
                order += 1
                for label, extra in REAL[k:] + REAL[:k]:
                    r = run_json(["run", path, "--cpus", "2", "--duration", a.duration, *extra], a.bound)
                    rows.setdefault((w, "real", label), []).append(r)
                    print(f"| {w} | {seed} | {label} real | " + " | ".join(str(r.get(x)) for x in FIELDS) + " |")
                for label, policy in SIM.items():
                    r = run_json(["simulate", path, "--cpus", "2", "--duration", a.duration, "--policy", policy], 60)
                    rows.setdefault((w, "sim", label), []).append(r)
                    print(f"| {w} | {seed} | {label} sim | " + " | ".join(str(r.get(x)) for x in FIELDS) + " |")
    with open("/proc/loadavg") as f:
        print(f"\nload average after: {f.read().strip()}")
    print("\nMeans per set:\n")
    print("| window | run | " + " | ".join(FIELDS) + " |")
    print("|---|---|" + "---|" * len(FIELDS))
    for (w, kind, label), rs in rows.items():
        means = [statistics.mean(r.get(x) or 0 for r in rs) for x in FIELDS]
        print(f"| {w} | {label} {kind} | " + " | ".join(f"{m:.1f}" for m in means) + " |")


if __name__ == "__main__":
    main()
