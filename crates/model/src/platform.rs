//! The platform: `m` identical CPUs, optionally grouped into equal clusters.

use crate::error::ModelError;

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

    /// Checks `m ≥ 1` and that the cluster size divides `m`.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.cpus == 0 {
            return Err(ModelError::InvalidPlatform {
                field: "cpus".into(),
                message: "must be at least 1".into(),
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
