//! Hand-worked GUA schedules, deadlock resolution, and invariants under random events.

use super::*;
use crate::event::{Progress, Resources};
use crate::testutil::{info, jid, task, Harness, MapProgress};
use proptest::prelude::*;
use schedlab_model::{Time, Tuf};
use std::collections::{BTreeMap, BTreeSet};

/// A fake resource view: `waits[job] = resource`, `holds[resource] = job`.
#[derive(Default)]
struct FakeResources {
    waits: BTreeMap<JobId, ResourceId>,
    holds: BTreeMap<ResourceId, JobId>,
}

impl Resources for FakeResources {
    fn blocked_on(&self, job: JobId) -> Option<ResourceId> {
        self.waits.get(&job).copied()
    }
    fn owner(&self, resource: ResourceId) -> Option<JobId> {
        self.holds.get(&resource).copied()
    }
    fn any(&self) -> bool {
        true
    }
}

/// Drives a policy with resources (the shared harness has none): time, progress of the linked
/// jobs, the mirror of the links, and the contract checks after each event.
struct Driver {
    p: Gua,
    now: u64,
    progress: MapProgress,
    res: FakeResources,
    out: Decisions,
    aborted: Vec<JobId>,
}

impl Driver {
    fn new(variant: Variant, tasks: Vec<PolicyTask>, m: u32) -> Driver {
        Driver {
            p: Gua::new(variant, tasks, m),
            now: 0,
            progress: MapProgress::default(),
            res: FakeResources::default(),
            out: Decisions::new(),
            aborted: Vec::new(),
        }
    }

    fn advance(&mut self, t: u64) {
        let dt = t - self.now;
        for c in 0..self.p.cpus() {
            if let Some(j) = self.p.linked(CpuId(c)) {
                *self.progress.0.entry(j).or_insert(0) += dt;
            }
        }
        self.now = t;
    }

    fn event(&mut self, t: u64, f: impl FnOnce(&mut Gua, &Ctx<'_>, &mut Decisions)) {
        self.advance(t);
        self.out.clear();
        let ctx = Ctx {
            now: Time::from_ns(self.now),
            progress: &self.progress,
            resources: &self.res,
        };
        f(&mut self.p, &ctx, &mut self.out);
        self.aborted.extend(self.out.aborts.iter().copied());
        let mut seen = BTreeSet::new();
        for c in 0..self.p.cpus() {
            if let Some(j) = self.p.linked(CpuId(c)) {
                assert!(seen.insert(j), "{j} on two CPUs");
                assert!(!self.res.waits.contains_key(&j), "blocked {j} linked");
                assert!(!self.aborted.contains(&j), "aborted {j} linked");
            }
        }
    }

    fn release(&mut self, t: u64, job: JobInfo) {
        self.event(t, |p, ctx, out| p.on_release(ctx, &job, out));
    }
    fn complete(&mut self, t: u64, job: JobId) {
        self.event(t, |p, ctx, out| p.on_complete(ctx, job, out));
    }
    fn block(&mut self, t: u64, job: JobId, on: u32) {
        self.res.waits.insert(job, ResourceId(on));
        self.event(t, |p, ctx, out| p.on_block(ctx, job, out));
    }
    fn resume(&mut self, t: u64, job: JobInfo) {
        self.res.waits.remove(&job.id);
        self.event(t, |p, ctx, out| p.on_resume(ctx, &job, out));
    }
    fn timer(&mut self, t: u64) {
        self.event(t, |p, ctx, out| p.on_timer(ctx, TimerId(0), out));
    }
    fn running(&self) -> BTreeSet<JobId> {
        (0..self.p.cpus())
            .filter_map(|c| self.p.linked(CpuId(c)))
            .collect()
    }
}

fn valued(wcet: u64, deadline: u64, period: u64, index: u32, value: f64) -> PolicyTask {
    let mut t = task(wcet, deadline, period, index);
    t.tuf = Some(Tuf::Step { value });
    t.utility = Some(value);
    t
}

fn set(ids: &[(u32, u64)]) -> BTreeSet<JobId> {
    ids.iter().map(|&(t, s)| jid(t, s)).collect()
}

/// Example 1 (no resources; 2 CPUs), everything released at 0, step TUFs:
///
/// | job | c | d | T | V | LVD = V/c | u = c/T |
/// |---|---|---|---|---|---|---|
/// | A = τ0 | 6 | 10 | 10 | 12 | 2.0 | 0.6 |
/// | B = τ1 | 7 | 10 | 20 | 13 | 1.86 | 0.35 |
/// | C = τ2 | 4 | 8 | 10 | 6 | 1.5 | 0.4 |
///
/// At the third release all three policies consider A, B, C. A goes to CPU 0 (both at 0,
/// lowest index), B to CPU 1 (0 < 0.6). C's least-utilized CPU is CPU 1 (0.35 < 0.6): the
/// list [C (finishes 4 ≤ 8), B (finishes 11 > 10)] is infeasible.
/// - gMUA and NG-GUA drop C (overload: heads, not G-EDF): A and B run; A completes at 6 and
///   C (4 left, 6 + 4 > 8) can no longer make it: aborted at its deadline 8 (its timer).
///   Accrued 12 + 13 = 25.
/// - G-GUA tries CPU 0 next: [C (4 ≤ 8), A (10 ≤ 10)] is feasible, so its heads are C and B:
///   C preempts A on CPU 0 (B keeps CPU 1). C completes at 4, A runs 4–10 (completion at 10
///   meets its deadline), B 0–7: accrued 6 + 12 + 13 = 31.
#[test]
fn example_1_ggua_tries_the_other_cpu() {
    let tasks = || {
        vec![
            valued(6, 10, 10, 0, 12.0),
            valued(7, 10, 20, 1, 13.0),
            valued(4, 8, 10, 2, 6.0),
        ]
    };
    let jobs = [
        info(0, 0, 0, 10, 6),
        info(1, 0, 0, 10, 7),
        info(2, 0, 0, 8, 4),
    ];
    for variant in [Variant::Gmua, Variant::NgGua] {
        let mut h = Harness::new(Gua::new(variant, tasks(), 2));
        for j in jobs {
            h.release(0, j);
        }
        assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)), "{variant:?}");
        assert_eq!(h.p.linked(CpuId(1)), Some(jid(1, 0)), "{variant:?}");
        h.complete(6, jid(0, 0));
        // C cannot make it any more: CPU 0 idles; B keeps CPU 1.
        assert_eq!(h.links(), vec![(0, None)]);
        h.complete(7, jid(1, 0));
        assert_eq!(h.fire_due(8).map(|_| h.now), Some(8));
        assert_eq!(h.out.aborts, vec![jid(2, 0)], "{variant:?}");
    }
    let mut h = Harness::new(Gua::new(Variant::GGua, tasks(), 2));
    for j in jobs {
        h.release(0, j);
    }
    assert_eq!(h.links(), vec![(0, Some(jid(2, 0)))]);
    assert_eq!(h.p.linked(CpuId(1)), Some(jid(1, 0)));
    h.complete(4, jid(2, 0));
    assert_eq!(h.links(), vec![(0, Some(jid(0, 0)))]);
    h.complete(7, jid(1, 0));
    h.complete(10, jid(0, 0));
    assert!(h.out.aborts.is_empty());
}

fn example_2_tasks() -> Vec<PolicyTask> {
    vec![
        valued(6, 30, 100, 0, 1.0),
        valued(6, 12, 100, 1, 40.0),
        valued(9, 10, 100, 2, 18.0),
        valued(9, 10, 100, 3, 17.0),
        valued(2, 10, 100, 4, 3.0),
    ]
}

/// Example 2 (2 CPUs, one resource R): L = τ0 (c 6, d 30, V 1) starts at 0 on CPU 0 and
/// locks R; H = τ1 (c 6, released 1, d 13, V 40) runs on CPU 1 and blocks on R at 2. At 2,
/// M1 = τ2 (c 9, d 12, V 18), M2 = τ3 (c 9, d 12, V 17) and S = τ4 (c 2, d 12, V 3) arrive.
/// At 2: L has 4 left, H 5, M1 9, M2 9, S 2; u = c/100.
///
/// - gMUA ignores the dependency: candidates M1 (LVD 2), M2 (1.89), S (1.5), L (0.25).
///   M1 → CPU 0, M2 → CPU 1 (0 < .09), S → CPU 0 (tie: lowest) where [M1 (11), S (13 > 12)]
///   fails: dropped, so heads: **{M1, M2}**. Both finish at 11; L runs 11–15 and H is
///   still blocked at its deadline 13: aborted then.
/// - NG-GUA: H's chain {H, L} has PUD (40 + 1)/(5 + 4) = 4.56, first. It goes to CPU 0 with
///   both members due by 13: [L (6), H (11)]. M1 → CPU 1 (0 < .12). M2 → CPU 1 (.09 < .12):
///   [M1, M2 (20)] fails; S → CPU 1: [M1 (11), S (13 > 12)] fails. Heads: **{L, M1}** (L
///   runs in place of H). L completes at 6, H resumes: H (40/5 = 8), M1, S (3/2), M2 (worth
///   0: 6 + 9 > 12); H → CPU 0, M1 → CPU 1, S → CPU 0 [S (8), H (13)], M2 dropped: heads
///   {S, M1}; S completes at 8, then H runs 8–13 and completes at its deadline.
/// - G-GUA: as NG-GUA up to S, which fails on CPU 1 but fits CPU 0: [S (4), L (8),
///   H (13)]; M2 fits neither ([M2 (11), L (15 > 13)] on CPU 0). Heads: **{S, M1}**. S
///   completes at 4, then H's chain leads again: L runs 4–8, H 8–13.
#[test]
fn example_2_the_three_differ() {
    let l = info(0, 0, 0, 30, 6);
    let h = info(1, 0, 1, 13, 6);
    let m1 = info(2, 0, 2, 12, 9);
    let m2 = info(3, 0, 2, 12, 9);
    let s = info(4, 0, 2, 12, 2);
    let start = |variant| {
        let mut d = Driver::new(variant, example_2_tasks(), 2);
        d.res.holds.insert(ResourceId(0), l.id);
        d.release(0, l);
        d.release(1, h);
        assert_eq!(d.running(), set(&[(0, 0), (1, 0)]));
        d.block(2, h.id, 0);
        for j in [m1, m2, s] {
            d.release(2, j);
        }
        d
    };
    let mut g = start(Variant::Gmua);
    assert_eq!(g.running(), set(&[(2, 0), (3, 0)]));
    g.complete(11, m1.id);
    g.complete(11, m2.id);
    assert_eq!(g.running(), set(&[(0, 0)]));
    g.timer(12); // S's deadline: S is aborted
    assert_eq!(g.out.aborts, vec![s.id]);
    g.timer(13);
    assert_eq!(g.out.aborts, vec![h.id]);

    let mut ng = start(Variant::NgGua);
    assert_eq!(ng.running(), set(&[(0, 0), (2, 0)]));
    ng.res.holds.remove(&ResourceId(0));
    ng.complete(6, l.id);
    ng.res.holds.insert(ResourceId(0), h.id);
    ng.resume(6, h);
    assert_eq!(ng.running(), set(&[(4, 0), (2, 0)]));
    ng.complete(8, s.id);
    assert_eq!(ng.running(), set(&[(1, 0), (2, 0)]));
    ng.complete(11, m1.id);
    ng.timer(12);
    assert_eq!(ng.out.aborts, vec![m2.id]);
    ng.complete(13, h.id);
    assert_eq!(ng.aborted, vec![m2.id]);

    let mut gg = start(Variant::GGua);
    assert_eq!(gg.running(), set(&[(4, 0), (2, 0)]));
    gg.complete(4, s.id);
    assert_eq!(gg.running(), set(&[(0, 0), (2, 0)]));
    gg.res.holds.remove(&ResourceId(0));
    gg.complete(8, l.id);
    gg.res.holds.insert(ResourceId(0), h.id);
    gg.resume(8, h);
    assert_eq!(gg.running(), set(&[(1, 0), (2, 0)]));
    gg.complete(11, m1.id);
    gg.timer(12);
    gg.complete(13, h.id);
    assert_eq!(gg.aborted, vec![m2.id]);
}

/// A deadlock: A = τ0 (c 10, d 50, V 10) holds R0 and waits for R1; B = τ1 (c 8, d 40,
/// V 2) holds R1 and waits for R0. At 3 B blocks (A blocked at 2): the chains of A and B
/// come back to themselves. Densities: A 10/(10 − 2) = 1.25, B 2/(8 − 2) ≈ 0.33: NG-GUA and
/// G-GUA abort B, the cycle's least dense job; A stays blocked (B's handler releases R1)
/// until it is granted R1 and resumes, then runs. gMUA does not follow chains: nothing is
/// aborted, both wait (deadlocked).
#[test]
fn deadlock_cycle_is_broken_by_aborting_its_least_dense_job() {
    let a = info(0, 0, 0, 50, 10);
    let b = info(1, 0, 1, 40, 8);
    let tasks = || vec![valued(10, 50, 100, 0, 10.0), valued(8, 39, 100, 1, 2.0)];
    for variant in [Variant::Gmua, Variant::NgGua, Variant::GGua] {
        let mut d = Driver::new(variant, tasks(), 2);
        d.res.holds.insert(ResourceId(0), a.id);
        d.res.holds.insert(ResourceId(1), b.id);
        d.release(0, a);
        d.release(1, b);
        d.block(2, a.id, 1);
        assert!(d.out.aborts.is_empty());
        d.block(3, b.id, 0);
        assert!(d.running().is_empty());
        if variant == Variant::Gmua {
            assert!(d.aborted.is_empty());
            continue;
        }
        assert_eq!(d.out.aborts, vec![b.id], "{variant:?}");
        d.res.holds.insert(ResourceId(1), a.id);
        d.resume(3, a);
        assert_eq!(d.running(), set(&[(0, 0)]));
    }
}

/// A cycle of non-abortable jobs cannot be broken: nobody is aborted, nobody runs.
#[test]
fn a_cycle_of_non_abortable_jobs_stays() {
    let mut tasks = vec![valued(10, 50, 100, 0, 10.0), valued(8, 39, 100, 1, 2.0)];
    for t in &mut tasks {
        t.abortable = false;
    }
    let mut d = Driver::new(Variant::NgGua, tasks, 2);
    d.res.holds.insert(ResourceId(0), jid(0, 0));
    d.res.holds.insert(ResourceId(1), jid(1, 0));
    d.release(0, info(0, 0, 0, 50, 10));
    d.release(0, info(1, 0, 0, 39, 8));
    d.block(1, jid(0, 0), 1);
    d.block(1, jid(1, 0), 0);
    assert!(d.aborted.is_empty() && d.running().is_empty());
}

/// A non-abortable job past its deadline is kept and runs only on a CPU nothing else wants:
/// τ0 (c 5, d 3, not abortable) and τ1 (c 2, d 10) on 1 CPU. At 0 τ0 (0 + 5 > 3) is
/// dropped, τ1 runs 0–2. At 2 nothing is left but τ0: it is not a candidate before its
/// deadline either (infeasible), so the CPU idles until the timer at 3, when τ0 becomes
/// worthless and fills the idle CPU; nothing is aborted.
#[test]
fn late_non_abortable_jobs_fill_idle_cpus() {
    let mut t0 = valued(5, 3, 100, 0, 4.0);
    t0.abortable = false;
    let tasks = vec![t0, valued(2, 10, 100, 1, 1.0)];
    let mut h = Harness::new(Gua::new(Variant::GGua, tasks, 1));
    h.release(0, info(0, 0, 0, 3, 5));
    h.release(0, info(1, 0, 0, 10, 2));
    assert_eq!(h.p.linked(CpuId(0)), Some(jid(1, 0)));
    h.complete(2, jid(1, 0));
    assert_eq!(h.links(), vec![(0, None)]);
    h.fire_due(3);
    assert_eq!(h.links(), vec![(0, Some(jid(0, 0)))]);
    assert!(h.out.aborts.is_empty());
}

/// Underload: gMUA is G-EDF. 2 CPUs, all c = 2, V = 1 (equal densities: task order),
/// A = τ0 (d 20), B = τ1 (d 4), C = τ2 (d 5), D = τ3 (d 6), released at 0 in that order.
/// With A, B: A → CPU 0, B → CPU 1, nothing dropped: the two earliest B, A run (as G-EDF).
/// With C: A → CPU 0, B → CPU 1, C → CPU 0 (tie of utilizations: lowest) [C (2), A (4)];
/// nothing dropped, so the two earliest critical times B and C run: C takes A's CPU 0, as
/// G-EDF preempts its latest deadline. D → CPU 1 [B (2), D (4)]: no change. At 2 B and C
/// complete (B first): C (nothing left, densest) and D run, D on B's CPU 1; then A and D, A
/// back on CPU 0. At 4 D and A complete. G-EDF's link decisions are the same at every event.
#[test]
fn underload_is_gedf() {
    let tasks = || {
        (0..4)
            .map(|i| valued(2, 20, 100, i, 1.0))
            .collect::<Vec<_>>()
    };
    let jobs = [
        info(0, 0, 0, 20, 2),
        info(1, 0, 0, 4, 2),
        info(2, 0, 0, 5, 2),
        info(3, 0, 0, 6, 2),
    ];
    let mut gedf = Harness::new(crate::GlobalJlfp::gedf(tasks(), 2));
    let mut gm = Harness::new(Gua::new(Variant::Gmua, tasks(), 2));
    for j in jobs {
        gedf.release(0, j);
        gm.release(0, j);
        assert_eq!(gm.out.links, gedf.out.links);
    }
    for (t, j) in [
        (2, jid(1, 0)),
        (2, jid(2, 0)),
        (4, jid(3, 0)),
        (4, jid(0, 0)),
    ] {
        gedf.complete(t, j);
        gm.complete(t, j);
        assert_eq!(gm.out.links, gedf.out.links, "at {t}");
    }
}

/// A transitive chain on 2 CPUs, all released at 0 (c 10 each, step TUFs): L = τ0 (V 1,
/// d 100) holds R0; M = τ1 (V 2, d 100) holds R1 and waits for R0; H = τ2 (V 80, d 30) waits
/// for R1; X = τ3 (V 20, d 30), Y = τ4 (V 19, d 30).
/// - gMUA parks M and H: the runnable L (100), X (30), Y (30) pass the G-EDF check (X, Y
///   0–10, L 10–20), so the two earliest run: **{X, Y}**; L waits, and H with it.
/// - NG-GUA: H's chain H → M → L ends at L, which carries H's critical time 30: G-EDF on
///   L (30), X (30), Y (30) — L 0–10, X 0–10, Y 10–20 — meets all, and the two first by
///   (30, task index) run: **{L, X}**: L runs for H.
/// - G-GUA builds the lists: H's chain (PUD (80 + 2 + 1)/30 = 2.77, denser than X's 2 and
///   Y's 1.9) → CPU 0 as [L, M, H] all due by 30 (done at 10, 20, 30); X → CPU 1 (0 < .3);
///   Y → CPU 1 (.1 < .3): [X, Y] (10, 20). Heads: **{L, X}**.
#[test]
fn a_transitive_chain_runs_its_end_for_the_blocked_job() {
    let tasks = || {
        vec![
            valued(10, 100, 100, 0, 1.0),
            valued(10, 100, 100, 1, 2.0),
            valued(10, 30, 100, 2, 80.0),
            valued(10, 30, 100, 3, 20.0),
            valued(10, 30, 100, 4, 19.0),
        ]
    };
    for (variant, want) in [
        (Variant::Gmua, set(&[(3, 0), (4, 0)])),
        (Variant::NgGua, set(&[(0, 0), (3, 0)])),
        (Variant::GGua, set(&[(0, 0), (3, 0)])),
    ] {
        let mut d = Driver::new(variant, tasks(), 2);
        d.res.holds.insert(ResourceId(0), jid(0, 0));
        d.res.holds.insert(ResourceId(1), jid(1, 0));
        d.release(0, info(0, 0, 0, 100, 10));
        d.release(0, info(1, 0, 0, 100, 10));
        d.block(0, jid(1, 0), 0);
        d.release(0, info(2, 0, 0, 30, 10));
        d.block(0, jid(2, 0), 1);
        d.release(0, info(3, 0, 0, 30, 10));
        d.release(0, info(4, 0, 0, 30, 10));
        assert_eq!(d.running(), want, "{variant:?}");
        assert!(d.aborted.is_empty());
    }
}

/// An engine abort (`--abort-late`) of the running job: the policy forgets it and its CPU
/// takes the next job. 1 CPU: A = τ0 (c 4, d 4), B = τ1 (c 2, d 10); A runs (earliest
/// deadline, G-EDF holds); the engine aborts A at 3: B runs.
#[test]
fn an_engine_abort_frees_the_cpu() {
    for variant in [Variant::Gmua, Variant::NgGua, Variant::GGua] {
        let tasks = vec![valued(4, 4, 10, 0, 1.0), valued(2, 10, 10, 1, 1.0)];
        let mut h = Harness::new(Gua::new(variant, tasks, 1));
        h.release(0, info(0, 0, 0, 4, 4));
        h.release(0, info(1, 0, 0, 10, 2));
        assert_eq!(h.p.linked(CpuId(0)), Some(jid(0, 0)), "{variant:?}");
        h.abort(3, jid(0, 0));
        assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))], "{variant:?}");
        assert!(h.out.aborts.is_empty());
    }
}

/// A linear TUF keeps its job until its termination time, not its deadline: τ0 (c 20,
/// d 10, V 10 falling to 0 at 30 after release) and τ1 (c 20, step V 100, released 5, d 25),
/// 1 CPU. At 5 τ1 (100/20) is denser than τ0 (15 left, worth 10·10/30 at 20: 0.22): τ1 runs
/// 5–25 and τ0 (25 + 15 > 30) is dropped. At 25 τ0 cannot make 30 any more: the CPU idles;
/// no timer fires at τ0's deadline 10, and τ0 is aborted at 30, its termination time.
#[test]
fn a_linear_tuf_is_aborted_at_its_termination_time() {
    let mut t0 = task(20, 10, 100, 0);
    t0.tuf = Some(Tuf::Linear {
        value: 10.0,
        zero_at: schedlab_model::Duration::from_ns(30),
    });
    let tasks = vec![t0, valued(20, 20, 100, 1, 100.0)];
    let mut h = Harness::new(Gua::new(Variant::GGua, tasks, 1));
    h.release(0, info(0, 0, 0, 10, 20));
    h.release(5, info(1, 0, 5, 25, 20));
    assert_eq!(h.links(), vec![(0, Some(jid(1, 0)))]);
    h.complete(25, jid(1, 0));
    assert_eq!(h.links(), vec![(0, None)]);
    assert_eq!(h.fire_due(29), None);
    assert!(h.fire_due(30).is_some());
    assert_eq!(h.out.aborts, vec![jid(0, 0)]);
}

// ---- random events: invariants, NG-GUA = gMUA without resources, determinism ----

#[derive(Clone, Debug)]
enum Step {
    /// Release the next job of task `i` (if its previous job is gone), after `dt`.
    Release(usize, u64),
    /// Complete the linked job of CPU `c` (if any), after `dt`.
    Complete(u32, u64),
    /// Fire every timer due within `dt`.
    Timers(u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..6, 0u64..8).prop_map(|(i, dt)| Step::Release(i, dt)),
        (0u32..3, 0u64..8).prop_map(|(c, dt)| Step::Complete(c, dt)),
        (0u64..10).prop_map(Step::Timers),
    ]
}

fn random_tasks() -> impl Strategy<Value = Vec<PolicyTask>> {
    proptest::collection::vec((1u64..12, 4u64..30, 1u32..10, any::<bool>()), 6).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (c, d, val, ab))| {
                let mut t = valued(c, d.max(c), d.max(c) + 5, i as u32, f64::from(val));
                t.abortable = ab || i % 2 == 0;
                t
            })
            .collect()
    })
}

/// What a random run has seen: the jobs active, the jobs gone, every event's decisions.
#[derive(Default)]
struct Seen {
    active: BTreeMap<usize, JobInfo>,
    gone: BTreeSet<JobId>,
    log: Vec<Decisions>,
}

/// Checks an event's aborts (abortable jobs past their deadline, known) and that no job that
/// left is linked, and logs the decisions.
fn record(h: &Harness<Gua>, tasks: &[PolicyTask], seen: &mut Seen) {
    for &a in &h.out.aborts {
        let i = a.task.0 as usize;
        let j = seen.active.remove(&i).expect("aborted an unknown job");
        assert!(tasks[i].abortable, "{a} is not abortable");
        assert!(
            j.deadline.as_ns() <= h.now,
            "{a} aborted before its deadline"
        );
        seen.gone.insert(a);
    }
    for c in 0..h.p.cpus() {
        if let Some(j) = h.p.linked(CpuId(c)) {
            assert!(!seen.gone.contains(&j), "{j} linked after it left");
        }
    }
    seen.log.push(h.out.clone());
}

/// Runs `steps` on a policy on 3 CPUs, returning every event's decisions; the harness checks
/// the link contract after each event, [`record`] the aborts.
fn run(variant: Variant, tasks: &[PolicyTask], steps: &[Step]) -> Vec<Decisions> {
    let mut h = Harness::new(Gua::new(variant, tasks.to_vec(), 3));
    let mut seq = vec![0u64; tasks.len()];
    let mut seen = Seen::default();
    for s in steps {
        match *s {
            Step::Release(i, dt) => {
                if seen.active.contains_key(&i) {
                    continue;
                }
                let t = &tasks[i];
                let now = h.now + dt;
                let j = info(
                    i as u32,
                    seq[i],
                    now,
                    now + t.deadline.as_ns(),
                    t.wcet.as_ns(),
                );
                seq[i] += 1;
                seen.active.insert(i, j);
                h.release(now, j);
            }
            Step::Complete(c, dt) => {
                let Some(j) = h.p.linked(CpuId(c)) else {
                    continue;
                };
                let done = h.progress.executed(j).as_ns() + dt;
                if done > tasks[j.task.0 as usize].wcet.as_ns() {
                    continue;
                }
                seen.active.remove(&(j.task.0 as usize));
                seen.gone.insert(j);
                let now = h.now + dt;
                h.complete(now, j);
            }
            Step::Timers(dt) => {
                let until = h.now + dt;
                while h.fire_due(until).is_some() {
                    record(&h, tasks, &mut seen);
                }
                h.advance(until);
                continue;
            }
        }
        record(&h, tasks, &mut seen);
    }
    seen.log
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Without resources NG-GUA makes gMUA's decisions at every event; every policy keeps the
    /// link contract and is deterministic.
    #[test]
    fn nggua_is_gmua_without_resources_and_all_are_deterministic(
        tasks in random_tasks(),
        steps in proptest::collection::vec(step(), 1..80),
    ) {
        let gm = run(Variant::Gmua, &tasks, &steps);
        let ng = run(Variant::NgGua, &tasks, &steps);
        prop_assert_eq!(&gm, &ng);
        prop_assert_eq!(&gm, &run(Variant::Gmua, &tasks, &steps));
        let gg = run(Variant::GGua, &tasks, &steps);
        prop_assert_eq!(&gg, &run(Variant::GGua, &tasks, &steps));
    }
}

#[test]
fn grant_picks_the_densest_waiter_except_gmua() {
    let tasks = vec![valued(10, 50, 100, 0, 1.0), valued(10, 50, 100, 1, 9.0)];
    let progress = MapProgress::default();
    let ctx = Ctx::new(Time::from_ns(0), &progress);
    let waiters = [jid(0, 0), jid(1, 0)];
    for (variant, want) in [(Variant::Gmua, 0), (Variant::NgGua, 1), (Variant::GGua, 1)] {
        let mut p = Gua::new(variant, tasks.clone(), 1);
        let mut out = Decisions::new();
        p.on_release(&ctx, &info(0, 0, 0, 50, 10), &mut out);
        p.on_release(&ctx, &info(1, 0, 0, 50, 10), &mut out);
        assert_eq!(p.grant(&ctx, ResourceId(0), &waiters), want);
    }
}
