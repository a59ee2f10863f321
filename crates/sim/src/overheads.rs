//! Run-time overheads in the simulator: the event-driven counterpart of the overhead
//! accounting of [MP Appendix B] and [RTPS §V]. Off unless [`crate::SimConfig::overheads`] is
//! set; then every overhead is a real delay in virtual time (never a WCET inflation), charged
//! where the measured systems incur it ([MP §IV-A], Fig. 5):
//!
//! 1. **Release** — a job released at `r` (deadline still `r + D`) becomes visible to the
//!    policy at `r + Δev + Δrel`: the release interrupt is late by Δev, its handler takes Δrel
//!    (ready-queue update, preemption check).
//! 2. **Dispatch** — when the engine enacts a link of job J to CPU c at `t`, c executes no job
//!    work until `t + δ`, with `δ = Δsch + Δcxs`, plus Δipi when the decision was taken
//!    remotely (a release handled on another CPU, the DSP or the interrupt CPU, a timer, or an
//!    event of another CPU). Under `message-passing`, a completion or abort on c itself costs
//!    the round trip `Δreq + Δdsp + Δipi + Δsch + Δcxs` [MP App. B, Fig. 5: the client idles
//!    while the DSP decides]. The previous job on c stops at `t`; a link that changes again
//!    before `t + δ` starts a new dispatch. This is [RTPS §V]'s `sch + cnt` per switch and
//!    [MP App. B]'s `Δsch + Δcxs (+ Δipi)` per scheduling decision.
//! 3. **CPMD** — a job that already executed and resumes after a preemption has its remaining
//!    demand grow by Δcpd(wss): the `preemption` curve if it resumes on the CPU it was last
//!    dispatched to, `migration` otherwise ([RTPS §V] `ch_l`, `ch_r`; [ChronOS §9.2]); its
//!    recorded `executed` time includes the reload.
//! 4. **Interrupts** — where the release handler runs on a CPU that executes real-time jobs
//!    ([`Interrupts::OnCpus`]: `global-lock` without a dedicated interrupt CPU, `partitioned`,
//!    and any other architecture), the job executing on that CPU when the handler starts
//!    (`r + Δev`) makes no progress for Δrel. The handler CPU of a release is the CPU the
//!    task's previous job last ran on; for a first job, the task's home CPU (first CPU of its
//!    partition/cluster) or CPU 0. `message-passing` (the DSP) and `global-lock-di` (a
//!    dedicated interrupt CPU) shield the jobs: no interference, and every release-triggered
//!    link needs an IPI.
//!
//! Not charged: the tick Δtck (the simulator has no periodic tick), `lock_wait` and
//! `release_to_run` (runtime measures; lock waiting is part of Δsch [MP §IV-A]). The
//! architecture's extra CPU (the DSP, the interrupt CPU) is not simulated: simulate the CPUs
//! that run real-time jobs (`m − 1` for `message-passing` on m cores [MP §IV]).
//!
//! The section charged is the architecture's `<arch>@m<M>` one for the machine's M (the
//! simulated CPUs, plus the DSP or interrupt CPU that is not simulated) when the file has it,
//! else `<arch>` ([`OverheadFile::arch_at`]; the scaling model writes one section per M).
//!
//! All values are evaluated once per run: per-event overheads at n = the number of tasks,
//! CPMD per task at its working-set size (a task without `wss` counts 0 bytes), all with one
//! statistic (`avg` by default: simulation replays typical behaviour; `max` for a worst case).

use schedlab_model::overheads::{CpmdKind, Curve, OverheadError, OverheadFile, OverheadName, Stat};
use schedlab_model::Duration;

/// Where release interrupts are handled (decides rule 4 and the IPI of rule 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interrupts {
    /// On a dedicated scheduling processor that also makes every decision (`message-passing`).
    Dsp,
    /// On a dedicated interrupt CPU (`global-lock-di`, GSN-EDF-DI [MP §II]).
    #[default]
    Dedicated,
    /// On the CPUs that execute real-time jobs (every other architecture).
    OnCpus,
}

impl Interrupts {
    /// The interrupt model of an architecture name (see the module doc).
    pub fn of_arch(arch: &str) -> Interrupts {
        match arch {
            "message-passing" => Interrupts::Dsp,
            "global-lock-di" => Interrupts::Dedicated,
            _ => Interrupts::OnCpus,
        }
    }
}

/// The overheads of one run, evaluated (durations) from an overhead file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overheads {
    /// Where the values come from (a path, or `"dict"`), for reports.
    pub source: String,
    /// The architecture section used (`global-lock`, or `global-lock@m64` when the file has
    /// one for the machine's core count; empty if the file has none).
    pub arch: String,
    /// The statistic used.
    pub stat: Stat,
    /// Where release interrupts are handled.
    pub interrupts: Interrupts,
    /// Δev.
    pub release_latency: Duration,
    /// Δrel.
    pub release: Duration,
    /// Δipi.
    pub ipi: Duration,
    /// Δsch.
    pub schedule: Duration,
    /// Δcxs.
    pub context_switch: Duration,
    /// Δreq.
    pub request: Duration,
    /// Δdsp.
    pub dsp: Duration,
    /// Δcpd on the same CPU, over the working-set size in bytes.
    pub cpmd_preemption: Option<Curve>,
    /// Δcpd on another CPU.
    pub cpmd_migration: Option<Curve>,
}

/// Overhead time charged during a run, per kind, in ns (a charge cut short by a later
/// decision or by the horizon still counts in full).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Charged {
    /// Release delays `Δev + Δrel`, one per job that became visible.
    pub release: u64,
    /// Dispatch delays `δ` (rule 2).
    pub dispatch: u64,
    /// CPMD added to demands.
    pub cpmd: u64,
    /// Interrupt interference Δrel (rule 4).
    pub interrupt: u64,
}

/// What an overhead-charged run reports next to its metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverheadReport {
    /// [`Overheads::source`].
    pub source: String,
    /// [`Overheads::arch`].
    pub arch: String,
    /// [`Overheads::stat`].
    pub stat: Stat,
    /// The totals charged.
    pub charged: Charged,
}

/// What a scheduling decision was triggered by (decides rule 2's IPI and round trip).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Source {
    /// Something not on any simulated CPU: the DSP, the interrupt CPU, a timer.
    #[default]
    Remote,
    /// An event on `cpu`: a completion or abort there (`finish`), or a release handled there.
    Cpu { cpu: u32, finish: bool },
}

impl Overheads {
    /// Evaluates the section of architecture `arch` of `file` (default: the only
    /// architecture; an error listing them if there are several; no section at all: CPMD
    /// only) for `n_tasks` tasks and `stat`, on `cpus` simulated CPUs. The section is the
    /// architecture's `@m<M>` one for the machine's M if the file has it, else its plain one
    /// ([`OverheadFile::arch_at`]); M is `cpus`, plus the CPU the architecture keeps from jobs
    /// under `message-passing` (the DSP) and `global-lock-di` (the interrupt CPU), which is not
    /// simulated. An overhead the section does not give is zero; one it gives without `stat`
    /// is an error.
    pub fn from_file(
        file: &OverheadFile,
        source: &str,
        arch: Option<&str>,
        stat: Stat,
        n_tasks: u64,
        cpus: u32,
    ) -> Result<Overheads, OverheadError> {
        let machine = |base: &str| match Interrupts::of_arch(base) {
            Interrupts::OnCpus => cpus,
            Interrupts::Dsp | Interrupts::Dedicated => cpus.saturating_add(1),
        };
        let (base, arch) = match arch {
            Some(a) => (
                a.to_string(),
                file.arch_section_at(a, machine(a))?.to_string(),
            ),
            None => match file.base_names().as_slice() {
                [] => (String::new(), String::new()),
                [one] => {
                    let m = machine(one);
                    let section = file.section_at(one, m).ok_or_else(|| OverheadError::Invalid {
                        place: "arch".into(),
                        message: format!(
                            "the file describes `{one}` only for other core counts ({}), not for M = {m}",
                            file.arch_names().join(", ")
                        ),
                    })?;
                    ((*one).to_string(), section.to_string())
                }
                several => {
                    return Err(OverheadError::Invalid {
                        place: "arch".into(),
                        message: format!(
                            "the file describes several architectures ({}); choose one",
                            several.join(", ")
                        ),
                    })
                }
            },
        };
        let get = |name| -> Result<Duration, OverheadError> {
            if arch.is_empty() {
                return Ok(Duration::ZERO);
            }
            Ok(file
                .value(&arch, name, stat, n_tasks)?
                .unwrap_or(Duration::ZERO))
        };
        let curve = |kind| -> Result<Option<Curve>, OverheadError> {
            // Asking at x = 0 checks that the statistic exists.
            file.cpmd(kind, stat, 0)?;
            Ok(file.cpmd.get(&kind).and_then(|m| m.get(stat)).cloned())
        };
        Ok(Overheads {
            source: source.to_string(),
            interrupts: if base.is_empty() {
                Interrupts::Dedicated
            } else {
                Interrupts::of_arch(&base)
            },
            release_latency: get(OverheadName::ReleaseLatency)?,
            release: get(OverheadName::Release)?,
            ipi: get(OverheadName::Ipi)?,
            schedule: get(OverheadName::Schedule)?,
            context_switch: get(OverheadName::ContextSwitch)?,
            request: get(OverheadName::Request)?,
            dsp: get(OverheadName::Dsp)?,
            cpmd_preemption: curve(CpmdKind::Preemption)?,
            cpmd_migration: curve(CpmdKind::Migration)?,
            arch,
            stat,
        })
    }

    /// Rule 1: `Δev + Δrel` (saturating).
    pub(crate) fn release_delay(&self) -> Duration {
        sum(&[self.release_latency, self.release])
    }

    /// Rule 4: Δrel if release handlers interrupt the jobs' CPUs, else zero.
    pub(crate) fn interference(&self) -> Duration {
        match self.interrupts {
            Interrupts::OnCpus => self.release,
            Interrupts::Dsp | Interrupts::Dedicated => Duration::ZERO,
        }
    }

    /// Rule 2: the dispatch delay of a link to `cpu` decided because of `source`.
    pub(crate) fn dispatch(&self, cpu: u32, source: Source) -> Duration {
        let base = [self.schedule, self.context_switch];
        let local = matches!(source, Source::Cpu { cpu: c, .. } if c == cpu);
        match self.interrupts {
            Interrupts::Dsp if local && matches!(source, Source::Cpu { finish: true, .. }) => {
                sum(&[self.request, self.dsp, self.ipi, base[0], base[1]])
            }
            _ if local => sum(&base),
            _ => sum(&[self.ipi, base[0], base[1]]),
        }
    }

    /// Rule 3 for a working set of `wss` bytes: (same CPU, other CPU).
    pub(crate) fn cpmd(&self, wss: u64) -> (Duration, Duration) {
        let at = |c: &Option<Curve>| {
            c.as_ref()
                .map_or(Duration::ZERO, |c| Duration::from_ns(c.eval(wss)))
        };
        (at(&self.cpmd_preemption), at(&self.cpmd_migration))
    }
}

fn sum(parts: &[Duration]) -> Duration {
    Duration::from_ns(
        parts
            .iter()
            .fold(0u64, |acc, d| acc.saturating_add(d.as_ns())),
    )
}

/// A SwitchIn the trace owes at the end of a dispatch (emitted once time passes it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingSwitchIn {
    pub(crate) time: u64,
    pub(crate) task: u32,
    pub(crate) seq: u64,
}

/// Per-task values of a run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TaskCharges {
    /// Δcpd on the same CPU / on another CPU, at the task's working-set size.
    cpmd: (Duration, Duration),
    /// The CPU that handles the task's next release (rule 4).
    irq_cpu: u32,
    /// What the task's last completion or abort was, for the hand-over of a waiting successor.
    finished: Source,
}

/// The engine's overhead state during one run.
pub(crate) struct State<'a> {
    pub(crate) model: &'a Overheads,
    tasks: Vec<TaskCharges>,
    /// The source of the decision being processed.
    pub(crate) source: Source,
    /// Per CPU: the source of the last link decided for it in this instant.
    pub(crate) link_source: Vec<Source>,
    /// Per CPU: the SwitchIn owed to the trace (only when tracing).
    pub(crate) pending: Vec<Option<PendingSwitchIn>>,
    /// Number of `Some` in `pending`.
    pub(crate) pending_n: usize,
    pub(crate) charged: Charged,
}

impl<'a> State<'a> {
    pub(crate) fn new(model: &'a Overheads, tasks: &[crate::SimTask], cpus: u32) -> State<'a> {
        let m = cpus as usize;
        State {
            model,
            tasks: tasks
                .iter()
                .map(|t| TaskCharges {
                    cpmd: model.cpmd(t.wss.unwrap_or(0)),
                    irq_cpu: t.home_cpu.filter(|&c| c < cpus).unwrap_or(0),
                    finished: Source::Remote,
                })
                .collect(),
            source: Source::Remote,
            link_source: vec![Source::Remote; m],
            pending: vec![None; m],
            pending_n: 0,
            charged: Charged::default(),
        }
    }

    /// The CPU that handles a release of `task` (rule 4).
    pub(crate) fn irq_cpu(&self, task: usize) -> u32 {
        self.tasks.get(task).map_or(0, |t| t.irq_cpu)
    }

    /// The source of a decision triggered by a release of `task`.
    pub(crate) fn release_source(&self, task: usize) -> Source {
        match self.model.interrupts {
            Interrupts::OnCpus => Source::Cpu {
                cpu: self.irq_cpu(task),
                finish: false,
            },
            Interrupts::Dsp | Interrupts::Dedicated => Source::Remote,
        }
    }

    /// The source of the hand-over of a successor after `task`'s last job finished.
    pub(crate) fn handover_source(&self, task: usize) -> Source {
        self.tasks.get(task).map_or(Source::Remote, |t| t.finished)
    }

    /// A job of `task` finished (`on`: the CPU it was executing on, if any; `last`: the CPU it
    /// last ran on): the source of what follows, and the handler CPU of the next release.
    #[cold]
    pub(crate) fn finished(&mut self, task: usize, on: Option<u32>, last: Option<u32>) -> Source {
        let source = on.map_or(Source::Remote, |cpu| Source::Cpu { cpu, finish: true });
        if let Some(t) = self.tasks.get_mut(task) {
            t.finished = source;
            if let Some(c) = last {
                t.irq_cpu = c;
            }
        }
        self.source = source;
        source
    }

    /// Rules 2 and 3 for switching a job of `task` in on `cpu`: (dispatch delay, CPMD).
    #[cold]
    pub(crate) fn switch_in(
        &mut self,
        task: usize,
        cpu: u32,
        last_cpu: Option<u32>,
        has_executed: bool,
    ) -> (Duration, Duration) {
        let source = self
            .link_source
            .get(cpu as usize)
            .copied()
            .unwrap_or_default();
        let delay = self.model.dispatch(cpu, source);
        let reload = match (has_executed, self.tasks.get(task)) {
            (true, Some(t)) if last_cpu == Some(cpu) => t.cpmd.0,
            (true, Some(t)) => t.cpmd.1,
            _ => Duration::ZERO,
        };
        self.charged.dispatch = self.charged.dispatch.saturating_add(delay.as_ns());
        self.charged.cpmd = self.charged.cpmd.saturating_add(reload.as_ns());
        (delay, reload)
    }

    /// The SwitchIns owed before `time`, in (time, CPU) order, removed from `pending`.
    pub(crate) fn take_pending_before(&mut self, time: u64) -> Vec<(u32, PendingSwitchIn)> {
        let mut due: Vec<(u32, PendingSwitchIn)> = Vec::new();
        for (cpu, slot) in self.pending.iter_mut().enumerate() {
            if let Some(p) = slot.take_if(|p| p.time < time) {
                due.push((cpu as u32, p));
            }
        }
        self.pending_n -= due.len();
        due.sort_unstable_by_key(|(cpu, p)| (p.time, *cpu));
        due
    }

    /// Cancels the SwitchIn owed on `cpu` if its dispatch ends at or after `now` (the job is
    /// taken off before executing); true if it did.
    pub(crate) fn cancel_pending(&mut self, cpu: u32, now: u64) -> bool {
        let taken = self
            .pending
            .get_mut(cpu as usize)
            .and_then(|slot| slot.take_if(|p| p.time >= now));
        if taken.is_some() {
            self.pending_n -= 1;
        }
        taken.is_some()
    }

    /// The report of the run.
    pub(crate) fn report(&self) -> OverheadReport {
        OverheadReport {
            source: self.model.source.clone(),
            arch: self.model.arch.clone(),
            stat: self.model.stat,
            charged: self.charged,
        }
    }
}
