//! The schedulable utilization bounds of [ChronOS §8.7, Tables 8.2–8.4] (Dellinger, ChronOS
//! Linux thesis, Virginia Tech 2011): for the uniform distributions of [ChronOS §8.4] (BHU
//! `[0.5, 0.9]`, BMU `[0.1, 0.4]`, BLU `[0.001, 0.1]`), the total utilization up to which
//! G-RMS, P-RMS, G-EDF and P-EDF are guaranteed to schedule every task set, as functions of
//! the number of CPUs `m` and the largest task utilization `u_max` (the distribution's upper
//! end). Each bound is computed twice: with the formula the thesis uses and with the original
//! source's, because two of them differ:
//!
//! | algorithm | [ChronOS] (§6.3, Eqs. (6.11), (6.12)) | original source |
//! |---|---|---|
//! | G-RMS | `m²/(3m−1)` if `u_max ≤ m/(3m−2)` | Andersson, Baruah & Jonsson, RTSS 2001: `m²/(3m−2)` (same condition) |
//! | P-RMS | `(mβ+1)(2^{1/(β+1)}−1)`, `β = 1/log₂(1+u_max)` | López, Díaz & García, TPDS 2004: the same with `β = ⌊1/log₂(1+u_max)⌋` |
//! | G-EDF | max(GFB `m−(m−1)u_max`, SB `m²/(2m−1)` if `u_max ≤ m/(2m−1)`) | the same (Goossens, Funk & Baruah 2003; Srinivasan & Baruah 2002) |
//! | P-EDF | `(mβ+1)/(β+1)`, `β = 1/u_max` | López, Díaz & García, ECRTS 2000: the same with `β = ⌊1/u_max⌋` |
//!
//! β counts the tasks of utilization `u_max` that always fit on one CPU, an integer in the
//! originals; without the floor the bound is larger than proven (unsafe) whenever `1/u_max`
//! (resp. `1/log₂(1+u_max)`) is not a whole number. `m²/(3m−1)` is smaller than the original
//! `m²/(3m−2)` (merely pessimistic). The analysis crate implements the originals
//! (`gfp-abj`, `pfp-lopez`, `pedf-lopez`, `gedf-gfb`, `gedf-sb`); this module exists to put the
//! thesis's numbers beside them (`schedlab experiment chronos-bounds`, docs/reproductions.md).
//!
//! Floating point is fine here: these are reported numbers, not verdicts. Complexity O(1).

/// A distribution of [ChronOS Tables 8.2–8.4] with its largest task utilization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    /// The thesis's name (`BHU`).
    pub name: &'static str,
    /// The generator name (`uni-heavy`).
    pub util_dist: &'static str,
    /// Largest task utilization of the distribution.
    pub u_max: f64,
}

/// The three columns of Tables 8.2–8.4.
pub const COLUMNS: [Column; 3] = [
    Column {
        name: "BHU",
        util_dist: "uni-heavy",
        u_max: 0.9,
    },
    Column {
        name: "BMU",
        util_dist: "uni-medium",
        u_max: 0.4,
    },
    Column {
        name: "BLU",
        util_dist: "uni-light",
        u_max: 0.1,
    },
];

/// Which formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formula {
    /// As printed in [ChronOS].
    Thesis,
    /// As in the original source.
    Original,
}

/// The algorithms (rows) of the tables.
pub const ALGORITHMS: [&str; 4] = ["G-RMS", "P-RMS", "G-EDF", "P-EDF"];

/// The bound of `algorithm` (one of [`ALGORITHMS`]) on `m` CPUs for tasks of utilization at
/// most `u_max`; `None` where the test does not apply (N/A in the tables) or the algorithm is
/// unknown.
pub fn bound(algorithm: &str, m: u32, u_max: f64, formula: Formula) -> Option<f64> {
    let mf = f64::from(m);
    let floor = |b: f64| match formula {
        Formula::Thesis => b,
        Formula::Original => b.floor(),
    };
    match algorithm {
        "G-RMS" => {
            if m < 2 || u_max > mf / (3.0 * mf - 2.0) {
                return None;
            }
            Some(match formula {
                Formula::Thesis => mf * mf / (3.0 * mf - 1.0),
                Formula::Original => mf * mf / (3.0 * mf - 2.0),
            })
        }
        "P-RMS" => {
            let beta = floor(1.0 / (1.0 + u_max).log2());
            Some((mf * beta + 1.0) * (2f64.powf(1.0 / (beta + 1.0)) - 1.0))
        }
        "G-EDF" => {
            let gfb = mf - (mf - 1.0) * u_max;
            let sb = (u_max <= mf / (2.0 * mf - 1.0)).then(|| mf * mf / (2.0 * mf - 1.0));
            Some(sb.map_or(gfb, |s| s.max(gfb)))
        }
        "P-EDF" => {
            let beta = floor(1.0 / u_max);
            Some((beta * mf + 1.0) / (beta + 1.0))
        }
        _ => None,
    }
}

/// The bounds as a Markdown table: one row per platform and algorithm, for each column the
/// thesis's value and the original's beside it (`N/A` where the test does not apply).
pub fn markdown_table(platforms: &[u32]) -> String {
    let fmt = |v: Option<f64>| v.map_or_else(|| "N/A".to_string(), |x| format!("{x:.2}"));
    let mut out = String::from("| m | algorithm |");
    for c in COLUMNS {
        out.push_str(&format!(
            " {} (u ≤ {}): thesis | original |",
            c.name, c.u_max
        ));
    }
    out.push_str("\n|---|---|");
    for _ in COLUMNS {
        out.push_str("---|---|");
    }
    out.push('\n');
    for &m in platforms {
        for a in ALGORITHMS {
            out.push_str(&format!("| {m} | {a} |"));
            for c in COLUMNS {
                let thesis = bound(a, m, c.u_max, Formula::Thesis);
                let original = bound(a, m, c.u_max, Formula::Original);
                let mark = if fmt(thesis) == fmt(original) {
                    ""
                } else {
                    " *"
                };
                out.push_str(&format!(" {}{mark} | {} |", fmt(thesis), fmt(original)));
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [ChronOS Tables 8.2–8.4] as printed: (m, algorithm, [BHU, BMU, BLU]).
    const PRINTED: [(u32, &str, [Option<f64>; 3]); 12] = [
        (8, "G-RMS", [None, None, Some(2.78)]),
        (8, "P-RMS", [Some(3.81), Some(4.44), Some(5.17)]),
        (8, "G-EDF", [Some(1.70), Some(5.20), Some(7.30)]),
        (8, "P-EDF", [Some(4.68), Some(6.00), Some(7.36)]),
        (16, "G-RMS", [None, None, Some(5.45)]),
        (16, "P-RMS", [Some(7.23), Some(8.63), Some(10.26)]),
        (16, "G-EDF", [Some(2.50), Some(10.00), Some(14.50)]),
        (16, "P-EDF", [Some(8.89), Some(11.71), Some(14.64)]),
        (48, "G-RMS", [None, None, Some(16.11)]),
        (48, "P-RMS", [Some(20.90), Some(25.39), Some(30.60)]),
        (48, "G-EDF", [Some(5.70), Some(29.20), Some(43.30)]),
        (48, "P-EDF", [Some(25.74), Some(34.57), Some(43.73)]),
    ];

    #[test]
    fn the_thesis_formulas_give_every_printed_number() {
        for (m, a, row) in PRINTED {
            for (c, printed) in COLUMNS.iter().zip(row) {
                let got = bound(a, m, c.u_max, Formula::Thesis).map(|x| format!("{x:.2}"));
                assert_eq!(
                    got,
                    printed.map(|x| format!("{x:.2}")),
                    "m = {m}, {a}, {}",
                    c.name
                );
            }
        }
    }

    #[test]
    fn the_originals_by_hand() {
        // P-EDF, m = 8, u_max = 0.9: β = ⌊1/0.9⌋ = 1, (8 + 1)/2 = 4.5 (thesis: β = 1.11, 4.68).
        assert_eq!(bound("P-EDF", 8, 0.9, Formula::Original), Some(4.5));
        // P-EDF, m = 8, u_max = 0.4: β = ⌊2.5⌋ = 2, 17/3.
        assert_eq!(bound("P-EDF", 8, 0.4, Formula::Original), Some(17.0 / 3.0));
        // P-RMS, m = 8, u_max = 0.9: β = ⌊1/log₂ 1.9⌋ = ⌊1.08⌋ = 1, 9(√2 − 1) = 3.728.
        let p = bound("P-RMS", 8, 0.9, Formula::Original).unwrap();
        assert!((p - 9.0 * (2f64.sqrt() - 1.0)).abs() < 1e-12);
        // G-RMS, m = 8: 64/22 (thesis 64/23).
        assert_eq!(bound("G-RMS", 8, 0.1, Formula::Original), Some(64.0 / 22.0));
        // u_max = 0.1 makes 1/u_max whole: P-EDF agrees (β = 10, 81/11).
        assert_eq!(
            bound("P-EDF", 8, 0.1, Formula::Original),
            bound("P-EDF", 8, 0.1, Formula::Thesis)
        );
    }
}
