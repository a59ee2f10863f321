"""Compares `--arch work-stealing` with `--arch global-lock --policy rtws` on the same
parallel task sets, alternating runs in pairs within one session (docs/runtime.md,
"work-stealing").

Sets: [RTWS §VI, Table I] sets of `schedlab gen --rtws LO..HI --cpus 2` with every time
divided by `--scale` (the paper's periods of 700–800 ms become 7–8 ms at the default 100, so
a few seconds give hundreds of jobs; the structures and utilizations are unchanged). For each
set the script runs `--pairs` pairs (the order alternates between pairs, so drift in the
machine's load favours neither) and prints one Markdown row per run: jobs, deadline misses,
migrations, steals, context switches, and the medians / p99 (µs) of the scheduling overheads
of its trace (docs/traces.md: `schedule` = the dispatcher's scheduling step, `lock_wait` = the
global lock's wait, `ipi`, `context_switch`, `release_to_run`), plus `steal step`: the
scheduling steps (`sched-begin` … `sched-end`) in which the CPU stole a thread, read from the
trace file. Then the median over the pairs of each architecture.

    cargo build --release -p schedlab
    python3 tools/ws_vs_global.py --duration 3s --pairs 3

Check first that no other program runs real-time threads (`ps -eLo cls,comm | grep FF`) and
report the load (`/proc/loadavg`, printed): compilations on the same CPUs disturb the numbers.
"""

import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import tomllib

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))
NAMES = ["schedule", "lock_wait", "ipi", "context_switch", "release_to_run"]
UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
SCHED_BEGIN, SCHED_END, STEAL = 16, 17, 35


def ns_of(text):
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"([0-9.]+)\s*(ns|us|µs|ms|s)", text.strip())
    if not m:
        raise ValueError(f"not a time: {text}")
    return round(float(m.group(1)) * UNITS[m.group(2)])


def scaled_set(lo_hi, seed, scale, path):
    """A Table-I set of `gen --rtws`, every time divided by `scale`, written as JSON."""
    toml = path + ".toml"
    subprocess.run([BIN, "gen", "--rtws", lo_hi, "--cpus", "2", "--seed", str(seed), "--out", toml],
                   check=True, capture_output=True)
    with open(toml, "rb") as f:
        data = tomllib.load(f)
    tasks = []
    for t in data["tasks"]:
        regions = [[max(1, ns_of(c) // scale) for c in r] for r in t["parallel"]]
        tasks.append({"name": t["name"], "period": ns_of(t["period"]) // scale, "parallel": regions})
    with open(path, "w") as f:
        json.dump({"platform": {"cpus": 2}, "tasks": tasks}, f)
    return len(tasks), sum(sum(map(sum, t["parallel"])) / t["period"] for t in tasks)


def trace_events(path):
    """(time, kind, cpu) of a trace file's records (docs/traces.md: a 32-byte header, the
    metadata JSON padded to 8 bytes, 40-byte records)."""
    b = open(path, "rb").read()
    meta_len = struct.unpack_from("<I", b, 28)[0] if len(b) >= 32 else 0
    start = 32 + meta_len
    start += (-start) % 8
    out = []
    for o in range(start, len(b) - 39, 40):
        t, _seq, _arg, _task, cpu, kind = struct.unpack_from("<QQQIIH", b, o)
        out.append((t, kind, cpu))
    return out


def steal_steps(path):
    """Durations (ns) of the scheduling steps that contained a steal, per CPU."""
    open_at, stole, out = {}, set(), []
    for t, kind, cpu in trace_events(path):
        if kind == SCHED_BEGIN:
            open_at[cpu] = t
            stole.discard(cpu)
        elif kind == STEAL:
            stole.add(cpu)
        elif kind == SCHED_END and cpu in open_at:
            if cpu in stole:
                out.append(t - open_at[cpu])
            del open_at[cpu]
    return out


def run(ts, arch, duration, timeout, trace):
    cmd = ["timeout", str(timeout), BIN, "run", ts, "--cpus", "2", "--arch", arch, "--policy", "rtws",
           "--duration", duration, "--format", "json", "--trace", trace]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or [str(out.returncode)])[-1]
    return json.loads(out.stdout), None


def us(ns):
    return "—" if ns is None else f"{ns / 1000:,.1f}"


def cells(r, steps):
    o = r.get("overheads", {})
    c = [str(r["jobs"]), str(r["deadline_misses"]), str(r["migrations"]), str(r["steals"]),
         str(r["context_switches"])]
    for n in NAMES:
        s = o.get(n)
        c.append("—" if s is None else f"{us(s['median_ns'])} / {us(s['p99_ns'])}")
    c.append(f"{us(statistics.median(steps))} (n={len(steps)})" if steps else "—")
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", default="3s")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--windows", default="0.58..0.60,0.73..0.75")
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    secs = float(a.duration.rstrip("s")) if a.duration.endswith("s") and not a.duration.endswith("ms") else 10
    timeout = int(secs) + 30
    print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
    archs = ["work-stealing", "global-lock"]
    header = ("| set | arch | pair | jobs | misses | migrations | steals | context switches | "
              + " | ".join(NAMES) + " | steal step |")
    with tempfile.TemporaryDirectory() as d:
        for window in a.windows.split(","):
            ts = os.path.join(d, f"set-{window}.json")
            n, u = scaled_set(window, a.seed, a.scale, ts)
            name = f"Table I {window}·m, {n} tasks, U {u:.2f}"
            print(f"\n{name}\n\n{header}\n|" + "---|" * (header.count("|") - 1), flush=True)
            per = {x: [] for x in archs}
            for k in range(a.pairs):
                order = archs if k % 2 == 0 else archs[::-1]
                for arch in order:
                    trace = os.path.join(d, "run.trace")
                    r, err = run(ts, arch, a.duration, timeout, trace)
                    if r is None:
                        print(f"| {name} | {arch} | {k} | error: {err} |", flush=True)
                        continue
                    steps = steal_steps(trace)
                    per[arch].append(cells(r, steps))
                    print(f"| {name} | {arch} | {k} | " + " | ".join(per[arch][-1]) + " |", flush=True)
            for arch in archs:
                rows = per[arch]
                if not rows:
                    continue
                med = []
                for col in zip(*rows):
                    nums = []
                    for v in col:
                        m = re.match(r"[0-9,.]+", v)
                        nums.append(float(m.group(0).replace(",", "")) if m else None)
                    nums = [x for x in nums if x is not None]
                    med.append(f"{statistics.median(nums):,.1f}" if nums else "—")
                print(f"| {name} | {arch} | median | " + " | ".join(med) + " |", flush=True)
    print(f"\nload after: {open('/proc/loadavg').read().strip()}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
