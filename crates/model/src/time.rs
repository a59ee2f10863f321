//! Integer-nanosecond time: [`Time`] (an instant) and [`Duration`] (a length).
//!
//! All scheduling arithmetic in schedlab is done on these `u64` nanosecond newtypes; floating
//! point never enters a decision. `Time - Time = Duration`, `Time + Duration = Time`, and
//! `Time + Time` does not compile.
//!
//! # Overflow
//!
//! Values that come from input (task parameters, offsets, horizons, sums of them) are combined
//! with the `checked_*` methods, and the caller turns `None` into a typed error that names
//! what overflowed (e.g. the simulator's "time overflow while computing an absolute
//! deadline"): about 584 years of nanoseconds fit in 64 bits, so a file can reach the limit,
//! and it must get an error, not a wrong schedule.
//!
//! The operators (`+`, `+=`, `-`) are for arithmetic whose bound is an invariant of the caller
//! (the execution time of a job never exceeds the simulated horizon; `Time::ZERO + offset`).
//! They **panic on overflow in every build**, release included, instead of wrapping as
//! integer arithmetic does in release builds: an operator that overflows is a bug in schedlab,
//! and a bug must be loud rather than a silently wrapped time. The alternatives were weighed:
//! saturating operators would turn the same bug into a plausible but wrong schedule, and
//! removing the operators would replace the invariant-bounded uses by
//! `checked_add(..).unwrap_or(..)` that hide the invariant instead of stating it. Input-reachable
//! paths never use the operators; the overflow-checked test pass and the fuzz targets
//! (docs/testing.md) look for those that do.
//!
//! Text form (task files, CLI): a decimal number with a unit `ns`, `us`/`µs`, `ms` or `s`, or a
//! bare integer meaning nanoseconds: `"2ms"`, `"150us"`, `"1.5ms"`, `"7ns"`, `"3s"`, `"1500"`.
//! The value must resolve to whole nanoseconds (`"0.5ns"` is rejected). Printing picks the
//! largest unit in which the value is at least 1 and writes it exactly (`1_500_000` ns prints as
//! `1.5ms`), so printing and parsing round-trip.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};
use std::str::FromStr;

/// A length of time in integer nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

/// An instant in integer nanoseconds since the (virtual or real) time zero of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

/// Why a time string could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimeParseError {
    /// Empty string.
    #[error("empty time value")]
    Empty,
    /// A leading minus sign.
    #[error("negative time `{0}`")]
    Negative(String),
    /// Not a number with a known unit.
    #[error("cannot read `{0}` as a time: expected a number with a unit ns, us, ms or s (e.g. \"2ms\", \"1.5ms\") or an integer number of nanoseconds")]
    Malformed(String),
    /// The value has a fraction of a nanosecond.
    #[error("time `{0}` does not resolve to whole nanoseconds")]
    FractionalNanoseconds(String),
    /// The value does not fit in 64 bits of nanoseconds (about 584 years).
    #[error("time `{0}` is too large (the limit is 2^64-1 ns, about 584 years)")]
    Overflow(String),
    /// A number without a unit where a person gives a time (command line, keyword argument).
    #[error("time `{0}` needs a unit: write `{0}ms`, `{0}us`, `{0}s` or `{0}ns`")]
    MissingUnit(String),
}

const NS_PER_US: u64 = 1_000;
const NS_PER_MS: u64 = 1_000_000;
const NS_PER_S: u64 = 1_000_000_000;

impl Duration {
    /// Zero length.
    pub const ZERO: Duration = Duration(0);
    /// The largest representable length.
    pub const MAX: Duration = Duration(u64::MAX);

    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        Duration(ns)
    }
    /// From microseconds; `None` on overflow.
    pub const fn from_us(us: u64) -> Option<Self> {
        match us.checked_mul(NS_PER_US) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// From milliseconds; `None` on overflow.
    pub const fn from_ms(ms: u64) -> Option<Self> {
        match ms.checked_mul(NS_PER_MS) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// From seconds; `None` on overflow.
    pub const fn from_s(s: u64) -> Option<Self> {
        match s.checked_mul(NS_PER_S) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// The length in nanoseconds.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Is this the zero length?
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// Sum, or `None` on overflow.
    pub const fn checked_add(self, rhs: Duration) -> Option<Duration> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// Difference, or `None` if `rhs > self`.
    pub const fn checked_sub(self, rhs: Duration) -> Option<Duration> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// Difference, clamped at zero.
    pub const fn saturating_sub(self, rhs: Duration) -> Duration {
        Duration(self.0.saturating_sub(rhs.0))
    }
    /// Product with an integer, or `None` on overflow.
    pub const fn checked_mul(self, k: u64) -> Option<Duration> {
        match self.0.checked_mul(k) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// Length in seconds as a float (for reports only, never for decisions).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
}

impl Time {
    /// Time zero.
    pub const ZERO: Time = Time(0);
    /// From nanoseconds since time zero.
    pub const fn from_ns(ns: u64) -> Self {
        Time(ns)
    }
    /// Nanoseconds since time zero.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// `self + d`, or `None` on overflow.
    pub const fn checked_add(self, d: Duration) -> Option<Time> {
        match self.0.checked_add(d.0) {
            Some(v) => Some(Time(v)),
            None => None,
        }
    }
    /// `self - earlier`, or `None` if `earlier` is later than `self`.
    pub const fn checked_since(self, earlier: Time) -> Option<Duration> {
        match self.0.checked_sub(earlier.0) {
            Some(v) => Some(Duration(v)),
            None => None,
        }
    }
    /// `self - earlier`, clamped at zero.
    pub const fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

// The operators panic on overflow in every build (see the module doc, "Overflow").
impl Add for Duration {
    type Output = Duration;
    /// Panics on overflow (every build); use [`Duration::checked_add`] on input-derived values.
    fn add(self, rhs: Duration) -> Duration {
        match self.checked_add(rhs) {
            Some(d) => d,
            None => overflow("Duration + Duration"),
        }
    }
}
impl AddAssign for Duration {
    /// Panics on overflow (every build), like `+`.
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}
impl Sub for Duration {
    type Output = Duration;
    /// Panics if `rhs > self` (every build); use [`Duration::checked_sub`] or
    /// [`Duration::saturating_sub`] on input-derived values.
    fn sub(self, rhs: Duration) -> Duration {
        match self.checked_sub(rhs) {
            Some(d) => d,
            None => overflow("Duration - Duration"),
        }
    }
}
impl Add<Duration> for Time {
    type Output = Time;
    /// Panics on overflow (every build); use [`Time::checked_add`] on input-derived values.
    fn add(self, rhs: Duration) -> Time {
        match self.checked_add(rhs) {
            Some(t) => t,
            None => overflow("Time + Duration"),
        }
    }
}
impl Sub for Time {
    type Output = Duration;
    /// Panics if `rhs` is later than `self` (every build); use [`Time::checked_since`] or
    /// [`Time::saturating_since`] on input-derived values.
    fn sub(self, rhs: Time) -> Duration {
        match self.checked_since(rhs) {
            Some(d) => d,
            None => overflow("Time - Time"),
        }
    }
}

/// The panic of an operator whose invariant did not hold (a bug in the caller).
#[cold]
#[track_caller]
fn overflow(what: &str) -> ! {
    panic!("time arithmetic overflow in `{what}`: a bug, input-derived values must use checked_*")
}

/// Parses a time string (see the module doc) into nanoseconds.
pub fn parse_ns(text: &str) -> Result<u64, TimeParseError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(TimeParseError::Empty);
    }
    if s.starts_with('-') {
        return Err(TimeParseError::Negative(s.to_string()));
    }
    // Byte-wise and without allocating: files hold hundreds of times (`schedlab analyze` reads
    // thousands of files). Every byte the number may hold is ASCII, so byte and char positions
    // agree.
    let split = s
        .bytes()
        .position(|b| !(b.is_ascii_digit() || b == b'.' || b == b'_'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let scale = match unit.trim() {
        "" | "ns" => 1,
        "us" | "µs" | "μs" => NS_PER_US,
        "ms" => NS_PER_MS,
        "s" => NS_PER_S,
        _ => return Err(TimeParseError::Malformed(s.to_string())),
    };
    // `_` separates digit groups anywhere in the number and is skipped.
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let has_digit = |part: &str| part.bytes().any(|b| b.is_ascii_digit());
    if !(has_digit(int_part) || has_digit(frac_part)) || frac_part.contains('.') {
        return Err(TimeParseError::Malformed(s.to_string()));
    }
    let overflow = || TimeParseError::Overflow(s.to_string());
    let mut ns: u128 = 0;
    for digit in int_part.bytes().filter(|&b| b != b'_') {
        ns = ns * 10 + u128::from(digit - b'0');
        if ns > u128::from(u64::MAX) {
            return Err(overflow());
        }
    }
    ns *= u128::from(scale);
    // Fractional digits: each must land on a whole nanosecond.
    let mut place = u128::from(scale);
    for digit in frac_part.bytes().filter(|&b| b != b'_') {
        let digit = u128::from(digit - b'0');
        if place % 10 != 0 {
            if digit != 0 {
                return Err(TimeParseError::FractionalNanoseconds(s.to_string()));
            }
            continue;
        }
        place /= 10;
        ns += digit * place;
    }
    u64::try_from(ns).map_err(|_| overflow())
}

/// Parses a time that a person typed on a command line or passed as a keyword argument
/// (`--duration`, `duration=`, generator ranges): like [`parse_ns`], but a bare number is an
/// error that suggests a unit, so `--duration 10` can never mean 10 ns by accident. Files keep
/// bare integers as nanoseconds ([`parse_ns`]).
pub fn parse_ns_with_unit(text: &str) -> Result<u64, TimeParseError> {
    let s = text.trim();
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '_')
    {
        return Err(TimeParseError::MissingUnit(s.to_string()));
    }
    parse_ns(s)
}

/// Reads a range `A..B` of times a person typed (a generator range, `--window`): a unit
/// written only after `B` applies to both ends (`10..100ms` is 10 ms to 100 ms; `10ms..1s`
/// stays as written); a bare `B` is [`TimeParseError::MissingUnit`]. On error, also returns
/// the end that could not be read (`A`, `B`, or the whole text when there is no `..`). Does not
/// check `A ≤ B`.
pub fn parse_range_with_unit(text: &str) -> Result<(u64, u64), (String, TimeParseError)> {
    let Some((a, b)) = text.split_once("..") else {
        let t = text.trim().to_string();
        return Err((t.clone(), TimeParseError::Malformed(t)));
    };
    let (a, b) = (a.trim(), b.trim());
    let hi = parse_ns_with_unit(b).map_err(|e| (b.to_string(), e))?;
    let number_len = |s: &str| {
        s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(s.len())
    };
    let lo = if !a.is_empty() && number_len(a) == a.len() {
        // `b` parsed, so it has a unit: its suffix after the number applies to `a` too.
        parse_ns_with_unit(&format!("{a}{}", &b[number_len(b)..]))
    } else {
        parse_ns_with_unit(a)
    };
    Ok((lo.map_err(|e| (a.to_string(), e))?, hi))
}

/// [`parse_ns_with_unit`] as a [`Duration`].
pub fn parse_duration_with_unit(text: &str) -> Result<Duration, TimeParseError> {
    parse_ns_with_unit(text).map(Duration)
}

/// Formats nanoseconds in the largest unit in which the value is at least 1, exactly.
pub fn format_ns(ns: u64) -> String {
    let (scale, unit) = if ns >= NS_PER_S {
        (NS_PER_S, "s")
    } else if ns >= NS_PER_MS {
        (NS_PER_MS, "ms")
    } else if ns >= NS_PER_US {
        (NS_PER_US, "us")
    } else {
        (1, "ns")
    };
    let whole = ns / scale;
    let frac = ns % scale;
    if frac == 0 {
        return format!("{whole}{unit}");
    }
    let width = scale.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{whole}.{}{unit}", digits.trim_end_matches('0'))
}

impl FromStr for Duration {
    type Err = TimeParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_ns(s).map(Duration)
    }
}
impl FromStr for Time {
    type Err = TimeParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_ns(s).map(Time)
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ns(self.0))
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_ns(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_the_documented_forms() {
        assert_eq!(parse_ns("2ms"), Ok(2_000_000));
        assert_eq!(parse_ns("150us"), Ok(150_000));
        assert_eq!(parse_ns("150µs"), Ok(150_000));
        assert_eq!(parse_ns("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_ns("7ns"), Ok(7));
        assert_eq!(parse_ns("3s"), Ok(3_000_000_000));
        assert_eq!(parse_ns("1500"), Ok(1500));
        assert_eq!(parse_ns(" 2 ms "), Ok(2_000_000));
        assert_eq!(parse_ns("0.000000001s"), Ok(1));
        assert_eq!(parse_ns(".5us"), Ok(500));
        assert_eq!(parse_ns("1_000us"), Ok(1_000_000));
    }

    #[test]
    fn a_unit_after_a_range_applies_to_both_ends() {
        const MS: u64 = 1_000_000;
        assert_eq!(parse_range_with_unit("10..100ms"), Ok((10 * MS, 100 * MS)));
        assert_eq!(parse_range_with_unit("0..100ms"), Ok((0, 100 * MS)));
        assert_eq!(
            parse_range_with_unit(" 10ms .. 1s "),
            Ok((10 * MS, 1000 * MS))
        );
        assert_eq!(parse_range_with_unit("1.5..2us"), Ok((1_500, 2_000)));
        let (part, e) = parse_range_with_unit("10..100").unwrap_err();
        assert_eq!(
            (part.as_str(), e),
            ("100", TimeParseError::MissingUnit("100".into()))
        );
        let (part, _) = parse_range_with_unit("10ms..100").unwrap_err();
        assert_eq!(part, "100");
        let (part, _) = parse_range_with_unit("x..100ms").unwrap_err();
        assert_eq!(part, "x");
        assert!(parse_range_with_unit("10ms").is_err());
        assert!(parse_range_with_unit("10..100xs").is_err());
    }

    #[test]
    fn user_times_need_a_unit() {
        assert_eq!(parse_ns_with_unit("10ms"), Ok(10_000_000));
        assert_eq!(parse_ns_with_unit(" 7ns"), Ok(7));
        assert_eq!(
            parse_ns_with_unit("10"),
            Err(TimeParseError::MissingUnit("10".into()))
        );
        assert_eq!(
            parse_ns_with_unit("1.5").unwrap_err().to_string(),
            "time `1.5` needs a unit: write `1.5ms`, `1.5us`, `1.5s` or `1.5ns`"
        );
        assert!(matches!(parse_ns_with_unit(""), Err(TimeParseError::Empty)));
        assert!(matches!(
            parse_ns_with_unit("-3"),
            Err(TimeParseError::Negative(_))
        ));
        assert_eq!(
            parse_duration_with_unit("2s"),
            Ok(Duration::from_ns(2_000_000_000))
        );
    }

    #[test]
    fn rejects_bad_forms() {
        assert!(matches!(parse_ns(""), Err(TimeParseError::Empty)));
        assert!(matches!(parse_ns("-2ms"), Err(TimeParseError::Negative(_))));
        assert!(matches!(
            parse_ns("2 hours"),
            Err(TimeParseError::Malformed(_))
        ));
        assert!(matches!(parse_ns("ms"), Err(TimeParseError::Malformed(_))));
        assert!(matches!(parse_ns("."), Err(TimeParseError::Malformed(_))));
        assert!(matches!(
            parse_ns("1.2.3ms"),
            Err(TimeParseError::Malformed(_))
        ));
        assert!(matches!(
            parse_ns("0.5ns"),
            Err(TimeParseError::FractionalNanoseconds(_))
        ));
        assert!(matches!(
            parse_ns("1.0000000001s"),
            Err(TimeParseError::FractionalNanoseconds(_))
        ));
        assert!(matches!(
            parse_ns("99999999999999999999"),
            Err(TimeParseError::Overflow(_))
        ));
        assert!(matches!(
            parse_ns("18446744074s"),
            Err(TimeParseError::Overflow(_))
        ));
    }

    #[test]
    fn prints_in_the_most_readable_unit() {
        assert_eq!(format_ns(1_500_000), "1.5ms");
        assert_eq!(format_ns(2_000_000), "2ms");
        assert_eq!(format_ns(7), "7ns");
        assert_eq!(format_ns(150_000), "150us");
        assert_eq!(format_ns(3_000_000_000), "3s");
        assert_eq!(format_ns(1_234_567), "1.234567ms");
        assert_eq!(format_ns(0), "0ns");
    }

    #[test]
    fn operators_are_exact_below_the_limit() {
        let d = Duration::from_ns(7);
        assert_eq!(d + d, Duration::from_ns(14));
        assert_eq!(Time::from_ns(5) + d, Time::from_ns(12));
        assert_eq!(Time::from_ns(12) - Time::from_ns(5), d);
        assert_eq!(Duration::from_ns(14) - d, d);
        let mut acc = Duration::ZERO;
        acc += d;
        assert_eq!(acc, d);
        assert_eq!(Duration::MAX.checked_add(d), None);
        assert_eq!(Time::from_ns(u64::MAX).checked_add(d), None);
    }

    // The operators panic on overflow in release builds too (the test suite runs in release):
    // never a silent wrap.
    #[test]
    #[should_panic(expected = "time arithmetic overflow in `Duration + Duration`")]
    fn duration_sum_overflow_panics_in_every_build() {
        let _ = Duration::MAX + Duration::from_ns(1);
    }

    #[test]
    #[should_panic(expected = "time arithmetic overflow in `Time + Duration`")]
    fn time_plus_duration_overflow_panics_in_every_build() {
        let _ = Time::from_ns(u64::MAX) + Duration::from_ns(1);
    }

    #[test]
    #[should_panic(expected = "time arithmetic overflow in `Duration + Duration`")]
    fn add_assign_overflow_panics_in_every_build() {
        let mut d = Duration::MAX;
        d += Duration::from_ns(1);
    }

    #[test]
    #[should_panic(expected = "time arithmetic overflow in `Time - Time`")]
    fn time_difference_underflow_panics_in_every_build() {
        let _ = Time::from_ns(1) - Time::from_ns(2);
    }

    #[test]
    #[should_panic(expected = "time arithmetic overflow in `Duration - Duration`")]
    fn duration_difference_underflow_panics_in_every_build() {
        let _ = Duration::from_ns(1) - Duration::from_ns(2);
    }

    proptest! {
        #[test]
        fn print_then_parse_round_trips(ns in any::<u64>()) {
            prop_assert_eq!(parse_ns(&format_ns(ns)), Ok(ns));
        }

        #[test]
        fn parse_never_panics(s in "\\PC{0,24}") {
            let _ = parse_ns(&s);
        }
    }
}
