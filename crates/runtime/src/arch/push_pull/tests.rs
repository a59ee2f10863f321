//! The push/pull protocol without threads: each CPU's dispatcher is played sequentially (a
//! rung CPU enacts its `curr` at once and pushes what waits), so every decision and every
//! push and pull runs to completion before the next. Then the global invariant must hold
//! exactly after every settled step — the transients of `super::super`'s module doc come
//! only from concurrency and from the time a CPU takes to answer its ring.

#![allow(clippy::unwrap_used)]

use super::*;
use proptest::prelude::*;
use schedlab_policy::TaskId;

/// A run of the protocol on `m` CPUs, played sequentially.
struct Play {
    core: Core,
    buf: TraceBuf,
    clock: TickClock,
}

fn item(task: u32, seq: u64, deadline: u64) -> Item {
    Item {
        id: JobId::new(TaskId(task), seq),
        deadline,
        release: 0,
        dispatched: false,
    }
}

impl Play {
    fn new(m: u32, n: usize) -> Play {
        Play {
            core: Core::new(m, n, LockKind::Ticket),
            buf: TraceBuf::new(1 << 16),
            clock: TickClock::monotonic(),
        }
    }

    fn log(&self, me: u32) -> Log<'_> {
        Log::new(&self.buf, &self.clock, me)
    }

    /// Dispatchers answer their rings until none is left: each enacts `curr` (`on_cpu`)
    /// and pushes its pushable waiting jobs.
    fn settle(&self, mut rings: Vec<u32>) {
        let mut guard = 0;
        while let Some(c) = rings.pop() {
            guard += 1;
            assert!(guard < 10_000, "the protocol does not settle");
            let pushable = {
                let mut g = self.core.rqs[c as usize].lock(0);
                g.on_cpu = g.curr.map(|i| i.id);
                self.core.publish(&g, c);
                g.has_pushable()
            };
            if pushable {
                let mut log = self.log(c);
                self.core.push(&mut log, c, &mut rings);
            }
        }
    }

    /// CPU `me` releases `it`.
    fn release(&self, me: u32, it: Item) {
        let mut rings = Vec::new();
        let mut log = self.log(me);
        self.core.wake(&mut log, it, &mut rings);
        self.settle(rings);
    }

    /// The job CPU `c` runs completes; `c` pulls. False if it ran none.
    fn complete(&self, c: u32) -> bool {
        let mut log = self.log(c);
        {
            let mut g = self.core.rqs[c as usize].lock(0);
            let Some(j) = g.on_cpu else { return false };
            assert!(g.remove(j, &mut log));
            self.core.publish(&g, c);
            log.flush();
        }
        self.core.pull(&mut log, c);
        self.settle(vec![c]);
        true
    }

    /// (running, waiting) deadlines per CPU.
    fn state(&self) -> Vec<(Option<u64>, Vec<u64>)> {
        self.core
            .rqs
            .iter()
            .map(|q| {
                let g = q.lock(0);
                (
                    g.curr.map(|i| i.deadline),
                    g.waiting.values().map(|i| i.deadline).collect(),
                )
            })
            .collect()
    }

    /// The global invariant, settled: no CPU idles while a job waits, no waiting job has a
    /// strictly earlier deadline than a running one, every CPU runs its `curr`.
    fn check_invariant(&self) -> Result<(), TestCaseError> {
        let st = self.state();
        let waiting: Vec<u64> = st.iter().flat_map(|(_, w)| w.iter().copied()).collect();
        let running: Vec<u64> = st.iter().filter_map(|(r, _)| *r).collect();
        if let Some(&w) = waiting.iter().min() {
            prop_assert!(running.len() == st.len(), "a CPU idles while {w} waits: {st:?}");
            let worst = running.iter().copied().max().unwrap_or(0);
            prop_assert!(w >= worst, "{w} waits while {worst} runs: {st:?}");
        }
        for q in &self.core.rqs {
            let g = q.lock(0);
            prop_assert_eq!(g.on_cpu, g.curr.map(|i| i.id));
        }
        Ok(())
    }

    fn stat(&self, f: impl Fn(&Stats) -> &AtomicU64) -> u64 {
        f(&self.core.stats).load(Ordering::Relaxed)
    }
}

/// [RTWS §VI]'s observation, as the kernel does it: a job wakes on its task's previous CPU
/// and preempts there although the other CPU idles; the preempted job is pushed to the idle
/// CPU once its own CPU has parked it.
#[test]
fn a_release_preempts_on_its_previous_cpu_and_the_victim_is_pushed() {
    let p = Play::new(2, 2);
    p.release(0, item(0, 0, 30));
    assert_eq!(p.state(), vec![(Some(30), vec![]), (None, vec![])]);
    // Task 1 last ran on CPU 0.
    p.core.set_prev(JobId::new(TaskId(1), 0), 0);
    let mut rings = Vec::new();
    p.core.wake(&mut p.log(1), item(1, 0, 20), &mut rings);
    assert_eq!(rings, vec![0]);
    assert_eq!(
        p.state(),
        vec![(Some(20), vec![30]), (None, vec![])],
        "the victim still executes on CPU 0: not pushable yet"
    );
    p.settle(rings);
    assert_eq!(p.state(), vec![(Some(20), vec![]), (Some(30), vec![])]);
    assert_eq!(p.stat(|s| &s.pushes), 1);
}

/// A job whose previous CPU runs an earlier deadline goes where cpudl sends it: the CPU
/// running the latest deadline (it preempts there), never a CPU it does not beat.
#[test]
fn a_release_goes_to_the_latest_running_deadline() {
    let p = Play::new(3, 4);
    p.release(0, item(0, 0, 10));
    p.release(0, item(1, 0, 50));
    p.release(0, item(2, 0, 40));
    let run: Vec<_> = p.state().into_iter().map(|(r, _)| r).collect();
    assert_eq!(run, vec![Some(10), Some(50), Some(40)]);
    p.core.set_prev(JobId::new(TaskId(3), 0), 0);
    p.release(2, item(3, 0, 20));
    assert_eq!(
        p.state(),
        vec![(Some(10), vec![]), (Some(20), vec![50]), (Some(40), vec![])],
        "20 preempts 50 on CPU 1; 50 beats no running job and waits there"
    );
    // 60 beats nothing: it waits on its task's previous CPU.
    p.core.set_prev(JobId::new(TaskId(0), 1), 0);
    p.release(0, item(0, 1, 60));
    assert_eq!(p.state()[0], (Some(10), vec![60]));
    p.check_invariant().unwrap();
}

/// A CPU whose job completes pulls the earliest waiting job of the overloaded CPUs.
#[test]
fn a_completion_pulls_the_earliest_waiting_job() {
    let p = Play::new(2, 4);
    p.release(0, item(0, 0, 10));
    p.release(1, item(1, 0, 20));
    p.core.set_prev(JobId::new(TaskId(2), 0), 0);
    p.release(0, item(2, 0, 40));
    p.core.set_prev(JobId::new(TaskId(3), 0), 0);
    p.release(0, item(3, 0, 30));
    assert_eq!(p.state(), vec![(Some(10), vec![30, 40]), (Some(20), vec![])]);
    assert!(p.complete(1));
    assert_eq!(p.state(), vec![(Some(10), vec![40]), (Some(30), vec![])]);
    assert_eq!(p.stat(|s| &s.pulls), 1);
    assert!(p.complete(0));
    assert_eq!(p.state(), vec![(Some(40), vec![]), (Some(30), vec![])]);
    p.check_invariant().unwrap();
}

/// Equal deadlines never preempt (the equal-key rule); an idle CPU takes the waiting one.
#[test]
fn an_equal_deadline_does_not_preempt() {
    let p = Play::new(2, 3);
    p.release(0, item(0, 0, 10));
    p.release(0, item(1, 0, 10));
    assert_eq!(p.state(), vec![(Some(10), vec![]), (Some(10), vec![])]);
    p.core.set_prev(JobId::new(TaskId(2), 0), 0);
    p.release(0, item(2, 0, 10));
    assert_eq!(p.state(), vec![(Some(10), vec![10]), (Some(10), vec![])]);
    assert_eq!(p.stat(|s| &s.pushes), 0);
}

/// A wake-up's `ready` and `link` carry one timestamp: the trace shows the decision
/// atomically.
#[test]
fn a_decision_is_recorded_with_one_timestamp() {
    let p = Play::new(2, 1);
    p.release(1, item(0, 0, 10));
    let ev = p.buf.events();
    let ready = ev.iter().find(|e| e.kind == Kind::Ready).unwrap();
    let link = ev.iter().find(|e| e.kind == Kind::Link).unwrap();
    assert_eq!(ready.time, link.time);
    assert_eq!((ready.arg, link.cpu), (0, 0), "the free CPU 0 took it");
    assert!(ev.iter().any(|e| e.kind == Kind::LockWaitBegin));
}

#[derive(Clone, Debug)]
enum Op {
    /// CPU `me` releases a job of `task` with this relative deadline.
    Release { me: u32, task: u32, dl: u64 },
    /// The job CPU `cpu` runs completes.
    Complete { cpu: u32 },
}

fn op(m: u32, n: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..m, 0..n, 1u64..100).prop_map(|(me, task, dl)| Op::Release { me, task, dl }),
        (0..m).prop_map(|cpu| Op::Complete { cpu }),
    ]
}

proptest! {
    /// Any sequence of releases and completions on 2–4 CPUs, played sequentially: after
    /// each settled step the running jobs are the m earliest deadlines (module doc), and
    /// every released job is in exactly one queue until it completes.
    #[test]
    fn the_invariant_holds_whenever_the_protocol_settled(
        m in 2u32..5,
        ops in proptest::collection::vec(op(4, 6), 1..80),
    ) {
        let n = 6usize;
        let p = Play::new(m, n);
        let mut live: Vec<Option<u64>> = vec![None; n];
        let mut seq = vec![0u64; n];
        let mut now = 0u64;
        for o in ops {
            now += 1;
            match o {
                Op::Release { me, task, dl } => {
                    let t = task as usize;
                    if live[t].is_some() {
                        continue; // one job of a task at a time (the book's backlog)
                    }
                    p.release(me % m, item(task, seq[t], now + dl));
                    live[t] = Some(seq[t]);
                    seq[t] += 1;
                }
                Op::Complete { cpu } => {
                    let c = cpu % m;
                    let j = p.core.rqs[c as usize].lock(0).on_cpu;
                    if p.complete(c) {
                        let j = j.unwrap();
                        live[j.task.0 as usize] = None;
                    }
                }
            }
            p.check_invariant()?;
            let mut held: Vec<JobId> = Vec::new();
            for q in &p.core.rqs {
                held.extend(q.lock(0).jobs().map(|i| i.id));
            }
            held.sort_unstable();
            let mut want: Vec<JobId> = live
                .iter()
                .enumerate()
                .filter_map(|(t, s)| s.map(|s| JobId::new(TaskId(t as u32), s)))
                .collect();
            want.sort_unstable();
            prop_assert_eq!(held, want);
        }
    }
}
