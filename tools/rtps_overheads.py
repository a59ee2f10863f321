#!/usr/bin/env python3
"""The RTPS scheduler overheads of Table I [RTPS §VI-A] measured on this machine with the
runtime's `semi-partitioned` architecture (docs/benchmarks.md, "RTPS overheads").

For each working-set mode (no MA: tasks only burn CPU; MA: every task sweeps a 1 MiB array
while it runs, the task files' `wss`) and each number of tasks n, `--sets` task sets are
generated (RandFixedSum utilizations summing to 0.6 per CPU, each at most 0.5, log-uniform
periods 10–100 ms, implicit deadlines), partitioned by worst-fit decreasing (`pfp-wfd`), and
then one task of each CPU — the one of largest utilization — is split by hand into a head of
half its WCET on its CPU and a tail on the other CPU (RTPS measures a scheduler that migrates
split tasks; FP-TS splits only when a CPU is nearly full, so its own assignment of such sets
would split nothing). Each set runs for `--duration` under `semi-partitioned` with `pfp-ts`,
and — alternating with it, set by set, in the same session — the same tasks unsplit under
`partitioned` with `pfp` (for a side-by-side comparison of the architectures). The traces are
fitted by `schedlab trace overheads`: one overhead file per mode (`[arch.semi-partitioned]`,
`[arch.partitioned]` over n) and the raw points (count, avg, max per n) as JSON.

    python3 tools/rtps_overheads.py --out target/rtps --tasks 4,16,32,64,128 --sets 2 --duration 10s

Every run is bounded by `timeout`; nothing here decides pass or fail.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def sh(args, timeout=None):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, args))}\n{r.stderr}")
    return r.stdout


def machine_state():
    rt = sh(["ps", "-eLo", "cls,rtprio,comm"]).splitlines()[1:]
    foreign = sorted({l.split(None, 2)[2] for l in rt
                      if l.split()[0] in ("FF", "RR", "DLN") and "sl-" not in l})
    return {"date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "load": os.getloadavg(),
            "kernel": os.uname().release, "foreign_rt_threads": foreign}


def make_set(exe, work, n, seed, wss):
    raw = work / f"gen-n{n}-s{seed}.json"
    sh([exe, "gen", "--tasks", str(n), "--utilization", "1.2",
        "--util-method", "randfixedsum:0..0.5", "--periods", "loguniform:10ms..100ms/1ms",
        "--seed", str(seed), "--out", str(raw)])
    part = json.loads(sh([exe, "analyze", str(raw), "--cpus", "2", "--test", "pfp-wfd",
                          "--format", "json"]))["results"][0]["partition"]
    if part is None:
        return None
    tasks = json.loads(raw.read_text())["tasks"]
    cpu_of = {t: c for c, members in enumerate(part) for t in members}
    # WCETs and periods in ns (`schedlab gen` writes "<number><unit>").
    def to_ns(v):
        if isinstance(v, int):
            return v
        for unit, k in (("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)):
            if v.endswith(unit) and v[:-len(unit)].replace(".", "").isdigit():
                return round(float(v[:-len(unit)]) * k)
        raise ValueError(v)
    util = [to_ns(t["wcet"]) / to_ns(t["period"]) for t in tasks]
    whole = [dict(t, cpu=cpu_of[i]) for i, t in enumerate(tasks)]
    split = [dict(t) for t in whole]
    for c in (0, 1):
        mine = [i for i in part[c]]
        if not mine:
            continue
        i = max(mine, key=lambda k: util[k])
        c_ns = to_ns(tasks[i]["wcet"])
        head = c_ns // 2
        t = dict(tasks[i])
        t["split"] = [{"cpu": c, "budget": head}, {"cpu": 1 - c, "budget": c_ns - head}]
        split[i] = t
    for ts in (whole, split):
        for t in ts:
            if wss:
                t["wss"] = wss
    paths = []
    for name, ts in (("whole", whole), ("split", split)):
        p = work / f"n{n}-s{seed}-{'ma' if wss else 'noma'}-{name}.json"
        p.write_text(json.dumps({"tasks": ts}, indent=1))
        paths.append(p)
    return paths


def run(exe, set_path, arch, policy, duration, trace):
    out = sh(["timeout", "120", exe, "run", str(set_path), "--cpus", "2", "--arch", arch,
              "--policy", policy, "--duration", duration, "--trace", str(trace),
              "--format", "json"], timeout=150)
    v = json.loads(out)
    return {k: v[k] for k in ("jobs", "deadline_misses", "migrations", "dropped_events",
                              "real_time", "warnings")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="target/rtps")
    ap.add_argument("--tasks", default="4,16,32,64,128")
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument("--duration", default="10s")
    ap.add_argument("--modes", default="noma,ma")
    ap.add_argument("--exe", default=str(ROOT / "target/release/schedlab"))
    a = ap.parse_args()
    out = Path(a.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    log = {"machine_before": machine_state(), "runs": []}
    for mode in a.modes.split(","):
        wss = "1MiB" if mode == "ma" else None
        traces = []
        for n in map(int, a.tasks.split(",")):
            made, seed = 0, 1
            while made < a.sets:
                paths = make_set(a.exe, work, n, seed * 1000 + n, wss)
                seed += 1
                if paths is None:
                    continue
                made += 1
                whole, split = paths
                for arch, policy, p in (("semi-partitioned", "pfp-ts", split),
                                        ("partitioned", "pfp", whole)):
                    trace = work / (p.stem + f"-{arch}.trace")
                    r = run(a.exe, p, arch, policy, a.duration, trace)
                    r.update(mode=mode, n=n, set=p.name, arch=arch)
                    print(json.dumps(r), flush=True)
                    log["runs"].append(r)
                    traces.append(trace)
        oh = out / f"overheads-{mode}.toml"
        fitted = sh([a.exe, "trace", "overheads", *map(str, traces), "-o", str(oh),
                     "--format", "json"])
        (out / f"points-{mode}.json").write_text(fitted)
    log["machine_after"] = machine_state()
    (out / "runs.json").write_text(json.dumps(log, indent=1))
    print(f"written: {out}/overheads-*.toml, points-*.json, runs.json")


if __name__ == "__main__":
    main()
