#!/usr/bin/env python3
"""Per-hook scheduler overheads of `--arch reservations` against the number of tasks, for a flat
set of groups and for a hierarchy of groups and subgroups — the measurement of [HCBS §5,
Figs. 4–5] in our runtime.

The hooks are the runtime's operations named after the kernel's RT scheduling class methods
(docs/overheads.md, "Reservations: the hooks of [HCBS §5]"): `enqueue` (a release handed to the
policy), `dequeue` (a completion), `pick_next` (a CPU's next job pinned and its budget timer
armed), `put_prev` (the job leaving a CPU stopped and charged), `budget_update` (a budget or
replenishment timer), `check_preempt` (the new links compared with what runs, after a release).
Each sample is one `op-begin` … `op-end` pair of the trace; the run's `overheads` gives count,
mean and max per name.

Workloads, on `--cpus` CPUs (default 2) for `--duration` (default 2 s), total utilisation
`--util` (default 0.8) split evenly over n tasks:
- `flat`: 4 top-level groups, each Q/P = 0.24 on every CPU (periods 10, 20, 40, 50 ms), task
  i in group i mod 4 with the group's period;
- `hierarchy`: 2 top-level groups (0.45: 20 ms and 40 ms) with 2 subgroups each (0.2 each:
  10/20 ms under the first, 20/40 ms under the second), task i in subgroup i mod 4 with its
  period — different periods at every level, as in [HCBS Fig. 5].
The two shapes alternate for each n (flat, hierarchy, then the next n), so host noise hits both.

    .venv/bin/maturin develop --release      # the Python package
    tools/hcbs_hooks.py                      # n = 4, 8, 16, 32, 64; table
    tools/hcbs_hooks.py --tasks 8 32 --duration 1s --json > hooks.jsonl

Needs SCHED_FIFO (else `--allow-non-rt`, and the numbers are not real-time). Note the load
(`uptime`) with any number kept.
"""

import argparse
import json
import os
import sys

import schedlab

HOOKS = ["enqueue", "dequeue", "pick_next", "put_prev", "budget_update", "check_preempt"]
MS = 1_000_000


def shape(kind):
    """Groups (task-file dicts, ns) and, per task slot k = i mod 4, (group, period ns)."""
    if kind == "flat":
        periods = [10, 20, 40, 50]
        groups = [{"name": f"g{k}", "budget": int(0.24 * p * MS), "period": p * MS}
                  for k, p in enumerate(periods)]
        slots = [(f"g{k}", p * MS) for k, p in enumerate(periods)]
        return groups, slots
    groups = [{"name": "r0", "budget": 9 * MS, "period": 20 * MS},
              {"name": "r1", "budget": 18 * MS, "period": 40 * MS}]
    slots = []
    for parent, periods in [("r0", [10, 20]), ("r1", [20, 40])]:
        for j, p in enumerate(periods):
            name = f"{parent}s{j}"
            groups.append({"name": name, "budget": int(0.2 * p * MS), "period": p * MS,
                           "parent": parent})
            slots.append((name, p * MS))
    return groups, slots


def taskset(kind, n, util):
    groups, slots = shape(kind)
    tasks = []
    for i in range(n):
        group, period = slots[i % len(slots)]
        wcet = max(1000, int(util / n * period))
        tasks.append(schedlab.Task(wcet=wcet, period=period, name=f"t{i}", group=group))
    return schedlab.TaskSet(tasks, groups=groups)


def measure(kind, n, args):
    r = schedlab.run(taskset(kind, n, args.util), cpus=args.cpus, arch="reservations",
                     duration=args.duration, allow_non_rt=args.allow_non_rt)
    o = r["overheads"]
    row = {"shape": kind, "n": n, "real_time": r["real_time"], "jobs": r["jobs"],
           "misses": r["deadline_misses"], "dropped_events": r["dropped_events"],
           "load1": os.getloadavg()[0]}
    for h in HOOKS:
        s = o.get(h)
        row[h] = None if s is None else {"count": s["count"], "mean_ns": s["mean_ns"],
                                         "max_ns": s["max_ns"]}
    return row


def table(rows):
    print(f"{'hook':14} {'shape':10} " + " ".join(f"{'n=' + str(r['n']):>16}" for r in rows
                                                   if r["shape"] == "flat"))
    for h in HOOKS:
        for kind in ["flat", "hierarchy"]:
            cells = []
            for r in (r for r in rows if r["shape"] == kind):
                s = r[h]
                cells.append(f"{'—':>16}" if s is None
                             else f"{s['mean_ns'] / 1000:7.2f}/{s['max_ns'] / 1000:7.1f}")
            print(f"{h:14} {kind:10} " + " ".join(cells))
    print("(avg/max µs per hook call)")
    for r in rows:
        print(f"  {r['shape']:10} n={r['n']:3}: jobs {r['jobs']}, misses {r['misses']}, "
              f"real-time {r['real_time']}, dropped {r['dropped_events']}, load {r['load1']:.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--duration", default="2s")
    p.add_argument("--util", type=float, default=0.8)
    p.add_argument("--allow-non-rt", action="store_true")
    p.add_argument("--json", action="store_true", help="one JSON object per run")
    args = p.parse_args()
    rows = []
    for n in args.tasks:
        for kind in ["flat", "hierarchy"]:
            row = measure(kind, n, args)
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
    if not args.json:
        table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
