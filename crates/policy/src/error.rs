//! Errors when building a policy.

/// A policy could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// No policy has this name.
    #[error("unknown policy `{name}` (known: {known})")]
    UnknownPolicy {
        /// The name asked for.
        name: String,
        /// The known names.
        known: String,
    },
    /// A partitioned or clustered policy needs a placement.
    #[error("policy `{0}` needs a placement of tasks on CPUs/clusters (give --partition, or `cpu`/`cluster` fields in the file)")]
    MissingPlacement(String),
    /// The placement does not fit the platform.
    #[error("invalid placement: {0}")]
    InvalidPlacement(String),
    /// The reservation groups are missing or do not fit the tasks or the platform (`hcbs`).
    #[error("{0}")]
    Groups(String),
    /// The platform is invalid for the policy.
    #[error("{0}")]
    InvalidPlatform(String),
}
