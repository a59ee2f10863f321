#!/usr/bin/env python3
"""Real runs of utility-accrual policies on this machine next to the simulator's prediction
for the same task sets [ChronOS §8.8-8.9, issue 13 "on this machine for real (m = 2)"].

For each generated overloaded 2-CPU set and each policy (under the architecture ChronOS
uses for it, Table 6.3), one real run (`timeout N schedlab run ... --format json`) and one
simulation of the same length (`schedlab simulate ... --format json`); prints a Markdown
table of DSR and AUR, real vs simulated. Policies alternate within a set, so the host's noise
hits them alike. Needs root (SCHED_FIFO) and 2 CPUs; every real run is bounded by `timeout`.

    python3 tools/chronos_real_vs_sim.py --bin target/release/schedlab --out target/real-vs-sim
"""

import argparse
import json
import pathlib
import subprocess

# (policy, architecture, extra run/simulate flags)
POLICIES = [
    ("gedf", "global-lock", ["--abort-late"]),
    ("ghvdf", "global-lock", []),
    ("gmua", "global-lock", []),
    ("ggua", "global-lock", []),
    ("gnphvdf", "concurrent", []),
    ("plbesa", "partitioned", []),
    ("pdasa", "partitioned", []),
]


def sh(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/schedlab")
    ap.add_argument("--out", default="target/real-vs-sim")
    ap.add_argument("--loads", default="2.6,3.0,3.4", help="total utilizations on 2 CPUs")
    ap.add_argument("--duration", default="3s")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for k, load in enumerate(args.loads.split(",")):
        ts = out / f"set-{k}.json"
        sh([args.bin, "gen", "--cpus", "2", "--utilization", load, "--util-dist", "uni-medium",
            "--periods", "uniform:10ms..100ms/1ms", "--utility", "chronos", "--seed", str(k + 1),
            "--out", str(ts)])
        for policy, arch, extra in POLICIES:
            real = json.loads(sh(["timeout", "30", args.bin, "run", str(ts), "--cpus", "2",
                                  "--policy", policy, "--arch", arch, "--duration", args.duration,
                                  "--format", "json", *extra]))
            sim = json.loads(sh([args.bin, "simulate", str(ts), "--cpus", "2", "--policy", policy,
                                 "--duration", args.duration, "--format", "json", *extra]))
            rows.append((load, policy, arch, real, sim))
            print(f"{load} {policy} {arch}: real AUR {real.get('aur')} sim AUR {sim.get('aur')}",
                  flush=True)
    print()
    print("| U (2 CPUs) | policy | architecture | jobs | DSR real | DSR sim | AUR real | AUR sim |")
    print("|---|---|---|---|---|---|---|---|")
    for load, policy, arch, real, sim in rows:
        def f(x):
            return "—" if x is None else f"{x:.3f}"
        print(f"| {load} | `{policy}` | `{arch}` | {real.get('jobs')} | {f(real.get('dsr'))} | "
              f"{f(sim.get('dsr'))} | {f(real.get('aur'))} | {f(sim.get('aur'))} |")


if __name__ == "__main__":
    main()
