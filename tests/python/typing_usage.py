"""Uses the whole public API with the types an editor infers from the stubs; tests/python/
test_stubs.py type-checks it with ``mypy --strict`` (it is never executed)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import schedlab
from schedlab import Result, Task, TaskSet
from schedlab.experiment import ResumeWarning


def usage(tmp: Path) -> None:
    version: str = schedlab.__version__
    ts: TaskSet = schedlab.TaskSet([{"name": "a", "wcet": "2ms", "period": "10ms"},
                                    {"wcet": 1_000_000, "period": "5ms"}], cpus=4)
    task: Task = ts[0]
    some: List[Task] = ts[0:1]
    wcet: int = task.wcet
    name: Optional[str] = task.name
    u: float = task.utilization + ts.utilization
    again: Task = task.replace(wcet="1ms")
    as_dict: Dict[str, Any] = task.to_dict()
    ua: Task = Task(wcet="1ms", period="10ms", tuf={"kind": "step", "value": 3}, abortable=False,
                    critical_sections=[{"resource": "bus", "start": 0, "length": "1ms"}])
    tuf: Optional[Dict[str, Any]] = ua.tuf
    abortable: bool = ua.abortable
    abort_cost: int = ua.abort_cost
    sections: List[Dict[str, Any]] = ua.critical_sections
    resources: List[str] = TaskSet([ua]).resources
    fork_join: Task = Task(period="10ms", parallel=[["2ms"], [1_000_000, "1ms"]])
    regions: Optional[List[List[int]]] = fork_join.parallel
    work: int = fork_join.work + fork_join.critical_path
    rtws_sets: List[TaskSet] = schedlab.generate(rtws="0.38..0.40", cpus=2, count=2)
    fj_sets: List[TaskSet] = schedlab.generate(util_window="1.0..1.1", util_dist="uni-medium",
                                               parallel="forkjoin:regions=1..3,threads=1..4")
    with_utilities: List[TaskSet] = schedlab.generate(utilization=1.0, util_dist="uni-medium",
                                                      utility="chronos")
    periods: npt.NDArray[np.int64] = ts.period
    cpus: Optional[int] = ts.cpus
    from_arrays: TaskSet = TaskSet.from_arrays(np.array([1, 2]), np.array([10, 20]), cpus=2)
    from_tasks: TaskSet = TaskSet([Task(1, 10), Task(wcet="2ms", period="4ms", deadline="3ms")])
    ts.save(tmp / "set.toml")
    loaded: TaskSet = schedlab.load(tmp / "set.toml")
    parsed: TaskSet = schedlab.parse(ts.dumps("json"))
    one: Result = schedlab.analyze(ts, cpus=4, tests="gedf")
    one_positional: Result = schedlab.analyze(ts, 4, "gedf")
    several: List[Result] = schedlab.analyze(ts, cpus=4, tests=["gedf", "pedf-ffd"])
    every: List[Result] = schedlab.analyze(ts, cpus=4)
    bounds: Optional[List[int]] = one.response_time_bounds_ns
    status: str = one.status
    verdicts: List[Result] = schedlab.analyze_many([ts, from_arrays], cpus=2, tests="gedf")
    lists: List[List[Result]] = schedlab.analyze_many([ts], cpus=2, tests=["gedf"], threads=2)
    catalogue: List[Dict[str, Any]] = schedlab.tests()
    oh: Dict[str, Any] = {"schema": 1, "arch": {}}
    charged_one: Result = schedlab.analyze(ts, cpus=4, tests="gedf", overheads=tmp / "oh.toml",
                                           arch="global-lock", granularity="1us")
    charged: List[Result] = schedlab.analyze(ts, cpus=4, overheads=oh, arch="message-passing",
                                             overhead_stat="avg")
    charged_many: List[Result] = schedlab.analyze_many([ts], cpus=4, tests="gedf", overheads=oh,
                                                       arch="global-lock", dedicated_irq_cpu=True)
    uab: Result = schedlab.analyze(ts, cpus=4, tests="gnphvdf-uab")
    k: Optional[int] = uab.k
    guaranteed: Optional[List[int]] = uab.guaranteed_tasks
    fraction: Optional[Dict[str, Optional[float]]] = uab.utility_fraction
    rebuilt: Result = Result(test="gnphvdf-uab", status="not-shown", k=1, guaranteed_tasks=[0],
                             utility_fraction={"k_over_n": 0.5, "value_weighted": None})
    per_bin: Optional[Dict[str, Any]] = charged_one.accounting
    whole: Optional[Dict[str, Any]] = charged_one.overhead_accounting
    inflation: Dict[str, Any] = schedlab.charge_overheads(ts, cpus=4, overheads=oh,
                                                          arch="partitioned")
    sets: List[TaskSet] = schedlab.generate(tasks=10, utilization=2.0, seed=3, count=4)
    realised: Optional[float] = sets[0].realised_utilization
    vector: np.ndarray = schedlab.utilizations("uunifast", 4, 1.5)
    sim: Dict[str, Any] = schedlab.simulate(ts, cpus=4, duration="1s", gantt=tmp / "g.svg",
                                            trace=tmp / "s.trace", perfetto=tmp / "p.json")
    sim2: Dict[str, Any] = schedlab.simulate(ts, cpus=4, duration=datetime.timedelta(seconds=2))
    sims: List[Dict[str, Any]] = schedlab.simulate_many(sets, cpus=4, duration="100ms")
    real: Dict[str, Any] = schedlab.run(ts, cpus=2, duration="1s", release_spin="20us",
                                        allow_non_rt=True)

    def body(cx: schedlab.JobContext) -> None:
        where: Tuple[int, int, int, int, int] = (cx.task, cx.seq, cx.region, cx.thread, cx.strand)

    stolen: Dict[str, Any] = schedlab.run(ts, cpus=2, arch="work-stealing", duration="1s",
                                          bodies={0: body, "a": body})
    script: str = schedlab.export(ts, cpus=2, policy="pedf", to="shell", duration="2s",
                                  dl_margin=datetime.timedelta(microseconds=300), force=True)
    report: Path = schedlab.experiment.run("exp.toml", out=tmp / "out", jobs=2)
    warning: type[Warning] = ResumeWarning
    imported: schedlab.Imported = schedlab.import_file("examples/simso/edf-3tasks.xml")
    from_csv: schedlab.Imported = schedlab.import_str("cost,period\n1,4\n", from_="csv")
    imported_set: TaskSet = imported.taskset
    mapped: Optional[str] = from_csv.policy
    unmapped: List[str] = imported.unmapped + imported.simulate_args + [imported.source]
    try:
        schedlab.TaskSet([{"wcet": "2ms", "perod": "10ms"}])
    except schedlab.Error as e:
        message: str = str(e)
    del (version, some, wcet, name, u, again, as_dict, periods, cpus, from_tasks, loaded, parsed,
         one_positional, several, every, bounds, status, verdicts, lists, catalogue, charged,
         charged_many, per_bin, whole, inflation, realised,
         vector, sim, sim2, sims, real, script, report, warning, imported_set, mapped, unmapped)
