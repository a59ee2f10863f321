//! Global fixed-priority (G-FP) scheduling on `m` identical processors: sufficient tests.
//!
//! | name | paper | deadlines | bounds |
//! |---|---|---|---|
//! | `gfp-abj` | Andersson, Baruah & Jonsson, RTSS 2001: RM with `u ≤ m/(3m−2)`, `U ≤ m²/(3m−2)` | implicit, RM | — |
//! | `gfp-bg` | Baruah & Goossens, IEEE TC 2003: RM with `u ≤ 1/3`, `U ≤ m/3` | implicit, RM | — |
//! | `gfp-bak` | Baker, RTS 2006 (as in [ChronOS §6.3, Eq. 6.1–6.2]) | arbitrary | — |
//! | `gfp-rta` | Bertogna & Cirinei, RTSS 2007: RTA with slack | constrained | response times |
//! | `gfp-rta-lc` | Guan, Stigge, Yi & Yu, RTSS 2009: RTA with limited carry-in | constrained | response times |
//! | `gfp` | accepted by any of the above (cheap tests first) | — | from the accepting member |
//!
//! Priorities come from [`System::priority_order`] (DM by default, RM or given); the
//! utilization-bound tests (`gfp-abj`, `gfp-bg`) are stated for rate-monotonic priorities and
//! answer "not applicable" unless the order is RM-compatible (periods non-decreasing from the
//! highest to the lowest priority; ties in any order).
//!
//! Common conventions: times are integer nanoseconds; every test is sufficient (it answers
//! schedulable or not-shown, never unschedulable). The response-time analyses run in priority
//! order, so the bound of each higher-priority task is final when a lower-priority task uses it
//! (for fixed priorities the iterative slack update of Bertogna & Cirinei converges after this one pass).

pub mod abj;
pub mod bak;
pub mod bg;
pub mod rta;
pub mod rta_lc;

pub use abj::Abj;
pub use bak::Bak;
pub use bg::Bg;
pub use rta::Rta;
pub use rta_lc::RtaLc;

use crate::battery::AnyOf;
use crate::test::{Kind, SchedTest, TestInfo};

/// The scheduler family of every test here.
pub const FAMILY: &str = "global-fp";

/// The tests of this family, in listing order (the battery `gfp` last).
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![
        Box::new(Abj),
        Box::new(Bg),
        Box::new(Bak),
        Box::new(Rta::default()),
        Box::new(RtaLc::default()),
        Box::new(battery()),
    ]
}

/// `gfp`: schedulable if any G-FP test accepts, trying the cheap ones first
/// (`gfp-abj`, `gfp-bg`, `gfp-bak`, `gfp-rta`, `gfp-rta-lc`).
pub fn battery() -> AnyOf {
    AnyOf {
        info: TestInfo {
            name: "gfp".into(),
            family: FAMILY,
            kind: Kind::Sufficient,
            citation: "any of gfp-abj (Andersson, Baruah & Jonsson, RTSS 2001), gfp-bg (Baruah & \
                       Goossens, IEEE TC 2003), gfp-bak (Baker, Real-Time Systems 2006), gfp-rta \
                       (Bertogna & Cirinei, RTSS 2007), gfp-rta-lc (Guan, Stigge, Yi & Yu, RTSS 2009)",
            assumptions: "sporadic tasks, global preemptive fixed priorities; each member's own \
                          deadline and priority assumptions (members that do not apply are skipped)",
            complexity: "dominated by gfp-rta / gfp-rta-lc: pseudo-polynomial, O(n² · iterations)",
        },
        members: vec![
            Box::new(Abj),
            Box::new(Bg),
            Box::new(Bak),
            Box::new(Rta::default()),
            Box::new(RtaLc::default()),
        ],
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    //! Properties across the family: soundness guards, relations proven in the papers, and a
    //! tiny exact uniprocessor response-time analysis as the reference at `m = 1`.

    use super::*;
    use crate::system::{Params, Priorities, System};
    use crate::test::analyze;
    use crate::verdict::Status;
    use proptest::prelude::*;

    /// Exact uniprocessor FP response time (Joseph & Pandya; Audsley et al.) for constrained
    /// deadlines under the given priority order: `R = C + Σ_hp ⌈R/T⌉ C`, from `R = C`.
    /// `None` when some task's response time exceeds its deadline.
    pub(super) fn uni_rta(p: &[Params], order: &[usize]) -> Option<Vec<u64>> {
        let mut r = vec![0u64; p.len()];
        for (pos, &k) in order.iter().enumerate() {
            let mut x = p[k].c;
            loop {
                let next = p[k].c
                    + order[..pos]
                        .iter()
                        .map(|&i| x.div_ceil(p[i].t) * p[i].c)
                        .sum::<u64>();
                if next == x {
                    break;
                }
                if next > p[k].d {
                    return None;
                }
                x = next;
            }
            r[k] = x;
        }
        Some(r)
    }

    /// Random constrained-deadline task sets with small integer parameters.
    pub(super) fn constrained_set() -> impl Strategy<Value = Vec<Params>> {
        proptest::collection::vec((1u64..40, 0u64..60, 0u64..60), 1..9).prop_map(|v| {
            v.into_iter()
                .map(|(c, dx, tx)| {
                    let d = c + dx;
                    Params::new(c, d, d + tx)
                })
                .collect()
        })
    }

    pub(super) fn implicit_set() -> impl Strategy<Value = Vec<Params>> {
        proptest::collection::vec((1u64..40, 0u64..200), 1..10).prop_map(|v| {
            v.into_iter()
                .map(|(c, x)| Params::new(c, c + x, c + x))
                .collect()
        })
    }

    fn bounds(v: &crate::verdict::Verdict) -> Vec<u64> {
        v.response_time_bounds
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| d.as_ns())
            .collect()
    }

    #[test]
    fn names_and_order() {
        let names: Vec<String> = tests().iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            [
                "gfp-abj",
                "gfp-bg",
                "gfp-bak",
                "gfp-rta",
                "gfp-rta-lc",
                "gfp"
            ]
        );
        for t in tests() {
            let info = t.info();
            assert_eq!(info.family, FAMILY);
            assert_eq!(info.kind, Kind::Sufficient);
        }
    }

    #[test]
    fn empty_system_is_schedulable_everywhere() {
        let sys = System::from_params(vec![], 4, Priorities::Dm).unwrap();
        for t in tests() {
            let v = analyze(t.as_ref(), &sys);
            assert_eq!(v.status, Status::Schedulable, "{}", t.name());
        }
    }

    #[test]
    fn rm_precondition() {
        // Given priorities that put the longer period first are not RM-compatible.
        let p = vec![
            Params {
                prio: Some(0),
                ..Params::new(1, 20, 20)
            },
            Params {
                prio: Some(1),
                ..Params::new(1, 10, 10)
            },
        ];
        let sys = System::from_params(p.clone(), 2, Priorities::Given).unwrap();
        assert!(crate::uni::require_rate_monotonic(&sys)
            .unwrap_err()
            .contains("rate-monotonic"));
        let sys = System::from_params(p, 2, Priorities::Rm).unwrap();
        assert!(crate::uni::require_rate_monotonic(&sys).is_ok());
        // Constrained deadlines are not implicit.
        let sys = System::from_params(vec![Params::new(1, 5, 10)], 2, Priorities::Rm).unwrap();
        assert!(crate::uni::require_rate_monotonic(&sys).is_err());
    }

    #[test]
    fn battery_reports_the_accepting_member() {
        // U = 0.2 on 2 CPUs with u ≤ 1/3: gfp-abj accepts first.
        let sys = System::from_params(
            vec![Params::new(1, 10, 10), Params::new(1, 10, 10)],
            2,
            Priorities::Dm,
        )
        .unwrap();
        let v = analyze(&battery(), &sys);
        assert_eq!(v.status, Status::Schedulable);
        assert!(v.reason.unwrap().contains("gfp-abj"));
        // Constrained deadlines: only bak, rta, rta-lc apply; rta gives bounds.
        let sys = System::from_params(
            vec![
                Params::new(2, 5, 5),
                Params::new(2, 5, 5),
                Params::new(3, 10, 10),
            ],
            2,
            Priorities::Dm,
        )
        .unwrap();
        let v = analyze(&battery(), &sys);
        assert_eq!(v.status, Status::Schedulable);
    }

    /// Plain (unaccelerated) fixpoint iterations written directly after SchedCAT's
    /// `bertogna.py` (with the paper's cap when `cap`) and `guan.py`: the reference for the
    /// accelerated implementations. Tasks in priority order; `None` = not schedulable.
    fn naive_rta(p: &[Params], m: i128, cap: bool, guan: bool) -> Option<Vec<i128>> {
        let mut r: Vec<i128> = Vec::new();
        for (k, tk) in p.iter().enumerate() {
            let (ck, dk) = (tk.c as i128, tk.d as i128);
            // Both references: the m highest-priority tasks have R = C.
            if (k as i128) < m {
                r.push(ck);
                continue;
            }
            let mut x = ck;
            let found = loop {
                if x > dk {
                    break None;
                }
                let lim = x - ck + 1;
                let mut nc_sum = 0i128;
                let mut diffs = Vec::new();
                let mut bc_sum = 0i128;
                for (i, ti) in p[..k].iter().enumerate() {
                    let (c, t) = (ti.c as i128, ti.t as i128);
                    // BC Eq. (8) with slack s = D − R: N = ⌊(L + D − C − s)/T⌋.
                    let s = (ti.d as i128 - r[i]).max(0);
                    let a = x - c + ti.d as i128 - s;
                    let n = a.div_euclid(t);
                    let w = n * c + c.min(a - n * t);
                    bc_sum += if cap { w.min(lim) } else { w };
                    // Guan Eqs. (5)-(8).
                    let wnc = (x / t) * c + (x % t).min(c);
                    let y = (x - c).max(0);
                    let alpha = ((y % t) - (t - r[i])).max(0).min(c - 1);
                    let wci = (y / t) * c + c + alpha;
                    let inc = wnc.max(0).min(lim);
                    let ici = wci.max(0).min(lim);
                    nc_sum += inc;
                    diffs.push(ici - inc);
                }
                diffs.sort_unstable_by(|a, b| b.cmp(a));
                let omega = nc_sum + diffs.iter().take((m - 1) as usize).sum::<i128>();
                let total = if guan { omega } else { bc_sum };
                let demand = ck + total.div_euclid(m);
                if demand == x {
                    break Some(x);
                }
                x = demand;
            };
            r.push(found?);
        }
        Some(r)
    }

    fn check_against_naive(p: &[Params], m: u32) -> Result<(), TestCaseError> {
        // Priority order = index order (given priorities).
        let given: Vec<Params> = p
            .iter()
            .enumerate()
            .map(|(i, q)| Params {
                prio: Some(i as u32),
                ..*q
            })
            .collect();
        let sys = System::from_params(given, m, Priorities::Given).unwrap();
        let cases: [(Box<dyn SchedTest>, bool, bool); 3] = [
            (Box::new(Rta::default()), true, false),
            (
                Box::new(Rta {
                    cap_interference: false,
                    ..Rta::default()
                }),
                false,
                false,
            ),
            (Box::new(RtaLc::default()), true, true),
        ];
        for (t, cap, guan) in cases {
            let v = analyze(t.as_ref(), &sys);
            let want = naive_rta(p, i128::from(m), cap, guan);
            match want {
                Some(r) => {
                    prop_assert!(v.is_schedulable(), "{} cap={cap}: {:?}", t.name(), v);
                    let got: Vec<i128> = bounds(&v).iter().map(|&b| b as i128).collect();
                    prop_assert_eq!(got, r, "{} cap={}", t.name(), cap);
                }
                None => prop_assert_eq!(v.status, Status::NotShown, "{} cap={}", t.name(), cap),
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The accelerated fixpoints give exactly the plain iterations' verdicts and bounds.
        #[test]
        fn matches_plain_iteration(p in constrained_set(), m in 1u32..5) {
            check_against_naive(&p, m)?;
        }

        /// Same on larger, more loaded sets where the creep acceleration kicks in.
        #[test]
        fn matches_plain_iteration_large(
            v in proptest::collection::vec((1u64..3000, 0u64..4000, 0u64..2000), 2..14),
            m in 1u32..9,
        ) {
            let p: Vec<Params> = v
                .into_iter()
                .map(|(c, dx, tx)| Params::new(c, c + dx, c + dx + tx))
                .collect();
            check_against_naive(&p, m)?;
        }

        /// At m = 1 both RTAs are sound: they accept only sets the exact uniprocessor RTA
        /// accepts, with bounds ≥ the exact response times; Guan et al.'s bound equals the
        /// exact one (with m − 1 = 0 carry-in tasks, I^NC at the exact fixpoint is ⌈R/T⌉C).
        #[test]
        fn uniprocessor_reference(p in constrained_set()) {
            let sys = System::from_params(p.clone(), 1, Priorities::Dm).unwrap();
            let order = sys.priority_order().unwrap().to_vec();
            let exact = uni_rta(&p, &order);
            let bc = analyze(&Rta::default(), &sys);
            let lc = analyze(&RtaLc::default(), &sys);
            if bc.is_schedulable() {
                let e = exact.clone().expect("BC accepted a set exact RTA rejects");
                for (b, x) in bounds(&bc).iter().zip(&e) {
                    prop_assert!(b >= x);
                }
            }
            match &exact {
                Some(e) => {
                    prop_assert!(lc.is_schedulable());
                    prop_assert_eq!(&bounds(&lc), e);
                }
                None => prop_assert!(!lc.is_schedulable()),
            }
        }

        /// Guan et al. (RTSS 2009) dominate Bertogna & Cirinei (RTSS 2007): with the same
        /// higher-priority bounds, W^NC ≤ W^CI ≤ W^BC pointwise (W^CI's carry-in is capped at
        /// C−1 where BC's is C) under the same cap x − C + 1, and both fixpoint maps are
        /// monotone, so by induction over priorities every R^LC ≤ R^BC.
        #[test]
        fn rta_lc_dominates_rta(p in constrained_set(), m in 1u32..5) {
            let sys = System::from_params(p, m, Priorities::Dm).unwrap();
            let bc = analyze(&Rta::default(), &sys);
            let lc = analyze(&RtaLc::default(), &sys);
            if bc.is_schedulable() {
                prop_assert!(lc.is_schedulable());
                for (l, b) in bounds(&lc).iter().zip(bounds(&bc)) {
                    prop_assert!(*l <= b);
                }
            }
        }

        /// Bounds lie in [C, D]; no test accepts U > m or u > 1.
        #[test]
        fn sanity(p in constrained_set(), m in 1u32..6) {
            let sys = System::from_params(p.clone(), m, Priorities::Dm).unwrap();
            let over = p.iter().map(|q| q.c as f64 / q.t as f64).sum::<f64>() > f64::from(m);
            for t in tests() {
                let v = analyze(t.as_ref(), &sys);
                prop_assert!(v.status != Status::Unschedulable);
                if v.is_schedulable() {
                    prop_assert!(!over, "{} accepted U > m", t.name());
                    if let Some(b) = &v.response_time_bounds {
                        for (r, q) in b.iter().zip(&p) {
                            prop_assert!(q.c <= r.as_ns() && r.as_ns() <= q.d);
                        }
                    }
                }
            }
        }

        /// On implicit-deadline sets the cheap bounds never accept what the RTAs cannot
        /// bound at m = 1 (a simple cross-check of their soundness).
        #[test]
        fn implicit_cross_check(p in implicit_set(), m in 1u32..5) {
            let sys = System::from_params(p.clone(), m, Priorities::Rm).unwrap();
            let over = p.iter().map(|q| q.c as f64 / q.t as f64).sum::<f64>() > f64::from(m);
            for t in tests() {
                let v = analyze(t.as_ref(), &sys);
                if v.is_schedulable() {
                    prop_assert!(!over, "{} accepted U > m", t.name());
                }
            }
            if m == 1 {
                let order = sys.priority_order().unwrap().to_vec();
                if uni_rta(&p, &order).is_none() {
                    for t in tests() {
                        prop_assert!(!analyze(t.as_ref(), &sys).is_schedulable(), "{}", t.name());
                    }
                }
            }
        }
    }
}
