#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::interop::fixtures;
use std::process::Command;

fn opts() -> RenderOptions {
    RenderOptions {
        launcher: "/opt/schedlab/bin/schedlab".to_string(),
    }
}

/// The script parses under every POSIX shell here (`sh -n`; dash and bash when present).
fn assert_parses(script: &str) {
    let dir = std::env::temp_dir().join(format!("schedlab-shell-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("s{}.sh", script.len()));
    std::fs::write(&path, script).unwrap();
    let mut checked = 0;
    for sh in ["sh", "dash", "bash", "busybox"] {
        let mut cmd = Command::new(sh);
        if sh == "busybox" {
            cmd.arg("sh");
        }
        let Ok(out) = cmd.arg("-n").arg(&path).output() else {
            continue;
        };
        assert!(
            out.status.success(),
            "{sh} -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        checked += 1;
    }
    assert!(checked > 0, "no shell to check the script with");
}

#[test]
fn scripts_parse() {
    for dep in [fixtures::pedf(), fixtures::pfp()] {
        assert_parses(&write(&dep, &opts()));
    }
}

/// The deployment-specific parts of a SCHED_DEADLINE script, checked by hand: the header, the
/// settings, the root domains and one task's launch.
#[test]
fn a_deadline_script_has_the_hand_checked_parts() {
    let s = write(&fixtures::pedf(), &opts());
    assert!(s.starts_with("#!/bin/sh\n# Exported by schedlab 0.1.0 from examples/demo.toml: policy pedf on 2 CPUs"), "{s}");
    for line in [
        "# Accepted by: pedf-ffd: schedulable",
        "# Overheads: none (the analysis charged no run-time overheads)",
        "# Run length: 2s",
        "#                  default 2s; also DURATION=D",
        "#                  refuses a deadline task's fork). Variables: BODY_A BODY_B BODY_C",
        "DURATION=${DURATION:-2s}",
        "SCHEDLAB=${SCHEDLAB:-/opt/schedlab/bin/schedlab}",
        "CPU_0=${CPU_0:-0}",
        "CPU_1=${CPU_1:-1}",
        "    make_domain 0 \"$CPU_0\"",
        "    make_domain 1 \"$CPU_1\"",
        "setup_cpusets",
        "echo \"3 tasks, SCHED_DEADLINE in 2 root domains, for $DURATION\"",
        "START=$((NOW_NS + 215 * 1000000))",
        "[ -n \"$DUR_MS\" ] && LIMIT_MS=$((215 + DUR_MS + 520))",
    ] {
        assert!(
            s.lines().any(|l| l == line),
            "missing line {line:?} in\n{s}"
        );
    }
    let c_block = r#"    # c: SCHED_DEADLINE runtime/deadline/period 1500000/20000000/20000000 ns on CPU 0
    if [ -n "${BODY_C:-}" ]; then
        set -- env SCHEDLAB_TASK=c SCHEDLAB_WCET_NS=1000000 SCHEDLAB_PERIOD_NS=20000000 SCHEDLAB_DEADLINE_NS=20000000 SCHEDLAB_OFFSET_NS=1000000 SCHEDLAB_START_AT_NS="$START" sh -c "exec $BODY_C"
    else
        set -- "$SCHEDLAB" periodic-load --name c --wcet 1ms --period 20ms --deadline 20ms --offset 1ms --start-at "$START" --duration "$LOAD_DURATION"
    fi
    launch c "$CPUSET_ROOT/schedlab-export-$$-d0" chrt -d --sched-runtime 1500000 --sched-deadline 20000000 --sched-period 20000000 0 "$@"
"#;
    assert!(s.contains(c_block), "{s}");
    // The rt-app runner: domain 1 runs b alone, its CPUs from the script's variables.
    assert!(s.contains(
        "    cat > \"$WORKDIR/d1.json\" << EOF\n{\n    \"global\": {\n        \"duration\": ${RTAPP_SECONDS},\n        \"calibration\": $(rtapp_calibration \"$CPU_1\"),\n        \"default_policy\": \"SCHED_DEADLINE\",\n        \"lock_pages\": true,\n        \"logdir\": \"${WORKDIR}\",\n        \"log_basename\": \"demo-d1\"\n    },\n    \"tasks\": {\n        \"b\": {"
    ), "{s}");
    assert!(s.contains("            \"cpus\": [${CPU_1}],\n"));
    assert!(s.contains(
        "    launch rt-app-d1 \"$CPUSET_ROOT/schedlab-export-$$-d1\" \"$RTAPP\" \"$WORKDIR/d1.json\"\n"
    ));
}

#[test]
fn a_fifo_script_pins_and_prioritises_without_cpusets() {
    let s = write(&fixtures::pfp(), &opts());
    assert!(
        s.contains("    launch b - taskset -c \"$CPU_1\" chrt -f 99 \"$@\"\n"),
        "{s}"
    );
    assert!(s.contains("    launch c - taskset -c \"$CPU_0\" chrt -f 98 \"$@\"\n"));
    assert!(s.contains("DURATION=${DURATION:-inf}"));
    assert!(s.contains("chrt -f 1 true 2> /dev/null || fail_env"));
    assert!(!s.contains("make_domain"), "{s}");
    assert!(!s.contains("setup_cpusets"));
    // One rt-app for all the tasks.
    assert!(s.contains("    launch rt-app-all - \"$RTAPP\" \"$WORKDIR/all.json\"\n"));
}

#[test]
fn body_variables_are_unique() {
    let mut dep = fixtures::pfp();
    dep.tasks[1].ident = "a-x".to_string();
    dep.tasks[2].ident = "a_x".to_string();
    assert_eq!(body_vars(&dep), vec!["BODY_A", "BODY_A_X", "BODY_A_X_2"]);
}

#[test]
fn words_are_quoted_for_the_shell() {
    assert_eq!(quote("/usr/bin/schedlab"), "/usr/bin/schedlab");
    assert_eq!(quote("my dir/schedlab"), "'my dir/schedlab'");
    assert_eq!(quote("it's"), r"'it'\''s'");
    assert_eq!(quote(""), "''");
    assert_eq!(duration_arg(2_000_000_000), "2s");
    assert_eq!(duration_arg(1_500_000_000), "1500ms");
    assert_eq!(duration_arg(1), "1ms");
}
