//! Gantt chart export as a standalone SVG document (no dependencies; the text is written here).
//!
//! One row per CPU ([`Rows::PerCpu`], boxes coloured by task) or per task
//! ([`Rows::PerTask`], boxes labelled with the CPU). A time axis with 1-2-5 ticks in ns, µs,
//! ms or s chosen from the tick step; a legend of task fills (hex colours, and patterns from
//! the 11th task on: [`palette`]). In per-task rows, releases are up arrows and absolute
//! deadlines (release + the task's relative deadline from the metadata) down arrows — in a row
//! where two of them would be closer than an arrow head, none (a note says so: zoom in). A deadline miss is a red down arrow at the
//! job's *deadline* (in per-CPU rows: on a strip above the rows), and the part of the job that
//! ran after it is outlined in red (`class="late"`).
//!
//! Execution slices at least [`MIN_EXACT_PX`] wide are drawn exactly, one box each
//! (`class="job"`, with a `<title>` tooltip and, when it fits, a label), clipped to the window.
//! Narrower slices — most of them in a chart of seconds — are merged per row into one-pixel
//! columns ([`aggregate`], `class="merged"`), so a zoomed-out chart stays small and a zoomed-in
//! one (`window`) shows every slice. Pixel positions are floats (display only; no verdict
//! depends on them).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub mod aggregate;
pub mod palette;

pub use aggregate::MIN_EXACT_PX;
pub use palette::{task_colour, task_fill, task_pattern};

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
/// A row's release (deadline) arrows are drawn only if no two of them are closer than this
/// (px, a little more than an arrow head): zoomed out, they would pile up into a bar, and drawing
/// only some of them would suggest a wrong period.
const MIN_ARROW_GAP_PX: f64 = 10.0;

/// The geometry of one chart: the window, the rows and the pixel scale.
struct Chart<'a> {
    meta: &'a Meta,
    opts: &'a GanttOptions,
    w0: u64,
    w1: u64,
    row_keys: Vec<u32>,
    plot_w: f64,
    rh: f64,
    unit: u64,
    unit_name: &'static str,
}

impl Chart<'_> {
    /// x pixel of time `t` (clamped to the window).
    fn x(&self, t: u64) -> f64 {
        LEFT + (t.clamp(self.w0, self.w1) - self.w0) as f64 * self.plot_w
            / (self.w1 - self.w0) as f64
    }
    fn row_of(&self, key: u32) -> Option<usize> {
        self.row_keys.binary_search(&key).ok()
    }
    fn row_top(&self, r: usize) -> f64 {
        TOP + self.rh * r as f64
    }
    /// The row of an interval.
    fn key(&self, i: &Interval) -> u32 {
        match self.opts.rows {
            Rows::PerCpu => i.cpu,
            Rows::PerTask => i.task,
        }
    }
    fn in_window(&self, t: u64) -> bool {
        t >= self.w0 && t <= self.w1
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
    let tasks = task_set(meta, events, &ivs);
    let row_keys: Vec<u32> = match opts.rows {
        Rows::PerCpu => {
            let mut s: BTreeSet<u32> = (0..meta.cpus.unwrap_or(0)).collect();
            s.extend(ivs.iter().map(|i| i.cpu));
            s.into_iter().collect()
        }
        Rows::PerTask => tasks.iter().copied().collect(),
    };
    let width = f64::from(opts.width.max(200));
    let step = tick_step(w1 - w0);
    let (unit, unit_name) = unit_for(step);
    let c = Chart {
        meta,
        opts,
        w0,
        w1,
        row_keys,
        plot_w: width - LEFT - RIGHT,
        rh: f64::from(opts.row_height.max(10)),
        unit,
        unit_name,
    };
    let rows_h = c.rh * c.row_keys.len() as f64;
    let legend_cols = ((c.plot_w + LEFT) / 110.0).max(1.0) as usize;
    let legend_rows = tasks.len().div_ceil(legend_cols);
    let height = TOP + rows_h + AXIS + LEGEND_ROW * legend_rows as f64 + 10.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    s.push_str(&palette::defs(tasks.iter().copied()));
    let _ = writeln!(
        s,
        r#"<rect class="background" x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    draw_rows(&mut s, &c);
    let axis_y = TOP + rows_h;
    draw_axis(&mut s, &c, axis_y, step);
    let visible: Vec<&Interval> = ivs
        .iter()
        .filter(|i| i.end > i.start && i.start < w1 && i.end > w0)
        .collect();
    draw_boxes(&mut s, &c, &visible);
    let misses = draw_markers(&mut s, &c, events);
    draw_late_parts(&mut s, &c, &visible, &misses);
    // Legend.
    let ly = axis_y + AXIS;
    for (k, t) in tasks.iter().enumerate() {
        let lx = 10.0 + 110.0 * (k % legend_cols) as f64;
        let y = ly + LEGEND_ROW * (k / legend_cols) as f64;
        let _ = writeln!(
            s,
            r#"<rect class="legend" x="{lx:.1}" y="{y:.1}" width="12" height="12" fill="{}"/>"#,
            palette::task_fill(*t)
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

/// Row labels and separators.
fn draw_rows(s: &mut String, c: &Chart<'_>) {
    for (r, key) in c.row_keys.iter().enumerate() {
        let y = c.row_top(r);
        let label = match c.opts.rows {
            Rows::PerCpu => format!("CPU {key}"),
            Rows::PerTask => c.meta.task_name(*key),
        };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            LEFT - 6.0,
            y + c.rh / 2.0,
            esc(&label)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ddd"/>"##,
            y + c.rh,
            LEFT + c.plot_w,
            y + c.rh
        );
    }
}

/// The time axis with its ticks.
fn draw_axis(s: &mut String, c: &Chart<'_>, axis_y: f64, step: u64) {
    let _ = writeln!(
        s,
        r#"<line x1="{LEFT}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="black"/>"#,
        LEFT + c.plot_w
    );
    let mut t = c.w0.div_ceil(step).saturating_mul(step);
    while t <= c.w1 {
        let xt = c.x(t);
        let _ = writeln!(
            s,
            r#"<line x1="{xt:.1}" y1="{axis_y:.1}" x2="{xt:.1}" y2="{:.1}" stroke="black"/>"#,
            axis_y + 5.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{xt:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            axis_y + 17.0,
            decimal(t, c.unit)
        );
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">time ({})</text>"#,
        LEFT + c.plot_w,
        axis_y + 32.0,
        c.unit_name
    );
}

/// Execution boxes: slices at least [`aggregate::MIN_EXACT_PX`] wide exactly (tooltip, label),
/// narrower ones merged per row into columns ([`aggregate`]).
fn draw_boxes(s: &mut String, c: &Chart<'_>, visible: &[&Interval]) {
    let mut narrow: BTreeMap<usize, Vec<(f64, f64, u32)>> = BTreeMap::new();
    let box_h = c.rh - 6.0;
    for i in visible {
        let Some(r) = c.row_of(c.key(i)) else {
            continue;
        };
        let (x0, x1) = (c.x(i.start), c.x(i.end));
        if x1 - x0 < aggregate::MIN_EXACT_PX {
            narrow.entry(r).or_default().push((x0, x1, i.task));
            continue;
        }
        let y = c.row_top(r) + 3.0;
        let bw = x1 - x0;
        let _ = writeln!(
            s,
            r##"<rect class="job" x="{x0:.2}" y="{y:.1}" width="{bw:.2}" height="{box_h:.1}" fill="{}" stroke="#333" stroke-width="0.5"><title>{}#{}{} on CPU {}: {}–{} {}</title></rect>"##,
            palette::task_fill(i.task),
            esc(&c.meta.task_name(i.task)),
            i.seq,
            strand_suffix(i.strand),
            i.cpu,
            decimal(i.start, c.unit),
            decimal(i.end, c.unit),
            c.unit_name
        );
        let label = match c.opts.rows {
            Rows::PerCpu => format!(
                "{},{}{}",
                c.meta.task_name(i.task),
                i.seq,
                strand_suffix(i.strand)
            ),
            Rows::PerTask => format!("CPU {}{}", i.cpu, strand_suffix(i.strand)),
        };
        if bw >= 7.0 * label.chars().count() as f64 + 4.0 {
            let _ = writeln!(
                s,
                r#"<text x="{:.2}" y="{:.1}" text-anchor="middle" dominant-baseline="middle" fill="black">{}</text>"#,
                x0 + bw / 2.0,
                y + box_h / 2.0,
                esc(&label)
            );
        }
    }
    // One path per row, task and opacity (a rectangle per merged box, ~20 bytes each).
    for (r, slices) in narrow {
        let y = c.row_top(r) + 3.0;
        let mut paths: BTreeMap<(u32, u8), String> = BTreeMap::new();
        for b in aggregate::merge(&slices) {
            let quarters = (b.opacity * 4.0).round() as u8;
            let w = b.x1 - b.x0;
            let d = paths.entry((b.task, quarters)).or_default();
            let _ = write!(d, "M{:.1} {y:.1}h{w:.1}v{box_h:.1}h-{w:.1}z", b.x0);
        }
        for ((task, quarters), d) in paths {
            let opacity = if quarters < 4 {
                format!(r#" fill-opacity="{}""#, f64::from(quarters) / 4.0)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                r#"<path class="merged" fill="{}"{opacity} d="{d}"/>"#,
                palette::task_colour(task),
            );
        }
    }
}

/// A job that missed its deadline: (task, seq, absolute deadline).
type Miss = (u32, u64, u64);

/// Releases and deadlines (per-task rows) and deadline misses; returns the misses.
///
/// A miss is marked at the job's deadline (the `DeadlineMiss` event's argument), not at the
/// event's time, which is when the miss became known (the late completion, or the horizon).
fn draw_markers(s: &mut String, c: &Chart<'_>, events: &[Event]) -> Vec<Miss> {
    // Per-task rows: the arrows of each row, drawn only where they stay apart.
    let mut arrows: BTreeMap<(usize, &'static str), Vec<f64>> = BTreeMap::new();
    let mut misses = Vec::new();
    for e in events {
        match (e.kind, c.opts.rows) {
            (Kind::Release, Rows::PerTask) => {
                let Some(r) = c.row_of(e.task) else { continue };
                if c.in_window(e.time) {
                    arrows.entry((r, "release")).or_default().push(c.x(e.time));
                }
                if let Some(d) = c.meta.deadline(e.task).and_then(|d| e.time.checked_add(d)) {
                    if c.in_window(d) {
                        arrows.entry((r, "deadline")).or_default().push(c.x(d));
                    }
                }
            }
            (Kind::DeadlineMiss, rows) => {
                let deadline = if e.arg > 0 && e.arg <= e.time {
                    e.arg
                } else {
                    e.time
                };
                misses.push((e.task, e.seq, deadline));
                if !c.in_window(deadline) {
                    continue;
                }
                let (y_top, y_bot) = match rows {
                    Rows::PerTask => match c.row_of(e.task) {
                        Some(r) => (c.row_top(r), c.row_top(r + 1)),
                        None => continue,
                    },
                    Rows::PerCpu => (4.0, TOP - 4.0),
                };
                let x = c.x(deadline);
                arrow(s, x, y_top, y_bot, "red", "miss");
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" fill="red" font-size="9">{}#{} miss</text>"#,
                    x + 3.0,
                    y_top + 9.0,
                    esc(&c.meta.task_name(e.task)),
                    e.seq
                );
            }
            _ => {}
        }
    }
    let mut hidden = false;
    for ((r, class), mut xs) in arrows {
        xs.sort_by(f64::total_cmp);
        if xs.windows(2).any(|w| w[1] - w[0] < MIN_ARROW_GAP_PX) {
            hidden = true;
            continue;
        }
        let y = c.row_top(r);
        let (from, to, colour) = match class {
            "release" => (y + c.rh, y + 1.0, "black"),
            _ => (y + 1.0, y + c.rh, "#555"),
        };
        for x in xs {
            arrow(s, x, from, to, colour, class);
        }
    }
    if hidden {
        let _ = writeln!(
            s,
            r##"<text class="note" x="{LEFT}" y="12" fill="#555" font-size="10">release and deadline arrows closer than {MIN_ARROW_GAP_PX} px are not drawn: zoom in (window) to see them</text>"##
        );
    }
    misses
}

/// The part of a late job's execution after its deadline: a red outline over the box (the
/// job's colour stays visible), so a miss shows how late the job ran, not only when.
fn draw_late_parts(s: &mut String, c: &Chart<'_>, visible: &[&Interval], misses: &[Miss]) {
    let deadline_of: BTreeMap<(u32, u64), u64> =
        misses.iter().map(|&(t, q, d)| ((t, q), d)).collect();
    for i in visible {
        let Some(&d) = deadline_of.get(&(i.task, i.seq)) else {
            continue;
        };
        if i.end <= d {
            continue;
        }
        let Some(r) = c.row_of(c.key(i)) else {
            continue;
        };
        let (x0, x1) = (c.x(i.start.max(d)), c.x(i.end));
        let _ = writeln!(
            s,
            r#"<rect class="late" x="{x0:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="red" fill-opacity="0.25" stroke="red" stroke-width="1.5"><title>{}#{} late: ran {}–{} {} after its deadline</title></rect>"#,
            c.row_top(r) + 2.0,
            (x1 - x0).max(1.0),
            c.rh - 4.0,
            esc(&c.meta.task_name(i.task)),
            i.seq,
            decimal(i.start.max(d), c.unit),
            decimal(i.end, c.unit),
            c.unit_name
        );
    }
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

/// `.s` after a job's label for strand `s` of a parallel job [RTWS §III] (nothing for strand
/// 0, so sequential schedules are labelled as before).
fn strand_suffix(strand: u32) -> String {
    if strand == 0 {
        String::new()
    } else {
        format!(".{strand}")
    }
}

#[cfg(test)]
mod tests;
