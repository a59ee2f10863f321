//! What `reservations` needs of the scheduling state, without real CPUs (one CPU, a probe
//! policy, no thread: a job a step made runnable has its control word `RUN`, its thread's
//! end is the word set to `IDLE`): a finished job's executed time during `on_complete`,
//! server events recorded as the simulator records them, and the scheduler hooks of
//! [HCBS §5] as operations only when asked for.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::job::{JobCtl, IDLE};
use crate::mech::clock::TickClock;
use schedlab_trace::tracebuf::TraceBuf;
use std::sync::{Arc, Mutex};

const MS: u64 = 1_000_000;

/// Links the one job it holds; at its completion notes what the engine reports as executed
/// and reports a server event of group 3 on CPU 0.
struct Probe {
    held: Option<JobId>,
    seen: Arc<Mutex<Vec<u64>>>,
}

impl Policy for Probe {
    fn name(&self) -> &str {
        "probe"
    }
    fn cpus(&self) -> u32 {
        1
    }
    fn on_release(&mut self, _: &Ctx<'_>, job: &JobInfo, _: &mut Decisions) {
        self.held = Some(job.id);
    }
    fn on_complete(&mut self, ctx: &Ctx<'_>, job: JobId, out: &mut Decisions) {
        self.seen
            .lock()
            .unwrap()
            .push(ctx.progress.executed(job).as_ns());
        out.server(ServerChange::Throttled, 3, CpuId(0), 20 * MS);
        self.held = None;
    }
    fn on_abort(&mut self, _: &Ctx<'_>, _: JobId, _: &mut Decisions) {
        self.held = None;
    }
    fn linked(&self, _: CpuId) -> Option<JobId> {
        self.held
    }
}

/// Task 0 released at 0, switched in at 1 ms, completing at 6 ms: `on_complete` sees 5 ms
/// executed (the switch-in → completion estimate), the server event is in the trace with
/// `task` = `u32::MAX`, `seq` = the group, `arg` = the end of the throttling.
/// With hooks on, the release, completion and switch-in are `enqueue`, `check_preempt`,
/// `dequeue` and `pick_next` pairs; off, no operation is recorded.
#[test]
fn a_finished_job_reports_its_execution_and_server_events_are_traced() {
    for hooks in [true, false] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let spec: Arc<[TaskSpec]> = Arc::from(vec![TaskSpec {
            wcet: MS,
            deadline: 10 * MS,
        }]);
        let probe = Probe {
            held: None,
            seen: seen.clone(),
        };
        let mut s = Sched::new(Box::new(probe), 0, spec);
        s.set_hooks(hooks);
        let c = JobCtl::new(0, 64, TickClock::monotonic(), &[0]);
        c.pinned.store(0, Ordering::Relaxed);
        c.tid.store(i32::MAX, Ordering::Relaxed);
        let ctls = vec![Arc::new(c)];
        let (buf, clock) = (TraceBuf::new(256), TickClock::monotonic());
        let em = Emit {
            buf: &buf,
            clock: &clock,
            cpu: 0,
        };
        let th = Threads {
            ctls: &ctls,
            phys: &[0],
        };
        s.release(&em, 0, 0, 0, 0);
        assert!(s.schedule(&em, &th, 0, MS, 0));
        ctls[0].state.store(IDLE, Ordering::Release);
        s.schedule(&em, &th, 0, 6 * MS, 0);
        assert_eq!(*seen.lock().unwrap(), vec![5 * MS]);
        let events = buf.events();
        let server: Vec<_> = events
            .iter()
            .filter(|e| e.kind == Kind::BudgetThrottled)
            .map(|e| (e.cpu, e.task, e.seq, e.arg))
            .collect();
        assert_eq!(server, vec![(0, u32::MAX, 3, 20 * MS)]);
        let ops: Vec<&str> = events
            .iter()
            .filter(|e| e.kind == Kind::OpBegin)
            .filter_map(|e| Op::from_code(e.arg).map(Op::name))
            .collect();
        if hooks {
            assert_eq!(ops, ["enqueue", "check_preempt", "pick_next", "dequeue"]);
        } else {
            assert!(ops.is_empty(), "{ops:?}");
        }
    }
}
