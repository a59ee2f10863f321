use super::*;
use crate::event::NO_CPU;
use crate::file::TaskMeta;

fn ev(t: u64, k: Kind, cpu: u32, task: u32, seq: u64) -> Event {
    Event::new(t, k, cpu, task, seq)
}

/// Two CPUs, three tasks; task 2 is preempted and migrates, and misses.
fn sample() -> Vec<Event> {
    vec![
        ev(0, Kind::Release, NO_CPU, 0, 0),
        ev(0, Kind::Release, NO_CPU, 1, 0),
        ev(0, Kind::Release, NO_CPU, 2, 0),
        ev(0, Kind::SwitchIn, 0, 0, 0),
        ev(0, Kind::SwitchIn, 1, 2, 0),
        ev(2_000, Kind::SwitchOut, 1, 2, 0),
        ev(2_000, Kind::SwitchIn, 1, 1, 0),
        ev(3_000, Kind::SwitchOut, 0, 0, 0),
        ev(3_000, Kind::Complete, 0, 0, 0),
        ev(3_000, Kind::SwitchIn, 0, 2, 0),
        ev(5_000, Kind::SwitchOut, 1, 1, 0),
        ev(5_000, Kind::Complete, 1, 1, 0),
        ev(6_000, Kind::DeadlineMiss, NO_CPU, 2, 0).with_arg(6_000),
        ev(7_000, Kind::SwitchOut, 0, 2, 0),
        ev(7_000, Kind::Complete, 0, 2, 0),
    ]
}

/// Checks that tags are balanced (a tiny XML well-formedness check: no comments/CDATA used).
fn well_formed(svg: &str) -> bool {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let Some(j) = rest[i..].find('>') else {
            return false;
        };
        let tag = &rest[i + 1..i + j];
        rest = &rest[i + j + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop().as_deref() != Some(name.trim()) {
                return false;
            }
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap_or("").to_string();
            stack.push(name);
        }
        // Text between tags must not contain a raw '&' that is not an entity.
    }
    stack.is_empty()
}

fn count(s: &str, pat: &str) -> usize {
    s.matches(pat).count()
}

#[test]
fn per_cpu_chart() {
    let meta = Meta {
        cpus: Some(2),
        ..Meta::default()
    };
    let svg = to_svg(&meta, &sample(), &GanttOptions::default());
    assert!(svg.starts_with("<svg"));
    assert!(well_formed(&svg), "{svg}");
    assert_eq!(count(&svg, r#"class="job""#), 4);
    assert_eq!(count(&svg, r#"class="legend""#), 3);
    assert_eq!(count(&svg, r#"class="miss""#), 1);
    assert!(svg.contains("time (µs)"));
    assert!(svg.contains(">CPU 1</text>"));
}

#[test]
fn per_task_chart_with_deadlines_and_window() {
    let meta = Meta {
        cpus: Some(2),
        tasks: vec![
            TaskMeta {
                name: Some("a<b".into()),
                deadline_ns: Some(4_000),
                split: Vec::new(),
                ..Default::default()
            },
            TaskMeta {
                name: None,
                deadline_ns: Some(6_000),
                split: Vec::new(),
                ..Default::default()
            },
            TaskMeta {
                name: None,
                deadline_ns: Some(6_000),
                split: Vec::new(),
                ..Default::default()
            },
        ],
        ..Meta::default()
    };
    let opts = GanttOptions {
        rows: Rows::PerTask,
        window: Some((2_500, 6_500)),
        ..GanttOptions::default()
    };
    let svg = to_svg(&meta, &sample(), &opts);
    assert!(well_formed(&svg), "{svg}");
    // Intervals overlapping [2.5, 6.5) µs: τ0 [0,3), τ1 [2,5), τ2 [3,7); τ2 [0,2) is outside.
    assert_eq!(count(&svg, r#"class="job""#), 3);
    // Releases at 0 are outside the window; deadlines 4 µs (τ0) and 6 µs (τ1, τ2) are inside.
    assert_eq!(count(&svg, r#"class="release""#), 0);
    assert_eq!(count(&svg, r#"class="deadline""#), 3);
    assert_eq!(count(&svg, r#"class="miss""#), 1);
    assert!(svg.contains("a&lt;b"));
    assert!(!svg.contains("a<b"));
}

#[test]
fn releases_drawn_in_per_task_mode() {
    let opts = GanttOptions {
        rows: Rows::PerTask,
        ..GanttOptions::default()
    };
    let svg = to_svg(&Meta::default(), &sample(), &opts);
    assert!(well_formed(&svg));
    assert_eq!(count(&svg, r#"class="release""#), 3);
    assert_eq!(count(&svg, r#"class="job""#), 4);
}

#[test]
fn empty_and_degenerate_inputs() {
    let svg = to_svg(&Meta::default(), &[], &GanttOptions::default());
    assert!(well_formed(&svg));
    let svg = to_svg(
        &Meta::default(),
        &sample(),
        &GanttOptions {
            width: 0,
            row_height: 0,
            window: Some((u64::MAX, 0)),
            ..GanttOptions::default()
        },
    );
    assert!(well_formed(&svg));
    assert_eq!(count(&svg, r#"class="job""#), 0);
}

#[test]
fn ticks_and_units() {
    assert_eq!(tick_step(10), 1);
    assert_eq!(tick_step(7_000), 1_000);
    assert_eq!(tick_step(15_000_000), 2_000_000);
    assert_eq!(unit_for(2_000_000), (1_000_000, "ms"));
    assert_eq!(unit_for(500), (1, "ns"));
    assert_eq!(decimal(1_500_000, 1_000_000), "1.5");
    assert_eq!(decimal(3_000, 1_000), "3");
    assert_eq!(tick_step(u64::MAX), 2_000_000_000_000_000_000);
}

#[test]
fn palette_is_stable() {
    assert_eq!(task_colour(0), "#4e79a7");
    assert_eq!(task_colour(12), task_colour(12));
    assert_ne!(task_colour(10), task_colour(11));
}

/// One CPU: τ0#0 released at 0 with deadline 5 µs runs 0–7 µs, completes late at 7 µs; the
/// simulator reports the miss at the completion with the deadline as its argument.
fn late_job() -> Vec<Event> {
    vec![
        ev(0, Kind::Release, NO_CPU, 0, 0),
        ev(0, Kind::SwitchIn, 0, 0, 0),
        ev(7_000, Kind::SwitchOut, 0, 0, 0),
        ev(7_000, Kind::Complete, 0, 0, 0),
        ev(7_000, Kind::DeadlineMiss, 0, 0, 0).with_arg(5_000),
        ev(10_000, Kind::Release, NO_CPU, 0, 1),
    ]
}

/// The x of the first `<line>` of the first element with `class`.
fn arrow_x(svg: &str, class: &str) -> f64 {
    let at = svg.find(&format!(r#"class="{class}""#)).unwrap();
    let rest = &svg[at..];
    let x = rest.find("x1=\"").unwrap() + 4;
    rest[x..x + rest[x..].find('"').unwrap()].parse().unwrap()
}

#[test]
fn a_miss_is_marked_at_the_deadline_and_the_late_part_shows() {
    let meta = Meta {
        cpus: Some(1),
        tasks: vec![TaskMeta {
            name: Some("a".into()),
            deadline_ns: Some(5_000),
            split: Vec::new(),
            ..Default::default()
        }],
        ..Meta::default()
    };
    for rows in [Rows::PerCpu, Rows::PerTask] {
        let opts = GanttOptions {
            rows,
            ..GanttOptions::default()
        };
        let svg = to_svg(&meta, &late_job(), &opts);
        assert!(well_formed(&svg), "{svg}");
        // Plot from x = 90 to 1180 px over 0–10 µs: the deadline 5 µs is at 635 px, the
        // completion 7 µs (where the old chart put the marker) at 853 px.
        assert!((arrow_x(&svg, "miss") - 635.0).abs() < 0.01, "{svg}");
        assert_eq!(count(&svg, r#"class="late""#), 1);
        assert!(svg.contains(r#"class="late" x="635.00""#), "{svg}");
        assert!(
            svg.contains("a#0 late: ran 5–7 µs after its deadline"),
            "{svg}"
        );
    }
}

#[test]
fn colours_are_hex_and_many_tasks_get_patterns() {
    // 24 tasks, one slice each, on 4 CPUs.
    let mut events = Vec::new();
    for t in 0..24u32 {
        let cpu = t % 4;
        let start = u64::from(t / 4) * 1_000;
        events.push(ev(start, Kind::SwitchIn, cpu, t, 0));
        events.push(ev(start + 1_000, Kind::SwitchOut, cpu, t, 0));
    }
    let svg = to_svg(&Meta::default(), &events, &GanttOptions::default());
    assert!(well_formed(&svg));
    assert!(
        !svg.contains("hsl("),
        "hsl colours render black in common converters"
    );
    assert_eq!(count(&svg, "<pattern "), 14);
    assert!(svg.contains(r#"fill="url(#task-23)""#));
    // Every fill is a hex colour, a pattern, or a named colour of the chart's furniture.
    for fill in svg
        .split("fill=\"")
        .skip(1)
        .map(|r| &r[..r.find('"').unwrap()])
    {
        let hex = fill.len() == 7 && fill.starts_with('#');
        assert!(
            hex || fill.starts_with("url(#task-") || ["white", "red", "black"].contains(&fill),
            "{fill}"
        );
    }
}

/// `n` slices of 1 µs every 2 µs on CPU 0, alternating 3 tasks.
fn many_slices(n: u64) -> Vec<Event> {
    let mut events = Vec::new();
    for k in 0..n {
        let task = (k % 3) as u32;
        events.push(ev(2_000 * k, Kind::SwitchIn, 0, task, k));
        events.push(ev(2_000 * k + 1_000, Kind::SwitchOut, 0, task, k));
    }
    events
}

#[test]
fn zoomed_out_slices_are_merged_and_zoomed_in_ones_are_exact() {
    let meta = Meta {
        cpus: Some(1),
        ..Meta::default()
    };
    let events = many_slices(100_000);
    // 200 ms on 1090 px: each slice is 0.005 px wide.
    let svg = to_svg(&meta, &events, &GanttOptions::default());
    assert!(well_formed(&svg));
    assert_eq!(count(&svg, r#"class="job""#), 0);
    let merged = count(&svg, r#"class="merged""#);
    assert!((1..=1100).contains(&merged), "{merged}");
    assert!(svg.len() < 150_000, "{} bytes", svg.len());
    // Busy half the time: every column is half full.
    assert!(svg.contains(r#"fill-opacity="0.5""#));
    // Zoomed in on 40 µs: 20 slices, each 27 px wide, drawn exactly with their tooltips.
    let opts = GanttOptions {
        window: Some((100_000, 140_000)),
        ..GanttOptions::default()
    };
    let svg = to_svg(&meta, &events, &opts);
    assert_eq!(count(&svg, r#"class="job""#), 20);
    assert_eq!(count(&svg, r#"class="merged""#), 0);
    assert_eq!(count(&svg, "<title>"), 20);
}
