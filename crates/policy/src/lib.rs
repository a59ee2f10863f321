//! # schedlab-policy
//!
//! Scheduling policies as deterministic state machines that maintain CPU→job links from
//! scheduling events ([MP §III-B] link-based scheduling). The discrete-event simulator
//! (`schedlab-sim`) and the Linux runtime drive the very same policy code. See [`Policy`] for
//! the calling contract, [`prio`] for priority order and tie-breaking, and [`registry`] for the
//! policies by name.

mod cpuset;
pub mod domains;
pub mod edzl;
pub mod error;
pub mod event;
pub mod federated;
pub mod fpts;
pub mod global;
pub mod gua;
pub mod hcbs;
pub mod ids;
mod lowest;
pub mod policy;
pub mod prio;
pub mod registry;
pub mod rtws;
pub mod sd;
mod table;
pub mod task;
#[cfg(test)]
mod testutil;
pub mod ua;

pub use error::PolicyError;
pub use event::{
    BudgetRequest, Ctx, Decisions, JobInfo, Link, NoProgress, NoResources, Progress, Resources,
    ServerChange, ServerEvent, Steal, TimerRequest,
};
pub use ids::{CpuId, JobId, ResourceId, TaskId, TimerId};
pub use policy::{ParallelSupport, Policy};
pub use task::{Placement, PolicyTask};

pub use domains::Domains;
pub use edzl::Edzl;
pub use federated::Federated;
pub use fpts::FpTs;
pub use global::{GlobalJlfp, Preemption};
pub use gua::Gua;
pub use hcbs::Hcbs;
pub use prio::{JobKey, Primary};
pub use registry::{build, needs_engine_budgets, parallel_policies, parallel_support, NAMES};
pub use rtws::Rtws;
pub use sd::Sd;
