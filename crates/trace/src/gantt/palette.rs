//! Task colours and fills of the Gantt chart.
//!
//! Colours are hex (`#rrggbb`): SVG converters that do not implement CSS colour functions
//! (`hsl(...)`) draw those black. Task `t` gets colour `t mod 10` of the Tableau 10 palette,
//! whose order keeps neighbouring tasks far apart in hue and lightness, and pattern
//! `⌊t/10⌋ mod 4` (solid, stripes, dots, cross-hatch) drawn over it in white: 40 tasks look
//! different by more than hue (tasks 0 and 10 share a colour but not a pattern; so do the
//! CPU rows' neighbours 9 and 10), and every box wide enough carries its task's name.

use std::fmt::Write as _;

const TABLEAU: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Number of patterns (solid included).
const PATTERNS: u32 = 4;

/// The colour of task `task` (hex).
pub fn task_colour(task: u32) -> &'static str {
    TABLEAU[(task % TABLEAU.len() as u32) as usize]
}

/// The pattern of task `task`: 0 = solid, 1 = stripes, 2 = dots, 3 = cross-hatch.
pub fn task_pattern(task: u32) -> u32 {
    (task / TABLEAU.len() as u32) % PATTERNS
}

/// The `fill` attribute of task `task`'s boxes: its colour, or its pattern (see [`defs`]).
pub fn task_fill(task: u32) -> String {
    match task_pattern(task) {
        0 => task_colour(task).to_string(),
        _ => format!("url(#task-{task})"),
    }
}

/// The `<defs>` with the patterns of `tasks` that have one (empty if none does).
pub fn defs(tasks: impl IntoIterator<Item = u32>) -> String {
    let mut s = String::new();
    for t in tasks.into_iter().filter(|&t| task_pattern(t) != 0) {
        let colour = task_colour(t);
        let marks = match task_pattern(t) {
            1 => {
                r##"<rect x="0" y="0" width="2.5" height="6" fill="#ffffff" fill-opacity="0.75"/>"##
            }
            2 => r##"<circle cx="3" cy="3" r="1.4" fill="#ffffff" fill-opacity="0.85"/>"##,
            _ => {
                r##"<rect x="0" y="0" width="1.6" height="6" fill="#ffffff" fill-opacity="0.75"/><rect x="0" y="0" width="6" height="1.6" fill="#ffffff" fill-opacity="0.75"/>"##
            }
        };
        let rotate = if task_pattern(t) == 2 {
            ""
        } else {
            r#" patternTransform="rotate(45)""#
        };
        let _ = write!(
            s,
            r#"<pattern id="task-{t}" patternUnits="userSpaceOnUse" width="6" height="6"{rotate}><rect x="0" y="0" width="6" height="6" fill="{colour}"/>{marks}</pattern>"#
        );
    }
    if s.is_empty() {
        s
    } else {
        format!("<defs>{s}</defs>\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative luminance-free distance of two hex colours in RGB (0..=441).
    fn distance(a: &str, b: &str) -> f64 {
        let rgb = |h: &str| -> [f64; 3] {
            let v = u32::from_str_radix(h.trim_start_matches('#'), 16).unwrap_or(0);
            [(v >> 16) & 255, (v >> 8) & 255, v & 255].map(f64::from)
        };
        let (a, b) = (rgb(a), rgb(b));
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    }

    #[test]
    fn every_colour_is_hex_and_neighbours_stay_apart() {
        for t in 0..200 {
            let c = task_colour(t);
            assert!(
                c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|x| x.is_ascii_hexdigit()),
                "{c}"
            );
            let (fill, next) = (task_fill(t), task_fill(t + 1));
            assert!(!fill.contains("hsl"), "{fill}");
            assert_ne!(fill, next, "tasks {t} and {}", t + 1);
            // Neighbours differ clearly in colour, or (9 → 10, …) in pattern.
            assert!(
                distance(c, task_colour(t + 1)) > 60.0 || task_pattern(t) != task_pattern(t + 1),
                "tasks {t} and {}",
                t + 1
            );
        }
    }

    #[test]
    fn forty_tasks_look_different() {
        let looks: std::collections::HashSet<(&str, u32)> =
            (0..40).map(|t| (task_colour(t), task_pattern(t))).collect();
        assert_eq!(looks.len(), 40);
        let d = defs(0..24);
        assert_eq!(
            d.matches("<pattern").count(),
            14,
            "tasks 10..24 have patterns"
        );
        assert!(d.contains(r#"id="task-23""#) && !d.contains(r#"id="task-9""#));
        assert_eq!(defs(0..10), "");
    }
}
