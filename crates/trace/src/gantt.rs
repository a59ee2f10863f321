//! Gantt chart export as a standalone SVG document (no dependencies; the text is written here).
//!
//! One row per CPU ([`Rows::PerCpu`], boxes coloured by task) or per task
//! ([`Rows::PerTask`], boxes labelled with the CPU). A time axis with 1-2-5 ticks in ns, µs,
//! ms or s chosen from the tick step; a legend of task colours. In per-task rows, releases are
//! up arrows and absolute deadlines (release + the task's relative deadline from the metadata)
//! down arrows; deadline misses are red down arrows (in per-CPU rows: on a strip above the
//! rows). Execution boxes carry `class="job"` and a `<title>` tooltip. One box is drawn per
//! execution interval that overlaps the window with positive length; boxes are clipped to it.
//! Pixel positions are floats (display only; no verdict depends on them).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::event::{Event, Kind};
use crate::file::Meta;
use crate::intervals::{intervals, Interval};

/// What a row shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rows {
    /// One row per CPU.
    #[default]
    PerCpu,
    /// One row per task.
    PerTask,
}

/// Chart options.
#[derive(Clone, Debug, PartialEq)]
pub struct GanttOptions {
    /// Total width in pixels (at least 200 is used).
    pub width: u32,
    /// Row height in pixels (at least 10 is used).
    pub row_height: u32,
    /// Per-CPU or per-task rows.
    pub rows: Rows,
    /// Time window `[start, end)` in ns; `None` = the whole trace.
    pub window: Option<(u64, u64)>,
}

impl Default for GanttOptions {
    fn default() -> Self {
        GanttOptions {
            width: 1200,
            row_height: 28,
            rows: Rows::PerCpu,
            window: None,
        }
    }
}

const LEFT: f64 = 90.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;
const AXIS: f64 = 40.0;
const LEGEND_ROW: f64 = 20.0;
const TABLEAU: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// The colour of task `task`: a fixed 10-colour palette, then golden-angle hues.
pub fn task_colour(task: u32) -> String {
    match TABLEAU.get(task as usize) {
        Some(c) => (*c).to_string(),
        None => {
            let hue = (f64::from(task) * 137.507_764) % 360.0;
            format!("hsl({hue:.1},60%,55%)")
        }
    }
}

/// The SVG text of the Gantt chart of `events`.
pub fn to_svg(meta: &Meta, events: &[Event], opts: &GanttOptions) -> String {
    let ivs = intervals(events);
    let t_min = events.iter().map(|e| e.time).min().unwrap_or(0);
    let t_max = events.iter().map(|e| e.time).max().unwrap_or(0);
    let (w0, w1) = opts.window.unwrap_or((t_min, t_max));
    let w0 = w0.min(u64::MAX - 1);
    let w1 = w1.max(w0 + 1);
    let visible: Vec<&Interval> = ivs
        .iter()
        .filter(|i| i.end > i.start && i.start < w1 && i.end > w0)
        .collect();

    // Rows.
    let row_keys: Vec<u32> = match opts.rows {
        Rows::PerCpu => {
            let mut s: BTreeSet<u32> = (0..meta.cpus.unwrap_or(0)).collect();
            s.extend(ivs.iter().map(|i| i.cpu));
            s.into_iter().collect()
        }
        Rows::PerTask => task_set(meta, events, &ivs).into_iter().collect(),
    };
    let tasks = task_set(meta, events, &ivs);
    let row_of = |key: u32| row_keys.binary_search(&key).ok();

    let width = f64::from(opts.width.max(200));
    let rh = f64::from(opts.row_height.max(10));
    let plot_w = width - LEFT - RIGHT;
    let span = (w1 - w0) as f64;
    let x = |t: u64| LEFT + (t.clamp(w0, w1) - w0) as f64 * plot_w / span;
    let rows_h = rh * row_keys.len() as f64;
    let legend_cols = ((plot_w + LEFT) / 110.0).max(1.0) as usize;
    let legend_rows = tasks.len().div_ceil(legend_cols);
    let height = TOP + rows_h + AXIS + LEGEND_ROW * legend_rows as f64 + 10.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect class="background" x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    // Row labels and separators.
    for (r, key) in row_keys.iter().enumerate() {
        let y = TOP + rh * r as f64;
        let label = match opts.rows {
            Rows::PerCpu => format!("CPU {key}"),
            Rows::PerTask => meta.task_name(*key),
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            LEFT - 6.0,
            y + rh / 2.0,
            esc(&label)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            y + rh,
            LEFT + plot_w,
            y + rh
        );
    }
    // Axis and ticks.
    let axis_y = TOP + rows_h;
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="black"/>"#,
        LEFT + plot_w
    );
    let step = tick_step(w1 - w0);
    let (unit, unit_name) = unit_for(step);
    let mut t = w0.div_ceil(step).saturating_mul(step);
    while t <= w1 {
        let xt = x(t);
        let _ = writeln!(
            s,
            r#"<line x1="{xt:.1}" y1="{axis_y:.1}" x2="{xt:.1}" y2="{:.1}" stroke="black"/>"#,
            axis_y + 5.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{xt:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            axis_y + 17.0,
            decimal(t, unit)
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">time ({unit_name})</text>"#,
        LEFT + plot_w,
        axis_y + 32.0
    );
    // Execution boxes.
    for i in &visible {
        let key = match opts.rows {
            Rows::PerCpu => i.cpu,
            Rows::PerTask => i.task,
        };
        let Some(r) = row_of(key) else { continue };
        let (x0, x1) = (x(i.start), x(i.end));
        let y = TOP + rh * r as f64 + 3.0;
        let bw = (x1 - x0).max(0.5);
        let _ = writeln!(
            s,
            r##"<rect class="job" x="{x0:.2}" y="{y:.1}" width="{bw:.2}" height="{:.1}" fill="{}" stroke="#333" stroke-width="0.5"><title>{}#{} on CPU {}: {}–{} {unit_name}</title></rect>"##,
            rh - 6.0,
            task_colour(i.task),
            esc(&meta.task_name(i.task)),
            i.seq,
            i.cpu,
            decimal(i.start, unit),
            decimal(i.end, unit)
        );
        let label = match opts.rows {
            Rows::PerCpu => format!("{},{}", meta.task_name(i.task), i.seq),
            Rows::PerTask => format!("CPU {}", i.cpu),
        };
        if bw >= 7.0 * label.chars().count() as f64 + 4.0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.2}" y="{:.1}" text-anchor="middle" dominant-baseline="middle" fill="white">{}</text>"#,
                x0 + bw / 2.0,
                y + (rh - 6.0) / 2.0,
                esc(&label)
            );
        }
    }
    // Releases, deadlines and misses.
    let in_win = |t: u64| t >= w0 && t <= w1;
    for e in events {
        match (e.kind, opts.rows) {
            (Kind::Release, Rows::PerTask) => {
                let Some(r) = row_of(e.task) else { continue };
                let y = TOP + rh * r as f64;
                if in_win(e.time) {
                    arrow(&mut s, x(e.time), y + rh, y + 1.0, "black", "release");
                }
                if let Some(d) = meta.deadline(e.task).and_then(|d| e.time.checked_add(d)) {
                    if in_win(d) {
                        arrow(&mut s, x(d), y + 1.0, y + rh, "#555", "deadline");
                    }
                }
            }
            (Kind::DeadlineMiss, rows) if in_win(e.time) => {
                let (y_top, y_bot) = match rows {
                    Rows::PerTask => match row_of(e.task) {
                        Some(r) => (TOP + rh * r as f64, TOP + rh * (r + 1) as f64),
                        None => continue,
                    },
                    Rows::PerCpu => (4.0, TOP - 4.0),
                };
                arrow(&mut s, x(e.time), y_top, y_bot, "red", "miss");
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" fill="red" font-size="9">{}#{} miss</text>"#,
                    x(e.time) + 3.0,
                    y_top + 9.0,
                    esc(&meta.task_name(e.task)),
                    e.seq
                );
            }
            _ => {}
        }
    }
    // Legend.
    let ly = axis_y + AXIS;
    for (k, t) in tasks.iter().enumerate() {
        let lx = 10.0 + 110.0 * (k % legend_cols) as f64;
        let y = ly + LEGEND_ROW * (k / legend_cols) as f64;
        let _ = writeln!(
            s,
            r#"<rect class="legend" x="{lx:.1}" y="{y:.1}" width="12" height="12" fill="{}"/>"#,
            task_colour(*t)
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" dominant-baseline="middle">{}</text>"#,
            lx + 16.0,
            y + 6.0,
            esc(&meta.task_name(*t))
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Tasks named by the metadata or seen in the trace.
fn task_set(meta: &Meta, events: &[Event], ivs: &[Interval]) -> BTreeSet<u32> {
    let mut s: BTreeSet<u32> = (0..meta.tasks.len())
        .filter_map(|t| u32::try_from(t).ok())
        .collect();
    s.extend(ivs.iter().map(|i| i.task));
    s.extend(
        events
            .iter()
            .filter(|e| matches!(e.kind, Kind::Release | Kind::DeadlineMiss | Kind::Complete))
            .map(|e| e.task),
    );
    s.remove(&u32::MAX);
    s
}

/// A vertical arrow from `y_from` to `y_to` at `x` (head at `y_to`).
fn arrow(s: &mut String, x: f64, y_from: f64, y_to: f64, colour: &str, class: &str) {
    let dir = if y_to < y_from { 1.0 } else { -1.0 };
    let _ = writeln!(
        s,
        r#"<g class="{class}" stroke="{colour}" fill="{colour}"><line x1="{x:.2}" y1="{y_from:.1}" x2="{x:.2}" y2="{y_to:.1}"/><path d="M{x:.2},{y_to:.1} l-3,{:.1} l6,0 z"/></g>"#,
        6.0 * dir
    );
}

/// A 1-2-5 tick step giving 5 to 10 ticks over `span` ns (at least 1 ns).
fn tick_step(span: u64) -> u64 {
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            let step = p.saturating_mul(m);
            if span / step <= 10 {
                return step.max(1);
            }
        }
        match p.checked_mul(10) {
            Some(n) => p = n,
            None => return u64::MAX,
        }
    }
}

/// The display unit for a tick step: (ns per unit, name).
fn unit_for(step: u64) -> (u64, &'static str) {
    if step >= 1_000_000_000 {
        (1_000_000_000, "s")
    } else if step >= 1_000_000 {
        (1_000_000, "ms")
    } else if step >= 1_000 {
        (1_000, "µs")
    } else {
        (1, "ns")
    }
}

/// `ns / unit` as an exact decimal with trailing zeros trimmed.
fn decimal(ns: u64, unit: u64) -> String {
    let (q, r) = (ns / unit, ns % unit);
    if r == 0 {
        return q.to_string();
    }
    let digits = unit.ilog10() as usize;
    let frac = format!("{r:0digits$}");
    format!("{q}.{}", frac.trim_end_matches('0'))
}

/// XML text escaping.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests;
