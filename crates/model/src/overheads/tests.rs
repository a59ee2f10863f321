#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use proptest::prelude::*;

const EXAMPLE: &str = r#"
schema = 1
[meta]
machine = "AMD EPYC, 2 vCPU"

[arch.message-passing.release_latency]
avg = [[2, 3100], [100, 4200]]
max = [[2, 15000], [100, 42000]]
[arch.message-passing.release]
avg = [[2, 900]]
[arch.global-lock.schedule]
max = [[1, 500], [10, 2000]]

[cpmd.preemption]
avg = [[0, 0], [65536, 12000], [1048576, 90000]]
"#;

fn err(text: &str) -> String {
    OverheadFile::parse_toml(text).unwrap_err().to_string()
}

#[test]
fn reads_the_documented_example() {
    let f = OverheadFile::parse_toml(EXAMPLE).unwrap();
    assert_eq!(
        f.meta.get("machine").map(String::as_str),
        Some("AMD EPYC, 2 vCPU")
    );
    assert_eq!(f.arch_names(), ["global-lock", "message-passing"]);
    let v = |arch, name, stat, n| f.value(arch, name, stat, n).unwrap().map(|d| d.as_ns());
    // (2, 3100) → (100, 4200) at n = 51: 3100 + ⌈49·1100/98⌉ = 3650.
    assert_eq!(
        v(
            "message-passing",
            OverheadName::ReleaseLatency,
            Stat::Avg,
            51
        ),
        Some(3650)
    );
    assert_eq!(
        v("message-passing", OverheadName::Release, Stat::Avg, 1000),
        Some(900)
    );
    assert_eq!(v("message-passing", OverheadName::Ipi, Stat::Avg, 10), None);
    // (0, 0) → (65536, 12000) at 32768: 6000.
    assert_eq!(
        f.cpmd(CpmdKind::Preemption, Stat::Avg, 32768)
            .unwrap()
            .map(|d| d.as_ns()),
        Some(6000)
    );
    assert_eq!(f.cpmd(CpmdKind::Migration, Stat::Avg, 1).unwrap(), None);
}

#[test]
fn asking_for_a_missing_statistic_names_it() {
    let f = OverheadFile::parse_toml(EXAMPLE).unwrap();
    let e = f
        .value("message-passing", OverheadName::Release, Stat::Max, 4)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch `message-passing`, overhead `release`: no `max` values (the file gives only `avg`)"
    );
    let e = f.cpmd(CpmdKind::Preemption, Stat::Max, 4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: arch `cpmd`, overhead `preemption`: no `max` values (the file gives only `avg`)"
    );
    let e = f.arch("mesage-passing").unwrap_err();
    assert_eq!(
        e.to_string(),
        "overhead file: no architecture `mesage-passing` (did you mean `message-passing`?); it describes: global-lock, message-passing"
    );
}

#[test]
fn error_messages_name_the_place() {
    assert_eq!(
        err("schema = 1\nschemes = 2\n"),
        "overhead file: top level: unknown key `schemes` (did you mean `schema`?)"
    );
    assert_eq!(
        err("[arch.x.release]\navg = [[1, 2]]\n"),
        "overhead file: top level: missing `schema = 1`"
    );
    assert_eq!(
        err("schema = 2\n"),
        "overhead file: `schema`: this version reads schema 1, got 2"
    );
    assert_eq!(
        err("schema = 1\n[arch.global-lock.relase]\navg = [[1, 2]]\n"),
        "overhead file: arch `global-lock`: unknown overhead `relase` (did you mean `release`?)"
    );
    assert_eq!(
        err("schema = 1\n[arch.global-lock.release]\naverage = [[1, 2]]\n"),
        "overhead file: arch `global-lock`, overhead `release`: unknown field `average` (known: avg, max)"
    );
    assert_eq!(
        err("schema = 1\n[arch.global-lock.release]\n"),
        "overhead file: arch `global-lock`, overhead `release`: needs `avg` or `max` (or both)"
    );
    assert_eq!(
        err("schema = 1\n[arch.p.ipi]\nmax = [[4, 10], [4, 12]]\n"),
        "overhead file: arch `p`, overhead `ipi`, field `max`: x must be strictly increasing (point 1: 4 after 4)"
    );
    assert_eq!(
        err("schema = 1\n[arch.p.ipi]\navg = [[4, -10]]\n"),
        "overhead file: arch `p`, overhead `ipi`, field `avg`: point 0: ns must be a non-negative integer, got -10"
    );
    assert_eq!(
        err("schema = 1\n[arch.p.ipi]\navg = [[4.5, 10]]\n"),
        "overhead file: arch `p`, overhead `ipi`, field `avg`: point 0: n tasks must be a non-negative integer, got 4.5"
    );
    assert_eq!(
        err("schema = 1\n[arch.p.ipi]\navg = [[4, 10, 3]]\n"),
        "overhead file: arch `p`, overhead `ipi`, field `avg`: point 0 must be a pair [n tasks, ns], got [4,10,3]"
    );
    assert_eq!(
        err("schema = 1\n[arch.p.ipi]\navg = []\n"),
        "overhead file: arch `p`, overhead `ipi`, field `avg`: needs at least one point"
    );
    assert_eq!(
        err("schema = 1\n[cpmd.preempt]\navg = [[0, 1]]\n"),
        "overhead file: `cpmd`: unknown CPMD kind `preempt` (did you mean `preemption`?)"
    );
    assert_eq!(
        err("schema = 1\n[meta]\ncores = 4\n"),
        "overhead file: meta.cores: must be a string, got 4"
    );
    assert!(err("schema = 1\n[arch\n").starts_with("overhead file: malformed TOML"));
}

#[test]
fn json_values_are_accepted_too() {
    let v = serde_json::json!({"schema": 1, "arch": {"partitioned": {"schedule": {"avg": [[1, 700]]}}}});
    let f = OverheadFile::from_value(&v).unwrap();
    assert_eq!(
        f.value("partitioned", OverheadName::Schedule, Stat::Avg, 9)
            .unwrap(),
        Some(Duration::from_ns(700))
    );
}

fn curve_strategy() -> impl Strategy<Value = Curve> {
    prop::collection::btree_map(0..=MAX_POINT, 0..=MAX_POINT, 1..5)
        .prop_map(|m| Curve::new(m.into_iter().collect()).unwrap())
}

fn measured_strategy() -> impl Strategy<Value = Measured> {
    (
        prop::option::of(curve_strategy()),
        prop::option::of(curve_strategy()),
        curve_strategy(),
    )
        .prop_map(|(avg, max, fallback)| match (avg, max) {
            (None, None) => Measured {
                avg: Some(fallback),
                max: None,
            },
            (avg, max) => Measured { avg, max },
        })
}

fn file_strategy() -> impl Strategy<Value = OverheadFile> {
    let names = prop::collection::btree_map(
        prop::sample::select(OverheadName::ALL.to_vec()),
        measured_strategy(),
        0..4,
    );
    (
        prop::collection::btree_map("[a-z \"\\\\.\u{e9}\u{1}]{0,8}", ".{0,10}", 0..3),
        prop::collection::btree_map(
            prop_oneof!["[a-z.\" -]{1,12}", "[a-z-]{1,8}@m[1-9][0-9]{0,2}"],
            names,
            0..3,
        ),
        prop::collection::btree_map(
            prop::sample::select(CpmdKind::ALL.to_vec()),
            measured_strategy(),
            0..3,
        ),
        (1u64..10_000_000_000, any::<bool>()),
    )
        .prop_map(|(meta, arch, cpmd, (q, with_q))| {
            // A tick curve needs the tick period; without one it is optional.
            let tick = arch.values().any(|o| o.contains_key(&OverheadName::Tick));
            let tick_period = (tick || with_q).then_some(crate::time::Duration::from_ns(q));
            OverheadFile {
                meta,
                tick_period,
                arch,
                cpmd,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The writer's output reads back to the same file.
    #[test]
    fn writer_round_trips(f in file_strategy()) {
        let text = f.to_toml();
        let back = OverheadFile::parse_toml(&text);
        prop_assert_eq!(back.as_ref(), Ok(&f), "{}", text);
    }

    /// Evaluation is monotone non-decreasing in x, never below the first value, and between
    /// the running-maximum values of the surrounding points.
    #[test]
    fn evaluation_is_monotone(c in curve_strategy(), a in any::<u64>(), b in any::<u64>()) {
        let (lo, hi) = (a.min(b), a.max(b));
        prop_assert!(c.eval(lo) <= c.eval(hi));
        let first = c.points()[0].1;
        prop_assert!(c.eval(lo) >= first);
        let top = c.points().iter().map(|p| p.1).max().unwrap_or(0);
        if hi <= c.points().last().unwrap().0 {
            prop_assert!(c.eval(hi) <= top);
        }
    }
}

#[test]
fn tick_period_is_read_written_and_required_with_a_tick_curve() {
    let f = OverheadFile::parse_toml(
        "schema = 1\ntick_period = \"4ms\"\n[arch.global-lock.tick]\nmax = [[1, 3000]]\n",
    )
    .unwrap();
    assert_eq!(f.tick_period.map(|q| q.as_ns()), Some(4_000_000));
    assert!(f.to_toml().contains("tick_period = \"4ms\""));
    assert_eq!(OverheadFile::parse_toml(&f.to_toml()), Ok(f));
    // Integer ns are accepted too; 0 and a bare unitless string are not.
    let f = OverheadFile::parse_toml("schema = 1\ntick_period = 1000000\n").unwrap();
    assert_eq!(f.tick_period.map(|q| q.as_ns()), Some(1_000_000));
    let e = OverheadFile::parse_toml("schema = 1\ntick_period = 0\n").unwrap_err();
    assert!(
        e.to_string().contains("`tick_period`: must be more than 0"),
        "{e}"
    );
    let e = OverheadFile::parse_toml("schema = 1\ntick_period = \"4\"\n").unwrap_err();
    assert!(e.to_string().contains("`tick_period`"), "{e}");
    // A tick curve without the period names both.
    let e = OverheadFile::parse_toml("schema = 1\n[arch.global-lock.tick]\nmax = [[1, 3000]]\n")
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("arch `global-lock`, overhead `tick`")
            && e.to_string().contains("tick_period"),
        "{e}"
    );
    // A misspelling is caught as before.
    let e = OverheadFile::parse_toml("schema = 1\ntick_perod = \"4ms\"\n").unwrap_err();
    assert!(e.to_string().contains("did you mean `tick_period`?"), "{e}");
}

#[test]
fn sections_per_core_count_are_picked_by_m() {
    let text = "schema = 1\n\
        [arch.global-lock.schedule]\navg = [[1, 100]]\n\
        [arch.\"global-lock@m64\".schedule]\navg = [[1, 6400]]\n\
        [arch.partitioned.schedule]\navg = [[1, 7]]\n";
    let f = OverheadFile::parse_toml(text).unwrap();
    let sch = |arch: &str, m| {
        f.arch_at(arch, m).unwrap()[&OverheadName::Schedule]
            .avg
            .as_ref()
            .unwrap()
            .eval(1)
    };
    assert_eq!(sch("global-lock", 64), 6400);
    assert_eq!(sch("global-lock", 8), 100);
    assert_eq!(sch("partitioned", 64), 7);
    assert_eq!(f.section_at("global-lock", 64), Some("global-lock@m64"));
    assert_eq!(f.section_at("global-lock", 63), Some("global-lock"));
    assert_eq!(f.arch_at("message-passing", 64), None);
    assert_eq!(f.base_names(), ["global-lock", "partitioned"]);
    assert_eq!(
        f.arch_section_at("global-lok", 8).unwrap_err().to_string(),
        "overhead file: no architecture `global-lok` (did you mean `global-lock`?); it describes: global-lock, global-lock@m64, partitioned"
    );
    // Only an @m section: found for its M, not for another.
    let f =
        OverheadFile::parse_toml("schema = 1\n[arch.\"message-passing@m8\".dsp]\nmax = [[1, 5]]\n")
            .unwrap();
    assert!(f.arch_at("message-passing", 8).is_some());
    assert!(f.arch_at("message-passing", 16).is_none());
    // Round trip of an @m section name.
    assert_eq!(OverheadFile::parse_toml(&f.to_toml()).unwrap(), f);
}

#[test]
fn a_section_name_after_at_must_be_m_and_a_cpu_count() {
    for bad in [
        "x@64", "x@m", "x@m0", "x@m064", "x@m1025", "x@m6x", "x@m-1", "x@@m2", "x@m2@m3",
    ] {
        let text = format!("schema = 1\n[arch.\"{bad}\".schedule]\navg = [[1, 1]]\n");
        let e = err(&text);
        assert!(
            e.starts_with(&format!("overhead file: arch `{bad}`: after `@` a section name needs `m` and a CPU count 1..=1024")),
            "{bad}: {e}"
        );
    }
    assert_eq!(
        err("schema = 1\n[arch.\"@m4\".schedule]\navg = [[1, 1]]\n"),
        "overhead file: arch `@m4`: the architecture before `@m` must not be empty"
    );
    for good in ["x@m1", "x@m1024", "global-lock-di@m256"] {
        let text = format!("schema = 1\n[arch.\"{good}\".schedule]\navg = [[1, 1]]\n");
        assert!(OverheadFile::parse_toml(&text).is_ok(), "{good}");
    }
    assert_eq!(split_section("a@m12"), Ok(("a", Some(12))));
    assert_eq!(split_section("a"), Ok(("a", None)));
}
