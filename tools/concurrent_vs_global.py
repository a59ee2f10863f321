"""Compares `--arch concurrent` with `--arch global-lock` on the same task sets, alternating
runs in pairs within one session (docs/runtime.md, "concurrent").

For each set and each non-preemptive policy (gfifo, gnpedf) the script runs `--pairs` pairs,
each pair one run of either architecture (the order alternates between pairs, so drift in the
machine's load does not favour one), and prints one Markdown row per run with the scheduling
overheads of the run's trace (docs/traces.md: `schedule` = Δsch, `lock_wait`, `release`,
`ipi`, `context_switch`, medians and p99 in µs), the number of IPIs sent, the deadline misses
and `release_to_run`; then the median over the pairs of each architecture.

    cargo build --release -p schedlab
    python3 tools/concurrent_vs_global.py --duration 5s --pairs 3

Check first that no other program runs real-time threads (`ps -eLo cls,comm | grep FF`) and
report the load (`/proc/loadavg`, printed): compilations on the same CPUs disturb the numbers.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))

SETS = [
    # (name, gen arguments): 0.6 per CPU of 2 (the runtime tests' load), and many short tasks.
    ("6 tasks, U 1.2", ["--tasks", "6", "--utilization", "1.2", "--periods", "loguniform:10ms..50ms/1ms"]),
    ("20 tasks, U 1.4", ["--tasks", "20", "--utilization", "1.4", "--periods", "loguniform:5ms..50ms/1ms"]),
]
NAMES = ["schedule", "lock_wait", "release", "ipi", "context_switch", "release_latency", "release_to_run"]


def us(ns):
    return "—" if ns is None else f"{ns / 1000:,.1f}"


def run(ts, arch, policy, duration, timeout, trace=None):
    cmd = ["timeout", str(timeout), BIN, "run", ts, "--cpus", "2", "--arch", arch, "--policy", policy,
           "--duration", duration, "--format", "json"] + (["--trace", trace] if trace else [])
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or [str(out.returncode)])[-1]
    return json.loads(out.stdout), None


def row(set_name, policy, arch, k, r):
    o = r.get("overheads", {})
    cells = []
    for n in NAMES:
        s = o.get(n)
        cells.append("—" if s is None else f"{us(s['median_ns'])} / {us(s['p99_ns'])}")
    ipis = o.get("ipi", {}).get("count", 0)
    print(f"| {set_name} | {policy} | {arch} | {k} | {r['jobs']} | {r['deadline_misses']} | {ipis} | "
          + " | ".join(cells) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="5s")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--keep-bad", help="directory: keep the trace of every run that missed more "
                    "than 10 %% of its deadlines (for a post-mortem)")
    args = ap.parse_args()
    secs = float(args.duration.rstrip("s"))
    timeout = int(secs) + 30
    with open("/proc/loadavg") as f:
        print(f"load at start: {f.read().strip()}")
    print("| set | policy | arch | pair | jobs | misses | IPIs | " + " | ".join(f"{n} med / p99" for n in NAMES) + " |")
    print("|---" * (7 + len(NAMES)) + "|")
    summary = {}
    with tempfile.TemporaryDirectory() as d:
        for i, (set_name, gen) in enumerate(SETS):
            ts = os.path.join(d, f"set{i}.json")
            subprocess.run([BIN, "gen", *gen, "--seed", "7", "--out", ts], check=True, capture_output=True)
            for policy in ["gfifo", "gnpedf"]:
                for k in range(args.pairs):
                    order = ["concurrent", "global-lock"] if k % 2 == 0 else ["global-lock", "concurrent"]
                    for arch in order:
                        trace = os.path.join(d, "run.trace") if args.keep_bad else None
                        r, err = run(ts, arch, policy, args.duration, timeout, trace)
                        if r is not None and trace and r["deadline_misses"] > r["jobs"] // 10:
                            os.makedirs(args.keep_bad, exist_ok=True)
                            kept = os.path.join(args.keep_bad, f"{arch}-{policy}-set{i}-pair{k + 1}.trace")
                            os.replace(trace, kept)
                            print(f"kept {kept} ({r['deadline_misses']} misses)", file=sys.stderr)
                        if r is None:
                            print(f"| {set_name} | {policy} | {arch} | {k + 1} | failed: {err} |")
                            continue
                        row(set_name, policy, arch, k + 1, r)
                        for w in r.get("warnings", []):
                            print(f"warning ({arch} {policy}): {w}", file=sys.stderr)
                        o = r.get("overheads", {})
                        for n in NAMES:
                            if n in o:
                                summary.setdefault((set_name, policy, arch, n), []).append(o[n]["median_ns"])
                        summary.setdefault((set_name, policy, arch, "ipis"), []).append(o.get("ipi", {}).get("count", 0))
    with open("/proc/loadavg") as f:
        print(f"\nload at end: {f.read().strip()}")
    print("\nMedian over the pairs of each run's median (µs), and IPIs per run:\n")
    print("| set | policy | arch | IPIs | " + " | ".join(NAMES) + " |")
    print("|---" * (4 + len(NAMES)) + "|")
    for set_name, _ in SETS:
        for policy in ["gfifo", "gnpedf"]:
            for arch in ["concurrent", "global-lock"]:
                m = lambda n: summary.get((set_name, policy, arch, n))
                cells = [us(statistics.median(m(n))) if m(n) else "—" for n in NAMES]
                ipis = m("ipis")
                print(f"| {set_name} | {policy} | {arch} | {statistics.median(ipis) if ipis else '—'} | "
                      + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
