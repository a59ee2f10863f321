"""Job-by-job comparison of `schedlab simulate` with SimSo 0.8.5 (global EDF, global RM, P-EDF; zero overheads).

SimSo needs Python <= 3.11 and is not a dependency of schedlab; run this from its own venv:

    python3 -m venv /tmp/simso-venv && /tmp/simso-venv/bin/pip install simso
    cargo build --release -p schedlab
    /tmp/simso-venv/bin/python tools/compare_simso.py --sets 40 --distinct-primes
    /tmp/simso-venv/bin/python tools/compare_simso.py --speed --cpus 4,16,64

`--speed` times SimSo (G-EDF and P-EDF, `time.perf_counter` around `run_model`) on exactly the
task sets of `schedlab bench sim` (n = 5m, U = 0.7m, UUniFast-Discard, periods log-uniform
[10, 1000] ms in whole ms, seed 1) and prints simulated jobs per second next to schedlab's.

Compares completion times of every job (SimSo's `start_date` is when a job becomes its task's
head job, not its first execution, so start times are not comparable). Known, explained
differences (docs/simulation.md): SimSo counts jobs released exactly at the horizon; among
running jobs with equal deadlines SimSo preempts by CPU order, schedlab by task index
(DESIGN.md); SimSo's RM makes one placement per rescheduling call, so simultaneous events can
leave a lower-priority job running while a higher-priority one waits. `--distinct-primes`
draws distinct prime periods, which avoids deadline ties.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from simso.configuration import Configuration
from simso.core import Model

BIN = os.environ.get("SCHEDLAB", os.path.join(os.path.dirname(__file__), "..", "target", "release", "schedlab"))


def simso_completions(tasks, m, horizon_ms, scheduler, cpus=None):
    c = Configuration()
    c.duration = horizon_ms * c.cycles_per_ms
    for i, (wcet, period) in enumerate(tasks):
        data = {"cpu": cpus[i] + 1} if cpus else None
        c.add_task(name=f"T{i}", identifier=i + 1, period=period, activation_date=0, wcet=wcet, deadline=period,
                   data=data)
    for k in range(m):
        c.add_processor(name=f"CPU{k}", identifier=k + 1)
    c.scheduler_info.clas = scheduler
    c.check_all()
    try:
        model = Model(c)
    except AssertionError:
        return None  # SimSo's packer failed
    stdout = sys.stdout
    sys.stdout = open(os.devnull, "w")  # SimSo's EDF prints every decision
    try:
        model.run_model()
    except AssertionError:
        return None  # SimSo's packer failed (no first-fit-decreasing placement)
    finally:
        sys.stdout.close()
        sys.stdout = stdout
    out = {}
    for t in model.results.tasks.values():
        for seq, j in enumerate(t.jobs):
            if j.activation_date < c.duration:
                out[(t.task.identifier - 1, seq)] = None if j.end_date is None else j.end_date / c.cycles_per_ms
    return out


def schedlab_completions(tasks, m, horizon_ms, policy, cpus=None):
    with tempfile.TemporaryDirectory() as d:
        ts, jobs = os.path.join(d, "ts.json"), os.path.join(d, "jobs.csv")
        with open(ts, "w") as f:
            entries = [{"wcet": f"{w}ms", "period": f"{p}ms"} for w, p in tasks]
            for i, e in enumerate(entries):
                if cpus:
                    e["cpu"] = cpus[i]
            json.dump({"tasks": entries}, f)
        subprocess.run([BIN, "simulate", ts, "--cpus", str(m), "--policy", policy, "--duration",
                        f"{horizon_ms}ms", "--jobs-csv", jobs, "--format", "json"], check=True, capture_output=True)
        out = {}
        for line in open(jobs).read().splitlines()[1:]:
            f = line.split(",")
            out[(int(f[0]), int(f[1]))] = None if f[5] == "" else int(f[5]) / 1e6
        return out


def bench_set(m, seed):
    """The task set `schedlab bench sim` uses for m CPUs, as (wcet_ms, period_ms) pairs."""
    with tempfile.TemporaryDirectory() as d:
        ts = os.path.join(d, "ts.json")
        subprocess.run([BIN, "gen", "--tasks", str(5 * m), "--utilization", str(0.7 * m), "--util-method",
                        "uunifast-discard", "--periods", "loguniform:10ms..1000ms/1ms", "--seed", str(seed),
                        "--out", ts], check=True, capture_output=True)
        tasks = json.load(open(ts))["tasks"]
    return [(parse_ns(t["wcet"]) / 1e6, parse_ns(t["period"]) / 1e6) for t in tasks]


def parse_ns(text):
    units = [("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)]
    for suffix, scale in units:
        if text.endswith(suffix) and (suffix != "s" or not text.endswith(("ns", "us", "ms"))):
            return round(float(text[: -len(suffix)]) * scale)
    return int(text)


def simso_speed(tasks, m, horizon_ms, scheduler):
    """Jobs released before the horizon and wall seconds of SimSo's run."""
    import time
    c = Configuration()
    c.duration = horizon_ms * c.cycles_per_ms
    for i, (wcet, period) in enumerate(tasks):
        c.add_task(name=f"T{i}", identifier=i + 1, period=period, activation_date=0, wcet=wcet, deadline=period)
    for k in range(m):
        c.add_processor(name=f"CPU{k}", identifier=k + 1)
    c.scheduler_info.clas = scheduler
    c.check_all()
    model = Model(c)
    stdout = sys.stdout
    sys.stdout = open(os.devnull, "w")
    try:
        started = time.perf_counter()
        model.run_model()
        wall = time.perf_counter() - started
    finally:
        sys.stdout.close()
        sys.stdout = stdout
    jobs = sum(1 for t in model.results.tasks.values() for j in t.jobs if j.activation_date < c.duration)
    return jobs, wall


def speed(args):
    for m in [int(x) for x in args.cpus.split(",")]:
        tasks = bench_set(m, args.seed)
        # SimSo is slow: scale the horizon down with m to keep each run near a minute.
        horizon_ms = max(1000, args.speed_horizon_ms * 4 // m)
        for scheduler, policy in [("simso.schedulers.EDF", "gedf"), ("simso.schedulers.P_EDF", "pedf")]:
            jobs, wall = simso_speed(tasks, m, horizon_ms, scheduler)
            out = subprocess.run([BIN, "bench", "sim", "--cpus", str(m), "--policies", policy, "--duration",
                                  "2000s", "--seed", str(args.seed), "--repeat", "3", "--format", "json"],
                                 check=True, capture_output=True, text=True).stdout
            ours = json.loads(out.splitlines()[0])["jobs_per_second"]
            print(f"m={m:3} n={5 * m:4} {policy}: SimSo {jobs} jobs in {wall:.2f} s = {jobs / wall:,.0f} jobs/s; "
                  f"schedlab {ours:,.0f} jobs/s; ratio {ours / (jobs / wall):,.0f}x", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", action="store_true", help="time SimSo on the bench sim task sets")
    ap.add_argument("--cpus", default="4,16,64", help="CPU counts for --speed")
    ap.add_argument("--speed-horizon-ms", type=int, default=40_000, help="SimSo horizon at m = 4 (--speed)")
    ap.add_argument("--sets", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--horizon-ms", type=int, default=300)
    ap.add_argument("--distinct-primes", action="store_true")
    args = ap.parse_args()
    if args.speed:
        return speed(args)
    rng = random.Random(args.seed)
    periods = [7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47] if args.distinct_primes else [5, 7, 10, 12, 15, 20, 25, 30, 40, 50]
    pairs = [("simso.schedulers.EDF", "gedf"), ("simso.schedulers.RM", "gfp"), ("simso.schedulers.P_EDF", "pedf")]
    compared = {p: 0 for _, p in pairs}
    differing = {p: 0 for _, p in pairs}
    for _ in range(args.sets):
        m = rng.choice([2, 3, 4])
        n = rng.randint(m + 1, 3 * m)
        ps = rng.sample(periods, min(n, len(periods))) if args.distinct_primes else [rng.choice(periods) for _ in range(n)]
        tasks = [(rng.randint(1, max(1, p * 6 // 10)), p) for p in ps]
        if sum(w / p for w, p in tasks) > m:
            continue
        for scheduler, policy in pairs:
            # P-EDF: SimSo's P_EDF packs by first fit decreasing on utilization (capacity 1),
            # the same placement as schedlab's default `--partition ffd` for implicit deadlines.
            a = simso_completions(tasks, m, args.horizon_ms, scheduler)
            if a is None:
                continue
            try:
                b = schedlab_completions(tasks, m, args.horizon_ms, policy)
            except subprocess.CalledProcessError:
                continue  # no FFD placement exists (SimSo's packer fails too)
            diffs = [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            compared[policy] += 1
            if diffs:
                differing[policy] += 1
                print(f"{policy} m={m} {tasks}: {len(diffs)} jobs differ, e.g. {diffs[:3]}")
    for _, p in pairs:
        print(f"{p}: {compared[p]} sets compared, {differing[p]} with differing completion times")


if __name__ == "__main__":
    main()
