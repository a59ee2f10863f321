//! The random source and the primitive draws every generator is built from.
//!
//! # Reproducibility contract
//!
//! * Generator: [`GenRng`] = `rand_chacha::ChaCha8Rng` (ChaCha with 8 rounds, rand_chacha 0.9).
//!   Its output for a given key and stream is fixed by the ChaCha block function, not by an
//!   implementation choice of the `rand` crate.
//! * Key derivation: [`rng_for`]`(seed, index)` expands the `u64` seed into the 32-byte ChaCha
//!   key with SplitMix64 (Steele, Lea & Flood, OOPSLA 2014; four outputs, little-endian) and
//!   selects ChaCha stream (nonce) `index`. Set `k` of a batch therefore uses stream `k` and is
//!   the same whether 1 or 1000 sets are generated; distinct indices give independent streams.
//!   `rand_core`'s `seed_from_u64` is deliberately not used (its expansion is not promised to be
//!   stable across versions).
//! * Draws: only `RngCore::next_u64` is called; conversion to floats and to bounded integers is
//!   done here ([`unit_open`], [`unit()`], [`below`]), not by `rand::Rng::random_range` or
//!   `rand_distr` (whose algorithms may change between versions). Logarithms and exponentials
//!   come from [`crate::detmath`], built from IEEE-754 basic operations only, so results are
//!   bit-for-bit identical on every platform.

use rand_chacha::rand_core::{RngCore, SeedableRng};

/// The random generator used by every schedlab generator: ChaCha8 (rand_chacha 0.9).
pub type GenRng = rand_chacha::ChaCha8Rng;

/// The generator for item `index` (task set, sequence) of the batch seeded with `seed`.
///
/// ```
/// use rand_chacha::rand_core::RngCore;
/// let mut a = schedlab_gen::rng::rng_for(42, 7);
/// let mut b = schedlab_gen::rng::rng_for(42, 7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
pub fn rng_for(seed: u64, index: u64) -> GenRng {
    let mut rng = GenRng::from_seed(key_for(seed));
    rng.set_stream(index);
    rng
}

/// The 32-byte ChaCha key of a batch seeded `seed`: four SplitMix64 outputs, little-endian.
pub(crate) fn key_for(seed: u64) -> [u8; 32] {
    let mut state = seed;
    let mut key = [0u8; 32];
    for chunk in key.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    key
}

/// One step of SplitMix64 (the reference constants of Steele, Lea & Flood).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 2^-53.
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// A uniform draw from `[0, 1)` with 53 random bits.
pub fn unit<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * TWO_POW_M53
}

/// A uniform draw from the open interval `(0, 1)`: the midpoints of the 2^53 cells of `[0,1)`,
/// so that `ln` of it is always finite.
pub fn unit_open<R: RngCore + ?Sized>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 0.5) * TWO_POW_M53
}

/// A uniform integer in `0..n` (`n > 0`; `n = 0` returns 0), by Lemire's multiply-and-reject
/// method (ACM TOMACS 2019), exactly unbiased.
pub fn below<R: RngCore + ?Sized>(rng: &mut R, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut m = u128::from(rng.next_u64()) * u128::from(n);
    let mut low = m as u64;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u128::from(rng.next_u64()) * u128::from(n);
            low = m as u64;
        }
    }
    (m >> 64) as u64
}

/// A uniform integer in `lo..=hi` (`lo ≤ hi`; otherwise `lo`).
pub fn between<R: RngCore + ?Sized>(rng: &mut R, lo: u64, hi: u64) -> u64 {
    if hi <= lo {
        return lo;
    }
    match (hi - lo).checked_add(1) {
        Some(span) => lo + below(rng, span),
        None => rng.next_u64(), // the full u64 range
    }
}

/// Fisher–Yates shuffle driven by [`below`].
pub fn shuffle<R: RngCore + ?Sized, T>(rng: &mut R, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = {
            let mut r = rng_for(1, 0);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = rng_for(1, 0);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = rng_for(1, 1);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let d: Vec<u64> = {
            let mut r = rng_for(2, 0);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn golden_first_word() {
        // Pins the whole chain (SplitMix64 key, ChaCha8, stream selection): if this changes,
        // every generated task set changes. Value recorded from this implementation.
        let mut r = rng_for(0, 0);
        let first = r.next_u64();
        let mut again = rng_for(0, 0);
        assert_eq!(first, again.next_u64());
        assert_eq!(first, GOLDEN_SEED0_STREAM0);
    }
    const GOLDEN_SEED0_STREAM0: u64 = 13_804_888_775_535_289_832;

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = rng_for(3, 0);
        let mut counts = [0u32; 6];
        for _ in 0..6000 {
            let k = below(&mut r, 6) as usize;
            counts[k] += 1;
        }
        for c in counts {
            assert!((850..1150).contains(&c), "{counts:?}");
        }
        assert_eq!(below(&mut r, 1), 0);
        assert_eq!(between(&mut r, 5, 5), 5);
        let x = between(&mut r, 0, u64::MAX);
        let _ = x;
    }

    #[test]
    fn units_are_in_range() {
        let mut r = rng_for(4, 0);
        for _ in 0..1000 {
            let u = unit(&mut r);
            assert!((0.0..1.0).contains(&u));
            let v = unit_open(&mut r);
            assert!(v > 0.0 && v < 1.0);
        }
    }
}
