"""Job-by-job comparison of `schedlab simulate` with SimSo 0.8.5 (global EDF, global RM, P-EDF; zero overheads).

SimSo needs Python <= 3.11 and is not a dependency of schedlab; run this from its own venv:

    python3 -m venv /tmp/simso-venv && /tmp/simso-venv/bin/pip install simso
    cargo build --release -p schedlab
    /tmp/simso-venv/bin/python tools/compare_simso.py --sets 40 --distinct-primes

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--horizon-ms", type=int, default=300)
    ap.add_argument("--distinct-primes", action="store_true")
    args = ap.parse_args()
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
