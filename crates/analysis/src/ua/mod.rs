//! Utility-accrual bounds (family `global-np-hvdf`): guarantees for the best-effort
//! utility-accrual schedulers of [ChronOS §6], which make no promise to meet every deadline.
//!
//! - `gnphvdf-uab` ([`gnphvdf_uab`]): the G-NP-HVDF utility accrual bound [ChronOS §6.7,
//!   Eq. 6.8–6.10] — which of the highest-value-density tasks never miss, and the fraction of
//!   the utility they accrue.
//!
//! A bound's answer beyond the status is a [`UtilityBound`] on the verdict (JSON `"k"`,
//! `"guaranteed_tasks"`, `"utility_fraction"`).

pub mod gnphvdf_uab;

use crate::test::SchedTest;
use serde_json::{json, Value};

/// The tests of this family, in listing order.
pub(crate) fn tests() -> Vec<Box<dyn SchedTest>> {
    vec![Box::new(gnphvdf_uab::GnphvdfUab)]
}

/// What a utility accrual bound guarantees: the `k` tasks that never miss a deadline (and so
/// accrue their full utility) and the fraction of the utility that is.
#[derive(Clone, Debug)]
pub struct UtilityBound {
    /// The number of guaranteed tasks.
    pub k: usize,
    /// Their indices, densest first (the order of the bound, [`gnphvdf_uab`]).
    pub guaranteed_tasks: Vec<usize>,
    /// `k / n`, the fraction as [ChronOS §6.7] states it (`None` for `n = 0`).
    pub k_over_n: Option<f64>,
    /// `Σ_guaranteed Vᵢ/Tᵢ / Σ_all Vᵢ/Tᵢ`: the fraction of the utility per unit of time the
    /// guaranteed tasks accrue when every task releases at its period (`None` when no task has
    /// utility).
    pub value_weighted: Option<f64>,
}

// Fractions compare by their bits, so equality is reflexive and `Verdict` stays `Eq`.
impl PartialEq for UtilityBound {
    fn eq(&self, other: &UtilityBound) -> bool {
        let bits = |x: Option<f64>| x.map(f64::to_bits);
        self.k == other.k
            && self.guaranteed_tasks == other.guaranteed_tasks
            && bits(self.k_over_n) == bits(other.k_over_n)
            && bits(self.value_weighted) == bits(other.value_weighted)
    }
}

impl Eq for UtilityBound {}

impl UtilityBound {
    /// `{"k_over_n", "value_weighted"}` (numbers or `null`).
    pub fn fraction_json(&self) -> Value {
        json!({"k_over_n": self.k_over_n, "value_weighted": self.value_weighted})
    }

    /// The bound from its JSON fields (Python's `Result(k=…, guaranteed_tasks=…,
    /// utility_fraction=…)`): `k` must be the number of guaranteed tasks, the fractions numbers
    /// in `[0, 1]` or `null`.
    pub fn from_json(
        k: usize,
        guaranteed_tasks: Vec<usize>,
        fraction: &Value,
    ) -> Result<UtilityBound, String> {
        if guaranteed_tasks.len() != k {
            return Err(format!(
                "k = {k} but guaranteed_tasks lists {} tasks",
                guaranteed_tasks.len()
            ));
        }
        let field = |name: &str| -> Result<Option<f64>, String> {
            match fraction.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => match v.as_f64() {
                    Some(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
                    _ => Err(format!(
                        "utility_fraction.{name} must be a number in [0, 1] or None, got {v}"
                    )),
                },
            }
        };
        if !(fraction.is_object() || fraction.is_null()) {
            return Err(format!(
                "utility_fraction must be a dict with k_over_n and value_weighted, got {fraction}"
            ));
        }
        Ok(UtilityBound {
            k,
            guaranteed_tasks,
            k_over_n: field("k_over_n")?,
            value_weighted: field("value_weighted")?,
        })
    }
}
