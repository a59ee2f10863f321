//! `partitioned`: one independent scheduler per CPU, no shared state (P-EDF, P-FP, and the
//! partitioned utility-accrual policies P-HVDF, P-LBESA, P-DASA [ChronOS §8.5]: each a
//! uniprocessor policy per CPU; their aborts run their handlers on the task's CPU,
//! `crate::state`'s aborts).
//!
//! # Protocol
//!
//! State and owners:
//! - the [`Sched`] of CPU c (a `pedf`/`pfp` instance on one CPU, holding only c's tasks, its
//!   release heap and timers): owned by CPU c's dispatcher thread alone, reached without a
//!   lock (`Own`);
//! - job thread i's control block: its `state` word moves as in [`crate::job`] (dispatcher of
//!   c: `IDLE → RUN`, `RUN → PARK`, `PARK → RUN`; the thread: `RUN → IDLE`); the thread is
//!   pinned to c for the whole run;
//! - doorbell c: rung by the job threads of c (a completion).
//!
//! Dispatch (dispatcher of c, [`crate::dispatch`], at SCHED_FIFO above c's jobs):
//! 1. releases due of c's tasks → the policy (`release` … `release-end`);
//! 2. c's policy timers due;
//! 3. the scheduling step (`sched-begin` … `sched-end`): a completion on c (its job thread
//!    committed `RUN → IDLE`) is processed, then `scheduled` is made equal to `assigned`;
//! 4. there is no other CPU to ring.
//!
//! Preemption: a release on c that links a higher-priority job parks the running one: its
//! dispatcher (running on c, so the job is not) moves `RUN → PARK` and sends the preemption
//! signal; the job thread's handler waits until `RUN` again ([`crate::mech::preempt`]).
//!
//! The placement is an input (every task on one CPU, `RunConfig::placement` with domain size
//! 1), computed by the caller like `schedlab simulate` does.

use crate::arch::{Architecture, ArchDef, Cx, Harvest, Jobs, RtLoad, Run, Setup};
use crate::dispatch::{Dispatcher, Domain};
use crate::error::RuntimeError;
use crate::state::{Emit, Sched, Threads};
use schedlab_policy::Placement;
use schedlab_trace::tracebuf::TraceBuf;

/// The policies it runs: one uniprocessor instance per CPU (a placement of domain size 1).
pub const POLICIES: &[&str] = &["pedf", "pfp", "phvdf", "plbesa", "pdasa"];

/// Its registry entry.
pub(crate) static DEF: ArchDef = ArchDef {
    name: "partitioned",
    summary: "one independent scheduler per CPU, no shared state (pedf, pfp, phvdf, plbesa, pdasa)",
    kernel: false,
    parallel: false,
    options: &["threading"],
    partitioned_with: None,
    rt_load: RtLoad::ByPlacement,
    global_invariant: false,
    reserves_cpu0: |_| false,
    fields: |_| Vec::new(),
    note: |_| String::new(),
    run: crate::run::run_with::<Partitioned>,
};

/// `partitioned` has no state shared between its threads.
pub(crate) struct Partitioned;

/// A CPU's own scheduling state: no lock.
pub(crate) struct Own(Box<Sched>);

impl Domain for Own {
    fn with<R>(
        &mut self,
        em: &Emit<'_>,
        f: impl FnOnce(&mut Sched, &Emit<'_>) -> R,
    ) -> (R, Option<u64>) {
        let r = f(&mut self.0, em);
        (r, self.0.next_timer())
    }
}

impl Architecture for Partitioned {
    const RESOURCES: bool = true;

    type Worker = Dispatcher<Own>;

    fn prepare(run: &Run<'_>, _warnings: &mut Vec<String>) -> Result<Setup<Self>, RuntimeError> {
        let policy = run.config.policy.as_str();
        let Some(place) = run.cpu_placement()? else {
            return Err(RuntimeError::InvalidConfig {
                field: "arch",
                message: format!(
                    "`partitioned` needs a partitioned policy (pedf, pfp) with a placement of every task on a CPU, not `{policy}`"
                ),
            });
        };
        if !POLICIES.contains(&policy) {
            return Err(RuntimeError::InvalidConfig {
                field: "policy",
                message: format!(
                    "`partitioned` runs {}, not `{policy}` (use --arch global-lock for global policies)",
                    POLICIES.join(", ")
                ),
            });
        }
        local_resources(run, place)?;
        // Each CPU's policy instance sees its tasks on its one CPU (domain 0).
        let local = Placement::new(vec![0; run.n()], 1);
        let mut workers = Vec::with_capacity(run.m as usize);
        for cpu in 0..run.m {
            let releases: Vec<u32> = (0..run.n() as u32)
                .filter(|&i| place.get(i as usize) == Some(&cpu))
                .collect();
            let mut sched = run.sched(1, Some(local.clone()), cpu)?;
            // Its resources: those its own tasks' sections use (`local_resources`).
            let mine = releases.iter().filter_map(|&i| run.tasks.get(i as usize));
            sched.set_resources(
                crate::state::section_ids(mine),
                &run.config.resources,
                run.config.duration.as_ns(),
            );
            workers.push(Dispatcher {
                cpu,
                base: cpu,
                local: Some(0),
                releases,
                timer_owner: cpu,
                timers: true,
                domain: Own(Box::new(sched)),
                buf: TraceBuf::new(run.capacity.scheduler),
            });
        }
        Ok(Setup {
            arch: Partitioned,
            workers,
            jobs: Jobs::Threads {
                pinned: place.iter().map(|&c| Some(c)).collect(),
            },
        })
    }

    fn thread_name(w: &Dispatcher<Own>) -> String {
        format!("sl-cpu{}", w.cpu)
    }

    fn set_up(&self, w: &Dispatcher<Own>, cx: &Cx<'_>) -> Result<(), String> {
        cx.pin_scheduler(w.cpu)
    }

    fn work(&self, w: Dispatcher<Own>, cx: &Cx<'_>) -> Dispatcher<Own> {
        w.run(cx.shared, &cx.th)
    }

    fn drain(&self, workers: Vec<Dispatcher<Own>>, th: &Threads<'_>, h: &mut Harvest) {
        for mut d in workers {
            h.trace(&d.buf);
            h.sched(&mut d.domain.0, th);
        }
    }
}

/// Resources are local under `partitioned` (each CPU's state owns the mutexes of its own
/// tasks' critical sections): a resource used by tasks on two CPUs would need a
/// multiprocessor locking protocol (MPCP, MSRP), which is not built — refused, naming it.
/// A custom body locks the resources of its CPU's tasks' sections.
fn local_resources(run: &Run<'_>, place: &[u32]) -> Result<(), RuntimeError> {
    let mut cpu_of: std::collections::BTreeMap<u32, u32> = std::collections::BTreeMap::new();
    for (i, t) in run.tasks.iter().enumerate() {
        let Some(&cpu) = place.get(i) else { continue };
        for s in &t.critical_sections {
            let first = *cpu_of.entry(s.resource).or_insert(cpu);
            if first != cpu {
                let name = crate::locks::resource_name(&run.config.resources, s.resource);
                return Err(RuntimeError::InvalidTask {
                    task: i,
                    field: "critical_sections",
                    message: format!(
                        "resource `{name}` is used by tasks on CPUs {first} and {cpu}: --arch partitioned manages local resources only (no multiprocessor locking protocol); use --arch global-lock"
                    ),
                });
            }
        }
    }
    Ok(())
}
