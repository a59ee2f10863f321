//! Overhead-aware analysis: charging a dispatch architecture's measured overheads into a task
//! set before a test runs on it ([`accounting`]). The overhead file is read by
//! `schedlab_model::overheads`; which curves each architecture needs, how `--cpus` maps to the
//! CPUs left for jobs and the per-bin charging of partitioned tests build on [`accounting`].

pub mod accounting;
pub mod arch;
pub mod context;
#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
pub(crate) mod tests;
