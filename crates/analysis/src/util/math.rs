//! Integer division with the rounding direction in the name (cf. SchedCAT's `util/time.py`).

/// `⌈a / b⌉` for `b > 0`.
#[inline]
pub fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// `⌊a / b⌋` for `b > 0`.
#[inline]
pub fn floor_div(a: u64, b: u64) -> u64 {
    a / b
}

/// `⌈a / b⌉` in 128 bits for `b > 0`.
#[inline]
pub fn ceil_div_u128(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

/// Greatest common divisor.
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
