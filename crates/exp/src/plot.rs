//! Plots (SVG and PNG) with `plotters`, styled like the schedulability figures of the papers
//! (e.g. [MP Fig. 8], [RTPS Fig. 3], [ChronOS App. A–E]): the swept variable on the x axis
//! with its unit, a [`Metric`] on the y axis (the fraction of task sets accepted by default;
//! DSR, AUR, tardiness, migrations, aborts on request), one line with markers per evaluation
//! (and platform, when there are several), a legend, and the experiment's title.
//! [`LineChart`] draws any set of lines in the same style (the overhead curves of
//! `schedlab measure curves`, [MP Fig. 7]).
//!
//! Curves that coincide (e.g. an analysis and the simulation it predicts exactly, or a
//! simulation with and without overheads that cost nothing at that point) would hide each
//! other: where a point of a series equals a point of one drawn before it, it is drawn a few
//! pixels above or below ([`lanes`]), and a series whose every point equals an earlier series' says so in
//! the legend (`= label`). The numbers themselves are in `summary.csv`.
//!
//! Text is rendered with DejaVu Sans compiled into the binary (`assets/`, Bitstream Vera
//! licence), so PNG output needs no system font library.

use crate::config::Experiment;
use crate::error::ExpError;
use crate::metric::Metric;
use crate::summary::Row;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

/// Plot size in pixels.
pub const SIZE: (u32, u32) = (960, 640);

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

fn fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Cannot fail for the bundled font; if it did, text would be missing, not a crash.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Colours of the series: the colour-blind-safe palette of Wong (Nature Methods 2011) with
/// black, then four darker tones, then four more (olive, teal, navy, salmon), so that up to
/// 16 evaluations (the algorithms of [ChronOS §6]) get distinct colours.
const COLOURS: [RGBColor; 16] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
    RGBColor(128, 128, 128),
    RGBColor(117, 60, 160),
    RGBColor(140, 86, 45),
    RGBColor(160, 20, 40),
    RGBColor(128, 128, 0),
    RGBColor(0, 128, 128),
    RGBColor(30, 30, 110),
    RGBColor(250, 128, 114),
];

/// One line of the plot.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
}

/// Pixels between neighbouring lanes: a line (2 px wide) next to another stays visible.
const LANE_PX: f64 = 2.5;

/// The lane of every point of every series: 0 for a point no earlier series has, else the
/// smallest lane not taken by an earlier series at the same point (x and y equal). Lane `k`
/// is drawn `LANE_PX · ⌈k/2⌉` pixels above (odd `k`) or below (even `k`) the true value, so
/// curves that coincide run side by side and every curve is at its true value wherever it is
/// alone.
pub fn lanes(series: &[&[(f64, f64)]]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::with_capacity(series.len());
    for (i, s) in series.iter().enumerate() {
        let mine = s
            .iter()
            .map(|p| {
                let taken: Vec<usize> = (0..i)
                    .filter_map(|j| {
                        let k = series[j].iter().position(|q| q == p)?;
                        out[j].get(k).copied()
                    })
                    .collect();
                (0..).find(|k| !taken.contains(k)).unwrap_or(0)
            })
            .collect();
        out.push(mine);
    }
    out
}

/// The vertical offset of lane `k` in pixels (up is positive).
fn lane_offset_px(k: usize) -> f64 {
    let step = k.div_ceil(2) as f64 * LANE_PX;
    if k % 2 == 1 {
        step
    } else {
        -step
    }
}

/// For each series, the first earlier series with exactly the same points, if any.
fn same_as(series: &[&[(f64, f64)]]) -> Vec<Option<usize>> {
    series
        .iter()
        .enumerate()
        .map(|(i, s)| (0..i).find(|&j| !s.is_empty() && series[j] == *s))
        .collect()
}

/// Draws `series` (label, points) in order: colours, markers, lanes and legend notes.
/// With `spread`, coinciding points are drawn in lanes ([`lanes`]); without, every point is
/// at its true value (the metric plots other than acceptance: with 16 series, as in the
/// [ChronOS §8] files, lanes would move a curve by up to 20 px, which on a tardiness or count
/// axis reads as a value).
fn draw_all<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    series: &[(String, Vec<(f64, f64)>)],
    spread: bool,
) -> Result<(), String> {
    let points: Vec<&[(f64, f64)]> = series.iter().map(|s| s.1.as_slice()).collect();
    let lanes = if spread {
        lanes(&points)
    } else {
        points.iter().map(|p| vec![0; p.len()]).collect()
    };
    let same = same_as(&points);
    // Data units per pixel on the y axis, to turn a lane's pixel offset into an offset of y.
    let (y0, y1) = {
        let r = chart.y_range();
        (r.start, r.end)
    };
    let height = f64::from(chart.plotting_area().dim_in_pixel().1.max(1));
    let per_px = (y1 - y0) / height;
    for (i, (label, pts)) in series.iter().enumerate() {
        let label = match same[i] {
            Some(j) => format!("{label} (= {})", series[j].0),
            None => label.clone(),
        };
        let shifted: Vec<(f64, f64)> = pts
            .iter()
            .zip(&lanes[i])
            .map(|(&(x, y), &lane)| (x, y + lane_offset_px(lane) * per_px))
            .collect();
        draw_marked_series(chart, i, &label, &shifted)?;
    }
    Ok(())
}

fn series(e: &Experiment, rows: &[Row], metric: Metric) -> Vec<Series> {
    let platforms = e.platforms();
    let many = platforms.len() > 1 && e.variable != crate::config::Variable::Cpus;
    let mut out = Vec::new();
    for ev in &e.evaluations {
        let groups: Vec<Option<u32>> = if many {
            platforms.iter().map(|&m| Some(m)).collect()
        } else {
            vec![None]
        };
        for m in groups {
            let points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.evaluation == ev.label && m.is_none_or(|m| r.cpus == m) && r.sets > 0)
                .filter_map(|r| Some((r.x, metric.value(r)?)))
                .collect();
            // An evaluation without this metric anywhere (an analysis has no DSR) is left
            // out of the plot rather than drawn as an empty legend entry.
            if points.is_empty() && metric != Metric::Acceptance {
                continue;
            }
            let label = match m {
                Some(m) => format!("{} (m = {m})", ev.label),
                None => ev.label.clone(),
            };
            out.push(Series { label, points });
        }
    }
    out
}

/// The y range of a metric's plot: fractions on a fixed [0, 1] (with a margin for the
/// markers), counts and times from 0 to 8% above the largest value.
fn y_range(metric: Metric, lines: &[(String, Vec<(f64, f64)>)]) -> (f64, f64) {
    if metric.is_ratio() {
        return (-0.02, 1.02);
    }
    let top = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(0.0f64, f64::max);
    (0.0, if top > 0.0 { top * 1.08 } else { 1.0 })
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    e: &Experiment,
    rows: &[Row],
    metric: Metric,
) -> Result<(), String> {
    let err = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(err)?;
    let xs = e.points.iter().copied();
    let (mut lo, mut hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !lo.is_finite() || !hi.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        lo -= 0.5;
        hi += 0.5;
    }
    let pad = (hi - lo) * 0.02;
    let lines: Vec<(String, Vec<(f64, f64)>)> = series(e, rows, metric)
        .into_iter()
        .map(|s| (s.label, s.points))
        .collect();
    let (y0, y1) = y_range(metric, &lines);
    let mut chart = ChartBuilder::on(&root)
        .caption(&e.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(if metric.is_ratio() { 72 } else { 88 })
        .build_cartesian_2d((lo - pad)..(hi + pad), y0..y1)
        .map_err(err)?;
    let platforms = e.platforms();
    let subtitle = if e.variable == crate::config::Variable::Cpus {
        String::new()
    } else {
        format!(
            " (m = {})",
            platforms
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    chart
        .configure_mesh()
        .x_desc(format!(
            "{}{subtitle}",
            crate::summary::x_description(e, rows)
        ))
        .y_desc(metric.y_desc())
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)?;
    draw_all(&mut chart, &lines, metric == Metric::Acceptance)?;
    // Ratio curves start near 1 on the left and fall to the right: the lower left corner is
    // the part of the plot they cross last. Counts and times grow with the load: upper left.
    let position = if metric.is_ratio() {
        SeriesLabelPosition::LowerLeft
    } else {
        SeriesLabelPosition::UpperLeft
    };
    // Many series (the 16 algorithms of [ChronOS §6]) get a smaller legend font so that the
    // legend leaves the curves visible.
    let legend_font = if lines.len() > 10 { 12 } else { 15 };
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", legend_font))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(())
}

/// The plot of `metric` as SVG text.
pub fn svg(e: &Experiment, rows: &[Row], metric: Metric) -> Result<String, String> {
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        draw(root, e, rows, metric)?;
    }
    Ok(text)
}

/// The plot of `metric` as PNG bytes.
pub fn png(e: &Experiment, rows: &[Row], metric: Metric) -> Result<Vec<u8>, String> {
    fonts();
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        draw(root, e, rows, metric)?;
    }
    encode_png(&rgb, w, h)
}

/// `w` × `h` RGB pixels as PNG bytes.
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgb);
        // Flat colours: the best deflate level with adaptive filtering shrinks a plot about
        // tenfold at a few milliseconds of encoding.
        encoder.set_compression(png::Compression::Best);
        encoder.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|x| x.to_string())?;
        writer.write_image_data(rgb).map_err(|x| x.to_string())?;
    }
    Ok(out)
}

/// A generic line chart (e.g. overheads as functions of n, [MP Fig. 7]) in the style of the
/// acceptance plots: one line with markers per series, a legend, axis descriptions.
#[derive(Clone, Debug, Default)]
pub struct LineChart {
    /// Title above the plot.
    pub title: String,
    /// x-axis description.
    pub x_desc: String,
    /// y-axis description.
    pub y_desc: String,
    /// (label, points) per line, drawn in order.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

/// Series `i` of a chart: a line in the `i`-th colour, its legend entry, and a marker per
/// point (circle, triangle or cross by `i`, so series stay apart in black and white).
fn draw_marked_series<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    i: usize,
    label: &str,
    points: &[(f64, f64)],
) -> Result<(), String> {
    let err = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    let colour = COLOURS[i % COLOURS.len()];
    let style = ShapeStyle::from(&colour).stroke_width(2);
    chart
        .draw_series(LineSeries::new(points.iter().copied(), style))
        .map_err(err)?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    match i % 3 {
        0 => {
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                .map_err(err)?;
        }
        1 => {
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|&p| TriangleMarker::new(p, 5, colour.filled())),
                )
                .map_err(err)?;
        }
        _ => {
            chart
                .draw_series(points.iter().map(|&p| Cross::new(p, 4, style)))
                .map_err(err)?;
        }
    }
    Ok(())
}

fn draw_lines<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    c: &LineChart,
) -> Result<(), String> {
    let err = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(err)?;
    let pts = c.series.iter().flat_map(|s| s.1.iter().copied());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for (x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if !x0.is_finite() || !x1.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 - x0 < 1e-12 {
        x0 -= 0.5;
        x1 += 0.5;
    }
    if y1 <= 0.0 || !y1.is_finite() {
        y1 = 1.0;
    }
    let pad = (x1 - x0) * 0.02;
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..(y1 * 1.08))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(c.x_desc.as_str())
        .y_desc(c.y_desc.as_str())
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)?;
    draw_all(&mut chart, &c.series, true)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// Draws `charts` side by side on `root` (one panel each) and presents it.
fn draw_row<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    charts: &[LineChart],
) -> Result<(), String> {
    let panels = root.split_evenly((1, charts.len().max(1)));
    for (area, c) in panels.into_iter().zip(charts) {
        draw_lines(area, c)?;
    }
    root.present().map_err(|x| x.to_string())
}

/// Size of a row of `k` panels of [`SIZE`].
fn row_size(k: usize) -> (u32, u32) {
    (SIZE.0 * u32::try_from(k.max(1)).unwrap_or(1), SIZE.1)
}

impl LineChart {
    /// The chart as SVG text.
    pub fn svg(&self) -> Result<String, String> {
        svg_row(std::slice::from_ref(self))
    }

    /// The chart as PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>, String> {
        png_row(std::slice::from_ref(self))
    }
}

/// Several charts side by side (e.g. the average and the maximum of one overhead, like the
/// insets of [MP Fig. 7]) as SVG text.
pub fn svg_row(charts: &[LineChart]) -> Result<String, String> {
    fonts();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, row_size(charts.len())).into_drawing_area();
        draw_row(root, charts)?;
    }
    Ok(text)
}

/// Several charts side by side as PNG bytes.
pub fn png_row(charts: &[LineChart]) -> Result<Vec<u8>, String> {
    fonts();
    let (w, h) = row_size(charts.len());
    let mut rgb = vec![0u8; (w as usize) * (h as usize) * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        draw_row(root, charts)?;
    }
    encode_png(&rgb, w, h)
}

/// Writes `NAME.svg` and `NAME.png` into the store's folder for every metric of the
/// experiment's `plots` (`acceptance.svg`, `dsr.svg`, …); returns each metric with its SVG
/// text (for the HTML report).
pub fn write_plots(
    e: &Experiment,
    rows: &[Row],
    store: &crate::store::Store,
) -> Result<Vec<(Metric, String)>, ExpError> {
    let dir: &Path = store.dir();
    let mut out = Vec::with_capacity(e.plots.len());
    for &metric in &e.plots {
        let name = metric.name();
        let svg_text = svg(e, rows, metric).map_err(|message| ExpError::Plot {
            path: dir.join(format!("{name}.svg")),
            message,
        })?;
        store.write_output(&format!("{name}.svg"), svg_text.as_bytes())?;
        let png_bytes = png(e, rows, metric).map_err(|message| ExpError::Plot {
            path: dir.join(format!("{name}.png")),
            message,
        })?;
        store.write_output(&format!("{name}.png"), &png_bytes)?;
        out.push((metric, svg_text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coinciding_points_get_their_own_lanes() {
        let a = [(1.0, 1.0), (2.0, 1.0), (3.0, 0.5)];
        let b = a; // identical (analysis P-EDF and sim P-EDF in the showcase)
        let c = [(1.0, 1.0), (2.0, 0.9), (3.0, 0.5)]; // shares the first and last points
        let d = [(1.0, 0.2), (2.0, 0.1), (3.0, 0.0)]; // alone
        let l = lanes(&[&a, &b, &c, &d]);
        assert_eq!(
            l,
            [vec![0, 0, 0], vec![1, 1, 1], vec![2, 0, 2], vec![0, 0, 0]]
        );
        assert_eq!(same_as(&[&a, &b, &c, &d]), [None, Some(0), None, None]);
        assert_eq!(lane_offset_px(0), 0.0);
        assert_eq!(lane_offset_px(1), LANE_PX);
        assert_eq!(lane_offset_px(2), -LANE_PX);
        assert_eq!(lane_offset_px(3), 2.0 * LANE_PX);
    }

    #[test]
    fn identical_series_are_drawn_apart_and_named_in_the_legend() {
        let chart = LineChart {
            title: "t".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            series: vec![
                ("first".into(), vec![(0.0, 1.0), (1.0, 0.5)]),
                ("second".into(), vec![(0.0, 1.0), (1.0, 0.5)]),
            ],
        };
        let svg = chart.svg().unwrap();
        assert!(svg.contains("second (= first)"), "legend note missing");
        // Two polylines (one per series), at different heights.
        let lines: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
            .collect();
        assert!(lines.len() >= 2, "{svg}");
        assert_ne!(points_of(lines[0]), points_of(lines[1]));
    }

    fn points_of(line: &str) -> &str {
        let start = line.find("points=\"").map_or(0, |i| i + 8);
        let end = line[start..].find('"').map_or(line.len(), |j| start + j);
        &line[start..end]
    }
}
