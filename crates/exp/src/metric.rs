//! The metrics an experiment can plot against its swept variable (the file's top-level
//! `plots = [...]`, docs/experiments.md): the acceptance ratio (schedulability [ChronOS §8.6,
//! Eq. (8.7)] for simulations), and the per-point means of the simulation metrics of
//! [ChronOS §8.6] — DSR (Eq. (8.3)), AUR (Eq. (8.5)), mean maximum tardiness (MMT, Eq. (8.8))
//! — plus preemptions, migrations and aborted jobs per set [ChronOS §8.11], and context
//! switches and steals per set (the metrics of [RTWS §VI, Figs. 3–4]). Each metric is one
//! plot file (`acceptance.svg`, `dsr.svg`, …) drawn in the same style.
//!
//! A metric reads its value from a summary [`Row`]; rows without it (an analysis has no DSR)
//! leave a gap, and a series with no value at any point is left out of that plot.

use crate::summary::Row;
use serde::{Deserialize, Serialize};

/// One plottable metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Fraction of sets accepted (analyses) or with no deadline missed (simulations).
    Acceptance,
    /// Mean deadline satisfaction ratio.
    Dsr,
    /// Mean accrued utility ratio.
    Aur,
    /// Mean of the largest tardiness per set (MMT), in ms.
    MaxTardiness,
    /// Mean preemptions per set.
    Preemptions,
    /// Mean migrations per set.
    Migrations,
    /// Mean aborted jobs per set.
    Aborts,
    /// Mean context switches per set.
    ContextSwitches,
    /// Mean steals per set (`rtws`).
    Steals,
}

impl Metric {
    /// Every metric, in the order of [`Metric::NAMES`].
    pub const ALL: [Metric; 9] = [
        Metric::Acceptance,
        Metric::Dsr,
        Metric::Aur,
        Metric::MaxTardiness,
        Metric::Preemptions,
        Metric::Migrations,
        Metric::Aborts,
        Metric::ContextSwitches,
        Metric::Steals,
    ];

    /// Names accepted in the file (also the plot files' stems).
    pub const NAMES: [&'static str; 9] = [
        "acceptance",
        "dsr",
        "aur",
        "max_tardiness",
        "preemptions",
        "migrations",
        "aborts",
        "context_switches",
        "steals",
    ];

    /// Parses a name of [`Metric::NAMES`].
    pub fn parse(name: &str) -> Option<Metric> {
        Metric::NAMES
            .iter()
            .position(|&n| n == name)
            .and_then(|i| Metric::ALL.get(i).copied())
    }

    /// The name (and file stem).
    pub fn name(self) -> &'static str {
        Metric::NAMES[self as usize]
    }

    /// The y-axis description, with the unit.
    pub fn y_desc(self) -> &'static str {
        match self {
            Metric::Acceptance => "schedulable task sets (fraction)",
            Metric::Dsr => "deadline satisfaction ratio (mean DSR)",
            Metric::Aur => "accrued utility ratio (mean AUR)",
            Metric::MaxTardiness => "mean maximum tardiness (ms)",
            Metric::Preemptions => "preemptions per task set (mean)",
            Metric::Migrations => "migrations per task set (mean)",
            Metric::Aborts => "aborted jobs per task set (mean)",
            Metric::ContextSwitches => "context switches per task set (mean)",
            Metric::Steals => "steals per task set (mean)",
        }
    }

    /// The section heading of the report.
    pub fn heading(self) -> &'static str {
        match self {
            Metric::Acceptance => "Acceptance ratio",
            Metric::Dsr => "Deadline satisfaction ratio",
            Metric::Aur => "Accrued utility ratio",
            Metric::MaxTardiness => "Mean maximum tardiness",
            Metric::Preemptions => "Preemptions",
            Metric::Migrations => "Migrations",
            Metric::Aborts => "Aborted jobs",
            Metric::ContextSwitches => "Context switches",
            Metric::Steals => "Steals",
        }
    }

    /// Whether the values are fractions in [0, 1] (fixed y axis) rather than counts or times
    /// (y axis from 0 to the largest value).
    pub fn is_ratio(self) -> bool {
        matches!(self, Metric::Acceptance | Metric::Dsr | Metric::Aur)
    }

    /// The value of `row`, if it has one.
    pub fn value(self, row: &Row) -> Option<f64> {
        match self {
            Metric::Acceptance => Some(row.ratio),
            Metric::Dsr => row.mean_dsr,
            Metric::Aur => row.mean_aur,
            Metric::MaxTardiness => row.mean_max_tardiness_ns.map(|ns| ns / 1e6),
            Metric::Preemptions => row.mean_preemptions,
            Metric::Migrations => row.mean_migrations,
            Metric::Aborts => row.mean_aborts,
            Metric::ContextSwitches => row.mean_context_switches,
            Metric::Steals => row.mean_steals,
        }
    }
}

/// The plots of an experiment file without `plots`: the acceptance ratio alone.
pub fn default_plots() -> Vec<Metric> {
    vec![Metric::Acceptance]
}

/// Whether `plots` is the default (then it is left out of the experiment's JSON, so that
/// experiments written before `plots` existed keep their config hash).
pub fn is_default_plots(plots: &[Metric]) -> bool {
    plots == [Metric::Acceptance]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for (m, n) in Metric::ALL.iter().zip(Metric::NAMES) {
            assert_eq!(Metric::parse(n), Some(*m));
            assert_eq!(m.name(), n);
            assert_eq!(serde_json::to_string(m).ok(), Some(format!("\"{n}\"")));
        }
        assert_eq!(Metric::parse("DSR"), None);
        assert_eq!(Metric::parse("abort"), None);
    }
}
