//! Hierarchical multiprocessor reservations (H-CBS) [HCBS §3]: a task group gets one hard
//! CBS server `(Q, P)` per CPU it may use, and global fixed priority inside the group runs on
//! the virtual processors those servers provide.
//!
//! - [`supply`]: the exact supply function of one server [HCBS §3.3.1, Eq. 4] and its linear
//!   `(α, Δ)` abstraction [HCBS §3.3.2, Eq. 7–8], in integer nanoseconds and exact rationals.
//!
//! The schedulability test `hcbs-gfp` (Eq. 11–17) builds on these and is not yet registered.

pub mod supply;
