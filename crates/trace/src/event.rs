//! The shared event vocabulary (DESIGN.md, "Trace events"): one fixed-size record per event,
//! in nanoseconds, naming the CPU and the job (task index, sequence number) it concerns, and
//! for the threads of a parallel (fork-join) job [RTWS §III] the *strand* (the thread's number
//! within its job, 0 for a sequential job; docs/traces.md) (cf. feather-trace's `sched_trace.h`). The simulator and the runtime emit the same events,
//! so statistics, Gantt charts and Perfetto exports work on both.

/// "No CPU" in [`Event::cpu`] (events that concern no particular CPU).
pub const NO_CPU: u32 = u32::MAX;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Kind {
    /// A job was released; `arg` = intended release time (ns) — equal to `time` in simulation;
    /// in the runtime `time` is when the release handler started (so `time − arg` is the
    /// release latency Δev, [MP §IV-A]).
    Release = 1,
    /// The policy linked the job to `cpu` (runtime: at decision time, by the deciding CPU).
    Link = 2,
    /// The job started or resumed executing on `cpu`.
    SwitchIn = 3,
    /// The job stopped executing on `cpu` (completion, preemption or abort follows or precedes).
    SwitchOut = 4,
    /// The job was preempted (unlinked before completing) on `cpu`.
    Preempt = 5,
    /// The job resumed on `cpu` after running last on CPU `arg`.
    Migrate = 6,
    /// The job completed on `cpu` (runtime: `time` is when the scheduler processed the
    /// completion, `arg` the completion time measured by the job's thread, in ns).
    Complete = 7,
    /// The job's deadline passed before it completed; `arg` = the deadline (ns).
    DeadlineMiss = 8,
    /// The job was aborted.
    Abort = 9,
    /// A budget was exhausted; `arg` = the budget that ran out (ns). A job's budget
    /// (`task`/`seq` = the job), or a reservation server's (`task` = `u32::MAX`, `seq` = the
    /// group's index, `cpu` = the server's CPU).
    BudgetExhausted = 10,
    /// A budget was replenished; `arg` = the new budget (ns). A job's or a server's (as
    /// [`Kind::BudgetExhausted`]).
    BudgetReplenished = 11,
    /// A message was sent (runtime, message passing); `arg` = message kind.
    MessageSend = 12,
    /// A message was received; `arg` = message kind.
    MessageReceive = 13,
    /// The dedicated scheduling CPU started a handler; `arg` = handler kind.
    DspBegin = 14,
    /// It finished the handler.
    DspEnd = 15,
    /// A CPU's scheduler started a decision.
    SchedBegin = 16,
    /// It finished the decision; `arg` = 1 if it switched a job in on `cpu`, else 0.
    SchedEnd = 17,
    /// A CPU started waiting for a lock.
    LockWaitBegin = 18,
    /// It got the lock.
    LockWaitEnd = 19,
    /// The release handler of the job finished (runtime; `time − ` the `Release` event's time
    /// is the release overhead Δrel, [MP §IV-A]).
    ReleaseEnd = 20,
    /// The link of `cpu` to the job was removed (the CPU should idle).
    Unlink = 21,
    /// A CPU notified CPU `cpu` to reschedule (the runtime's IPI); `arg` = the sending CPU.
    IpiSend = 22,
    /// The job was handed to the policy (ready): at its release, or when its predecessor
    /// completed if it had to wait; `cpu` = the CPU that did it.
    Ready = 23,
    /// A scheduler operation whose cost is an overhead of its own began on `cpu`; `arg` =
    /// the operation ([`Op`] code). Runtime: the queue and timer operations of the
    /// semi-partitioned scheduler [RTPS §V] (`task`/`seq`: the job concerned, or `u32::MAX`).
    OpBegin = 24,
    /// The operation `arg` ([`Op`] code) that began last on `cpu` ended (`time −` its
    /// `op-begin`'s is one sample of the overhead named by [`Op::name`]).
    OpEnd = 25,
    /// The abort handler of the aborted job `task`/`seq` started on `cpu`; `arg` = its
    /// execution time (the task's `abort_cost`). Nothing else executes on `cpu` until the
    /// matching `abort-handler-end` (docs/simulation.md, "Aborts").
    AbortHandlerBegin = 26,
    /// That handler ended on `cpu`: the job's resources are released now.
    AbortHandlerEnd = 27,
    /// The job requested resource `arg` (it has executed the start of a critical section).
    LockRequest = 28,
    /// The job got resource `arg` (at its request if it was free, else when granted).
    LockAcquire = 29,
    /// The job released resource `arg` (end of its section, completion, or abort).
    LockRelease = 30,
    /// The job blocked on resource `arg`, held by another job; it left `cpu`.
    Block = 31,
    /// The blocked job was granted resource `arg` and is ready again.
    Resume = 32,
    /// A parallel job entered its next region on `cpu` (the CPU on which the previous
    /// region's last thread completed): its threads were created; `arg` = how many
    /// [RTWS §III, Rule B]. `strand` = the new region's first strand.
    Fork = 33,
    /// The last thread of a region of a parallel job completed on `cpu` (the region's
    /// threads have all finished); `arg` = the region's index (0-based); `strand` = the thread
    /// that completed last. At the last region's join the job completes (`complete` follows).
    Join = 34,
    /// CPU `cpu` (the thief) stole thread `strand` of the job from the local queue of CPU
    /// `arg` (the victim) [RTWS §V, Rule E]; the thread's `switch-in` on `cpu` follows at the
    /// same instant.
    Steal = 35,
    /// Reservation server (`task` = `u32::MAX`, `seq` = the group's index) on `cpu` is
    /// throttled (its budget is exhausted: it may not run) until `arg` (ns), when it is
    /// replenished (hard CBS, [HCBS §3.2]).
    BudgetThrottled = 36,
}

/// A scheduler operation timed by an `op-begin` … `op-end` pair ([`Kind::OpBegin`]); named
/// as the RTPS overheads in the overhead file [RTPS §V]. Several operations may be open on
/// one CPU at once (one inside another), but never two of the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum Op {
    /// `tmr`: arming or cancelling a CPU's budget timer (reading the job's CPU clock and
    /// setting or dropping the expiry).
    Timer = 1,
    /// `S_add`: inserting a task's next release into a CPU's sleep queue (its release heap).
    SleepAdd = 2,
    /// `S_take`: taking a due release out of a CPU's sleep queue.
    SleepTake = 3,
    /// `R_add_l`: a job entering its own CPU's ready queue (the local policy taking it in,
    /// link recomputed).
    ReadyAddLocal = 4,
    /// `R_add_r`: inserting a job into another CPU's ready queue (its migration queue: lock,
    /// push, unlock).
    ReadyAddRemote = 5,
    /// `R_take`: taking jobs out of a ready queue (the CPU's migration queue; the local policy
    /// removing the job that left the CPU and choosing the next).
    ReadyTake = 6,
    /// `enqueue`: a released job enters the scheduler — handed to the policy, which puts it
    /// in its group's ready queue and applies the servers' wake-up rule (`reservations`;
    /// the kernel's `enqueue_task_rt` [HCBS §5]).
    Enqueue = 7,
    /// `dequeue`: a completed job leaves the scheduler — the policy charges its servers and
    /// removes it, the links are recomputed (`dequeue_task_rt` [HCBS §5]).
    Dequeue = 8,
    /// `pick_next`: a CPU's next job made ready to run — its thread pinned to the CPU and
    /// its budget timer armed, up to (not including) its wake-up (`pick_next_task_rt`, which
    /// programs the server's timer [HCBS §5]).
    PickNext = 9,
    /// `put_prev`: the job leaving a CPU put back — stopped, its budget timer cancelled and
    /// what it consumed charged (`put_prev_task_rt` [HCBS §5]).
    PutPrev = 10,
    /// `budget_update`: a budget or replenishment timer handled — the CPU clock read, an
    /// exhaustion or replenishment given to the policy, the links recomputed (`task_tick_rt`
    /// and the H-CBS timers [HCBS §5]).
    BudgetUpdate = 11,
    /// `check_preempt`: after a release, deciding which CPUs must preempt their job (the new
    /// links compared with what runs, `check_preempt_curr_rt` [HCBS §5]).
    CheckPreempt = 12,
}

impl Op {
    /// Every operation, in code order.
    pub const ALL: [Op; 12] = [
        Op::Timer,
        Op::SleepAdd,
        Op::SleepTake,
        Op::ReadyAddLocal,
        Op::ReadyAddRemote,
        Op::ReadyTake,
        Op::Enqueue,
        Op::Dequeue,
        Op::PickNext,
        Op::PutPrev,
        Op::BudgetUpdate,
        Op::CheckPreempt,
    ];
    /// The scheduler hooks of [HCBS §5, Figs. 4–5] (`reservations`): measured in the trace
    /// and reported with the overheads, not charged by any analysis (not in the overhead
    /// file).
    pub const HOOKS: [Op; 6] = [
        Op::Enqueue,
        Op::Dequeue,
        Op::PickNext,
        Op::PutPrev,
        Op::BudgetUpdate,
        Op::CheckPreempt,
    ];
    /// The operation with code `code`.
    pub fn from_code(code: u64) -> Option<Op> {
        Op::ALL.iter().copied().find(|o| *o as u64 == code)
    }
    /// Its overhead name (the overhead file's key, `schedlab_model::overheads::OverheadName`).
    pub fn name(self) -> &'static str {
        match self {
            Op::Timer => "timer",
            Op::SleepAdd => "sleep_add",
            Op::SleepTake => "sleep_take",
            Op::ReadyAddLocal => "ready_add_local",
            Op::ReadyAddRemote => "ready_add_remote",
            Op::ReadyTake => "ready_take",
            Op::Enqueue => "enqueue",
            Op::Dequeue => "dequeue",
            Op::PickNext => "pick_next",
            Op::PutPrev => "put_prev",
            Op::BudgetUpdate => "budget_update",
            Op::CheckPreempt => "check_preempt",
        }
    }
    /// Its code (the `arg` of `op-begin`/`op-end`).
    pub fn code(self) -> u64 {
        self as u64
    }
}

impl Kind {
    /// Every kind, in code order.
    pub const ALL: [Kind; 36] = [
        Kind::Release,
        Kind::Link,
        Kind::SwitchIn,
        Kind::SwitchOut,
        Kind::Preempt,
        Kind::Migrate,
        Kind::Complete,
        Kind::DeadlineMiss,
        Kind::Abort,
        Kind::BudgetExhausted,
        Kind::BudgetReplenished,
        Kind::MessageSend,
        Kind::MessageReceive,
        Kind::DspBegin,
        Kind::DspEnd,
        Kind::SchedBegin,
        Kind::SchedEnd,
        Kind::LockWaitBegin,
        Kind::LockWaitEnd,
        Kind::ReleaseEnd,
        Kind::Unlink,
        Kind::IpiSend,
        Kind::Ready,
        Kind::OpBegin,
        Kind::OpEnd,
        Kind::AbortHandlerBegin,
        Kind::AbortHandlerEnd,
        Kind::LockRequest,
        Kind::LockAcquire,
        Kind::LockRelease,
        Kind::Block,
        Kind::Resume,
        Kind::Fork,
        Kind::Join,
        Kind::Steal,
        Kind::BudgetThrottled,
    ];
    /// The kind with code `code`.
    pub fn from_code(code: u16) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| *k as u16 == code)
    }
    /// Name used in text outputs (`release`, `switch-in`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Release => "release",
            Kind::Link => "link",
            Kind::SwitchIn => "switch-in",
            Kind::SwitchOut => "switch-out",
            Kind::Preempt => "preempt",
            Kind::Migrate => "migrate",
            Kind::Complete => "complete",
            Kind::DeadlineMiss => "deadline-miss",
            Kind::Abort => "abort",
            Kind::BudgetExhausted => "budget-exhausted",
            Kind::BudgetReplenished => "budget-replenished",
            Kind::MessageSend => "message-send",
            Kind::MessageReceive => "message-receive",
            Kind::DspBegin => "dsp-begin",
            Kind::DspEnd => "dsp-end",
            Kind::SchedBegin => "sched-begin",
            Kind::SchedEnd => "sched-end",
            Kind::LockWaitBegin => "lock-wait-begin",
            Kind::LockWaitEnd => "lock-wait-end",
            Kind::ReleaseEnd => "release-end",
            Kind::Unlink => "unlink",
            Kind::IpiSend => "ipi-send",
            Kind::Ready => "ready",
            Kind::OpBegin => "op-begin",
            Kind::OpEnd => "op-end",
            Kind::AbortHandlerBegin => "abort-handler-begin",
            Kind::AbortHandlerEnd => "abort-handler-end",
            Kind::LockRequest => "lock-request",
            Kind::LockAcquire => "lock-acquire",
            Kind::LockRelease => "lock-release",
            Kind::Block => "block",
            Kind::Resume => "resume",
            Kind::Fork => "fork",
            Kind::Join => "join",
            Kind::Steal => "steal",
            Kind::BudgetThrottled => "budget-throttled",
        }
    }
}

/// One trace event (fixed size; all times in nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// When (ns since the run's time zero).
    pub time: u64,
    /// What.
    pub kind: Kind,
    /// Which CPU, or [`NO_CPU`].
    pub cpu: u32,
    /// Task index (`u32::MAX` if none).
    pub task: u32,
    /// Job sequence number within the task.
    pub seq: u64,
    /// Kind-specific argument (see [`Kind`]).
    pub arg: u64,
    /// The thread of a parallel job the event concerns (its strand: region `r`'s thread `k`
    /// is `Σ_{r' < r} width(r') + k`), 0 for a sequential job and for events of the job as a
    /// whole (release, deadline miss, abort). Stored in bytes 36..40 of the record, which
    /// version-1 writers left zero: older files read as strand 0 (docs/traces.md).
    pub strand: u32,
}

impl Event {
    /// An event with `arg = 0` and strand 0.
    pub fn new(time: u64, kind: Kind, cpu: u32, task: u32, seq: u64) -> Event {
        Event {
            time,
            kind,
            cpu,
            task,
            seq,
            arg: 0,
            strand: 0,
        }
    }
    /// The same event with `arg`.
    pub fn with_arg(mut self, arg: u64) -> Event {
        self.arg = arg;
        self
    }
    /// The same event for strand `strand` of its job.
    pub fn with_strand(mut self, strand: u32) -> Event {
        self.strand = strand;
        self
    }
}
