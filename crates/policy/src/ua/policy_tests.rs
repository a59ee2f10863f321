//! Policy-level tests of ua1's UA policies: link decisions derived by hand (resources,
//! deadlocks, mapping), and the calling contract under random events.

use super::dasa::Dasa;
use super::ghvdf::GHvdf;
use super::gnphvdf::GNpHvdf;
use super::lbesa::Lbesa;
use super::phvdf::Hvdf;
use super::uni::Uni;
use crate::event::{Ctx, Decisions, JobInfo, Resources};
use crate::ids::{CpuId, JobId, ResourceId};
use crate::policy::Policy;
use crate::task::PolicyTask;
use crate::testutil::{info, jid, task, Harness, MapProgress};
use proptest::prelude::*;
use schedlab_model::{Duration, Time, Tuf};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// `(C, D, utility)` tasks, period 1000.
fn tasks(spec: &[(u64, u64, f64)]) -> Arc<[PolicyTask]> {
    spec.iter()
        .enumerate()
        .map(|(i, &(c, d, u))| {
            let mut t = task(c, d, 1000, i as u32);
            t.utility = Some(u);
            t.tuf = Some(Tuf::Step { value: u });
            t
        })
        .collect::<Vec<_>>()
        .into()
}

/// A scripted resource view: who waits for what, who holds what.
#[derive(Default)]
struct Res {
    waits: BTreeMap<JobId, u32>,
    holds: BTreeMap<u32, JobId>,
}

impl Resources for Res {
    fn blocked_on(&self, job: JobId) -> Option<ResourceId> {
        self.waits.get(&job).map(|&r| ResourceId(r))
    }
    fn owner(&self, resource: ResourceId) -> Option<JobId> {
        self.holds.get(&resource.0).copied()
    }
    fn any(&self) -> bool {
        true
    }
}

/// Drives a one-CPU policy with a resource view; tracks progress of the linked job.
struct Uniq<P> {
    p: P,
    now: u64,
    linked: Option<JobId>,
    progress: MapProgress,
    res: Res,
    out: Decisions,
}

impl<P: Policy> Uniq<P> {
    fn new(p: P) -> Self {
        Uniq {
            p,
            now: 0,
            linked: None,
            progress: MapProgress::default(),
            res: Res::default(),
            out: Decisions::new(),
        }
    }
    fn at(&mut self, t: u64) {
        if let Some(j) = self.linked {
            *self.progress.0.entry(j).or_insert(0) += t - self.now;
        }
        self.now = t;
        self.out.clear();
    }
    fn apply(&mut self) -> &Decisions {
        for l in &self.out.links {
            self.linked = l.job;
        }
        assert_eq!(self.linked, self.p.linked(CpuId(0)));
        &self.out
    }
    fn call(&mut self, t: u64, f: impl FnOnce(&mut P, &Ctx<'_>, &mut Decisions)) -> &Decisions {
        self.at(t);
        let ctx = Ctx {
            now: Time::from_ns(t),
            progress: &self.progress,
            resources: &self.res,
        };
        f(&mut self.p, &ctx, &mut self.out);
        self.apply()
    }
    fn release(&mut self, t: u64, j: JobInfo) -> &Decisions {
        self.call(t, |p, c, o| p.on_release(c, &j, o))
    }
    fn complete(&mut self, t: u64, j: JobId) -> &Decisions {
        self.call(t, |p, c, o| p.on_complete(c, j, o))
    }
    fn block(&mut self, t: u64, j: JobId, r: u32) -> &Decisions {
        self.res.waits.insert(j, r);
        self.call(t, |p, c, o| p.on_block(c, j, o))
    }
    fn resume(&mut self, t: u64, j: JobInfo, r: u32) -> &Decisions {
        self.res.waits.remove(&j.id);
        self.res.holds.insert(r, j.id);
        self.call(t, |p, c, o| p.on_resume(c, &j, o))
    }
}

fn dasa(t: Arc<[PolicyTask]>) -> Uniq<Uni<Dasa>> {
    Uniq::new(Uni::new("pdasa", t, Dasa::new()))
}

/// DASA follows a dependency chain. τ0 = (4, 10, 40), τ1 = (4, 50, 1), τ2 = (4, 11, 8).
/// t=0: J1 alone runs and locks R0. t=1: J0 (LVD 10) comes first in the schedule (4+1 = 5 ≤
/// 10): it runs. t=2: J0 requests R0, held by J1, and blocks. J0's chain is {J1}: PUD
/// (40 + 1) / (3 + 3); J1 goes in at min(50, 10) = 10, ahead of J0 (tie at 10: task order;
/// the blocked head runs its chain's end): J1 runs on J0's behalf. Still t=2, J2 (LVD 2)
/// arrives: J0, J1 finish at 5, 8 ≤ 10, J2 would finish at 12 > 11: rejected, J1 keeps
/// running. t=5: J1 completes (R0 goes to J0): J0 resumes and runs (deadline 10 before 11).
#[test]
fn dasa_runs_the_dependency_chain_ahead_of_the_dependent() {
    let mut u = dasa(tasks(&[(4, 10, 40.0), (4, 50, 1.0), (4, 11, 8.0)]));
    u.release(0, info(1, 0, 0, 50, 4));
    assert_eq!(u.linked, Some(jid(1, 0)));
    u.res.holds.insert(0, jid(1, 0));
    u.release(1, info(0, 0, 1, 11, 4));
    assert_eq!(u.linked, Some(jid(0, 0)));
    u.block(2, jid(0, 0), 0);
    assert_eq!(u.linked, Some(jid(1, 0)));
    assert!(u.release(2, info(2, 0, 2, 13, 4)).links.is_empty());
    u.res.holds.remove(&0);
    u.complete(5, jid(1, 0));
    // Between the completion and the grant J0 is still blocked: J2 runs meanwhile.
    assert_eq!(u.linked, Some(jid(2, 0)));
    u.resume(5, info(0, 0, 1, 11, 4), 0);
    assert_eq!(u.linked, Some(jid(0, 0)));
}

/// A deadlock is resolved by aborting the cycle's member with the lowest LVD.
/// τ0 = (4, 20, 10), τ1 = (4, 20, 1), both released at 0; the script has J0 hold R0 and J1
/// hold R1. J0 (LVD 10/4 > 1/4) runs. t=1: J0 requests R1 (owner J1) and blocks: J1 runs on
/// its behalf. t=2: J1 requests R0 (owner J0): cycle J0 → J1 → J0. LVDs: J0 10/3, J1 1/3:
/// J1 is aborted; J0 stays blocked until the engine grants it R1 (after J1's handler), so
/// the CPU idles; on resume J0 runs.
#[test]
fn dasa_breaks_a_deadlock_by_aborting_the_lowest_density_member() {
    let mut u = dasa(tasks(&[(4, 20, 10.0), (4, 20, 1.0)]));
    u.release(0, info(0, 0, 0, 20, 4));
    u.res.holds.insert(0, jid(0, 0));
    u.res.holds.insert(1, jid(1, 0));
    u.release(0, info(1, 0, 0, 20, 4));
    assert_eq!(u.linked, Some(jid(0, 0)));
    u.block(1, jid(0, 0), 1);
    assert_eq!(u.linked, Some(jid(1, 0)));
    let d = u.block(2, jid(1, 0), 0).clone();
    assert_eq!(d.aborts, vec![jid(1, 0)]);
    assert_eq!(u.linked, None);
    u.res.holds.remove(&1);
    u.res.holds.remove(&0);
    u.resume(3, info(0, 0, 0, 20, 4), 1);
    assert_eq!(u.linked, Some(jid(0, 0)));
}

/// A non-abortable cycle stays: nothing is aborted, nothing runs.
#[test]
fn dasa_never_aborts_a_non_abortable_job() {
    let t: Vec<PolicyTask> = tasks(&[(4, 20, 10.0), (4, 20, 1.0)])
        .iter()
        .cloned()
        .map(|mut t| {
            t.abortable = false;
            t
        })
        .collect();
    let mut u = dasa(t.into());
    u.res.holds.insert(0, jid(0, 0));
    u.res.holds.insert(1, jid(1, 0));
    u.release(0, info(0, 0, 0, 20, 4));
    u.release(0, info(1, 0, 0, 20, 4));
    u.block(1, jid(0, 0), 1);
    let d = u.block(2, jid(1, 0), 0).clone();
    assert!(d.aborts.is_empty());
    assert_eq!(u.linked, None);
}

/// P-HVDF inherits through a chain: J0 (LVD 10) blocks on R0 held by J1 (LVD 1/4 < J2's 1):
/// J1, not J2, runs. τ0 = (4, 100, 40), τ1 = (4, 100, 1), τ2 = (4, 100, 4).
#[test]
fn hvdf_runs_the_owner_of_what_the_densest_job_waits_for() {
    let mut u = Uniq::new(Uni::new(
        "phvdf",
        tasks(&[(4, 100, 40.0), (4, 100, 1.0), (4, 100, 4.0)]),
        Hvdf,
    ));
    u.release(0, info(1, 0, 0, 100, 4));
    u.res.holds.insert(0, jid(1, 0));
    u.release(1, info(2, 0, 1, 101, 4));
    assert_eq!(u.linked, Some(jid(2, 0)));
    u.release(1, info(0, 0, 1, 101, 4));
    assert_eq!(u.linked, Some(jid(0, 0)));
    u.block(2, jid(0, 0), 0);
    assert_eq!(u.linked, Some(jid(1, 0)));
}

/// LBESA with a maximum allowable overload keeps a job that will be late by at most that
/// much. τ0 = (4, 5, 1), τ1 = (4, 6, 10) at 0: back to back 4, 8 — τ1 late by 2.
/// Overload 0: τ0 (lowest LVD) is shed and τ1 runs; overload 2: nothing is shed, τ0 (earlier
/// deadline) runs.
#[test]
fn lbesa_maximum_allowable_overload() {
    for (allowed, runs) in [(0, jid(1, 0)), (2, jid(0, 0))] {
        let t = tasks(&[(4, 5, 1.0), (4, 6, 10.0)]);
        let l = Lbesa::new(Duration::from_ns(allowed));
        assert_eq!(l.max_overload(), Duration::from_ns(allowed));
        let mut h = Harness::new(Uni::new("plbesa", t, l));
        h.release(0, info(0, 0, 0, 5, 4));
        h.release(0, info(1, 0, 0, 6, 4));
        assert_eq!(h.p.linked(CpuId(0)), Some(runs), "overload {allowed}");
    }
}

/// LBESA with a linear TUF: the critical time is the termination time, not the deadline.
/// τ0 = (4, 5, linear 10 → 0 at 12) and τ1 = (4, 6, step 1): τ0's critical time is 12, so
/// the critical-time order is τ1 (6), τ0 (12): 4, 8 — feasible, τ1 runs first; τ0 is not
/// aborted at its deadline 5 (it still accrues until 12).
#[test]
fn lbesa_orders_general_tufs_by_termination_time() {
    let mut t: Vec<PolicyTask> = tasks(&[(4, 5, 10.0), (4, 6, 1.0)]).to_vec();
    t[0].tuf = Some(Tuf::Linear {
        value: 10.0,
        zero_at: Duration::from_ns(12),
    });
    let mut h = Harness::new(Uni::new("plbesa", t.into(), Lbesa::new(Duration::ZERO)));
    h.release(0, info(0, 0, 0, 5, 4));
    let d = h.release(0, info(1, 0, 0, 6, 4)).clone();
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(1, 0)));
    assert_eq!(d.timers.last().map(|r| r.at), Some(Time::from_ns(6)));
    h.complete(4, jid(1, 0));
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)));
    // The abort timer now waits for τ0's termination time 12, not its deadline 5.
    assert_eq!(h.timers.values().copied().collect::<Vec<_>>(), vec![12]);
    assert_eq!(h.fire_due(6), None);
}

/// G-HVDF on 2 CPUs maps without needless moves. τ0 = (10, 100, 100) LVD 10, τ1 = (10, 100,
/// 10) LVD 1, τ2 = (10, 100, 50) LVD 5. t=0: J0 → CPU 0, J1 → CPU 1. t=2: J2 beats J1 (10/8):
/// one link change, J2 on CPU 1; J0 untouched. t=4: J0 completes: J1 returns on CPU 0 (its
/// last CPU, 1, is J2's): one link change.
#[test]
fn ghvdf_links_change_only_where_the_selection_changes() {
    let t = tasks(&[(10, 100, 100.0), (10, 100, 10.0), (10, 100, 50.0)]);
    let mut h = Harness::new(GHvdf::new(t, 2));
    h.release(0, info(0, 0, 0, 100, 10));
    h.release(0, info(1, 0, 0, 100, 10));
    assert_eq!(h.links(), vec![(1, Some(jid(1, 0)))]);
    h.release(2, info(2, 0, 2, 102, 10));
    assert_eq!(h.links(), vec![(1, Some(jid(2, 0)))]);
    h.complete(4, jid(0, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(2, 0)));
}

/// Equal LVDs: the linked job stays (no needless preemption). τ0 = τ1 = (10, 100, 10) on one
/// CPU: J1 released first runs; J0 (same LVD, smaller task index) waits.
#[test]
fn ghvdf_and_phvdf_keep_the_linked_job_on_equal_density() {
    let t = tasks(&[(10, 100, 10.0), (10, 100, 10.0)]);
    let mut h = Harness::new(GHvdf::new(t.clone(), 1));
    h.release(0, info(1, 0, 0, 100, 10));
    assert!(h.release(0, info(0, 0, 0, 100, 10)).links.is_empty());
    let mut h = Harness::new(Uni::new("phvdf", t, Hvdf));
    h.release(0, info(1, 0, 0, 100, 10));
    assert!(h.release(0, info(0, 0, 0, 100, 10)).links.is_empty());
}

/// G-NP-HVDF: a running job that blocks leaves its CPU to the head; on resume it is queued
/// again with a fresh LVD and, having started, is never aborted at the head.
/// τ0 = (4, 10, 40), τ1 = (4, 10, 1), 1 CPU. t=0: J0 runs (denser). t=1: J0 blocks: J1 runs.
/// t=2: J0 resumes: no preemption (J1 has started). t=5: J1 completes; J0 (3 left) would
/// complete at 8 ≤ 10: runs.
#[test]
fn gnphvdf_block_and_resume() {
    let t = tasks(&[(4, 10, 40.0), (4, 10, 1.0)]);
    let mut u = Uniq::new(GNpHvdf::new(t, 1));
    u.release(0, info(0, 0, 0, 10, 4));
    u.release(0, info(1, 0, 0, 10, 4));
    assert_eq!(u.linked, Some(jid(0, 0)));
    u.block(1, jid(0, 0), 0);
    assert_eq!(u.linked, Some(jid(1, 0)));
    assert!(u.resume(2, info(0, 0, 0, 10, 4), 0).links.is_empty());
    u.complete(5, jid(1, 0));
    assert_eq!(u.linked, Some(jid(0, 0)));
    assert!(u.out.aborts.is_empty());
}

/// A registry-built policy behind the [`Policy`] trait.
struct Boxed(Box<dyn Policy>);

impl Policy for Boxed {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn cpus(&self) -> u32 {
        self.0.cpus()
    }
    fn on_release(&mut self, ctx: &Ctx<'_>, job: &JobInfo, out: &mut Decisions) {
        self.0.on_release(ctx, job, out);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.0.on_complete(ctx, job, out);
    }
    fn on_abort(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.0.on_abort(ctx, job, out);
    }
    fn on_timer(&mut self, ctx: &Ctx<'_>, timer: crate::TimerId, out: &mut Decisions) {
        self.0.on_timer(ctx, timer, out);
    }
    fn linked(&self, cpu: CpuId) -> Option<JobId> {
        self.0.linked(cpu)
    }
}

fn build(name: &str, t: Arc<[PolicyTask]>, m: u32) -> Boxed {
    let placement = crate::Placement::new((0..t.len() as u32).map(|i| i % m).collect(), 1);
    Boxed(crate::build(name, &t, m, Some(placement)).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random releases, completions, engine aborts and timer firings on 1–3 CPUs: every
    /// linked job is one the policy holds (released, not completed or aborted), no job is on
    /// two CPUs (the harness), policy aborts name held jobs only and only abortable ones, and
    /// a job the policy aborted is never linked again.
    #[test]
    fn contract_under_random_events(
        m in 1u32..=3,
        spec in proptest::collection::vec((1u64..=20, 1u64..=60, 1u32..=20, any::<bool>()), 1..=6),
        script in proptest::collection::vec((0u8..4, 0usize..6, 1u64..=7), 1..=60),
    ) {
        let mut t: Vec<PolicyTask> = tasks(
            &spec.iter().map(|&(c, d, u, _)| (c, d.max(c), f64::from(u))).collect::<Vec<_>>(),
        ).to_vec();
        for (task, s) in t.iter_mut().zip(&spec) {
            task.abortable = s.3;
        }
        let t: Arc<[PolicyTask]> = t.into();
        for name in ["ghvdf", "gnphvdf", "phvdf", "plbesa", "pdasa"] {
            let mut h = Harness::new(build(name, t.clone(), m));
            let mut seq = vec![0u64; t.len()];
            let mut held: BTreeSet<JobId> = BTreeSet::new();
            let mut gone: BTreeSet<JobId> = BTreeSet::new();
            let mut now = 0;
            for &(op, k, dt) in &script {
                now += dt;
                let k = k % t.len();
                let cur = jid(k as u32, seq[k]);
                h.out.clear(); // fire_due leaves the last decisions when nothing is due
                match op {
                    0 if !held.contains(&cur) => {
                        let d = now + t[k].deadline.as_ns();
                        h.release(now, info(k as u32, seq[k], now, d, t[k].wcet.as_ns()));
                        held.insert(cur);
                    }
                    1 | 2 if held.contains(&cur) => {
                        if op == 1 { h.complete(now, cur); } else { h.abort(now, cur); }
                        held.remove(&cur);
                        seq[k] += 1;
                    }
                    _ => { h.fire_due(now); }
                }
                for &a in &h.out.aborts {
                    prop_assert!(held.remove(&a), "{}: aborted {} it does not hold", name, a);
                    prop_assert!(t[a.task.0 as usize].abortable, "{}: aborted non-abortable {}", name, a);
                    gone.insert(a);
                    seq[a.task.0 as usize] += 1;
                }
                for c in 0..m {
                    if let Some(j) = h.p.linked(CpuId(c)) {
                        prop_assert!(held.contains(&j) && !gone.contains(&j), "{}: links {}", name, j);
                    }
                }
            }
        }
    }
}

/// Grants: HVDF gives a released resource to the highest-LVD waiter, DASA and LBESA to the
/// earliest critical time; a waiter of another CPU (unknown here) comes last.
/// τ0 = (4, 50, 1) LVD 1/4, τ1 = (4, 30, 8) LVD 2, τ2 unknown to the policy.
#[test]
fn grants_follow_each_algorithms_order() {
    let t = tasks(&[(4, 50, 1.0), (4, 30, 8.0), (4, 10, 100.0)]);
    let waiters = [jid(2, 0), jid(0, 0), jid(1, 0)];
    let hv = Uni::new("phvdf", t.clone(), Hvdf);
    let da = Uni::new("pdasa", t.clone(), Dasa::new());
    let gh = GHvdf::new(t.clone(), 2);
    let mut hs = (Harness::new(hv), Harness::new(da), Harness::new(gh));
    for j in [info(0, 0, 0, 50, 4), info(1, 0, 0, 30, 4)] {
        hs.0.release(0, j);
        hs.1.release(0, j);
        hs.2.release(0, j);
    }
    let ctx = Ctx::new(Time::ZERO, &hs.0.progress);
    assert_eq!(hs.0.p.grant(&ctx, ResourceId(0), &waiters), 2);
    assert_eq!(hs.2.p.grant(&ctx, ResourceId(0), &waiters), 2);
    assert_eq!(
        hs.1.p.grant(&ctx, ResourceId(0), &[jid(2, 0), jid(0, 0)]),
        1
    );
    // τ1's deadline 30 is before τ0's 50.
    assert_eq!(hs.1.p.grant(&ctx, ResourceId(0), &waiters), 2);
    assert_eq!(hs.1.p.grant(&ctx, ResourceId(0), &[jid(2, 0)]), 0);
}
