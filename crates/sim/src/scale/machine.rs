//! The mechanism overlay's machine: simulated CPUs executing scheduler *code paths* in
//! continuous time (integer ns), locks with ticket or MCS handoff [ChronOS §7, Figs.
//! 7.1–7.2], inter-processor interrupts and mailboxes, and the spans measured on them
//! [MP §IV-A].
//!
//! # Code paths
//! A path is a short program of [`Step`]s bound to one CPU: `Work(ns)` (the CPU is busy),
//! `Lock`/`Unlock`, span marks, `Ipi` (another path arrives at its CPU `ipi_latency` later)
//! and `Post` (another path arrives at its CPU at once: a message into the DSP's mailbox).
//! A CPU runs one path at a time, from start to end, with interrupts off (scheduler code and
//! interrupt handlers run so in every architecture modelled): a path that arrives while its
//! CPU is busy waits, and the CPU's waiting paths start in order of arrival (ties: in order
//! of submission). Spinning for a lock keeps the CPU busy.
//!
//! # Locks (FIFO)
//! A free lock is taken in `lock_acquire`. A held one queues the requester. At an `Unlock`
//! with `w ≥ 1` CPUs spinning, the first of them holds the lock after a *handoff* of
//! `lock_handoff + lock_per_waiter × (w − 1)` (ticket: the release invalidates the line every
//! remaining spinner reads) or `lock_handoff` (MCS: each waiter spins on its own line)
//! ([`handoff_ns`]). So k CPUs that request a free lock at the same instant, each holding it
//! for `s`, acquire at `a₁ = t + lock_acquire` and
//! `a_j = a₁ + (j − 1)·s + Σ_{i=1}^{j−1} h_i`, `h_i = lock_handoff + lock_per_waiter·(k − i − 1)`
//! (ticket) or `h_i = lock_handoff` (MCS). A holder that is not the CPU that last held the
//! lock first pulls the protected state over: `cache_line` of work inside the critical section.
//!
//! # Spans
//! `Begin`/`End` (or `BeginAtOrigin`, from the instant the path was caused: a timer's expiry,
//! an IPI's or a message's send) delimit one sample of an overhead; lock waiting is sampled on
//! its own (request → holding). Statistics are count, sum and maximum ([`super::stats`]).
//!
//! # Noise
//! Something outside the model (the host preempting a vCPU, an interrupt storm) stops a CPU
//! for a while *wherever* it is in a path. So a path is noisy with probability
//! `noise_ppm / 10⁶` (drawn when its CPU starts it); a noisy path gets an extra delay drawn
//! from [`Noise`] (`noise_min`, `noise_max`, `noise_shape`), inserted before one of its
//! `Work(d > 0)` steps chosen uniformly (a
//! path without one is delayed at its start). Every span that contains that step grows by the
//! delay — Δrel, Δsch, Δcxs, Δdsp as well as Δev — and so does, through the CPU and the locks,
//! everything waiting behind the path: a delay inside a critical section holds the lock
//! (lock-holder preemption) and delays its waiters. Why before a step: spans and locks only
//! begin and end between steps, so a stop anywhere inside `Work(d)` moves every later
//! instant exactly as a stop just before it does; a zero-length step takes no time to be
//! stopped in. Why uniform over the steps rather than weighted by their length: the choice
//! then depends on the path's shape only, not on the costs, so the calibration's refinement
//! (which changes costs between runs of one seed) sees the same steps hit in every run.
//!
//! *Delivery noise* is the other kind a measured machine shows: a timer expiry or an IPI that
//! reaches a halted vCPU or a sleeping thread late, by up to milliseconds on a virtual machine,
//! while the code paths themselves are stopped for at most a few hundred µs. Each delivery of
//! a release timer's expiry ([`Machine::timer`]) is late with probability
//! `timer_noise_ppm / 10⁶` by a delay drawn from `timer_noise_min`, `_max`, `_shape`; each
//! IPI likewise with the `ipi_noise_*` costs (two kinds, because an architecture may take its
//! timers on a polling CPU and send its IPIs to sleeping ones: message passing). The delay
//! postpones the path's arrival, so it lengthens Δev or Δipi (which begin at the origin) and
//! everything behind them, but no code path's own length.
//!
//! Deterministic per seed: ChaCha8 seeded with the run's seed, drawn in the order the CPUs
//! start their paths (the delivery noises from their own streams of that generator, in the
//! order of the deliveries); all three rates 0 draw nothing (the
//! run is that of the noise-free model, whatever the other noise costs).
//!
//! Cost: each step is `O(1)` plus `O(log e)` for the `e` pending machine events (a binary
//! heap); paths are recycled, so memory is bounded by the paths in flight.

use super::stats::{Span, Stats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schedlab_model::costs::{CostName, LockSemantics, OpCosts};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A path's handle.
pub(crate) type PathId = u32;

/// One step of a code path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The CPU works for this many ns.
    Work(u64),
    /// Acquire lock `l` (FIFO; spinning keeps the CPU busy).
    Lock(u32),
    /// Release lock `l` (hands it to the first waiter, if any).
    Unlock(u32),
    /// A span starts now.
    Begin(Span),
    /// A span starts at the path's origin (what caused it: a timer expiry, an IPI's send).
    BeginAtOrigin(Span),
    /// A span ends now (one sample).
    End(Span),
    /// Path `next` (on its own CPU) arrives `ipi_latency` from now; its origin is now.
    Ipi(PathId),
    /// Path `next` (on its own CPU: the DSP's mailbox) arrives now; its origin is now.
    Post(PathId),
}

/// The costs as plain numbers (read once per run; `OpCosts` is a map).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Costs {
    pub timer_irq: u64,
    pub release: u64,
    pub queue_op: u64,
    pub queue_op_log: u64,
    pub preempt_check_cpu: u64,
    pub schedule: u64,
    pub link: u64,
    pub context_switch: u64,
    pub ipi_send: u64,
    pub ipi_latency: u64,
    pub cache_line: u64,
    pub lock_acquire: u64,
    pub lock_handoff: u64,
    pub lock_per_waiter: u64,
    pub message_send: u64,
    pub dsp_dequeue: u64,
    pub dsp_handler: u64,
    pub dsp_poll_client: u64,
    pub cpudl: u64,
    pub cpudl_log: u64,
    pub noise: Noise,
    pub timer_noise: Noise,
    pub ipi_noise: Noise,
}

impl Costs {
    pub(crate) fn from_op(c: &OpCosts) -> Costs {
        use CostName as N;
        Costs {
            timer_irq: c.get(N::TimerIrq),
            release: c.get(N::Release),
            queue_op: c.get(N::QueueOp),
            queue_op_log: c.get(N::QueueOpLog),
            preempt_check_cpu: c.get(N::PreemptCheckCpu),
            schedule: c.get(N::Schedule),
            link: c.get(N::Link),
            context_switch: c.get(N::ContextSwitch),
            ipi_send: c.get(N::IpiSend),
            ipi_latency: c.get(N::IpiLatency),
            cache_line: c.get(N::CacheLine),
            lock_acquire: c.get(N::LockAcquire),
            lock_handoff: c.get(N::LockHandoff),
            lock_per_waiter: c.get(N::LockPerWaiter),
            message_send: c.get(N::MessageSend),
            dsp_dequeue: c.get(N::DspDequeue),
            dsp_handler: c.get(N::DspHandler),
            dsp_poll_client: c.get(N::DspPollClient),
            cpudl: c.get(N::Cpudl),
            cpudl_log: c.get(N::CpudlLog),
            noise: Noise {
                ppm: c.get(N::NoisePpm),
                min: c.get(N::NoiseMin),
                max: c.get(N::NoiseMax),
                shape: c.get(N::NoiseShape),
            },
            timer_noise: Noise {
                ppm: c.get(N::TimerNoisePpm),
                min: c.get(N::TimerNoiseMin),
                max: c.get(N::TimerNoiseMax),
                shape: c.get(N::TimerNoiseShape),
            },
            ipi_noise: Noise {
                ppm: c.get(N::IpiNoisePpm),
                min: c.get(N::IpiNoiseMin),
                max: c.get(N::IpiNoiseMax),
                shape: c.get(N::IpiNoiseShape),
            },
        }
    }

    /// One queue insertion or removal on a queue of `n` entries:
    /// `queue_op + queue_op_log × bits(n)`, `bits(n) = ⌊log₂ n⌋ + 1` (0 for an empty queue).
    pub(crate) fn qop(&self, n: u64) -> u64 {
        self.queue_op + self.queue_op_log * bits(n)
    }

    /// One cpudl lookup or update on `m` CPUs: `cpudl + cpudl_log × bits(m)`.
    pub(crate) fn cpudl_op(&self, m: u64) -> u64 {
        self.cpudl + self.cpudl_log * bits(m)
    }
}

/// `⌊log₂ n⌋ + 1`, 0 for 0: the depth of a binary heap of `n` entries.
pub(crate) fn bits(n: u64) -> u64 {
    u64::from(u64::BITS - n.leading_zeros())
}

/// One kind of noise (module doc): how often and how long.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Noise {
    /// Chance per path (or per delivery), per million.
    pub ppm: u64,
    /// Smallest delay (ns).
    pub min: u64,
    /// Largest delay (ns).
    pub max: u64,
    /// 0: uniform in `[min, max]`; `α × 10⁶ > 0`: Pareto of index α truncated to
    /// `[max(min, 1), max]`.
    pub shape: u64,
}

impl Noise {
    /// A delay for one path or delivery, or `None` (the common case: no noise). Draws
    /// nothing when `ppm` is 0.
    pub(crate) fn draw(&self, rng: &mut ChaCha8Rng) -> Option<u64> {
        if self.ppm == 0 || rng.random_range(0..1_000_000u64) >= self.ppm {
            return None;
        }
        let (lo, hi) = (self.min.min(self.max), self.max);
        if self.shape == 0 {
            return Some(rng.random_range(lo..=hi));
        }
        Some(truncated_pareto(
            lo.max(1),
            hi.max(1),
            self.shape,
            rng.random::<f64>(),
        ))
    }
}

/// The inverse of the truncated Pareto's distribution function at `u ∈ [0, 1)`: index
/// `α = shape / 10⁶` on `[lo, hi]`, `x = lo · (1 − u·(1 − (lo/hi)^α))^(−1/α)` (floating point:
/// the delay is a random draw, not a scheduling decision; the result is clamped to `[lo, hi]`).
pub(crate) fn truncated_pareto(lo: u64, hi: u64, shape: u64, u: f64) -> u64 {
    if hi <= lo {
        return lo;
    }
    let alpha = shape as f64 / 1e6;
    let ratio = (lo as f64 / hi as f64).powf(alpha);
    let x = lo as f64 * (1.0 - u * (1.0 - ratio)).powf(-1.0 / alpha);
    (x.round() as u64).clamp(lo, hi)
}

/// Stream `k` of the ChaCha8 generator seeded with `seed` (stream 0 is the path noise's).
fn stream(seed: u64, k: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(k);
    r
}

/// The handoff of a lock released with `waiters ≥ 1` CPUs spinning (module doc).
pub(crate) fn handoff_ns(c: &Costs, lock: LockSemantics, waiters: u64) -> u64 {
    match lock {
        LockSemantics::Ticket => c.lock_handoff + c.lock_per_waiter * waiters.saturating_sub(1),
        LockSemantics::Mcs => c.lock_handoff,
    }
}

struct Path {
    cpu: u32,
    steps: Vec<Step>,
    pc: usize,
    origin: u64,
    begins: [u64; Span::COUNT],
    /// When it requested the lock it waits for.
    wait_from: u64,
    /// The step before which the path's noise delay falls ([`NO_NOISE`]: none).
    noise_at: usize,
    /// That delay (ns).
    noise_ns: u64,
}

/// `Path::noise_at` of a path without noise (or whose noise has passed).
const NO_NOISE: usize = usize::MAX;

#[derive(Default)]
struct Cpu {
    busy: bool,
    pending: VecDeque<PathId>,
}

#[derive(Default)]
struct Lock {
    held: bool,
    last: Option<u32>,
    waiters: VecDeque<PathId>,
}

const ARRIVE: u8 = 0;
const RESUME: u8 = 1;
const START: u8 = 2;

/// The machine (module doc).
pub(crate) struct Machine {
    pub(crate) costs: Costs,
    semantics: LockSemantics,
    heap: BinaryHeap<Reverse<(u64, u64, PathId, u8)>>,
    seq: u64,
    paths: Vec<Path>,
    free: Vec<PathId>,
    cpus: Vec<Cpu>,
    locks: Vec<Lock>,
    pub(crate) stats: Stats,
    rng: ChaCha8Rng,
    /// The timer noise's own stream (and the IPI noise's, below): deliveries are drawn in
    /// their own order, so a change of costs that reorders path starts does not change which
    /// deliveries are late.
    timer_rng: ChaCha8Rng,
    ipi_rng: ChaCha8Rng,
    /// Paths executed.
    pub(crate) paths_run: u64,
    /// (CPU, instant) of every lock acquisition, when `probe` is set (tests).
    pub(crate) acquisitions: Option<Vec<(u32, u64)>>,
}

impl Machine {
    /// `cpus` CPUs, `locks` locks.
    pub(crate) fn new(
        cpus: u32,
        locks: u32,
        costs: Costs,
        semantics: LockSemantics,
        seed: u64,
    ) -> Machine {
        Machine {
            costs,
            semantics,
            heap: BinaryHeap::new(),
            seq: 0,
            paths: Vec::new(),
            free: Vec::new(),
            cpus: (0..cpus).map(|_| Cpu::default()).collect(),
            locks: (0..locks).map(|_| Lock::default()).collect(),
            stats: Stats::default(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            timer_rng: stream(seed, 1),
            ipi_rng: stream(seed, 2),
            paths_run: 0,
            acquisitions: None,
        }
    }

    /// A new path on `cpu` with `steps` (not yet scheduled: [`Machine::submit`], or the
    /// target of an `Ipi`/`Post` step).
    pub(crate) fn path(&mut self, cpu: u32, steps: &[Step]) -> PathId {
        if let Some(id) = self.free.pop() {
            if let Some(p) = self.paths.get_mut(id as usize) {
                p.cpu = cpu;
                p.steps.clear();
                p.steps.extend_from_slice(steps);
                p.pc = 0;
                p.noise_at = NO_NOISE;
                return id;
            }
        }
        self.paths.push(Path {
            cpu,
            steps: steps.to_vec(),
            pc: 0,
            origin: 0,
            begins: [0; Span::COUNT],
            wait_from: 0,
            noise_at: NO_NOISE,
            noise_ns: 0,
        });
        u32::try_from(self.paths.len() - 1).unwrap_or(u32::MAX)
    }

    /// Paths created and not finished (running, waiting for their CPU, or in transit).
    pub(crate) fn in_flight(&self) -> usize {
        self.paths.len() - self.free.len()
    }

    /// Path `id` arrives at its CPU at `time`, caused at `origin` (≤ `time`).
    pub(crate) fn submit(&mut self, id: PathId, time: u64, origin: u64) {
        if let Some(p) = self.paths.get_mut(id as usize) {
            p.origin = origin;
        }
        self.push(time, id, ARRIVE);
    }

    /// Path `id`, a release timer's handler, for the timer that expires at `time`: it arrives
    /// then, or later by the wake-up noise (module doc); its origin is `time`.
    pub(crate) fn timer(&mut self, id: PathId, time: u64) {
        let late = self
            .costs
            .timer_noise
            .draw(&mut self.timer_rng)
            .unwrap_or(0);
        self.submit(id, time + late, time);
    }

    fn push(&mut self, time: u64, id: PathId, kind: u8) {
        self.seq += 1;
        self.heap.push(Reverse((time, self.seq, id, kind)));
    }

    /// Processes every machine event before `t` (`u64::MAX`: all).
    pub(crate) fn run_until(&mut self, t: u64) {
        while let Some(&Reverse((time, _, id, kind))) = self.heap.peek() {
            if time >= t {
                break;
            }
            self.heap.pop();
            match kind {
                ARRIVE => self.arrive(id, time),
                START => self.start(id, time),
                _ => self.advance(id, time),
            }
        }
    }

    fn arrive(&mut self, id: PathId, now: u64) {
        let Some(cpu) = self.paths.get(id as usize).map(|p| p.cpu as usize) else {
            return;
        };
        let Some(c) = self.cpus.get_mut(cpu) else {
            return;
        };
        if c.busy {
            c.pending.push_back(id);
        } else {
            c.busy = true;
            self.start(id, now);
        }
    }

    /// The CPU (already marked busy) starts path `id` (drawing its noise: module doc).
    fn start(&mut self, id: PathId, now: u64) {
        self.paths_run += 1;
        let c = self.costs;
        if let Some(extra) = c.noise.draw(&mut self.rng) {
            let timed = |s: &Step| matches!(s, Step::Work(d) if *d > 0);
            let works = self
                .paths
                .get(id as usize)
                .map_or(0, |p| p.steps.iter().filter(|s| timed(s)).count());
            if works == 0 {
                self.push(now + extra, id, RESUME);
                return;
            }
            let k = self.rng.random_range(0..works);
            if let Some(p) = self.paths.get_mut(id as usize) {
                p.noise_at = p
                    .steps
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| timed(s))
                    .nth(k)
                    .map_or(NO_NOISE, |(i, _)| i);
                p.noise_ns = extra;
            }
        }
        self.advance(id, now);
    }

    /// Runs path `id`'s steps from `now` until it must wait (work, a held lock) or ends.
    fn advance(&mut self, id: PathId, now: u64) {
        loop {
            let Some(p) = self.paths.get_mut(id as usize) else {
                return;
            };
            let Some(&step) = p.steps.get(p.pc) else {
                self.finish(id, now);
                return;
            };
            if p.pc == p.noise_at {
                // The noise stops the CPU here; the step runs after it (module doc).
                p.noise_at = NO_NOISE;
                let at = now + p.noise_ns;
                self.push(at, id, RESUME);
                return;
            }
            p.pc += 1;
            match step {
                Step::Work(0) => {}
                Step::Work(d) => {
                    self.push(now + d, id, RESUME);
                    return;
                }
                Step::Begin(s) => p.begins[s as usize] = now,
                Step::BeginAtOrigin(s) => p.begins[s as usize] = p.origin,
                Step::End(s) => {
                    let from = p.begins[s as usize];
                    self.stats.add(s, now.saturating_sub(from));
                }
                Step::Ipi(next) => {
                    let late = self.costs.ipi_noise.draw(&mut self.ipi_rng).unwrap_or(0);
                    let at = now + self.costs.ipi_latency + late;
                    self.submit(next, at, now);
                }
                Step::Post(next) => self.submit(next, now, now),
                Step::Lock(l) => {
                    p.wait_from = now;
                    let cpu = p.cpu;
                    let Some(lock) = self.locks.get_mut(l as usize) else {
                        continue;
                    };
                    if lock.held {
                        lock.waiters.push_back(id);
                        return;
                    }
                    lock.held = true;
                    let at = now + self.costs.lock_acquire;
                    self.acquired(id, l, cpu, now, at);
                    return;
                }
                Step::Unlock(l) => self.unlock(l, now),
            }
        }
    }

    /// Path `id` on `cpu` holds lock `l` from `at` (requested at `from`).
    fn acquired(&mut self, id: PathId, l: u32, cpu: u32, from: u64, at: u64) {
        self.stats.add(Span::LockWait, at - from);
        if let Some(a) = &mut self.acquisitions {
            a.push((cpu, at));
        }
        let Some(lock) = self.locks.get_mut(l as usize) else {
            return;
        };
        let migrate = lock.last.is_some_and(|c| c != cpu);
        lock.last = Some(cpu);
        let extra = if migrate { self.costs.cache_line } else { 0 };
        self.push(at + extra, id, RESUME);
    }

    fn unlock(&mut self, l: u32, now: u64) {
        let semantics = self.semantics;
        let Some(lock) = self.locks.get_mut(l as usize) else {
            return;
        };
        let waiters = lock.waiters.len() as u64;
        let Some(next) = lock.waiters.pop_front() else {
            lock.held = false;
            return;
        };
        let at = now + handoff_ns(&self.costs, semantics, waiters);
        let Some(p) = self.paths.get(next as usize) else {
            return;
        };
        let (cpu, from) = (p.cpu, p.wait_from);
        self.acquired(next, l, cpu, from, at);
    }

    fn finish(&mut self, id: PathId, now: u64) {
        let Some(cpu) = self.paths.get(id as usize).map(|p| p.cpu as usize) else {
            return;
        };
        self.free.push(id);
        let Some(c) = self.cpus.get_mut(cpu) else {
            return;
        };
        match c.pending.pop_front() {
            Some(next) => self.push(now, next, START),
            None => c.busy = false,
        }
    }
}
