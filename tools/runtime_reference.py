"""Runs the reference task set of the runtime issue under every architecture, one session.

The set: 6 tasks, U = 0.6 (0.6 per client CPU of message-passing on a 2-CPU machine), periods
log-uniform [10, 50] ms, seed 7 — the set of docs/runtime.md "Measured". Each architecture
runs `--duration` (20 s by default) one after the other, and the script prints one Markdown
table with the figures the issue judges: deadline misses, `release_latency` median / p99,
`dsp` mean, `release_to_run` median / p99 (µs), plus the other overheads' medians and
`dispatch_latency` (release_to_run without queueing, docs/runtime.md).

Two comparisons with SCHED_DEADLINE: on both CPUs (the kernel's global EDF has two job CPUs
where message-passing has one client), and on the client CPU only (`--dl-cpuset`: CPU 1 in a
root domain of its own for the run; needs root and a cgroup-v1 cpuset hierarchy).

    cargo build --release -p schedlab
    python3 tools/runtime_reference.py --duration 20s
    python3 tools/runtime_reference.py --duration 20s --pairs 5   # the p99 comparison, repeated

Check first that no other program runs real-time threads (`ps -eLo cls,comm | grep FF`):
they compete with the run and its numbers mean nothing then.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))

RUNS = [
    ("partitioned (pedf)", ["--arch", "partitioned", "--policy", "pedf"]),
    ("global-lock ticket (gedf)", ["--arch", "global-lock", "--policy", "gedf", "--lock", "ticket"]),
    ("global-lock DI (gedf)", ["--arch", "global-lock", "--policy", "gedf", "--dedicated-irq-cpu"]),
    ("message-passing (gedf)", ["--arch", "message-passing", "--policy", "gedf"]),
    ("message-passing (gedf, DSP sleeps)", ["--arch", "message-passing", "--policy", "gedf", "--no-dsp-poll"]),
    ("message-passing (gedf, dispatcher completes)",
     ["--arch", "message-passing", "--policy", "gedf", "--no-inline-completion"]),
    # SCHED_DEADLINE's push/pull in user space, traced: next to linux-deadline (the kernel's own).
    ("push-pull (gedf)", ["--arch", "push-pull", "--policy", "gedf"]),
    ("linux-deadline", ["--arch", "linux-deadline"]),
    # The same job CPUs as message-passing: the client CPU only, in a root domain of its own.
    ("linux-deadline (client CPU)", ["--arch", "linux-deadline", "--cpu-list", "1", "--dl-cpuset"]),
    ("linux-fifo (global, DM)", ["--arch", "linux-fifo"]),
]


def us(ns):
    return "—" if ns is None else f"{ns / 1000:,.1f}"


def run_row(ts, duration, opts):
    """One run of the reference set; (summary dict, None) or (None, error text)."""
    cpus = [] if "--cpu-list" in opts else ["--cpus", "2"]
    out = subprocess.run([BIN, "run", ts, "--duration", duration, "--format", "json"] + cpus + opts,
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines()[-1] if out.stderr else str(out.returncode))
    return json.loads(out.stdout), None


def table(ts, args):
    print("| arch | jobs | misses | release_latency med / p99 | release | ipi | schedule | context_switch "
          "| request | dsp mean | release_to_run med / p99 | dispatch_latency med / p99 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, opts in RUNS:
        if args.only and not any(name.startswith(p) for p in args.only.split(",")):
            continue
        r, err = run_row(ts, args.duration, opts)
        if r is None:
            print(f"| {name} | failed: {err} |")
            continue
        o = r.get("overheads", {})
        med = lambda k: us(o[k]["median_ns"]) if k in o else "—"
        p99 = lambda k: us(o[k]["p99_ns"]) if k in o else "—"
        mean = lambda k: us(o[k]["mean_ns"]) if k in o else "—"
        print(f"| {name} | {r['jobs']} | {r['deadline_misses']} | {med('release_latency')} / {p99('release_latency')} "
              f"| {med('release')} | {med('ipi')} | {med('schedule')} | {med('context_switch')} | {med('request')} "
              f"| {mean('dsp')} | {med('release_to_run')} / {p99('release_to_run')} "
              f"| {med('dispatch_latency')} / {p99('dispatch_latency')} |", flush=True)
        counts = [f"{k} {r[k]}" for k in ("pushes", "push_retries", "push_failures", "pulls", "pull_failures") if k in r]
        if counts:
            print(f"counters ({name}): {', '.join(counts)}", file=sys.stderr)
        for w in r.get("warnings", []):
            print(f"warning ({name}): {w}", file=sys.stderr)


def pairs(ts, args):
    """Alternates message-passing and linux-deadline on the client CPU `--pairs` times and
    prints each pair's release_to_run and misses, then the spread of the p99 differences."""
    rows = dict(RUNS)
    a, b = args.mp_row, "linux-deadline (client CPU)"
    print(f"| pair | {a}: misses, release_to_run med / p99 | {b}: misses, med / p99 | p99 difference |")
    print("|---|---|---|---|")
    diffs = []
    for i in range(args.pairs):
        (ra, ea), (rb, eb) = run_row(ts, args.duration, rows[a]), run_row(ts, args.duration, rows[b])
        if ra is None or rb is None:
            print(f"| {i + 1} | {ea or ''} | {eb or ''} | — |", flush=True)
            continue
        pa, pb = ra["overheads"]["release_to_run"], rb["overheads"]["release_to_run"]
        d = (pa["p99_ns"] - pb["p99_ns"]) / 1000
        diffs.append(d)
        print(f"| {i + 1} | {ra['deadline_misses']}, {us(pa['median_ns'])} / {us(pa['p99_ns'])} "
              f"| {rb['deadline_misses']}, {us(pb['median_ns'])} / {us(pb['p99_ns'])} | {d:+,.1f} |", flush=True)
    if diffs:
        better = sum(1 for d in diffs if d <= 0)
        print(f"\nmessage-passing's p99 no worse in {better} of {len(diffs)} pairs; "
              f"differences {min(diffs):+,.1f} … {max(diffs):+,.1f} µs")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="20s")
    ap.add_argument("--only", help="comma-separated row names (prefix match)")
    ap.add_argument("--pairs", type=int, default=0,
                    help="instead of the table: alternate message-passing and linux-deadline on the "
                         "client CPU this many times and compare their release_to_run")
    ap.add_argument("--mp-row", default="message-passing (gedf)",
                    help="with --pairs: the message-passing row to compare (a row name of the table)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        ts = os.path.join(d, "ref.json")
        subprocess.run([BIN, "gen", "--tasks", "6", "--utilization", "0.6", "--periods",
                        "loguniform:10ms..50ms/1ms", "--seed", "7", "--out", ts], check=True, capture_output=True)
        if args.pairs > 0:
            pairs(ts, args)
        else:
            table(ts, args)


if __name__ == "__main__":
    main()
