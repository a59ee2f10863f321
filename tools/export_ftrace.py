"""Where do an exported set's deadline misses come from? Runs a `schedlab export --to shell`
script under ftrace's `sched_switch`, in pairs alternating without and with SCHED_OTHER
spinners (one per CPU and then some), and prints one Markdown row per run: jobs and misses
per task (the `schedlab periodic-load` bodies' own counts), and two counts from the trace:

- **FIFO → OTHER**: switches away from a runnable real-time thread (previous task with a
  real-time priority and state R) to a SCHED_OTHER task — the fair server (or RT throttling)
  running ahead of a real-time thread;
- **stretches**: a task's thread staying on its CPU longer than its WCET + 1 ms with no
  switch at all — its vCPU (or CPU) did not run: the host, or firmware, not Linux's scheduler.

The WCETs are read from the script's header (`load: wcet …`). docs/export.md, "Tested and
measured", has the numbers of 2026-11-28.

    cargo build --release -p schedlab
    target/release/schedlab export set.toml --cpus 2 --policy pfp --to shell -o pfp.sh
    python3 tools/export_ftrace.py pfp.sh --pairs 8 --duration 2s

Needs root and tracefs (/sys/kernel/tracing). Every run is bounded (`timeout`); check first
that no other program runs real-time threads (`ps -eLo cls,comm | grep -E 'FF|DLN'`).
"""

import argparse
import os
import re
import subprocess
import sys
import time

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))
TRACING = "/sys/kernel/tracing"
SWITCH = re.compile(r"\[(\d+)\].*?\s([\d.]+): sched_switch: prev_comm=(.+?) prev_pid=\d+ prev_prio=(\d+) "
                    r"prev_state=(\S+) ==> next_comm=(.+?) next_pid=\d+ next_prio=(\d+)")
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def wcets(script):
    """Task name → WCET (s), from the header lines `#   NAME: … load: wcet 6ms, …`."""
    out = {}
    for line in open(script):
        m = re.match(r"#\s+(\S+): .*load: wcet ([\d.]+)(ns|us|ms|s),", line)
        if m:
            out[m.group(1)] = float(m.group(2)) * UNITS[m.group(3)]
    if not out:
        sys.exit(f"{script}: no `load: wcet` lines in its header: not a schedlab shell export?")
    return out


def tracefs(name, value):
    with open(os.path.join(TRACING, name), "w") as f:
        f.write(value)


def traced_run(script, duration, load, bound):
    """One run: (the script's output, the trace text)."""
    tracefs("tracing_on", "0")
    tracefs("trace", "")
    tracefs("buffer_size_kb", "16384")
    tracefs("events/sched/sched_switch/enable", "1")
    spinners = []
    if load:
        for _ in range(2 * os.cpu_count()):
            spinners.append(subprocess.Popen(["timeout", str(bound), "sh", "-c", "while :; do :; done"]))
        time.sleep(0.5)
    try:
        tracefs("tracing_on", "1")
        env = dict(os.environ, SCHEDLAB=BIN)
        run = subprocess.run(["timeout", str(bound), "sh", script, "--duration", duration],
                             capture_output=True, text=True, env=env)
        tracefs("tracing_on", "0")
    finally:
        for p in spinners:
            p.terminate()  # timeout passes SIGTERM on to its spinner (SIGKILL would orphan it)
            p.wait()
        tracefs("events/sched/sched_switch/enable", "0")
    with open(os.path.join(TRACING, "trace")) as f:
        return run.stdout + run.stderr, f.read()


def counts(trace, wcet):
    """(FIFO → OTHER switches, [(task, stretch ms)]) of a trace (module doc)."""
    fifo_to_other, stretches, since = 0, [], {}
    for m in map(SWITCH.search, trace.splitlines()):
        if not m:
            continue
        cpu, t, prev, prev_prio, state, nxt, next_prio = m.groups()
        t = float(t)
        if int(prev_prio) < 100 and state.startswith("R") and int(next_prio) >= 100:
            fifo_to_other += 1
        if prev in wcet and (cpu, prev) in since:
            d = t - since.pop((cpu, prev))
            if d > wcet[prev] + 1e-3:
                stretches.append((prev, round(d * 1e3, 2)))
        if nxt in wcet:
            since[(cpu, nxt)] = t
    return fifo_to_other, stretches


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("script", help="a `schedlab export --to shell` script")
    ap.add_argument("--pairs", type=int, default=4, help="pairs of runs (no load, load)")
    ap.add_argument("--duration", default="2s", help="each run's length (the script's --duration)")
    args = ap.parse_args()
    if os.geteuid() != 0 or not os.path.isdir(os.path.join(TRACING, "events")):
        sys.exit(f"needs root and tracefs at {TRACING} (mount -t tracefs none {TRACING})")
    wcet = wcets(args.script)
    m = re.fullmatch(r"(\d+)(ms|s|m|h)", args.duration)
    if not m:
        sys.exit(f"--duration {args.duration}: whole ms, s, m or h (500ms, 2s)")
    bound = 30 + int(int(m.group(1)) * {"ms": 1e-3, "s": 1, "m": 60, "h": 3600}[m.group(2)])
    print(f"load average: {open('/proc/loadavg').read().split()[0]}")
    print("| run | load | jobs / misses per task | FIFO → OTHER | stretches > WCET + 1 ms (ms) |")
    print("|---|---|---|---:|---|")
    for k in range(1, args.pairs + 1):
        for load in (False, True):
            out, trace = traced_run(args.script, args.duration, load, bound)
            tasks = re.findall(r"^(\S+): (\d+) jobs, (\d+) deadline misses", out, re.M)
            per_task = ", ".join(f"{n} {j}/{m}" for n, j, m in sorted(tasks)) or out.strip()[-200:]
            fifo_to_other, stretches = counts(trace, wcet)
            shown = ", ".join(f"{n} {d}" for n, d in stretches) or "none"
            print(f"| {k} | {'spinners' if load else 'none'} | {per_task} | {fifo_to_other} | {shown} |",
                  flush=True)


if __name__ == "__main__":
    main()
