//! The RTPS overhead accounting of split and non-split tasks [RTPS §V], as [`Costs`] for the
//! FP-TS assignment (`--overheads OH --arch semi-partitioned`).
//!
//! Names (overhead file section `[arch.semi-partitioned]`): `sch` = `schedule`, `cnt` =
//! `context_switch`, `tmr` = `timer`, `S_add`/`S_take` = `sleep_add`/`sleep_take`,
//! `R_add_l`/`R_add_r`/`R_take` = `ready_add_local`/`ready_add_remote`/`ready_take`;
//! `ch_l`/`ch_r` = the `[cpmd.preemption]`/`[cpmd.migration]` curves at the largest working
//! set among the parts of the CPU concerned, 0 bytes when none has one (RTPS's "common upper
//! bound" of cache overheads, §V: a constant curve such as `max = [[0, 50000]]` charges its
//! constant to every part, as §VII does with ch_l = 50 µs, ch_r = 200 µs; without curves and
//! working sets, 0). Formulas, exactly as printed (§V):
//!
//! - non-split: `C̄ = C + sch + S_take + S_add + R_add_l + 2·R_take + tmr + 2·cnt + ch_l`;
//! - `A = sch + S_take + R_add_r`, `B = sch + R_add_l + R_take + tmr + cnt`,
//!   `C = sch + R_take + R_add_r + cnt`, `D = sch + R_add_l + R_take + tmr + cnt + ch_r`,
//!   `E = sch + R_take + tmr + cnt + S_add + ch_l`;
//! - head `C^h + B + C`, body `C^b + C + D`, tail `C^t + A + D + E`.
//!
//! Each ready-queue operation is multiplied by `max(1, k)`, `k` the number of split tasks
//! hosted by the CPU whose ready queue it operates on — the spin-lock worst case of
//! [RTPS §VI-A] (its measured `R_*` are single uncontended operations): `R_add_l` and `R_take`
//! operate on the part's own CPU; the `R_add_r` of `C` on the CPU of the next part (where the
//! job migrates), the `R_add_r` of `A` on the head's CPU (the tail CPU releases the next job
//! straight into the head CPU's ready queue, §IV-B).
//!
//! Every overhead is evaluated at `n` = the number of parts on the part's own CPU (the
//! per-bin convention of `crate::overheads::context`; RTPS found them insensitive to it,
//! Table I). Charged costs are rounded up, deadlines and periods down, to `--granularity`.
//! Complexity: `O(1)` per part; the overheads at each `n` and the CPMD at each working set
//! are evaluated once per task set.

use super::costs::{Costs, CpuFacts, Site};
use super::split::PartKind;
use crate::overheads::accounting::Overheads;
use crate::overheads::arch::{in_file, overheads_for, ArchKind, MAX_OVERHEAD_NS};
use crate::overheads::context::OverheadContext;
use schedlab_model::overheads::{CpmdKind, OverheadFile, Stat};
use std::cell::RefCell;
use std::sync::Arc;

/// The RTPS costs of one task set.
pub(crate) struct RtpsCosts {
    /// Overheads evaluated at `n` parts, computed when first needed (curves are monotone in
    /// `n`, so checking them at the set's size checked them for every smaller `n`).
    by_n: RefCell<Vec<Option<Overheads>>>,
    /// The file and statistic the overheads come from.
    file: Arc<OverheadFile>,
    stat: Stat,
    /// The machine's CPUs (picks an `@m<m>` section).
    m: u32,
    /// Working set of each task (bytes; 0 if unknown).
    wss: Vec<u64>,
    /// `(wss, ch_l, ch_r)` for 0 bytes and every task's working set, sorted by `wss`: a CPU's
    /// largest working set is always one of them, so no curve is evaluated per trial.
    cache: Vec<(u64, u128, u128)>,
    granularity: u64,
}

impl RtpsCosts {
    /// The costs of the tasks of `ctx` (its architecture must be `semi-partitioned`). `Err`
    /// names a missing curve or a value that cannot be an overhead.
    pub(crate) fn new(ctx: &OverheadContext) -> Result<RtpsCosts, String> {
        let setup = &ctx.setup;
        let named = |e: String| in_file(&e, &setup.source);
        let n = ctx.tasks.len();
        let at_n = overheads_for(
            &setup.file,
            ArchKind::SemiPartitioned,
            setup.stat,
            n as u64,
            ctx.m,
        )
        .map_err(named)?;
        let mut by_n = vec![None; n + 1];
        if let Some(slot) = by_n.get_mut(n) {
            *slot = Some(at_n);
        }
        let wss: Vec<u64> = ctx.tasks.iter().map(|t| t.wss.unwrap_or(0)).collect();
        if let Some(largest) = ctx.tasks.iter().filter_map(|t| t.wss).max() {
            for kind in CpmdKind::ALL {
                match setup.file.cpmd(kind, setup.stat, largest) {
                    Err(e) => return Err(named(e.to_string())),
                    Ok(None) => {
                        return Err(named(format!(
                            "overhead file: no `[cpmd.{}]` curve, which tasks with a working set need under semi-partitioned (ch_{})",
                            kind.key(),
                            if kind == CpmdKind::Preemption { "l" } else { "r" }
                        )))
                    }
                    Ok(Some(d)) if d.as_ns() > MAX_OVERHEAD_NS => {
                        return Err(named(format!(
                            "overhead file: cpmd `{}`, field `{}`: {} ns at {largest} bytes is more than an hour, not an overhead (a unit mistake?)",
                            kind.key(),
                            setup.stat.key(),
                            d.as_ns()
                        )))
                    }
                    Ok(Some(_)) => {}
                }
            }
        }
        let mut sizes: Vec<u64> = wss.iter().copied().chain([0]).collect();
        sizes.sort_unstable();
        sizes.dedup();
        let cache = sizes
            .into_iter()
            .map(|w| {
                (
                    w,
                    curve_at(&setup.file, setup.stat, CpmdKind::Preemption, w),
                    curve_at(&setup.file, setup.stat, CpmdKind::Migration, w),
                )
            })
            .collect();
        Ok(RtpsCosts {
            by_n: RefCell::new(by_n),
            file: Arc::clone(&setup.file),
            stat: setup.stat,
            m: ctx.m,
            wss,
            cache,
            granularity: setup.granularity.max(1),
        })
    }

    /// The overheads at `n` parts (at most the set's size).
    fn overheads(&self, n: usize) -> Overheads {
        let mut by_n = self.by_n.borrow_mut();
        let last = by_n.len().saturating_sub(1);
        let slot = by_n.get_mut(n.min(last));
        match slot {
            Some(Some(oh)) => *oh,
            Some(empty) => {
                // Checked at the set's size in `new`: the curves exist and are monotone.
                let oh = overheads_for(
                    &self.file,
                    ArchKind::SemiPartitioned,
                    self.stat,
                    n as u64,
                    self.m,
                )
                .unwrap_or_default();
                *empty = Some(oh);
                oh
            }
            None => Overheads::default(),
        }
    }

    /// `(ch_l, ch_r)` at `wss` (a cached size; 0 for any other).
    fn cpmd(&self, wss: u64) -> (u128, u128) {
        match self.cache.binary_search_by_key(&wss, |&(w, _, _)| w) {
            Ok(i) => self.cache.get(i).map_or((0, 0), |&(_, l, r)| (l, r)),
            Err(_) => (0, 0),
        }
    }
}

/// A CPMD curve's value at `wss` (0 where the file has none).
fn curve_at(file: &OverheadFile, stat: Stat, kind: CpmdKind, wss: u64) -> u128 {
    match file.cpmd(kind, stat, wss) {
        Ok(Some(d)) => u128::from(d.as_ns()),
        _ => 0,
    }
}

/// `max(1, k)` for the CPU `cpu`.
fn k_of(facts: &CpuFacts<'_>, cpu: usize) -> u128 {
    u128::from(facts.splits.get(cpu).copied().unwrap_or(0).max(1))
}

impl Costs for RtpsCosts {
    fn extra(&self, site: &Site, facts: &CpuFacts<'_>) -> u64 {
        let n = facts.pieces.get(site.own).copied().unwrap_or(0);
        let oh = &self.overheads(n);
        let own = k_of(facts, site.own);
        let wss = facts.max_wss.get(site.own).copied().unwrap_or(0);
        let (sch, cnt, tmr) = (
            u128::from(oh.schedule),
            u128::from(oh.context_switch),
            u128::from(oh.timer),
        );
        let (s_add, s_take) = (u128::from(oh.sleep_add), u128::from(oh.sleep_take));
        let (r_add_l, r_add_r, r_take) = (
            u128::from(oh.ready_add_local),
            u128::from(oh.ready_add_remote),
            u128::from(oh.ready_take),
        );
        let (ch_l, ch_r) = self.cpmd(wss);
        let next = site.next.map_or(own, |c| k_of(facts, c));
        let a = sch + s_take + k_of(facts, site.head) * r_add_r;
        let b = sch + own * r_add_l + own * r_take + tmr + cnt;
        let c = sch + own * r_take + next * r_add_r + cnt;
        let d = sch + own * r_add_l + own * r_take + tmr + cnt + ch_r;
        let e = sch + own * r_take + tmr + cnt + s_add + ch_l;
        let total = match site.kind {
            PartKind::Whole => {
                oh.rtps_whole_margin(facts.splits.get(site.own).copied().unwrap_or(0)) + ch_l
            }
            PartKind::Head => b + c,
            PartKind::Body => c + d,
            PartKind::Tail => a + d + e,
        };
        u64::try_from(total).unwrap_or(u64::MAX)
    }
    fn wss(&self, task: usize) -> u64 {
        self.wss.get(task).copied().unwrap_or(0)
    }
    fn granularity(&self) -> u64 {
        self.granularity
    }
}
