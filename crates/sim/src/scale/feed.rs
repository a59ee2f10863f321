//! From the policy simulator's event stream to *instants*: everything that happened at one
//! time (releases, completions, the CPUs whose running job changed), plus a mirror of the
//! schedule the overlay needs for queue lengths and timer placement. Events arrive in time
//! order through [`crate::engine::simulate_with_sink`]; nothing is stored beyond one instant.
//!
//! Cost: `O(1)` per event (a per-CPU index finds an instant's change of a CPU); memory
//! `O(n + m)`.

use schedlab_trace::{Event, Kind};

/// Where the job a CPU switches to comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// Nothing: the CPU goes idle.
    Idle,
    /// Released at this instant.
    Released,
    /// Preempted at this instant on that CPU (a push, under push-pull).
    Preempted(u32),
    /// It was waiting (ready) before this instant; the CPU whose queue held it, if known.
    Waiting(Option<u32>),
}

/// One CPU whose running job changed at an instant (policy CPU numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub cpu: u32,
    /// The task whose job it ran before.
    pub old: Option<u32>,
    /// That job was unfinished (a preemption).
    pub preempted: bool,
    /// The task whose job it runs now.
    pub new: Option<u32>,
    /// Where that job comes from (set when the instant closes).
    pub src: Src,
}

/// Everything at one instant.
#[derive(Debug, Default)]
pub(crate) struct Instant {
    pub t: u64,
    /// Tasks that released a job.
    pub released: Vec<u32>,
    /// (CPU the job last ran on, task) of every completion.
    pub completed: Vec<(u32, u32)>,
    pub changes: Vec<Change>,
}

/// The schedule as the overlay mirrors it (policy CPU numbers), before the current instant.
pub(crate) struct Mirror {
    /// The task whose job runs on each CPU.
    pub running: Vec<Option<u32>>,
    pub busy: u64,
    /// Released jobs not yet completed.
    pub live: u64,
    /// Each task's CPU of its last switch-in.
    pub last_cpu: Vec<Option<u32>>,
    /// The queue a waiting job of each task sits on (push-pull), if any.
    pub waiting_on: Vec<Option<u32>>,
    /// Waiting jobs per CPU queue (push-pull).
    pub queued: Vec<u64>,
    pub tasks: u64,
    pub jobs: u64,
}

impl Mirror {
    pub(crate) fn new(tasks: usize, cpus: u32) -> Mirror {
        Mirror {
            running: vec![None; cpus as usize],
            busy: 0,
            live: 0,
            last_cpu: vec![None; tasks],
            waiting_on: vec![None; tasks],
            queued: vec![0; cpus as usize],
            tasks: tasks as u64,
            jobs: 0,
        }
    }
    /// Jobs released and not running (the global ready queue's length, with the jobs that
    /// wait for their predecessor).
    pub(crate) fn ready(&self) -> u64 {
        self.live.saturating_sub(self.busy)
    }
    /// The task's previous CPU, else `task mod m`.
    pub(crate) fn home(&self, task: u32) -> u32 {
        let m = self.running.len().max(1) as u32;
        self.last_cpu
            .get(task as usize)
            .copied()
            .flatten()
            .unwrap_or(task % m)
    }

    fn set_waiting(&mut self, task: u32, cpu: Option<u32>) {
        if let Some(w) = self.waiting_on.get_mut(task as usize) {
            if let Some(old) = w.take() {
                if let Some(q) = self.queued.get_mut(old as usize) {
                    *q = q.saturating_sub(1);
                }
            }
            if let Some(c) = cpu {
                if let Some(q) = self.queued.get_mut(c as usize) {
                    *q += 1;
                    *w = Some(c);
                }
            }
        }
    }

    /// Applies a closed instant.
    pub(crate) fn apply(&mut self, inst: &Instant) {
        self.live += inst.released.len() as u64;
        self.live = self.live.saturating_sub(inst.completed.len() as u64);
        self.jobs += inst.completed.len() as u64;
        for &(_, task) in &inst.completed {
            self.set_waiting(task, None);
        }
        for ch in &inst.changes {
            if let Some(slot) = self.running.get_mut(ch.cpu as usize) {
                match (slot.is_some(), ch.new.is_some()) {
                    (false, true) => self.busy += 1,
                    (true, false) => self.busy = self.busy.saturating_sub(1),
                    _ => {}
                }
                *slot = ch.new;
            }
        }
        for ch in &inst.changes {
            if let Some(t) = ch.new {
                self.set_waiting(t, None);
                if let Some(l) = self.last_cpu.get_mut(t as usize) {
                    *l = Some(ch.cpu);
                }
            }
        }
        // Jobs displaced and not running elsewhere wait on the CPU they left; released
        // jobs that did not start, on their task's previous CPU (the kernel's wake-up
        // placement when no CPU is better).
        for ch in &inst.changes {
            if let (Some(t), true) = (ch.old, ch.preempted) {
                if !self.is_running(t) {
                    self.set_waiting(t, Some(ch.cpu));
                }
            }
        }
        for &t in &inst.released {
            let waiting = self.waiting_on.get(t as usize).copied().flatten();
            if !self.is_running(t) && waiting.is_none() {
                let home = self.home(t);
                self.set_waiting(t, Some(home));
            }
        }
    }

    fn is_running(&self, task: u32) -> bool {
        self.running.contains(&Some(task))
    }
}

/// Assembles instants from events.
pub(crate) struct Feed {
    pub inst: Instant,
    open: bool,
    /// Index + 1 of each CPU's entry in `inst.changes` (0: none).
    slot: Vec<u32>,
}

impl Feed {
    pub(crate) fn new(cpus: u32) -> Feed {
        Feed {
            inst: Instant::default(),
            open: false,
            slot: vec![0; cpus as usize],
        }
    }

    /// Whether `e` belongs to a later instant than the open one (then close it first).
    pub(crate) fn starts_new(&self, e: &Event) -> bool {
        self.open && e.time != self.inst.t
    }

    /// Whether an instant is open.
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// Adds one event to the open instant (opening one at its time).
    pub(crate) fn add(&mut self, e: &Event) {
        if !self.open {
            self.open = true;
            self.inst.t = e.time;
        }
        match e.kind {
            Kind::Release => self.inst.released.push(e.task),
            Kind::Complete => self.inst.completed.push((e.cpu, e.task)),
            Kind::SwitchOut => self.change(e.cpu).old = Some(e.task),
            Kind::Preempt => self.change(e.cpu).preempted = true,
            Kind::SwitchIn => self.change(e.cpu).new = Some(e.task),
            _ => {}
        }
    }

    fn change(&mut self, cpu: u32) -> &mut Change {
        let i = match self.slot.get(cpu as usize).copied() {
            Some(k) if k > 0 => k as usize - 1,
            _ => {
                self.inst.changes.push(Change {
                    cpu,
                    old: None,
                    preempted: false,
                    new: None,
                    src: Src::Idle,
                });
                let k = self.inst.changes.len();
                if let Some(s) = self.slot.get_mut(cpu as usize) {
                    *s = u32::try_from(k).unwrap_or(0);
                }
                k - 1
            }
        };
        let n = self.inst.changes.len() - 1;
        // `i` is in range by construction; fall back to the last entry.
        let i = i.min(n);
        &mut self.inst.changes[i]
    }

    /// Closes the instant: resolves where each new job comes from, given the mirror before it.
    pub(crate) fn close(&mut self, mirror: &Mirror) {
        let inst = &mut self.inst;
        for c in &inst.changes {
            if let Some(s) = self.slot.get_mut(c.cpu as usize) {
                *s = 0;
            }
        }
        for i in 0..inst.changes.len() {
            let Some(new) = inst.changes[i].new else {
                continue;
            };
            let src = if inst.released.contains(&new) && !mirror_has_waiting(mirror, new) {
                Src::Released
            } else if let Some(from) = inst
                .changes
                .iter()
                .find(|c| c.old == Some(new) && c.preempted)
            {
                Src::Preempted(from.cpu)
            } else {
                Src::Waiting(mirror.waiting_on.get(new as usize).copied().flatten())
            };
            inst.changes[i].src = src;
        }
    }

    /// Starts a fresh instant after the caller used the closed one.
    pub(crate) fn reset(&mut self) {
        self.open = false;
        self.inst.released.clear();
        self.inst.completed.clear();
        self.inst.changes.clear();
    }
}

/// Whether a job of `task` was already waiting (then the one switched in is that older one).
fn mirror_has_waiting(m: &Mirror, task: u32) -> bool {
    m.waiting_on.get(task as usize).is_some_and(Option::is_some)
}
