//! Scheduling domains: one policy serves partitioned, clustered and global scheduling.
//!
//! As in ChronOS [ChronOS §5.6.6, §6.12, §6.16], the `m` CPUs are split into `m/k` disjoint
//! domains of `k` consecutive CPUs (domain `d` owns global CPUs `d·k .. d·k + k`), each running
//! its own instance of a policy on local CPUs `0..k`. Tasks are placed on domains offline
//! ([`Placement`]); every event of a job goes to its task's domain, and CPU ids are translated
//! local ↔ global. `pedf`/`pfp` are `k = 1` domains of G-EDF/G-FP (one CPU each: uniprocessor
//! EDF/FP), `cedf` is G-EDF in clusters of `k` CPUs; a single domain of `m` CPUs is global
//! scheduling. Domains may also differ in size ([`Placement::domain_sizes`]): `federated`
//! ([`crate::federated`]) gives each heavy task a domain of its dedicated CPUs and each light
//! CPU a domain of one; domain `d` then owns the CPUs after those of domains `0..d`.
//!
//! Timers: with `D` domains, a domain's timer number `t` is exposed as `t · D + d`, so
//! `on_timer` routes back to domain `d` with its own number (a timer number too large for this
//! encoding — beyond 2^64 / D — is dropped; the policies here number timers from 0 upwards).
//!
//! Budgets: a budget request names a job, which is the same in every domain, so it passes
//! through unchanged; `on_budget_exhausted` goes to the job's domain, like every job event.
//!
//! Resources: `on_block` and `on_resume` go to the job's domain like every job event; a
//! released resource is granted by the domain of its longest-waiting waiter, which ranks the
//! waiters it holds (by priority, for the priority-inheritance policies) before those of other
//! domains. Priorities are inherited within a domain only: a job blocked on a resource held in
//! another domain boosts nobody (no cross-partition protocol such as MPCP is modelled).
//!
//! Parallel tasks [RTWS §III]: every strand of a job goes to its task's domain (on_fork with
//! the forking CPU translated), so a partitioned policy runs all threads of a task on its CPU
//! and a clustered one within its cluster; steals' victim CPUs are translated like links.
//!
//! A job of a task outside the placement (the engine broke the contract: placements are
//! validated against the task set) is ignored.

use crate::error::PolicyError;
use crate::event::{Ctx, Decisions, JobInfo};
use crate::ids::{CpuId, JobId, ResourceId, TimerId};
use crate::policy::{ParallelSupport, Policy};
use crate::task::Placement;

/// One instance of a policy `P` per domain of consecutive CPUs (`m/k` domains of `k` CPUs,
/// or domains of the sizes a placement lists).
#[derive(Debug)]
pub struct Domains<P> {
    name: &'static str,
    domains: Vec<P>,
    domain_of_task: Vec<u32>,
    /// The first CPU of each domain, then the CPU count (`first[d + 1] − first[d]` is domain
    /// `d`'s size).
    first: Vec<u32>,
    /// The domain of each CPU.
    domain_of_cpu: Vec<u32>,
}

impl<P: Policy> Domains<P> {
    /// Splits `cpus` CPUs into domains of `placement.domain_size` CPUs, or of the sizes
    /// `placement.domain_sizes` lists, and builds one policy per domain with `make(size)`, called once per domain in domain order.
    /// Errors: `cpus = 0` ([`PolicyError::InvalidPlatform`]); a domain size of 0 or one that
    /// does not divide `cpus`, listed sizes with a 0 or whose sum is not `cpus`, a placement
    /// whose length is not `n_tasks`, or a task placed in a domain that does not exist
    /// ([`PolicyError::InvalidPlacement`], naming the task).
    pub fn new(
        name: &'static str,
        cpus: u32,
        n_tasks: usize,
        placement: Placement,
        mut make: impl FnMut(u32) -> P,
    ) -> Result<Domains<P>, PolicyError> {
        let k = placement.domain_size;
        if cpus == 0 {
            return Err(PolicyError::InvalidPlatform(format!(
                "policy `{name}` needs at least one CPU"
            )));
        }
        let sizes = if placement.domain_sizes.is_empty() {
            if k == 0 || cpus % k != 0 {
                return Err(PolicyError::InvalidPlacement(format!(
                    "domain size {k} does not divide the {cpus} CPUs into domains"
                )));
            }
            vec![k; (cpus / k) as usize]
        } else {
            checked_sizes(&placement.domain_sizes, cpus)?
        };
        if placement.domain_of_task.len() != n_tasks {
            return Err(PolicyError::InvalidPlacement(format!(
                "the placement lists {} tasks, the task set has {n_tasks}",
                placement.domain_of_task.len()
            )));
        }
        let n_domains = u32::try_from(sizes.len()).unwrap_or(u32::MAX);
        if let Some((i, d)) = placement
            .domain_of_task
            .iter()
            .enumerate()
            .find(|(_, d)| **d >= n_domains)
        {
            let what = match k {
                1 => "CPU",
                0 => "domain",
                _ => "cluster",
            };
            let layout = match k {
                0 => format!("domains of {sizes:?} CPUs"),
                _ => format!("domains of {k}"),
            };
            return Err(PolicyError::InvalidPlacement(format!(
                "task {i} is placed on {what} {d}, but there are only {n_domains} ({what}s 0..{n_domains}, {cpus} CPUs in {layout})"
            )));
        }
        let mut first = Vec::with_capacity(sizes.len() + 1);
        let mut domain_of_cpu = Vec::with_capacity(cpus as usize);
        let mut at = 0u32;
        for (d, &size) in (0u32..).zip(&sizes) {
            first.push(at);
            domain_of_cpu.extend((0..size).map(|_| d));
            at += size;
        }
        first.push(at);
        Ok(Domains {
            name,
            domains: sizes.iter().map(|&size| make(size)).collect(),
            domain_of_task: placement.domain_of_task,
            first,
            domain_of_cpu,
        })
    }

    /// The first CPU of domain `d` (0 beyond the domains: never routed to).
    fn base(&self, d: u32) -> u32 {
        self.first.get(d as usize).copied().unwrap_or(0)
    }

    /// The domain of `job`'s task.
    fn domain_of(&self, job: JobId) -> Option<u32> {
        let t = usize::try_from(job.task.0).ok()?;
        self.domain_of_task.get(t).copied()
    }

    /// Runs `f` on domain `d`, letting it append to `out` directly, then translates what it
    /// appended to global ids (no intermediate buffer: this runs on every event). A timer
    /// whose number cannot be encoded is dropped (see the module doc).
    fn route(&mut self, d: u32, out: &mut Decisions, f: impl FnOnce(&mut P, &mut Decisions)) {
        let Some(p) = self.domains.get_mut(d as usize) else {
            return;
        };
        let (links, timers, cancels) = (out.links.len(), out.timers.len(), out.cancels.len());
        let steals = out.steals.len();
        f(p, out);
        let base = self.base(d);
        for l in out.links.iter_mut().skip(links) {
            l.cpu = CpuId(base + l.cpu.0);
        }
        for s in out.steals.iter_mut().skip(steals) {
            s.victim = CpuId(base + s.victim.0);
        }
        if out.timers.len() == timers && out.cancels.len() == cancels {
            return;
        }
        let nd = u64::from(self.domain_count());
        let global = |t: TimerId| t.0.checked_mul(nd)?.checked_add(u64::from(d)).map(TimerId);
        let mut k = 0;
        out.timers.retain_mut(|r| {
            k += 1;
            if k <= timers {
                return true;
            }
            global(r.id).map(|id| r.id = id).is_some()
        });
        let mut k = 0;
        out.cancels.retain_mut(|c| {
            k += 1;
            if k <= cancels {
                return true;
            }
            global(*c).map(|id| *c = id).is_some()
        });
    }

    fn domain_count(&self) -> u32 {
        u32::try_from(self.domains.len()).unwrap_or(u32::MAX)
    }

    /// Domain `d`'s policy.
    pub fn domain(&self, d: u32) -> Option<&P> {
        self.domains.get(d as usize)
    }
}

impl<P: Policy> Policy for Domains<P> {
    fn name(&self) -> &str {
        self.name
    }
    fn cpus(&self) -> u32 {
        self.first.last().copied().unwrap_or(0)
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job.id) {
            self.route(d, out, |p, o| p.on_release(ctx, job, o));
        }
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job) {
            self.route(d, out, |p, o| p.on_complete(ctx, job, o));
        }
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job) {
            self.route(d, out, |p, o| p.on_abort(ctx, job, o));
        }
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: TimerId, out: &mut Decisions) {
        let nd = u64::from(self.domain_count());
        if nd == 0 {
            return;
        }
        let d = u32::try_from(timer.0 % nd).unwrap_or(u32::MAX);
        let local = TimerId(timer.0 / nd);
        self.route(d, out, |p, o| p.on_timer(ctx, local, o));
    }
    fn on_block(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job) {
            self.route(d, out, |p, o| p.on_block(ctx, job, o));
        }
    }
    fn on_resume(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job.id) {
            self.route(d, out, |p, o| p.on_resume(ctx, job, o));
        }
    }
    fn on_budget_exhausted(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        if let Some(d) = self.domain_of(job) {
            self.route(d, out, |p, o| p.on_budget_exhausted(ctx, job, o));
        }
    }
    /// A region's threads go to their task's domain (all threads of a task run there), with
    /// the forking CPU translated to the domain's numbering.
    fn on_fork(&mut self, ctx: &Ctx<'_>, cpu: CpuId, strands: &[JobInfo], out: &mut Decisions) {
        let Some(d) = strands.first().and_then(|s| self.domain_of(s.id)) else {
            return;
        };
        let local = CpuId(cpu.0.saturating_sub(self.base(d)));
        self.route(d, out, |p, o| p.on_fork(ctx, local, strands, o));
    }
    /// As its domains' policy does (every domain runs the same policy).
    fn parallel_support(&self) -> ParallelSupport {
        self.domains
            .first()
            .map_or(ParallelSupport::Refused, Policy::parallel_support)
    }
    fn grant(&self, ctx: &Ctx<'_>, resource: ResourceId, waiters: &[JobId]) -> usize {
        // The domain of the longest-waiting waiter decides (module doc, "Resources").
        let d = waiters.first().and_then(|&w| self.domain_of(w));
        d.and_then(|d| self.domains.get(d as usize))
            .map_or(0, |p| p.grant(ctx, resource, waiters))
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        let d = *self.domain_of_cpu.get(cpu.0 as usize)?;
        self.domains
            .get(d as usize)?
            .linked(CpuId(cpu.0.saturating_sub(self.base(d))))
    }
}

/// Listed domain sizes checked against the platform: each at least 1, `cpus` in all.
fn checked_sizes(sizes: &[u32], cpus: u32) -> Result<Vec<u32>, PolicyError> {
    if let Some(d) = sizes.iter().position(|&k| k == 0) {
        return Err(PolicyError::InvalidPlacement(format!(
            "domain {d} has no CPU (domain sizes {sizes:?})"
        )));
    }
    let total = sizes.iter().map(|&k| u64::from(k)).sum::<u64>();
    if total != u64::from(cpus) {
        return Err(PolicyError::InvalidPlacement(format!(
            "the domains have {total} CPUs in all (sizes {sizes:?}), the platform {cpus}"
        )));
    }
    Ok(sizes.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edzl::Edzl;
    use crate::global::GlobalJlfp;
    use crate::testutil::{info, jid, task, Harness};

    fn pedf(placement: Vec<u32>, cpus: u32, k: u32) -> Result<Domains<GlobalJlfp>, PolicyError> {
        let tasks: Vec<_> = (0..placement.len())
            .map(|i| task(1, 10, 10, i as u32))
            .collect();
        let n = tasks.len();
        let shared: std::sync::Arc<[_]> = tasks.into();
        Domains::new("pedf", cpus, n, Placement::new(placement, k), |k| {
            GlobalJlfp::gedf(shared.clone(), k)
        })
    }

    /// 4 CPUs in 2 clusters of 2; τ0, τ1, τ2 in cluster 1 (CPUs 2, 3), τ3 in cluster 0.
    /// τ0 → CPU 2, τ1 → CPU 3, τ2 (earlier deadline) preempts the later-deadline τ1 on CPU 3
    /// although CPUs 0 and 1 are idle (no migration across clusters); τ3 → CPU 0.
    #[test]
    fn routes_by_domain_and_translates_cpus() {
        let mut h = Harness::new(pedf(vec![1, 1, 1, 0], 4, 2).unwrap());
        assert_eq!(h.release(0, info(0, 0, 0, 10, 1)).links[0].cpu, CpuId(2));
        assert_eq!(h.release(0, info(1, 0, 0, 20, 1)).links[0].cpu, CpuId(3));
        assert_eq!(h.release(1, info(2, 0, 1, 5, 1)).links.len(), 1);
        assert_eq!(h.links(), vec![(3, Some(jid(2, 0)))]);
        assert_eq!(h.release(1, info(3, 0, 1, 50, 1)).links[0].cpu, CpuId(0));
        assert_eq!(h.complete(2, jid(2, 0)).links[0].cpu, CpuId(3));
        assert_eq!(h.p.linked(CpuId(3)), Some(jid(1, 0)));
        assert_eq!(h.p.linked(CpuId(1)), None);
        assert_eq!(h.p.cpus(), 4);
    }

    #[test]
    fn invalid_placements_name_the_task() {
        let e = pedf(vec![0, 2], 2, 1).unwrap_err();
        assert!(
            matches!(&e, PolicyError::InvalidPlacement(m) if m.contains("task 1")),
            "{e}"
        );
        assert!(matches!(
            pedf(vec![0], 3, 2),
            Err(PolicyError::InvalidPlacement(_))
        ));
        assert!(matches!(
            pedf(vec![0], 2, 0),
            Err(PolicyError::InvalidPlacement(_))
        ));
        assert!(matches!(
            pedf(vec![0], 0, 1),
            Err(PolicyError::InvalidPlatform(_))
        ));
        let tasks = vec![task(1, 10, 10, 0)];
        let e = Domains::new("pfp", 2, 2, Placement::new(vec![0], 1), |k| {
            GlobalJlfp::gfp(tasks.clone(), k)
        })
        .unwrap_err();
        assert!(matches!(e, PolicyError::InvalidPlacement(_)));
    }

    /// A policy that gives every released job a budget of 1 and records exhaustions.
    struct Budgeted {
        inner: GlobalJlfp,
        exhausted: Vec<JobId>,
    }

    impl Policy for Budgeted {
        fn name(&self) -> &str {
            "budgeted"
        }
        fn cpus(&self) -> u32 {
            self.inner.cpus()
        }
        fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
            out.budget(job.id, schedlab_model::Duration::from_ns(1));
            self.inner.on_release(ctx, job, out);
        }
        fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
            self.inner.on_complete(ctx, job, out);
        }
        fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
            self.inner.on_abort(ctx, job, out);
        }
        fn on_budget_exhausted(&mut self, _ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
            self.exhausted.push(job);
            out.clear_budget(job);
        }
        fn linked(&self, cpu: CpuId) -> Option<JobId> {
            self.inner.linked(cpu)
        }
    }

    /// Budget requests pass through with their (global) job; exhaustions reach the job's
    /// domain only: 2 domains of 1 CPU, τ0 in domain 1, τ1 in domain 0.
    #[test]
    fn budgets_pass_through_and_exhaustions_reach_the_jobs_domain() {
        let tasks: std::sync::Arc<[_]> = vec![task(2, 10, 10, 0), task(2, 10, 10, 1)].into();
        let d = Domains::new("budgeted", 2, 2, Placement::new(vec![1, 0], 1), |k| {
            Budgeted {
                inner: GlobalJlfp::gfp(tasks.clone(), k),
                exhausted: Vec::new(),
            }
        })
        .unwrap();
        let mut h = Harness::new(d);
        let out = h.release(0, info(0, 0, 0, 10, 2)).clone();
        assert_eq!(
            out.budgets,
            vec![crate::BudgetRequest {
                job: jid(0, 0),
                amount: Some(schedlab_model::Duration::from_ns(1))
            }]
        );
        assert_eq!(out.links[0].cpu, CpuId(1));
        h.release(0, info(1, 0, 0, 10, 2));
        let out = h.exhaust(1, jid(0, 0)).clone();
        assert_eq!(out.budgets.len(), 1);
        assert_eq!(out.budgets[0].amount, None);
        assert_eq!(
            h.p.domain(1).map(|p| p.exhausted.clone()),
            Some(vec![jid(0, 0)])
        );
        assert_eq!(h.p.domain(0).map(|p| p.exhausted.len()), Some(0));
    }

    /// Timers of a domain come back to it: EDZL in 2 domains of 1 CPU; τ1 (domain 1) gets a
    /// zero-laxity timer, exposed as local 0 · 2 + 1 = 1; firing it reaches domain 1.
    #[test]
    fn timers_are_routed_back() {
        let tasks = vec![
            task(190, 100, 1000, 0),
            task(3, 200, 1000, 1),
            task(190, 100, 1000, 2),
        ];
        let shared: std::sync::Arc<[_]> = tasks.into();
        let d = Domains::new("pedzl", 2, 3, Placement::new(vec![1, 1, 0], 1), |k| {
            Edzl::new(shared.clone(), k)
        })
        .unwrap();
        let mut h = Harness::new(d);
        h.release(0, info(2, 0, 0, 100, 190));
        h.release(0, info(0, 0, 0, 100, 190));
        let d = h.release(0, info(1, 0, 0, 200, 3)).clone();
        assert_eq!(d.timers.len(), 1);
        assert_eq!(d.timers[0].id, TimerId(1));
        assert_eq!(h.fire_due(1000), Some(TimerId(1)));
        assert_eq!(h.links(), vec![(1, Some(jid(1, 0)))]);
        assert_eq!(h.p.linked(CpuId(0)), Some(jid(2, 0)));
    }
}
