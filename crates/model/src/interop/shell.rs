//! A deployment as a POSIX shell script that runs it on Linux, bounded and cleaned up
//! (docs/export.md, "The shell script").
//!
//! What the script does, in order:
//! 1. Options: `--duration D` / `DURATION=D` (`500ms`, `10s`, `2m`, `1h`, `inf`; the default is
//!    the export's), `--rt-app` / `RUNNER=rt-app`; each logical CPU `k` is the machine's CPU
//!    `$CPU_k` (default `k`).
//! 2. Checks, exit status 3 with the reason when this machine cannot run it: `chrt`,
//!    `taskset`; root for `SCHED_DEADLINE` (cpusets), permission for `SCHED_FIFO` (probed with
//!    `chrt -f 1 true`).
//! 3. `SCHED_DEADLINE`: one exclusive cgroup-v1 cpuset per root domain
//!    (`schedlab-export-<pid>-d<k>`, `cpuset.cpu_exclusive = 1`, `sched_load_balance = 1`)
//!    under the root cpuset, whose `sched_load_balance` becomes 0 (see [`super::cpuset`] for
//!    why); refused when the shell is not in the root cpuset, when the root's balance is
//!    already 0 (another program's partition is never changed) and under cgroup v2. Cpusets
//!    left by a killed run (its pid gone) are removed first.
//! 4. Each task starts as `[cpuset join] chrt -d --sched-runtime R --sched-deadline D
//!    --sched-period P 0 BODY` or `taskset -c CPUS chrt -f PRIO BODY` — every step `exec`s the
//!    next, so the task's pid is its body's and nothing forks under `SCHED_DEADLINE` (the
//!    kernel refuses a deadline task's fork). BODY is `$BODY_<TASK>` when set (run by
//!    `sh -c "exec …"`, with `SCHEDLAB_TASK`, `SCHEDLAB_WCET_NS`, `SCHEDLAB_PERIOD_NS`,
//!    `SCHEDLAB_DEADLINE_NS`, `SCHEDLAB_OFFSET_NS`, `SCHEDLAB_START_AT_NS` in its environment),
//!    else `schedlab periodic-load` (exact CPU-time burn, absolute-time releases, all tasks
//!    released from one common start; it sleeps between jobs, so a `SCHED_FIFO` body never
//!    hogs its CPU). With `--rt-app`, one rt-app per root domain (`SCHED_FIFO`: one for all)
//!    runs the domain's tasks from the JSON [`super::rt_app`] writes, inside the domain's
//!    cpuset.
//! 5. The run lasts the duration (plus the longest deadline, for the last jobs), or until a
//!    task fails (status 1, naming it) or INT/TERM/HUP; then every task is stopped (TERM, then
//!    KILL after 2 s), the cpusets are removed and the root's `sched_load_balance` is restored —
//!    also on an error or a signal.
//!
//! Exit status: 0 the run ended; 1 a task failed or could not start; 2 bad usage; 3 this
//! machine cannot run it. Output: `started <task> pid=<pid>` per process, then what the bodies
//! print. O(n) lines for n tasks.

use super::cpuset::{domain_dir, CGROUP_V2_REFUSAL, CPUSET_ROOT};
use super::deploy::{cpu_list, DeployedTask, Deployment, LinuxPolicy, RenderOptions};
use super::rt_app::{self, DocStyle};
use crate::time::format_ns;
use std::fmt::Write as _;

/// Single-quotes `s` for the shell.
pub(crate) fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The environment variable that overrides each task's body: `BODY_<IDENT>` upper-cased with
/// `-` as `_`; a name taken by an earlier task gets `_<index>` appended.
fn body_vars(dep: &Deployment) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in &dep.tasks {
        let mut v = format!("BODY_{}", t.ident.to_ascii_uppercase().replace('-', "_"));
        if out.contains(&v) {
            v = format!("{v}_{}", t.index);
        }
        while out.contains(&v) {
            v.push('_');
        }
        out.push(v);
    }
    out
}

/// The shell expression of task `t`'s CPUs (`$CPU_0,$CPU_1`).
fn cpus_expr(cpus: &[u32]) -> String {
    cpus.iter()
        .map(|c| format!("$CPU_{c}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The functions every script has (no deployment-specific text).
const PRELUDE: &str = r#"fail_env() { echo "$SELF: $*" >&2; exit 3; }
usage_error() { echo "$SELF: $*" >&2; echo "usage: sh $SELF [--duration D] [--rt-app] [--help]" >&2; exit 2; }
usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; }

while [ $# -gt 0 ]; do
    case $1 in
    --duration) [ $# -ge 2 ] || usage_error "--duration needs a value"; DURATION=$2; shift 2 ;;
    --duration=*) DURATION=${1#--duration=}; shift ;;
    --rt-app) RUNNER=rt-app; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
    esac
done

# The run length in ms (empty: until INT/TERM).
case $DURATION in
inf) DUR_MS= ;;
*ms) DUR_N=${DURATION%ms}; DUR_UNIT=1 ;;
*s) DUR_N=${DURATION%s}; DUR_UNIT=1000 ;;
*m) DUR_N=${DURATION%m}; DUR_UNIT=60000 ;;
*h) DUR_N=${DURATION%h}; DUR_UNIT=3600000 ;;
*) usage_error "--duration '$DURATION': give whole ms, s, m or h (e.g. 10s), or inf" ;;
esac
if [ "$DURATION" != inf ]; then
    case $DUR_N in '' | *[!0-9]*) usage_error "--duration '$DURATION': give whole ms, s, m or h (e.g. 10s), or inf" ;; esac
    DUR_MS=$((DUR_N * DUR_UNIT))
    [ "$DUR_MS" -gt 0 ] || usage_error "--duration must be longer than 0"
fi
case $RUNNER in default | rt-app) ;; *) usage_error "RUNNER='$RUNNER': use default or rt-app" ;; esac
case ${RTAPP_CALIBRATION:-} in *[!0-9]*) usage_error "RTAPP_CALIBRATION='$RTAPP_CALIBRATION': give rt-app's ns per loop, a whole number" ;; esac

# rt-app's global.calibration: RTAPP_CALIBRATION, else the CPU $1.
rtapp_calibration() {
    if [ -n "${RTAPP_CALIBRATION:-}" ]; then echo "$RTAPP_CALIBRATION"; else echo "\"CPU$1\""; fi
}

PIDS=
NAMES=
DONE=
FAILED=0
CREATED=
BALANCE_CHANGED=0
SLEEPER=
WORKDIR=

# Whether process $1 is still running (not gone, not a zombie).
running() {
    [ -r "/proc/$1/stat" ] || return 1
    read -r st < "/proc/$1/stat" 2>/dev/null || return 1
    st=${st##*) }
    case $st in Z* | X*) return 1 ;; esac
    return 0
}

# The $1-th word of the remaining arguments.
nth() { eval "printf '%s\n' \"\${$(($1 + 1))}\""; }

# Starts a task: launch NAME CPUSET-DIR|- COMMAND... (the command exec's its body: same pid).
launch() {
    l_name=$1
    l_dir=$2
    shift 2
    if [ "$l_dir" = - ]; then
        "$@" &
    else
        sh -c 'echo $$ > "$1/tasks" || exit 97; shift; exec "$@"' sh "$l_dir" "$@" &
    fi
    PIDS="$PIDS $!"
    NAMES="$NAMES $l_name"
    echo "started $l_name pid=$!"
}

# Collects tasks that ended; 1 when none is left running or one failed.
check_tasks() {
    c_alive=0
    c_i=0
    for c_pid in $PIDS; do
        c_i=$((c_i + 1))
        case " $DONE " in *" $c_pid "*) continue ;; esac
        if running "$c_pid"; then
            c_alive=$((c_alive + 1))
            continue
        fi
        wait "$c_pid"
        c_status=$?
        DONE="$DONE $c_pid"
        if [ "$c_status" -ne 0 ]; then
            # shellcheck disable=SC2086
            echo "$SELF: task $(nth "$c_i" $NAMES) (pid $c_pid) ended with exit status $c_status before the end of the run" >&2
            FAILED=1
        fi
    done
    [ "$FAILED" = 0 ] && [ "$c_alive" -gt 0 ]
}

any_running() {
    for a_pid in $PIDS; do running "$a_pid" && return 0; done
    return 1
}

# Stops every task, removes the cpusets, restores the root's load balancing.
cleanup() {
    trap - EXIT INT TERM HUP
    [ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
    for k_pid in $PIDS; do kill -TERM "$k_pid" 2>/dev/null; done
    k_n=0
    while [ "$k_n" -lt 20 ] && any_running; do
        sleep 0.1
        k_n=$((k_n + 1))
    done
    for k_pid in $PIDS; do kill -KILL "$k_pid" 2>/dev/null; done
    for k_pid in $PIDS; do wait "$k_pid" 2>/dev/null; done
    for k_dir in $CREATED; do
        if [ -r "$k_dir/tasks" ]; then
            while read -r k_t; do echo "$k_t" > "$CPUSET_ROOT/tasks"; done < "$k_dir/tasks" 2>/dev/null
        fi
        k_n=0
        until rmdir "$k_dir" 2>/dev/null; do
            k_n=$((k_n + 1))
            if [ "$k_n" -ge 20 ]; then
                echo "$SELF: could not remove the cpuset $k_dir; remove it by hand: rmdir $k_dir" >&2
                break
            fi
            sleep 0.1
        done
    done
    if [ "$BALANCE_CHANGED" = 1 ]; then
        echo 1 > "$CPUSET_ROOT/cpuset.sched_load_balance" ||
            echo "$SELF: could not restore $CPUSET_ROOT/cpuset.sched_load_balance to 1; do it by hand" >&2
    fi
    [ -n "$WORKDIR" ] && echo "rt-app files and logs: $WORKDIR"
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP
trap cleanup EXIT

command -v chrt > /dev/null 2>&1 || fail_env "needs chrt (util-linux)"
"#;

/// The root-domain functions of a `SCHED_DEADLINE` script.
const CPUSET_FUNCTIONS: &str = r#"# Removes the cpusets of runs that were killed (their pid is gone).
repair_stale() {
    r_any=0
    for r_dir in "$CPUSET_ROOT"/schedlab-export-*; do
        [ -d "$r_dir" ] || continue
        r_pid=${r_dir##*/schedlab-export-}
        r_pid=${r_pid%%-*}
        case $r_pid in '' | *[!0-9]*) continue ;; esac
        [ -d "/proc/$r_pid" ] && continue
        while read -r r_t; do echo "$r_t" > "$CPUSET_ROOT/tasks"; done < "$r_dir/tasks" 2>/dev/null
        rmdir "$r_dir" && echo "$SELF: removed the cpuset $r_dir left by a killed run (pid $r_pid)" >&2
        r_any=1
    done
    # The balance a killed run turned off, unless another schedlab cpuset still needs it off.
    if [ "$r_any" = 1 ] && [ "$(cat "$CPUSET_ROOT/cpuset.sched_load_balance")" = 0 ]; then
        for r_dir in "$CPUSET_ROOT"/schedlab-*; do [ -d "$r_dir" ] && return 0; done
        echo 1 > "$CPUSET_ROOT/cpuset.sched_load_balance" &&
            echo "$SELF: restored $CPUSET_ROOT/cpuset.sched_load_balance to 1" >&2
    fi
    return 0
}

# make_domain INDEX CPULIST: an exclusive, load-balanced cpuset: a root domain of its own.
make_domain() {
    m_dir=$CPUSET_ROOT/schedlab-export-$$-d$1
    mkdir "$m_dir" || fail_env "cannot create the cpuset $m_dir"
    CREATED="$CREATED $m_dir"
    echo "$2" > "$m_dir/cpuset.cpus" || fail_env "cannot give the cpuset $m_dir the CPUs $2 (not all in the root cpuset?)"
    echo "$CPUSET_MEMS" > "$m_dir/cpuset.mems" || fail_env "cannot set $m_dir/cpuset.mems"
    echo 1 > "$m_dir/cpuset.cpu_exclusive" || fail_env "cannot make the CPUs $2 exclusive to $m_dir: another cpuset shares them"
    echo 1 > "$m_dir/cpuset.sched_load_balance" || fail_env "cannot set $m_dir/cpuset.sched_load_balance"
}

setup_cpusets() {
    [ "$(id -u)" = 0 ] || fail_env "needs root: SCHED_DEADLINE root domains are cpusets"
    if [ ! -f "$CPUSET_ROOT/cpuset.sched_load_balance" ]; then
        [ -f /sys/fs/cgroup/cgroup.controllers ] && fail_env "$CGROUP_V2_REFUSAL"
        fail_env "no cgroup-v1 cpuset hierarchy at $CPUSET_ROOT (mount -t cgroup -o cpuset cpuset $CPUSET_ROOT, or set CPUSET_ROOT)"
    fi
    s_own=
    while IFS=: read -r _ s_ctl s_path; do
        case ",$s_ctl," in *,cpuset,*) s_own=$s_path ;; esac
    done < /proc/self/cgroup
    [ "$s_own" = / ] || fail_env "this shell is in the cpuset '$s_own', not the root cpuset (a container?): it cannot make root domains"
    repair_stale
    [ "$(cat "$CPUSET_ROOT/cpuset.sched_load_balance")" = 1 ] ||
        fail_env "$CPUSET_ROOT/cpuset.sched_load_balance is 0: another program has partitioned the CPUs; this script does not change that"
    CPUSET_MEMS=$(cat "$CPUSET_ROOT/cpuset.mems")
"#;

/// The script's header comment, usage and settings.
fn head(dep: &Deployment, opts: &RenderOptions, out: &mut String) {
    out.push_str("#!/bin/sh\n");
    for line in dep.header() {
        let _ = writeln!(out, "# {line}");
    }
    let default_duration = dep
        .duration
        .map_or("inf".to_string(), |d| duration_arg(d.as_ns()));
    let _ = write!(
        out,
        "#
# Usage: sh FILE [--duration D] [--rt-app] [--help]
#   --duration D   run length: whole ms, s, m or h (500ms, 10s, 2m), or inf (until INT/TERM);
#                  default {default_duration}; also DURATION=D
#   --rt-app       run the tasks with rt-app (one rt-app per root domain, in its cpuset)
#                  instead of the default body; also RUNNER=rt-app
# Environment:
#   SCHEDLAB=PATH  the schedlab binary whose periodic-load mode is the default task body
#   CPU_<k>=N      the machine's CPU that runs logical CPU k (default N = k)
#   BODY_<TASK>=CMD  run CMD (exec'd by sh -c) instead of TASK's default body, under the
#                  task's policy and CPUs; under SCHED_DEADLINE it must not fork (the kernel
#                  refuses a deadline task's fork). Variables:{vars}
#   RTAPP=PATH     the rt-app binary (--rt-app)
#   RTAPP_CALIBRATION=NS  rt-app's ns per loop (its log's pLoad), to skip its calibration,
#                  which takes 2 s or more (default: calibrate on the domain's first CPU)
#   CPUSET_ROOT=DIR  the cgroup-v1 cpuset hierarchy (default {CPUSET_ROOT})
# Exit status: 0 the run ended; 1 a task failed or could not start; 2 bad usage;
# 3 this machine cannot run it (the message says why). Needs chrt, taskset (util-linux) and a
# sleep that takes fractions of a second (GNU coreutils, busybox).

set -u
SELF=${{0##*/}}
DURATION=${{DURATION:-{default_duration}}}
RUNNER=${{RUNNER:-default}}
SCHEDLAB=${{SCHEDLAB:-{launcher}}}
RTAPP=${{RTAPP:-rt-app}}
CPUSET_ROOT=${{CPUSET_ROOT:-{CPUSET_ROOT}}}
",
        vars = body_vars(dep)
            .iter()
            .map(|v| format!(" {v}"))
            .collect::<String>(),
        launcher = quote(&opts.launcher),
    );
    for c in 0..dep.cpus {
        let _ = writeln!(out, "CPU_{c}=${{CPU_{c}:-{c}}}");
    }
    if dep.uses_deadline() {
        let _ = writeln!(out, "CGROUP_V2_REFUSAL='{CGROUP_V2_REFUSAL}'");
    }
    out.push('\n');
}

/// A duration as the launcher's `--duration` and the script's parser both take it.
fn duration_arg(ns: u64) -> String {
    if ns % 1_000_000_000 == 0 {
        format!("{}s", ns / 1_000_000_000)
    } else {
        format!("{}ms", ns.div_ceil(1_000_000))
    }
}

/// The command prefix that puts a task under its policy (before its body).
fn policy_words(t: &DeployedTask) -> String {
    match t.policy {
        LinuxPolicy::Deadline {
            runtime,
            deadline,
            period,
        } => format!(
            "chrt -d --sched-runtime {} --sched-deadline {} --sched-period {} 0",
            runtime.as_ns(),
            deadline.as_ns(),
            period.as_ns()
        ),
        LinuxPolicy::Fifo { priority } => {
            format!("taskset -c \"{}\" chrt -f {priority}", cpus_expr(&t.cpus))
        }
    }
}

/// The cpuset argument of `launch` for a task or an rt-app of domain `d`.
fn cpuset_arg(d: Option<usize>) -> String {
    match d {
        Some(d) => format!("\"$CPUSET_ROOT/{}\"", domain_dir("schedlab-export-$$", d)),
        None => "-".to_string(),
    }
}

/// The default runner: one process per task.
fn tasks_block(dep: &Deployment, out: &mut String) {
    let vars = body_vars(dep);
    for (t, var) in dep.tasks.iter().zip(&vars) {
        let _ = writeln!(
            out,
            "    # {}: {} on CPU{} {}",
            t.ident,
            t.policy.describe(),
            if t.cpus.len() == 1 { "" } else { "s" },
            cpu_list(&t.cpus)
        );
        let wss = t.wss.map(|w| format!(" --wss {w}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "    if [ -n \"${{{var}:-}}\" ]; then
        set -- env SCHEDLAB_TASK={id} SCHEDLAB_WCET_NS={c} SCHEDLAB_PERIOD_NS={p} SCHEDLAB_DEADLINE_NS={d} SCHEDLAB_OFFSET_NS={o} SCHEDLAB_START_AT_NS=\"$START\" sh -c \"exec ${var}\"
    else
        set -- \"$SCHEDLAB\" periodic-load --name {id} --wcet {cf} --period {pf} --deadline {df} --offset {of}{wss} --start-at \"$START\" --duration \"$LOAD_DURATION\"
    fi
    launch {id} {dir} {policy} \"$@\"",
            id = t.ident,
            c = t.wcet.as_ns(),
            p = t.period.as_ns(),
            d = t.deadline.as_ns(),
            o = t.offset.as_ns(),
            cf = format_ns(t.wcet.as_ns()),
            pf = format_ns(t.period.as_ns()),
            df = format_ns(t.deadline.as_ns()),
            of = format_ns(t.offset.as_ns()),
            dir = cpuset_arg(t.domain),
            policy = policy_words(t),
        );
    }
}

/// The rt-app runner: one rt-app per root domain (`SCHED_FIFO`: one for all tasks), each
/// writing its JSON at run time (the CPUs and the duration come from the script's variables).
fn rt_app_block(dep: &Deployment, out: &mut String) {
    let groups: Vec<(Option<usize>, Vec<&DeployedTask>)> = if dep.uses_deadline() {
        (0..dep.domains.len())
            .map(|d| (Some(d), dep.domain_tasks(d).collect()))
            .filter(|(_, tasks): &(Option<usize>, Vec<&DeployedTask>)| !tasks.is_empty())
            .collect()
    } else {
        vec![(None, dep.tasks.iter().collect())]
    };
    out.push_str("    command -v \"$RTAPP\" > /dev/null 2>&1 || fail_env \"rt-app not found (install it, e.g. apt-get install rt-app, or set RTAPP)\"\n");
    out.push_str("    WORKDIR=${TMPDIR:-/tmp}/schedlab-export-$$\n");
    out.push_str("    mkdir -p \"$WORKDIR\" || fail_env \"cannot create $WORKDIR\"\n");
    out.push_str("    if [ -n \"$DUR_MS\" ]; then RTAPP_SECONDS=$(((DUR_MS + 999) / 1000)); else RTAPP_SECONDS=-1; fi\n");
    let set = dep.set_name();
    for (d, tasks) in &groups {
        let label = d.map_or("all".to_string(), |d| format!("d{d}"));
        let first = rt_app::lowest_cpu(tasks);
        let style = DocStyle {
            cpu: &|c| format!("${{CPU_{c}}}"),
            duration: "${RTAPP_SECONDS}".to_string(),
            calibration: format!("$(rtapp_calibration \"$CPU_{first}\")"),
            logdir: "\"${WORKDIR}\"".to_string(),
            basename: format!("{set}-{label}"),
        };
        let _ = writeln!(
            out,
            "    cat > \"$WORKDIR/{label}.json\" << EOF\n{}EOF",
            rt_app::document(tasks, &style)
        );
        let _ = writeln!(
            out,
            "    launch rt-app-{label} {} \"$RTAPP\" \"$WORKDIR/{label}.json\"",
            cpuset_arg(*d)
        );
    }
}

/// The deployment as a POSIX shell script (module documentation).
pub fn write(dep: &Deployment, opts: &RenderOptions) -> String {
    let mut out = String::new();
    head(dep, opts, &mut out);
    out.push_str(PRELUDE);
    let deadline = dep.uses_deadline();
    if deadline {
        out.push_str(CPUSET_FUNCTIONS);
        for (d, domain) in dep.domains.iter().enumerate() {
            let _ = writeln!(out, "    make_domain {d} \"{}\"", cpus_expr(&domain.cpus));
        }
        out.push_str(
            "    echo 0 > \"$CPUSET_ROOT/cpuset.sched_load_balance\" || fail_env \"cannot turn off $CPUSET_ROOT/cpuset.sched_load_balance\"\n    BALANCE_CHANGED=1\n}\n\n",
        );
    } else {
        out.push_str(
            "command -v taskset > /dev/null 2>&1 || fail_env \"needs taskset (util-linux)\"\n",
        );
        out.push_str("chrt -f 1 true 2> /dev/null || fail_env \"no permission for SCHED_FIFO (run as root, or with CAP_SYS_NICE or an RLIMIT_RTPRIO of 99)\"\n\n");
    }
    // Synchronous release: every default body releases its first job at START + offset.
    let lead_ms = 200 + 5 * dep.tasks.len() as u64;
    let grace_ms = dep
        .tasks
        .iter()
        .map(|t| t.deadline.as_ns().div_ceil(1_000_000))
        .max()
        .unwrap_or(0)
        + 500;
    let _ = writeln!(
        out,
        "if [ \"$RUNNER\" = default ]; then
    for b_var in{vars}; do
        eval \"b_set=\\${{$b_var:-}}\"
        [ -n \"$b_set\" ] && continue
        command -v \"$SCHEDLAB\" > /dev/null 2>&1 || fail_env \"schedlab not found (set SCHEDLAB to the binary, or $b_var to a task body)\"
    done
fi
{setup}echo \"{n} tasks, {what}, for $DURATION\"
if [ -n \"$DUR_MS\" ]; then LOAD_DURATION=${{DUR_MS}}ms; else LOAD_DURATION=inf; fi
NOW_NS=$(date +%s%N 2> /dev/null)
case $NOW_NS in '' | *[!0-9]*) NOW_NS=$(($(date +%s) * 1000000000)) ;; esac
START=$((NOW_NS + {lead_ms} * 1000000))
if [ \"$RUNNER\" = default ]; then",
        vars = body_vars(dep)
            .iter()
            .map(|v| format!(" {v}"))
            .collect::<String>(),
        setup = if deadline { "setup_cpusets\n" } else { "" },
        n = dep.tasks.len(),
        what = if deadline {
            format!("SCHED_DEADLINE in {} root domains", dep.domains.len())
        } else {
            "SCHED_FIFO".to_string()
        },
    );
    tasks_block(dep, &mut out);
    out.push_str("else\n");
    rt_app_block(dep, &mut out);
    let _ = write!(
        out,
        "fi

# Wait for the end of the run (the lead before the first release, the duration, the last jobs'
# deadlines), a task's failure, or a signal; check on the tasks every 100 ms.
LIMIT_MS=
[ -n \"$DUR_MS\" ] && LIMIT_MS=$(({lead_ms} + DUR_MS + {grace_ms}))
ELAPSED=0
while [ -z \"$LIMIT_MS\" ] || [ \"$ELAPSED\" -lt \"$LIMIT_MS\" ]; do
    sleep 0.1 &
    SLEEPER=$!
    wait \"$SLEEPER\"
    SLEEPER=
    ELAPSED=$((ELAPSED + 100))
    check_tasks || break
done
check_tasks
cleanup
if [ \"$FAILED\" != 0 ]; then
    echo \"$SELF: the run failed (see above)\" >&2
    exit 1
fi
echo \"run ended\"
exit 0
"
    );
    out
}

#[cfg(test)]
mod tests;
