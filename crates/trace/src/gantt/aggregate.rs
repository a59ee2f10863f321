//! Zoomed-out charts: execution slices too narrow to see are merged, per row, into one-pixel
//! columns, so the size of the SVG grows with its width instead of with the number of slices
//! (a 10 s simulation of 24 tasks has ~18 000 slices; most are a fraction of a pixel wide).
//!
//! Each column holds the narrow slices' time per task. It is drawn in the colour of the task
//! with the most time in it, with an opacity that says how busy the column is (its share of
//! the column, rounded up to a quarter); neighbouring columns with the same task and opacity
//! become one box. Slices at least [`MIN_EXACT_PX`] wide are not merged: they are drawn
//! exactly, with their tooltip and label, so a chart zoomed in (`--window`) shows every
//! slice as before.

use std::collections::BTreeMap;

/// Slices at least this many pixels wide are drawn exactly; narrower ones are merged.
pub const MIN_EXACT_PX: f64 = 3.0;

/// One merged box of a row, in pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Left edge (px).
    pub x0: f64,
    /// Right edge (px).
    pub x1: f64,
    /// The task with the most time in the box's columns.
    pub task: u32,
    /// How busy the columns are: 0.25, 0.5, 0.75 or 1.
    pub opacity: f64,
}

/// Merges narrow slices `(x0, x1, task)` (pixels, `x0 ≤ x1`) of one row into [`Block`]s.
pub fn merge(slices: &[(f64, f64, u32)]) -> Vec<Block> {
    // Column index → (task → covered pixels). Keyed maps: the memory follows the slices,
    // never the chart's width (which comes from input).
    let mut columns: BTreeMap<i64, BTreeMap<u32, f64>> = BTreeMap::new();
    for &(x0, x1, task) in slices {
        if !(x0.is_finite() && x1.is_finite()) || x1 < x0 {
            continue;
        }
        let (first, last) = (x0.floor() as i64, x1.ceil() as i64 - 1);
        for c in first..=last.max(first) {
            let (c0, c1) = (c as f64, c as f64 + 1.0);
            let covered = (x1.min(c1) - x0.max(c0)).max(0.0);
            // A zero-width slice still marks its column (it ran there).
            let covered = if x1 == x0 { 1e-3 } else { covered };
            if covered > 0.0 {
                *columns.entry(c).or_default().entry(task).or_insert(0.0) += covered;
            }
        }
    }
    let mut blocks: Vec<Block> = Vec::new();
    for (c, tasks) in columns {
        let busy: f64 = tasks.values().sum::<f64>().min(1.0);
        let Some((&task, _)) = tasks
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))
        else {
            continue;
        };
        let opacity = ((busy * 4.0).ceil() / 4.0).clamp(0.25, 1.0);
        let x0 = c as f64;
        match blocks.last_mut() {
            Some(b) if b.x1 == x0 && b.task == task && b.opacity == opacity => b.x1 = x0 + 1.0,
            _ => blocks.push(Block {
                x0,
                x1: x0 + 1.0,
                task,
                opacity,
            }),
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_by_hand() {
        // Column 10: task 1 for 0.5 px, task 2 for 0.3 px → task 1, busy 0.8 → opacity 1.
        // Column 11: task 1 for 0.2 px → opacity 0.25. Columns 12-13: task 2 full → one box.
        let slices = [
            (10.0, 10.5, 1),
            (10.6, 10.9, 2),
            (11.3, 11.5, 1),
            (12.0, 12.9, 2),
            (12.9, 14.0, 2),
        ];
        let b = merge(&slices);
        assert_eq!(
            b,
            [
                Block {
                    x0: 10.0,
                    x1: 11.0,
                    task: 1,
                    opacity: 1.0
                },
                Block {
                    x0: 11.0,
                    x1: 12.0,
                    task: 1,
                    opacity: 0.25
                },
                Block {
                    x0: 12.0,
                    x1: 14.0,
                    task: 2,
                    opacity: 1.0
                },
            ]
        );
    }

    #[test]
    fn many_slices_become_few_boxes() {
        // 10 000 slices of 0.05 px, alternating two tasks, over 500 px → at most 500 boxes.
        let slices: Vec<(f64, f64, u32)> = (0..10_000)
            .map(|i| {
                let x = f64::from(i) * 0.05;
                (x, x + 0.05, (i % 2) as u32)
            })
            .collect();
        let b = merge(&slices);
        assert!(b.len() <= 500, "{}", b.len());
        // Full columns (a rounding sliver past the last one may add a faint one).
        assert!(b.iter().filter(|b| b.opacity < 1.0).count() <= 1, "{b:?}");
        assert!(merge(&[]).is_empty());
        assert!(merge(&[(f64::NAN, 1.0, 0), (3.0, 2.0, 0)]).is_empty());
        assert_eq!(merge(&[(5.0, 5.0, 7)]).len(), 1);
    }
}
