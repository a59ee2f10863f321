#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use proptest::prelude::*;

const EXAMPLE: &str = r#"
schema = 1
lock = "mcs"
[meta]
machine = "Xeon, 2 vCPU"
[costs]
schedule = "1.5us"
lock_handoff = 150
noise_ppm = 20
[arch.message-passing]
schedule = "900ns"
dsp_handler = "0.8us"
"#;

fn err(text: &str) -> String {
    CostsFile::from_toml_str(text).unwrap_err().to_string()
}

#[test]
fn reads_the_documented_example() {
    let f = CostsFile::from_toml_str(EXAMPLE).unwrap();
    assert_eq!(f.lock, LockSemantics::Mcs);
    assert_eq!(f.meta["machine"], "Xeon, 2 vCPU");
    assert_eq!(f.common[&CostName::Schedule], 1_500);
    assert_eq!(f.common[&CostName::LockHandoff], 150);
    assert_eq!(f.common[&CostName::NoisePpm], 20);
    let mp = f.for_arch("message-passing");
    assert_eq!(mp.get(CostName::Schedule), 900);
    assert_eq!(mp.get(CostName::DspHandler), 800);
    assert_eq!(mp.get(CostName::LockHandoff), 150);
    assert_eq!(f.for_arch("global-lock").get(CostName::Schedule), 1_500);
}

#[test]
fn the_module_doc_example_reads() {
    // The example at the top of mod.rs, comments included.
    let text = r#"
schema = 1
lock = "ticket"                 # the global lock's semantics: ticket or mcs
[meta]                          # optional free-form strings
machine = "Xeon, 2 vCPU"
[costs]                         # every architecture (ns, or a time with a unit)
schedule = "1.5us"
lock_handoff = 150
[arch.message-passing]          # overrides for one architecture (same keys)
schedule = "900ns"
"#;
    let f = CostsFile::from_toml_str(text).unwrap();
    assert_eq!(f.lock, LockSemantics::Ticket);
    assert_eq!(f.arch["message-passing"][&CostName::Schedule], 900);
}

#[test]
fn json_and_toml_read_the_same() {
    let json = r#"{"schema": 1, "lock": "mcs", "meta": {"machine": "Xeon, 2 vCPU"},
        "costs": {"schedule": "1.5us", "lock_handoff": 150, "noise_ppm": 20},
        "arch": {"message-passing": {"schedule": "900ns", "dsp_handler": 800}}}"#;
    assert_eq!(
        CostsFile::from_json_str(json).unwrap(),
        CostsFile::from_toml_str(EXAMPLE).unwrap()
    );
}

#[test]
fn a_minimal_file_is_all_defaults() {
    let f = CostsFile::from_toml_str("schema = 1\n").unwrap();
    assert_eq!(f, CostsFile::default());
    assert_eq!(f.for_arch("partitioned"), OpCosts::default());
}

#[test]
fn error_messages_name_the_table_and_key() {
    let cases: &[(&str, &str)] = &[
        (
            "lock = \"mcs\"\n",
            "costs file: top level: missing `schema = 1`",
        ),
        (
            "schema = 2\n",
            "costs file: `schema`: this version reads schema 1, got 2",
        ),
        (
            "schema = 1\nshcema = 1\n",
            "costs file: top level: unknown key `shcema` (did you mean `schema`?)",
        ),
        (
            "schema = 1\nlock = \"mcss\"\n",
            "costs file: `lock`: unknown lock semantics `mcss` (did you mean `mcs`?)",
        ),
        (
            "schema = 1\nlock = 1\n",
            "costs file: `lock`: must be a string, one of ticket, mcs, got 1",
        ),
        (
            "schema = 1\n[costs]\nschedul = 5\n",
            "costs file: [costs]: unknown cost `schedul` (did you mean `schedule`?)",
        ),
        (
            "schema = 1\n[arch.global-lock]\nlock_hand_off = 5\n",
            "costs file: [arch.global-lock]: unknown cost `lock_hand_off` (did you mean `lock_handoff`?)",
        ),
        (
            "schema = 1\n[arch.global-lok]\nschedule = 5\n",
            "costs file: [arch]: unknown architecture `global-lok` (did you mean `global-lock`?)",
        ),
        (
            "schema = 1\n[costs]\nschedule = -5\n",
            "costs file: [costs] schedule: must be a non-negative integer (ns) or a time with a unit such as \"1.5us\", got -5",
        ),
        (
            "schema = 1\n[costs]\nschedule = 1.5\n",
            "costs file: [costs] schedule: must be a non-negative integer (ns) or a time with a unit such as \"1.5us\", got 1.5",
        ),
        (
            "schema = 1\n[costs]\nschedule = true\n",
            "costs file: [costs] schedule: must be an integer (ns) or a time with a unit such as \"1.5us\", got true",
        ),
        (
            "schema = 1\n[costs]\nschedule = \"11s\"\n",
            "costs file: [costs] schedule: 11000000000 ns is more than 10 s, not a per-operation cost (a unit mistake?)",
        ),
        (
            "schema = 1\n[arch.partitioned]\nnoise_ppm = 1000001\n",
            "costs file: [arch.partitioned] noise_ppm: 1000001 per million is more than 1000000",
        ),
        (
            "schema = 1\n[costs]\nnoise_ppm = \"5\"\n",
            "costs file: [costs] noise_ppm: must be a non-negative integer (per million), got \"5\"",
        ),
        (
            "schema = 1\n[meta]\nmachine = 5\n",
            "costs file: [meta] machine: must be a string, got 5",
        ),
        ("schema = 1\ncosts = 5\n", "costs file: [costs]: must be a table, got 5"),
        (
            "schema = 1\n[meta]\ndate = 2026-01-01\n",
            "costs file: [meta] date: must be a string, got the date-time 2026-01-01",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(&err(text), expected, "{text}");
    }
    // A time string needs a unit (a bare number is ns only as an integer).
    let e = err("schema = 1\n[costs]\nschedule = \"15\"\n");
    assert!(e.starts_with("costs file: [costs] schedule: "), "{e}");
    assert!(e.contains("unit"), "{e}");
    // Exactly 10 s and exactly a million are accepted.
    let f =
        CostsFile::from_toml_str("schema = 1\n[costs]\nnoise_max = \"10s\"\nnoise_ppm = 1000000\n")
            .unwrap();
    assert_eq!(f.common[&CostName::NoiseMax], MAX_COST_NS);
    assert_eq!(f.common[&CostName::NoisePpm], MAX_PER_MILLION);
}

#[test]
fn input_sizes_are_bounded() {
    let mut meta = serde_json::Map::new();
    for i in 0..=MAX_META_ENTRIES {
        meta.insert(format!("k{i}"), "v".into());
    }
    let v = serde_json::json!({"schema": 1, "meta": meta});
    assert_eq!(
        CostsFile::from_value(&v).unwrap_err().to_string(),
        format!(
            "costs file: [meta]: {} entries, at most {MAX_META_ENTRIES}",
            MAX_META_ENTRIES + 1
        )
    );
    let long = "x".repeat(MAX_NAME_BYTES + 1);
    let v = serde_json::json!({"schema": 1, "meta": {long.clone(): "v"}});
    let e = CostsFile::from_value(&v).unwrap_err().to_string();
    assert!(e.contains("65 bytes long, at most 64"), "{e}");
    let v = serde_json::json!({"schema": 1, "meta": {"m": "y".repeat(MAX_META_VALUE_BYTES + 1)}});
    let e = CostsFile::from_value(&v).unwrap_err().to_string();
    assert_eq!(e, "costs file: [meta] m: 4097 bytes long, at most 4096");
    // An over-long architecture name is quoted shortened.
    let v = serde_json::json!({"schema": 1, "arch": {long: {}}});
    let e = CostsFile::from_value(&v).unwrap_err().to_string();
    assert!(
        e.contains(&format!("`{}…`", "x".repeat(MAX_NAME_BYTES))),
        "{e}"
    );
    // More sections than allowed are refused before any is read.
    let mut arch = serde_json::Map::new();
    for i in 0..=MAX_ARCH_SECTIONS {
        arch.insert(format!("a{i}"), serde_json::json!({}));
    }
    let v = serde_json::json!({"schema": 1, "arch": arch});
    assert_eq!(
        CostsFile::from_value(&v).unwrap_err().to_string(),
        "costs file: [arch]: 65 architecture sections, at most 64"
    );
}

#[test]
fn read_goes_by_extension() {
    let dir = std::env::temp_dir().join(format!("schedlab-costs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let toml_path = dir.join("c.toml");
    let json_path = dir.join("c.JSON");
    let other = dir.join("c.txt");
    std::fs::write(&toml_path, EXAMPLE).unwrap();
    let expected = CostsFile::from_toml_str(EXAMPLE).unwrap();
    std::fs::write(
        &json_path,
        serde_json::to_string(&json_of(&expected)).unwrap(),
    )
    .unwrap();
    std::fs::write(&other, EXAMPLE).unwrap();
    assert_eq!(CostsFile::read(&toml_path).unwrap(), expected);
    assert_eq!(CostsFile::read(&json_path).unwrap(), expected);
    let e = CostsFile::read(&other).unwrap_err().to_string();
    assert!(
        e.ends_with("must end in .toml or .json (the extension says which it is)"),
        "{e}"
    );
    std::fs::write(&toml_path, "schema = [").unwrap();
    let e = CostsFile::read(&toml_path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "costs file: {}: malformed TOML",
            toml_path.display()
        )),
        "{e}"
    );
    let missing = CostsFile::read(&dir.join("none.toml")).unwrap_err();
    assert!(matches!(missing, CostsError::Io { .. }), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The JSON value of a file (the shape `from_value` reads), built independently of the writer.
fn json_of(f: &CostsFile) -> serde_json::Value {
    let costs = |m: &BTreeMap<CostName, u64>| -> serde_json::Value {
        m.iter()
            .map(|(k, v)| (k.key().to_string(), (*v).into()))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    serde_json::json!({
        "schema": 1,
        "lock": f.lock.key(),
        "meta": f.meta,
        "costs": costs(&f.common),
        "arch": f.arch.iter().map(|(a, m)| (a.clone(), costs(m))).collect::<serde_json::Map<_, _>>(),
    })
}

#[test]
fn the_written_example_is_stable() {
    let f = CostsFile::from_toml_str(EXAMPLE).unwrap();
    assert_eq!(
        f.to_toml(),
        "schema = 1\nlock = \"mcs\"\n\n[meta]\nmachine = \"Xeon, 2 vCPU\"\n\n[costs]\nschedule = 1500\nlock_handoff = 150\nnoise_ppm = 20\n\n[arch.message-passing]\nschedule = 900\ndsp_handler = 800\n"
    );
}

#[test]
fn the_docs_table_lists_every_cost() {
    // docs/scaling.md, section "The costs file", shows markdown_table() verbatim: regenerate it
    // from the message below when a cost is added.
    let page = include_str!("../../../../docs/scaling.md");
    let section = page
        .split("\n## ")
        .find(|s| s.starts_with("The costs file"))
        .expect("docs/scaling.md has a section \"## The costs file\"");
    let table = markdown_table();
    assert!(
        section.contains(&table),
        "docs/scaling.md's costs table differs from CostName::ALL; it should read:\n{table}"
    );
    for &c in CostName::ALL {
        assert!(table.contains(&format!("| `{}` |", c.key())));
        assert!(!c.meaning().is_empty(), "{c} has no doc comment");
    }
}

fn arb_cost(name: CostName) -> BoxedStrategy<u64> {
    match name.unit() {
        CostUnit::Ns => prop_oneof![0..=MAX_COST_NS, Just(MAX_COST_NS), Just(0)].boxed(),
        CostUnit::PerMillion => (0..=MAX_PER_MILLION).boxed(),
        CostUnit::Millionths => (0..=MAX_MILLIONTHS).boxed(),
    }
}

fn arb_costs() -> impl Strategy<Value = BTreeMap<CostName, u64>> {
    let per_cost: Vec<_> = CostName::ALL
        .iter()
        .map(|&c| proptest::option::of(arb_cost(c)).prop_map(move |v| (c, v)))
        .collect();
    per_cost.prop_map(|pairs| {
        pairs
            .into_iter()
            .filter_map(|(c, v)| v.map(|v| (c, v)))
            .collect()
    })
}

fn arb_file() -> impl Strategy<Value = CostsFile> {
    let meta = proptest::collection::btree_map(
        "\\PC{0,12}|[\\x00-\\x1f\"\\\\]{0,4}",
        "\\PC{0,30}|[\\x00-\\x7f]{0,8}",
        0..4,
    );
    let arch = proptest::collection::btree_map(
        proptest::sample::select(ARCHS.to_vec()).prop_map(str::to_string),
        arb_costs(),
        0..ARCHS.len(),
    );
    (
        proptest::sample::select(LockSemantics::ALL.to_vec()),
        meta,
        arb_costs(),
        arch,
    )
        .prop_map(|(lock, meta, common, arch)| CostsFile {
            lock,
            meta,
            common,
            arch,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Writing then reading gives the same file, and JSON of it reads the same too.
    #[test]
    fn write_then_read_is_identity(f in arb_file()) {
        let text = f.to_toml();
        let back = CostsFile::from_toml_str(&text);
        prop_assert_eq!(back.as_ref(), Ok(&f), "{}", text);
        prop_assert_eq!(CostsFile::from_value(&json_of(&f)), Ok(f));
    }

    /// Any time string that parses is read as the same ns as `parse_ns_with_unit` says.
    #[test]
    fn time_strings_read_as_their_ns(us in 0u64..10_000_000, frac in 0u64..1000) {
        let text = format!("schema = 1\n[costs]\nschedule = \"{us}.{frac:03}us\"\n");
        let f = CostsFile::from_toml_str(&text).unwrap();
        prop_assert_eq!(f.common[&CostName::Schedule], us * 1000 + frac);
    }
}
