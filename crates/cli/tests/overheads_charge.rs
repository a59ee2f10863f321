//! `schedlab overheads charge`: the inflated set written as a task file that `analyze` reads,
//! the numbers of the hand-worked accounting case, errors.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::process::Command;

fn schedlab(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("run schedlab")
}

#[test]
fn charge_writes_the_inflated_set_and_names_missing_curves() {
    let dir = std::env::temp_dir().join(format!("schedlab-oh-charge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The hand-worked case of schedlab-analysis (overheads::tests::global_hand_worked):
    // (100, 1000, 1000), (200, 500, 400) on 4 CPUs → (159, 998, 998), (262, 498, 398).
    let set = dir.join("set.json");
    std::fs::write(
        &set,
        r#"{"tasks": [{"name": "a", "wcet": 100, "period": 1000},
                      {"name": "b", "wcet": 200, "period": 500, "deadline": 400}]}"#,
    )
    .unwrap();
    let mut oh = String::from("schema = 1\ntick_period = \"1us\"\n");
    for (name, v) in [
        ("release_latency", 2),
        ("release", 5),
        ("schedule", 3),
        ("context_switch", 1),
        ("ipi", 7),
        ("tick", 10),
    ] {
        oh.push_str(&format!("[arch.global-lock.{name}]\nmax = [[1, {v}]]\n"));
    }
    let oh_path = dir.join("oh.toml");
    std::fs::write(&oh_path, &oh).unwrap();
    let out = dir.join("charged.json");
    let (s, o, op) = (
        set.to_str().unwrap(),
        out.to_str().unwrap(),
        oh_path.to_str().unwrap(),
    );
    let charge = |arch: &str, extra: &[&str]| {
        let mut args = vec![
            "overheads",
            "charge",
            s,
            "--cpus",
            "4",
            "--overheads",
            op,
            "--arch",
            arch,
        ];
        args.extend_from_slice(extra);
        schedlab(&args)
    };
    let r = charge("global-lock", &["-o", o]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(stdout.contains("tests run on 4 CPUs"), "{stdout}");
    // The breakdown a person can check by hand (global_hand_worked in the library's tests):
    // uscale = 39/40, cpre = 802/39, C'_0 = 108·40/39 + 1604/39 + 7 = 158.897….
    assert!(
        stdout.contains("uscale = 1 − u_tck − u_rel = 0.975000"),
        "{stdout}"
    );
    assert!(stdout.contains("cpre = (Δtck + Δev·u_tck + n·Δrel + Δev·u_rel)/uscale = 20.564"));
    assert!(stdout.contains("X = Δipi (M = 4 CPUs) = 7"), "{stdout}");
    let row = stdout.lines().find(|l| l.contains(" a ")).unwrap();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cols,
        ["0", "a", "100", "8", "0", "158.897", "159", "1000", "998", "1000", "998"]
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let tasks = written["tasks"].as_array().unwrap();
    let ns = |v: &serde_json::Value| -> u64 {
        match v {
            serde_json::Value::Number(n) => n.as_u64().unwrap(),
            serde_json::Value::String(t) => schedlab_model::time::parse_ns(t).unwrap(),
            other => panic!("{other}"),
        }
    };
    let got: Vec<(u64, u64, u64)> = tasks
        .iter()
        .map(|t| {
            (
                ns(&t["wcet"]),
                ns(&t["period"]),
                ns(t.get("deadline").unwrap_or(&t["period"])),
            )
        })
        .collect();
    assert_eq!(got, vec![(159, 998, 998), (262, 498, 398)]);
    assert_eq!(tasks[1]["name"], "b");
    // The written file is an ordinary task file.
    let r = schedlab(&["analyze", o, "--test", "gedf", "--summary"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // An architecture whose section is missing, and one missing curve, are named.
    let r = charge("message-passing", &[]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("message-passing"));
    std::fs::write(
        &oh_path,
        oh.replace("[arch.global-lock.ipi]\nmax = [[1, 7]]\n", ""),
    )
    .unwrap();
    let r = charge("global-lock", &[]);
    assert!(
        String::from_utf8_lossy(&r.stderr).contains("no `ipi` curve"),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyze_with_overheads_runs_the_tests_on_the_charged_set() {
    let dir = std::env::temp_dir().join(format!("schedlab-oh-analyze-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let set = dir.join("set.json");
    std::fs::write(
        &set,
        r#"{"tasks": [{"name": "a", "wcet": 100, "period": 1000},
                      {"name": "b", "wcet": 200, "period": 500, "deadline": 400}]}"#,
    )
    .unwrap();
    let mut oh = String::from("schema = 1\ntick_period = \"1us\"\n");
    for arch in ["global-lock", "message-passing", "partitioned"] {
        for (name, v) in [
            ("release_latency", 2),
            ("release", 5),
            ("schedule", 3),
            ("context_switch", 1),
            ("ipi", 7),
            ("tick", 10),
            ("request", 4),
            ("dsp", 6),
        ] {
            if matches!(name, "request" | "dsp") && arch != "message-passing" {
                continue;
            }
            oh.push_str(&format!("[arch.{arch}.{name}]\nmax = [[1, {v}]]\n"));
        }
    }
    let oh_path = dir.join("oh.toml");
    std::fs::write(&oh_path, &oh).unwrap();
    let (s, op) = (set.to_str().unwrap(), oh_path.to_str().unwrap());
    let analyze = |arch: &str, cpus: &str| {
        let r = schedlab(&[
            "analyze",
            s,
            "--cpus",
            cpus,
            "--test",
            "gedf-gfb",
            "--format",
            "json",
            "--overheads",
            op,
            "--arch",
            arch,
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        serde_json::from_slice::<serde_json::Value>(&r.stdout).unwrap()
    };
    // Global lock on 4 CPUs: the hand-worked inflation; the test runs on 4 CPUs.
    let line = analyze("global-lock", "4");
    assert_eq!(
        line["accounting"],
        serde_json::json!({"arch": "global-lock", "stat": "max", "cpus_for_jobs": 4, "status": "ok",
                           "failed_task": null, "tasks": [[159, 998, 998], [262, 498, 398]]})
    );
    assert_eq!(line["cpus"], 4);
    // Message-passing keeps CPU 0 for the DSP: the test runs on 3.
    let line = analyze("message-passing", "4");
    assert_eq!(line["accounting"]["cpus_for_jobs"], 3);
    assert_eq!(
        line["accounting"]["tasks"],
        serde_json::json!([[163, 998, 998], [264, 498, 398]])
    );
    // Partitioned, FFD: task 1 (u 0.4) first, alone on CPU 0: n = 1, uscale = 1 − 1/100 −
    // 5/500 = 98/100, A = 200 + 2(3 + 1) + 2·10 + 2·1·5 + 2·2 = 242, ⌈242/0.98⌉ = 247,
    // C'' = 247 − 4 = 243. Then task 0 joins it: the whole set on one CPU (hand-worked in the
    // library's tests): 152 and 255, EDF passes (dbf(398) = 255, dbf(998) = 152 + 2·255).
    let r = schedlab(&[
        "analyze",
        s,
        "--cpus",
        "2",
        "--test",
        "pedf-ffd",
        "--test",
        "edf",
        "--format",
        "json",
        "--overheads",
        op,
        "--arch",
        "partitioned",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let line: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(
        line["accounting"]["tasks"],
        serde_json::json!([[152, 998, 998], [255, 498, 398]])
    );
    let ffd = &line["results"][0];
    assert_eq!(ffd["status"], "schedulable");
    assert_eq!(ffd["partition"], serde_json::json!([[0, 1], []]));
    let per_cpu = &ffd["accounting"]["per_cpu"];
    assert_eq!(
        per_cpu[0]["tasks"],
        serde_json::json!([[152, 998, 998], [255, 498, 398]])
    );
    assert_eq!(per_cpu[0]["cpus_for_jobs"], 1);
    assert_eq!(per_cpu[1]["tasks"], serde_json::json!([]));
    assert_eq!(ffd["accounting"]["misfits"], serde_json::json!([]));
    // A whole-set test has no per-bin accounting.
    assert!(line["results"][1].get("accounting").is_none());
    // A release latency of a whole period: task 1 (period 500) cannot fit: not shown.
    std::fs::write(
        &oh_path,
        oh.replace(
            "[arch.global-lock.release_latency]\nmax = [[1, 2]]",
            "[arch.global-lock.release_latency]\nmax = [[1, 500]]",
        ),
    )
    .unwrap();
    let line = analyze("global-lock", "4");
    assert_eq!(line["accounting"]["status"], "task-infeasible");
    assert_eq!(line["accounting"]["failed_task"], 1);
    assert_eq!(line["results"][0]["status"], "not-shown");
    assert!(line["results"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("task-infeasible (task 1)"));
    // --arch needs --overheads; message-passing needs 2 CPUs.
    let r = schedlab(&["analyze", s, "--cpus", "4", "--arch", "global-lock"]);
    assert!(!r.status.success());
    let r = schedlab(&[
        "analyze",
        s,
        "--cpus",
        "1",
        "--overheads",
        op,
        "--arch",
        "message-passing",
    ]);
    assert!(String::from_utf8_lossy(&r.stderr).contains("needs --cpus 2 or more"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyze_with_overheads_picks_the_section_of_its_core_count() {
    let dir = std::env::temp_dir().join(format!("schedlab-oh-at-m-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let set = dir.join("set.json");
    std::fs::write(
        &set,
        r#"{"tasks": [{"name": "a", "wcet": 100, "period": 1000},
                      {"name": "b", "wcet": 200, "period": 500, "deadline": 400}]}"#,
    )
    .unwrap();
    let section = |name: &str, scale: u64| {
        let mut s = String::new();
        for (key, v) in [
            ("release_latency", 2),
            ("release", 5),
            ("schedule", 3),
            ("context_switch", 1),
            ("ipi", 7),
            ("tick", 10),
        ] {
            s.push_str(&format!(
                "[arch.{name}.{key}]\nmax = [[1, {}]]\n",
                v * scale
            ));
        }
        s
    };
    let head = "schema = 1\ntick_period = \"1us\"\n";
    // Both sections; the @m64 one has every value doubled.
    let both = format!(
        "{head}{}{}",
        section("global-lock", 1),
        section("\"global-lock@m64\"", 2)
    );
    // The doubled values as the plain section.
    let doubled = format!("{head}{}", section("global-lock", 2));
    let plain = format!("{head}{}", section("global-lock", 1));
    let files: Vec<String> = [("both", both), ("doubled", doubled), ("plain", plain)]
        .iter()
        .map(|(name, text)| {
            let p = dir.join(format!("{name}.toml"));
            std::fs::write(&p, text).unwrap();
            p.to_str().unwrap().to_string()
        })
        .collect();
    let s = set.to_str().unwrap();
    let tasks = |file: &str, cpus: &str| {
        let r = schedlab(&[
            "analyze",
            s,
            "--cpus",
            cpus,
            "--test",
            "gedf-gfb",
            "--format",
            "json",
            "--overheads",
            file,
            "--arch",
            "global-lock",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let line: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        line["accounting"]["tasks"].clone()
    };
    // m = 64 charges the @m64 section, m = 4 the plain one (the hand-worked inflation).
    let at64 = tasks(&files[0], "64");
    assert_eq!(at64, tasks(&files[1], "64"));
    assert_ne!(at64, tasks(&files[2], "64"));
    assert_eq!(
        tasks(&files[0], "4"),
        serde_json::json!([[159, 998, 998], [262, 498, 398]])
    );
    // `overheads charge` picks it the same way.
    let out = dir.join("charged.json");
    let r = schedlab(&[
        "overheads",
        "charge",
        s,
        "--cpus",
        "64",
        "--overheads",
        &files[0],
        "--arch",
        "global-lock",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let charged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let wcet0 = match &charged["tasks"][0]["wcet"] {
        serde_json::Value::Number(n) => n.as_u64().unwrap(),
        serde_json::Value::String(t) => schedlab_model::time::parse_ns(t).unwrap(),
        other => panic!("{other}"),
    };
    assert_eq!(Some(wcet0), at64[0][0].as_u64(), "{charged}");
    // A malformed core count is an error naming the section.
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, format!("{head}{}", section("\"global-lock@64\"", 1))).unwrap();
    let r = schedlab(&[
        "analyze",
        s,
        "--cpus",
        "4",
        "--test",
        "gedf-gfb",
        "--overheads",
        bad.to_str().unwrap(),
        "--arch",
        "global-lock",
    ]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("arch `global-lock@64`: after `@` a section name needs `m`"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
