//! `schedlab`: the command-line front of the schedlab laboratory.
//!
//! Thin by design (cf. ripgrep's `crates/core`): argument parsing, file I/O and printing;
//! all logic lives in the library crates. A library so that the same command line runs from the
//! `schedlab` binary and from the Python wheel's `schedlab` script ([`main_with_args`]).

mod analyze;
mod bench_cmd;
mod bench_sim;
mod curves_cmd;
mod design_cmd;
mod exit;
mod experiment;
mod export_cmd;
mod gen_cmd;
mod import_cmd;
mod load_cmd;
mod measure_cmd;
mod output;
mod overheads_cmd;
mod report;
mod run_cmd;
mod run_files;
mod scale_cmd;
mod sched_cost_cmd;
mod showcase;
mod simulate;
mod tests_cmd;
mod trace_cmd;
mod trace_costs;
mod trace_supply;

use crate::exit::Status;
use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use schedlab_analysis::Priorities;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A laboratory for multicore real-time scheduling"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum OutputFormat {
    Table,
    Json,
}

/// The formats `schedlab import` reads.
#[derive(Clone, Copy, ValueEnum)]
enum ImportFrom {
    /// SimSo's XML configuration.
    Simso,
    /// A SchedCAT-style CSV task list.
    Csv,
    /// An rt-app JSON workload.
    #[value(name = "rt-app")]
    RtApp,
}

impl From<ImportFrom> for schedlab_model::interop::import::Source {
    fn from(f: ImportFrom) -> Self {
        use schedlab_model::interop::import::Source;
        match f {
            ImportFrom::Simso => Source::Simso,
            ImportFrom::Csv => Source::Csv,
            ImportFrom::RtApp => Source::RtApp,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum PriorityArg {
    Dm,
    Rm,
    Given,
}

impl From<PriorityArg> for Priorities {
    fn from(p: PriorityArg) -> Priorities {
        match p {
            PriorityArg::Dm => Priorities::Dm,
            PriorityArg::Rm => Priorities::Rm,
            PriorityArg::Given => Priorities::Given,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run schedulability tests on task-set files (or folders of them).
    Analyze {
        /// Task-set files (.json/.toml) or folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Number of CPUs (overrides the file's platform.cpus).
        #[arg(long)]
        cpus: Option<u32>,
        /// Test to run (repeatable); default: every test.
        #[arg(long = "test", value_name = "NAME")]
        tests: Vec<String>,
        /// Priority assignment for fixed-priority tests.
        #[arg(long, value_enum, default_value = "dm")]
        priorities: PriorityArg,
        /// Output format: a table, or JSON Lines (one object per file).
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// Include tardiness bounds (soft tests; zero for tasks a hard test shows schedulable).
        #[arg(long)]
        tardiness: bool,
        /// Print only a summary over all files: how many sets each test accepts (and every
        /// other outcome), and how many files failed to load.
        #[arg(long)]
        summary: bool,
        /// Table: also explain each test's assignment for a person (semi-partitioned tests:
        /// every CPU's tasks and parts, and each split task's parts in execution order).
        #[arg(long)]
        explain: bool,
        /// Overhead-aware analysis: charge this overhead file's overheads (docs/overheads.md)
        /// before every test; needs --arch.
        #[arg(long, value_name = "OH")]
        overheads: Option<PathBuf>,
        /// The architecture that pays them: global-lock, global-lock-di, partitioned,
        /// message-passing, linux-deadline, semi-partitioned (--cpus counts every CPU; the
        /// tests run on the CPUs left for jobs).
        #[arg(long, requires = "overheads")]
        arch: Option<String>,
        /// global-lock: a dedicated interrupt CPU (GSN-EDF-DI).
        #[arg(long, requires = "overheads")]
        dedicated_irq_cpu: bool,
        /// Statistic charged: max (hard real-time) or avg.
        #[arg(long, default_value = "max", requires = "overheads")]
        overhead_stat: String,
        /// Round charged C up and T, D down to a multiple of this (e.g. 1us).
        #[arg(long, default_value = "1ns", requires = "overheads")]
        granularity: String,
    },
    /// Generate task sets (see docs/generators.md for every distribution and method).
    Gen {
        /// Number of tasks per set.
        #[arg(long)]
        tasks: Option<usize>,
        /// Total utilization (fixed sum with --tasks; fill target or growth limit with --util-dist).
        #[arg(long)]
        utilization: Option<f64>,
        /// Utilization-vector method for --tasks with --utilization.
        #[arg(long, default_value = "uunifast-discard")]
        util_method: String,
        /// Per-task utilization distribution (uniform:A..B, exp:MEAN, uni-light, bimo-heavy, …).
        #[arg(long)]
        util_dist: Option<String>,
        /// Write growing sequences starting with this many tasks [RTPS §VII].
        #[arg(long, value_name = "START")]
        grow: Option<usize>,
        /// Period distribution (uniform:A..B, loguniform:A..B[/G], set:…, harmonic, automotive).
        #[arg(long, default_value = "loguniform:10ms..1000ms/1ms")]
        periods: String,
        /// Deadlines: implicit, constrained or arbitrary.
        #[arg(long, default_value = "implicit")]
        deadlines: String,
        /// WCET rounding: floor, nearest or ceil.
        #[arg(long, default_value = "floor")]
        rounding: String,
        /// Random task utilities for utility-accrual experiments: uniform:A..B or chronos
        /// (ChronOS §8.4); drawn from their own stream, so the tasks' timing is unchanged.
        #[arg(long, value_name = "DIST")]
        utility: Option<String>,
        /// With --util-dist: each set's total utilization lies in LO..HI (tasks are drawn until
        /// the total reaches LO; a set above HI is drawn again) [RTWS §VI].
        #[arg(long, value_name = "LO..HI")]
        util_window: Option<String>,
        /// Parallel (fork-join) tasks: every task's WCET split into regions of threads,
        /// rtws:M (RTWS §VI) or forkjoin:regions=A..B,threads=C..D[,lengths=uniform|equal];
        /// drawn from their own stream, so the tasks' timing is unchanged.
        #[arg(long, value_name = "DIST")]
        parallel: Option<String>,
        /// The task sets of RTWS §VI, Table I, for --cpus M: u uniform in [0.1, 0.5], periods
        /// 700–800 ms, total utilization in LO..HI times M (0.38..0.40, 0.58..0.60,
        /// 0.73..0.75), a parallel region of ⌈x·2M⌉ threads between two sequential segments.
        #[arg(long, value_name = "LO..HI", requires = "cpus", conflicts_with_all = [
            "tasks", "utilization", "util_method", "util_dist", "grow", "periods", "deadlines",
            "rounding", "util_window", "parallel"
        ])]
        rtws: Option<String>,
        /// Write platform.cpus into the files (with --rtws: the CPU count M).
        #[arg(long)]
        cpus: Option<u32>,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Number of task sets (or sequences).
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// Output file (one set) or folder (several); default: standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// File format: json or toml (default: from --out's extension, else json).
        #[arg(long)]
        format: Option<String>,
    },
    /// Simulate a task set under a scheduling policy (exact discrete-event simulation).
    Simulate {
        /// Task-set file (.json/.toml).
        file: PathBuf,
        /// Number of CPUs (overrides the file's platform.cpus).
        #[arg(long)]
        cpus: Option<u32>,
        /// Policy: gedf, gnpedf, gfp, gfifo, edzl, pedf, pfp, cedf, pfp-ts (split tasks: the file's
        /// cpu/split fields, else the assignment of analyze --test pfp-ts); utility accrual
        /// [ChronOS §6]: ghvdf, gnphvdf, gmua, nggua, ggua (global), phvdf, plbesa, pdasa
        /// (partitioned by [ChronOS §8.5], overload included). Parallel fork-join tasks: rtws
        /// (G-EDF + priority work stealing [RTWS §V]) and federated (each heavy task, C > D, on
        /// CPUs of its own, light tasks by partitioned EDF: the allocation of analyze --test
        /// federated [Li et al., ECRTS 2014]) schedule them natively; gedf, gnpedf, gfp, gfifo,
        /// edzl run their threads as jobs, and so do pedf, pfp, cedf on the task's CPU or
        /// cluster (light tasks only); so does sd (a model of Linux
        /// SCHED_DEADLINE's global EDF: per-CPU queues, wake-up on the previous CPU, push and pull
        /// [RTWS §VI]); the UA policies and pfp-ts refuse them.
        #[arg(long)]
        policy: String,
        /// Priority assignment for fixed-priority policies (and FP partitioning).
        #[arg(long, value_enum, default_value = "dm")]
        priorities: PriorityArg,
        /// Simulated time (the horizon), e.g. 10s, 500ms.
        #[arg(long, default_value = "1s")]
        duration: String,
        /// Random seed (sporadic arrivals, execution times).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Packing heuristic for pedf/pfp when the file pins no task: ff, ffd, bf, bfd, wf, wfd, nf,
        /// nfd (exact admission), or chronos, chronos-ff, chronos-lu (the utilization rules of
        /// [ChronOS §8.5], which never fail). plbesa/pdasa/phvdf always use chronos-ff/chronos-lu
        /// (the thesis's rule unless one of those two is named). federated packs its light tasks
        /// with it (ff … nfd only: the light test pedf-H).
        #[arg(long, default_value = "ffd")]
        partition: String,
        /// Cluster size for cedf.
        #[arg(long)]
        cluster_size: Option<u32>,
        /// Arrivals: periodic, or sporadic:MAXDELAY (e.g. sporadic:5ms).
        #[arg(long, default_value = "periodic")]
        arrivals: String,
        /// Execution times: wcet, uniform:LO..HI or normal:MEAN,SD (fractions of the WCET), or overrun:PROB,FACTOR.
        #[arg(long, default_value = "wcet")]
        exec: String,
        /// Abort a job at its deadline instead of letting it finish late.
        #[arg(long)]
        abort_late: bool,
        /// Charge run-time overheads from an overhead file (docs/overheads.md).
        #[arg(long)]
        overheads: Option<PathBuf>,
        /// Architecture section of the overhead file (default: its only one).
        #[arg(long)]
        overhead_arch: Option<String>,
        /// Overhead statistic: avg (typical behaviour) or max.
        #[arg(long, default_value = "avg")]
        overhead_stat: String,
        /// Write per-job records as CSV.
        #[arg(long)]
        jobs_csv: Option<PathBuf>,
        /// Write the trace file (docs/traces.md).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Write a Gantt chart (SVG).
        #[arg(long)]
        gantt: Option<PathBuf>,
        /// Write a Perfetto / Chrome trace-event JSON file (open in ui.perfetto.dev).
        #[arg(long)]
        perfetto: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
    /// Run a task set for real on Linux under a user-space scheduler (docs/runtime.md).
    Run(run_cmd::Args),
    /// Write what an analysis accepts as a Linux deployment: rt-app JSON, a shell script
    /// (chrt, taskset, cpusets) or systemd units (docs/export.md).
    Export(export_cmd::Args),
    /// One periodic task's load in this process (exact CPU-time burn, absolute releases): the
    /// default task body of `schedlab export` (docs/export.md).
    PeriodicLoad(load_cmd::Args),
    /// Import a task set from another tool: a SimSo XML configuration, a SchedCAT-style CSV
    /// task list or an rt-app JSON workload, into a task file; prints the policy the source's
    /// scheduler maps to and everything that did not map (docs/import.md).
    Import {
        /// The file (.xml: SimSo, .csv: CSV, .json: rt-app; another extension: its content decides).
        file: PathBuf,
        /// Its format (default: from the extension, else the content).
        #[arg(long, value_enum)]
        from: Option<ImportFrom>,
        /// Write the task file here (.toml or .json); default: print it as TOML, with the
        /// summary as comments.
        #[arg(short = 'o', long = "out", value_name = "OUT")]
        out: Option<PathBuf>,
        /// Output format of the summary.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
    /// Predict an architecture's overheads at M CPUs by executing its scheduler code paths on
    /// simulated CPUs (the scaling model, docs/scaling.md [MP §IV, Figs. 6–7]).
    Scale(scale_cmd::Args),
    /// Trace files (runtime or simulated): statistics, Gantt, Perfetto, overhead fitting.
    Trace {
        #[command(subcommand)]
        what: trace_cmd::TraceCommand,
    },
    /// Measurements for the overhead file: CPMD by working-set size, overhead curves in n.
    Measure {
        #[command(subcommand)]
        what: measure_cmd::MeasureCommand,
    },
    /// Overhead-aware analysis: a task set charged with an architecture's overheads.
    Overheads {
        #[command(subcommand)]
        what: overheads_cmd::OverheadsCommand,
    },
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchCommand,
    },
    /// A quick scheduler comparison by analysis alone, with a report (the full showcase, with
    /// simulations, is ./scripts/showcase.sh, in out/showcase).
    Showcase {
        /// Output folder (an experiment folder: summary.csv, plots, report.html; rerunning resumes).
        #[arg(long, default_value = showcase::DEFAULT_OUT)]
        out: PathBuf,
        /// Number of CPUs.
        #[arg(long, default_value_t = 8)]
        cpus: u32,
        /// Task sets per utilization point.
        #[arg(long, default_value_t = 200)]
        sets: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run an experiment file (sweeps, resumable) or re-plot one: see docs/experiments.md.
    Experiment(experiment::ExperimentArgs),
    /// Design parameters: `design reservations` proposes the smallest budget per group.
    Design {
        #[command(subcommand)]
        what: DesignCommand,
    },
    /// List every test with its citation, assumptions and complexity.
    Tests {
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
}

#[derive(Subcommand)]
enum DesignCommand {
    /// For each reservation group and its period P, the smallest budget Q (integer ns) with
    /// which hcbs-gfp accepts the group; and whether the proposed set passes admission
    /// [HCBS Eq. 17].
    Reservations {
        /// Task-set file (.json/.toml) with `groups`.
        file: PathBuf,
        /// Number of CPUs (overrides the file's platform.cpus).
        #[arg(long)]
        cpus: Option<u32>,
        /// Priority assignment inside the groups.
        #[arg(long, value_enum, default_value = "dm")]
        priorities: PriorityArg,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// Same as --format json.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Simulated jobs per wall-clock second (G-EDF, P-EDF; n = 5m).
    Sim {
        /// CPU counts (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "4,16,64")]
        cpus: Vec<u32>,
        /// Tasks per CPU (comma-separated; n = this × m), for the cost-per-job curve in n.
        #[arg(long, value_delimiter = ',', default_value = "5")]
        tasks_per_cpu: Vec<u32>,
        /// Runs per configuration; the median wall time is reported.
        #[arg(long, default_value_t = 1)]
        repeat: u32,
        /// Policies (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "gedf,pedf")]
        policies: Vec<String>,
        /// Simulated time per run.
        #[arg(long, default_value = "100s")]
        duration: String,
        /// Random seed of the task sets.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
    },
    /// Task sets per second for each test on the benchmark workload.
    Analysis {
        /// CPU counts (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "16")]
        cpus: Vec<u32>,
        /// Task counts (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "50,160,640")]
        tasks: Vec<usize>,
        /// Task sets per point.
        #[arg(long, default_value_t = 50)]
        sets: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Tests (repeatable); default: every G-EDF test and the battery.
        #[arg(long = "test", value_name = "NAME")]
        tests: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: OutputFormat,
        /// Write the sets as task files set-0000.json, … into DIR instead of timing the tests
        /// (one --cpus and one --tasks value).
        #[arg(long, value_name = "DIR")]
        write_sets: Option<PathBuf>,
        /// Shape of the written files: pretty (unit strings, as `gen` writes) or compact (one
        /// line, integer ns).
        #[arg(long, value_enum, default_value = "pretty", requires = "write_sets")]
        shape: ShapeArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ShapeArg {
    Pretty,
    Compact,
}

fn parse_format(name: Option<&str>) -> Result<Option<schedlab_model::file::Format>> {
    match name {
        None => Ok(None),
        Some("json") => Ok(Some(schedlab_model::file::Format::Json)),
        Some("toml") => Ok(Some(schedlab_model::file::Format::Toml)),
        Some(other) => anyhow::bail!("unknown format `{other}` (use json or toml)"),
    }
}

/// Runs one subcommand. Longer than 150 lines on purpose: it is the one table from each
/// subcommand's parsed arguments to the module that does the work, one short arm per
/// subcommand, and reads best whole.
fn run(cli: Cli) -> Result<Status> {
    match cli.command {
        Command::Analyze {
            files,
            cpus,
            tests,
            priorities,
            format,
            tardiness,
            summary,
            explain,
            overheads,
            arch,
            dedicated_irq_cpu,
            overhead_stat,
            granularity,
        } => {
            let overheads = match overheads {
                None => None,
                Some(path) => Some(analyze::charging(
                    &path,
                    arch.as_deref(),
                    dedicated_irq_cpu,
                    &overhead_stat,
                    &granularity,
                )?),
            };
            let failed = analyze::run(&analyze::Options {
                paths: files,
                cpus,
                tests,
                priorities: priorities.into(),
                json: matches!(format, OutputFormat::Json),
                tardiness,
                summary,
                explain,
                overheads,
            })?;
            Ok(if failed == 0 {
                Status::SUCCESS
            } else {
                Status::FAILURE
            })
        }
        Command::Design {
            what:
                DesignCommand::Reservations {
                    file,
                    cpus,
                    priorities,
                    format,
                    json,
                },
        } => {
            design_cmd::run(&design_cmd::Options {
                path: file,
                cpus,
                priorities: priorities.into(),
                json: json || matches!(format, OutputFormat::Json),
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Gen {
            tasks,
            utilization,
            util_method,
            util_dist,
            grow,
            periods,
            deadlines,
            rounding,
            utility,
            util_window,
            parallel,
            rtws,
            cpus,
            seed,
            count,
            out,
            format,
        } => {
            gen_cmd::run(&gen_cmd::Options {
                tasks,
                utilization,
                util_method,
                util_dist,
                grow,
                periods,
                deadlines,
                rounding,
                utility,
                util_window,
                parallel,
                rtws,
                cpus,
                seed,
                count,
                out,
                format: parse_format(format.as_deref())?,
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Bench {
            what:
                BenchCommand::Analysis {
                    cpus,
                    tasks,
                    sets,
                    seed,
                    tests,
                    format,
                    write_sets,
                    shape,
                },
        } => {
            bench_cmd::run(&bench_cmd::Options {
                cpus,
                tasks,
                sets,
                seed,
                tests,
                json: matches!(format, OutputFormat::Json),
                write_sets,
                shape: match shape {
                    ShapeArg::Pretty => bench_cmd::SetShape::Pretty,
                    ShapeArg::Compact => bench_cmd::SetShape::Compact,
                },
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Bench {
            what:
                BenchCommand::Sim {
                    cpus,
                    tasks_per_cpu,
                    repeat,
                    policies,
                    duration,
                    seed,
                    format,
                },
        } => {
            bench_sim::run_bench(&bench_sim::Options {
                cpus,
                tasks_per_cpu,
                repeat,
                policies,
                duration: schedlab_model::time::parse_duration_with_unit(&duration)
                    .map_err(|e| anyhow::anyhow!("--duration: {e}"))?,
                seed,
                json: matches!(format, OutputFormat::Json),
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Simulate {
            file,
            cpus,
            policy,
            priorities,
            duration,
            seed,
            partition,
            cluster_size,
            arrivals,
            exec,
            abort_late,
            overheads,
            overhead_arch,
            overhead_stat,
            jobs_csv,
            trace,
            gantt,
            perfetto,
            format,
        } => {
            simulate::run_command(&simulate::Options {
                file,
                cpus,
                policy,
                priorities: priorities.into(),
                duration,
                seed,
                partition,
                cluster_size,
                arrivals,
                exec,
                abort_late,
                overheads,
                overhead_arch,
                overhead_stat,
                jobs_csv,
                trace,
                gantt,
                perfetto,
                json: matches!(format, OutputFormat::Json),
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Run(args) => {
            run_cmd::run_command(&args)?;
            Ok(Status::SUCCESS)
        }
        Command::Export(args) => {
            export_cmd::run_command(&args)?;
            Ok(Status::SUCCESS)
        }
        Command::PeriodicLoad(args) => {
            load_cmd::run_command(&args)?;
            Ok(Status::SUCCESS)
        }
        Command::Import {
            file,
            from,
            out,
            format,
        } => {
            import_cmd::run(&import_cmd::Options {
                file,
                from: from.map(Into::into),
                out,
                json: matches!(format, OutputFormat::Json),
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Scale(args) => {
            scale_cmd::run_command(&args)?;
            Ok(Status::SUCCESS)
        }
        Command::Trace { what } => trace_cmd::run(what),
        Command::Measure { what } => {
            measure_cmd::run(what)?;
            Ok(Status::SUCCESS)
        }
        Command::Overheads { what } => {
            overheads_cmd::run(what)?;
            Ok(Status::SUCCESS)
        }
        Command::Showcase {
            out,
            cpus,
            sets,
            seed,
        } => {
            showcase::run(&showcase::Options {
                out,
                cpus,
                sets,
                seed,
            })?;
            Ok(Status::SUCCESS)
        }
        Command::Experiment(args) => experiment::run(args),
        Command::Tests { format } => {
            tests_cmd::run(matches!(format, OutputFormat::Json))?;
            Ok(Status::SUCCESS)
        }
    }
}

/// Runs the command line `args` (the first item is the program name, as in `std::env::args_os`)
/// and returns the process exit status: 0 on success, 1 on an error (printed on stderr), 2 on a
/// usage error (clap's message on stderr); `--help` and `--version` print on stdout and return 0.
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Printing can only fail on a closed stream, where there is no one left to tell.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match run(cli) {
        Ok(code) => code.0,
        // The reader closed the pipe (`schedlab … | head`): not an error.
        Err(e) if output::is_broken_pipe(&e) => Status::SUCCESS.0,
        Err(e) => {
            eprintln!("error: {e:#}");
            Status::FAILURE.0
        }
    }
}
