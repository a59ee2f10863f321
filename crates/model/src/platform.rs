//! The platform: `m` identical CPUs, optionally grouped into equal clusters.
//!
//! The CPU count is bounded by [`MAX_CPUS`]: analyses, partitioning heuristics, policies and
//! the simulator allocate per-CPU state up front, so a count typed by mistake (`--cpus
//! 4000000000`, `cpus=` in Python, `platform.cpus` in a file) must be an error, not an
//! out-of-memory abort. [`check_cpu_count`] is the one check; [`Platform::validate`], the
//! analysis (`System`), the policies and the simulator's configuration all call it, so the CLI
//! and Python get the same message through them.

use crate::error::ModelError;

/// The largest CPU count schedlab accepts anywhere (4096, as many as the largest Linux
/// configurations schedule; per-CPU state then stays within a few megabytes).
pub const MAX_CPUS: u32 = 4096;

/// A CPU count above [`MAX_CPUS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} CPUs is more than schedlab supports (at most {MAX_CPUS})")]
pub struct TooManyCpus(pub u32);

/// `Ok` if `cpus ≤` [`MAX_CPUS`] (zero is each caller's own error, with its own wording).
///
/// ```
/// use schedlab_model::platform::{check_cpu_count, MAX_CPUS};
/// assert!(check_cpu_count(MAX_CPUS).is_ok());
/// assert_eq!(check_cpu_count(5000).unwrap_err().to_string(),
///            "5000 CPUs is more than schedlab supports (at most 4096)");
/// ```
pub fn check_cpu_count(cpus: u32) -> Result<(), TooManyCpus> {
    if cpus > MAX_CPUS {
        return Err(TooManyCpus(cpus));
    }
    Ok(())
}

/// `m` identical CPUs, optionally in clusters of `cluster_size` CPUs each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// Number of CPUs, `m ≥ 1`.
    pub cpus: u32,
    /// Cluster size `k` (dividing `m`), if the platform is clustered.
    pub cluster_size: Option<u32>,
}

impl Platform {
    /// `m` CPUs, no clusters.
    pub fn new(cpus: u32) -> Result<Platform, ModelError> {
        let p = Platform {
            cpus,
            cluster_size: None,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks `1 ≤ m ≤` [`MAX_CPUS`] and that the cluster size divides `m`.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.cpus == 0 {
            return Err(ModelError::InvalidPlatform {
                field: "cpus".into(),
                message: "must be at least 1".into(),
            });
        }
        if let Err(e) = check_cpu_count(self.cpus) {
            return Err(ModelError::InvalidPlatform {
                field: "cpus".into(),
                message: e.to_string(),
            });
        }
        if let Some(k) = self.cluster_size {
            if k == 0 || self.cpus % k != 0 {
                return Err(ModelError::InvalidPlatform {
                    field: "cluster_size".into(),
                    message: format!("must be ≥ 1 and divide cpus = {}, got {k}", self.cpus),
                });
            }
        }
        Ok(())
    }

    /// Number of clusters (1 if unclustered).
    pub fn clusters(&self) -> u32 {
        match self.cluster_size {
            Some(k) if k > 0 => self.cpus / k,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_count_is_bounded() {
        assert!(Platform::new(1).is_ok());
        assert!(Platform::new(MAX_CPUS).is_ok());
        assert_eq!(
            Platform::new(MAX_CPUS + 1).unwrap_err().to_string(),
            "platform: field `cpus`: 4097 CPUs is more than schedlab supports (at most 4096)"
        );
        assert_eq!(
            Platform::new(u32::MAX).unwrap_err().to_string(),
            "platform: field `cpus`: 4294967295 CPUs is more than schedlab supports (at most 4096)"
        );
        assert_eq!(
            Platform::new(0).unwrap_err().to_string(),
            "platform: field `cpus`: must be at least 1"
        );
    }

    #[test]
    fn clusters_divide_the_platform() {
        let p = Platform {
            cpus: 8,
            cluster_size: Some(3),
        };
        assert!(p.validate().is_err());
        let p = Platform {
            cpus: 8,
            cluster_size: Some(4),
        };
        assert_eq!(p.validate(), Ok(()));
        assert_eq!(p.clusters(), 2);
    }
}
