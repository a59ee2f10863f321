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
            },
            TaskMeta {
                name: None,
                deadline_ns: Some(6_000),
            },
            TaskMeta {
                name: None,
                deadline_ns: Some(6_000),
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
