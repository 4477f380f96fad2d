//! Kubernetes resource quantities (`100m`, `1Gi`, `1e3`, `0.5`), parsed the way apimachinery's
//! `ParseQuantity` does and converted the way `Quantity.Value()` / `MilliValue()` do.
//!
//! Why not a crate: `k8s_quantity_parser` pins k8s-openapi 0.14 and converts through
//! floating point; `kube_quantity` pins its own k8s-openapi and exposes a decimal without
//! upstream's "round up to the next nano, then round up again to units" rules. The scheduler's
//! verdicts hinge on exactly those rules (a request of `0.1m` counts as `1m`), so this small
//! parser keeps every value as an exact integer count of nano-units.

use std::fmt;

/// Nano-units per unit.
const NANO: i128 = 1_000_000_000;
/// Upstream caps what an int64 can hold; sums over huge values saturate here instead of
/// wrapping.
const MAX_NANOS: i128 = i64::MAX as i128 * NANO;

/// A parsed quantity: an exact number of nano-units (value × 10⁹), rounded up to the nano as
/// upstream rounds at parse time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Quantity {
    nanos: i128,
}

/// Why a quantity string is not valid, in apimachinery's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuantityError {
    Format,
    Suffix,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::Format => {
                "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Suffix => "unable to parse quantity's suffix",
        })
    }
}

impl std::error::Error for QuantityError {}

enum Base {
    Ten,
    Two,
}

/// apimachinery's suffix tables: decimal SI, binary SI, then `e<int>` / `E<int>`.
fn interpret_suffix(suffix: &str) -> Option<(Base, i64)> {
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = decimal {
        return Some((Base::Ten, e));
    }
    let binary = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = binary {
        return Some((Base::Two, e));
    }
    let rest = suffix
        .strip_prefix('e')
        .or_else(|| suffix.strip_prefix('E'))?;
    parse_go_int(rest).map(|e| (Base::Ten, e))
}

/// `strconv.ParseInt(s, 10, 64)`: optional sign, at least one digit.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// The pieces `parseQuantityString` extracts: sign, integer digits (leading zeros dropped),
/// fraction digits, suffix.
fn split(s: &str) -> Result<(bool, &str, &str, &str), QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    if let Some(&c) = b.first() {
        if c == b'-' {
            positive = false;
            pos += 1;
        } else if c == b'+' {
            pos += 1;
        }
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        // Only a sign and zeros: upstream reads it as 0.
        return Ok((positive, "0", "", ""));
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = &s[num_start..pos];
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let d = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::Format);
    }
    Ok((positive, num, denom, &s[suffix_start..]))
}

/// All significant digits of `num` and `denom` (ASCII digits, as [`split`] gives them) as
/// one integer and its power of ten: trailing zeros are folded into the exponent, so that
/// long but round numbers stay representable. `None` past 38 significant digits (more than
/// an `i128` holds). Read in place: each node parses half a dozen quantities, each template a
/// few, and a copy of the digits per quantity showed in the profiles of a live run.
fn significand(num: &str, denom: &str) -> Option<(i128, i64)> {
    let digits = || num.bytes().chain(denom.bytes());
    let len = num.len() + denom.len();
    // At least one digit stays, as a number written `0` is still read.
    let trailing = digits()
        .rev()
        .take_while(|&b| b == b'0')
        .count()
        .min(len.saturating_sub(1));
    let exp10 = trailing as i64 - denom.len() as i64;
    let kept = len - trailing;
    let leading = digits().take(kept).take_while(|&b| b == b'0').count();
    if kept - leading > 38 {
        return None;
    }
    let magnitude = digits()
        .take(kept)
        .skip(leading)
        .fold(0i128, |m, b| m * 10 + i128::from(b - b'0'));
    Some((magnitude, exp10))
}

/// `10^e` for the small exponents used here; `None` when it would not fit.
fn pow10(e: u32) -> Option<i128> {
    10i128.checked_pow(e)
}

/// Ceiling division of non-negative numbers.
fn div_ceil(a: i128, b: i128) -> i128 {
    if b <= 0 {
        return 0;
    }
    a / b + i128::from(a % b != 0)
}

impl Quantity {
    pub const ZERO: Quantity = Quantity { nanos: 0 };

    /// Parses a quantity string as the API server does when it reads JSON (surrounding
    /// whitespace is trimmed, the rest must be exact).
    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let s = text.trim();
        if s.is_empty() {
            return Err(QuantityError::Format);
        }
        let (positive, num, denom, suffix) = split(s)?;
        let (base, exp) = interpret_suffix(suffix).ok_or(QuantityError::Suffix)?;
        let (magnitude, mut exp10) = match significand(num, denom) {
            Some(m) => m,
            None => return Ok(Quantity::saturated(positive)),
        };
        if magnitude == 0 {
            return Ok(Quantity::ZERO);
        }
        let mut value = magnitude;
        match base {
            Base::Two => {
                // 2^exp with exp <= 60.
                let factor = 1i128 << exp.clamp(0, 62);
                value = match value.checked_mul(factor) {
                    Some(v) => v,
                    None => return Ok(Quantity::saturated(positive)),
                };
            }
            Base::Ten => exp10 = exp10.saturating_add(exp),
        }
        // value × 10^exp10 units, in nanos: value × 10^(exp10 + 9), rounded up.
        let shift = exp10.saturating_add(9);
        let nanos = if shift >= 0 {
            match u32::try_from(shift)
                .ok()
                .and_then(pow10)
                .and_then(|p| value.checked_mul(p))
            {
                Some(v) => v,
                None => return Ok(Quantity::saturated(positive)),
            }
        } else {
            match u32::try_from(-shift).ok().and_then(pow10) {
                Some(p) => div_ceil(value, p),
                // Far below a nano: upstream rounds any non-zero value up to 1n.
                None => 1,
            }
        };
        let nanos = nanos.min(MAX_NANOS);
        Ok(Quantity {
            nanos: if positive { nanos } else { -nanos },
        })
    }

    fn saturated(positive: bool) -> Quantity {
        Quantity {
            nanos: if positive { MAX_NANOS } else { -MAX_NANOS },
        }
    }

    pub fn from_nanos(nanos: i128) -> Quantity {
        Quantity {
            nanos: nanos.clamp(-MAX_NANOS, MAX_NANOS),
        }
    }

    pub fn from_milli(milli: i64) -> Quantity {
        Quantity::from_nanos(i128::from(milli) * 1_000_000)
    }

    pub fn from_units(units: i64) -> Quantity {
        Quantity::from_nanos(i128::from(units) * NANO)
    }

    pub fn nanos(self) -> i128 {
        self.nanos
    }

    pub fn is_zero(self) -> bool {
        self.nanos == 0
    }

    /// Exact sum, saturating at upstream's int64 bound.
    pub fn saturating_add(self, other: Quantity) -> Quantity {
        Quantity::from_nanos(self.nanos.saturating_add(other.nanos))
    }

    /// `Quantity.Value()`: whole units, rounded up.
    pub fn value(self) -> i64 {
        Quantity::ceil_to(self.nanos, NANO)
    }

    /// `Quantity.MilliValue()`: thousandths, rounded up.
    pub fn milli_value(self) -> i64 {
        Quantity::ceil_to(self.nanos, 1_000_000)
    }

    fn ceil_to(nanos: i128, unit: i128) -> i64 {
        let q = nanos.div_euclid(unit) + i128::from(nanos.rem_euclid(unit) != 0);
        i64::try_from(q).unwrap_or(if q < 0 { i64::MIN } else { i64::MAX })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_apimachinery() {
        // (input, Value(), MilliValue())
        let cases: &[(&str, i64, i64)] = &[
            ("0", 0, 0),
            ("100m", 1, 100),
            ("1", 1, 1000),
            ("2", 2, 2000),
            ("0.5", 1, 500),
            ("1.5", 2, 1500),
            ("1Ki", 1024, 1024000),
            ("1Mi", 1 << 20, (1 << 20) * 1000),
            ("1Gi", 1 << 30, (1i64 << 30) * 1000),
            ("24Gi", 24 << 30, (24i64 << 30) * 1000),
            ("7826964Ki", 7826964 * 1024, 7826964 * 1024 * 1000),
            ("1k", 1000, 1_000_000),
            ("1M", 1_000_000, 1_000_000_000),
            ("1G", 1_000_000_000, 1_000_000_000_000),
            ("1e3", 1000, 1_000_000),
            ("1E3", 1000, 1_000_000),
            ("1e-3", 1, 1),
            ("5e+2", 500, 500_000),
            ("0.1m", 1, 1),
            ("1n", 1, 1),
            ("1u", 1, 1),
            ("1500u", 1, 2),
            ("0.0000000001", 1, 1),
            ("1.5Gi", 1610612736, 1610612736000),
            ("0.5Ki", 512, 512000),
            ("10m", 1, 10),
            ("  2  ", 2, 2000),
            ("+3", 3, 3000),
            ("007", 7, 7000),
            (".5", 1, 500),
            ("5.", 5, 5000),
            (".", 0, 0),
            ("-", 0, 0),
            ("1.", 1, 1000),
            ("1.G", 1_000_000_000, 1_000_000_000_000),
            ("1000000000000000000000", i64::MAX, i64::MAX),
            ("8Ei", i64::MAX, i64::MAX),
            ("-1", -1, -1000),
            ("-100m", 0, -100),
            // Upstream reads a missing number as 0 ("m", "Gi").
            ("m", 0, 0),
            ("Gi", 0, 0),
        ];
        for &(s, v, m) in cases {
            let q = Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!((q.value(), q.milli_value()), (v, m), "{s}");
        }
    }

    #[test]
    fn invalid_quantities_are_errors() {
        for s in [
            "", " ", "1x", "abc", "1 Gi", "1KiB", "1.2.3", "1e", "1e+", "1K", "1mm", "--1", "1Gi5",
            "1i",
        ] {
            assert!(Quantity::parse(s).is_err(), "{s:?} should be invalid");
        }
        assert_eq!(Quantity::parse("1x"), Err(QuantityError::Format));
        assert_eq!(Quantity::parse("1K"), Err(QuantityError::Suffix));
    }

    #[test]
    fn sums_are_exact_before_rounding() {
        // Two halves of a milli-cpu are one milli-cpu, not two: upstream adds quantities
        // before converting.
        let h = Quantity::parse("0.5m").expect("valid");
        assert_eq!(h.milli_value(), 1);
        assert_eq!(h.saturating_add(h).milli_value(), 1);
    }

    /// The digits as the parser read them before [`significand`]: copied into one string,
    /// trailing zeros popped, leading zeros trimmed, then parsed.
    fn significand_by_copy(num: &str, denom: &str) -> Option<(i128, i64)> {
        let mut digits = format!("{num}{denom}");
        let mut exp10 = -(denom.len() as i64);
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
            exp10 += 1;
        }
        let trimmed = digits.trim_start_matches('0');
        if trimmed.len() > 38 {
            return None;
        }
        let magnitude = if trimmed.is_empty() {
            0
        } else {
            trimmed.parse::<i128>().ok()?
        };
        Some((magnitude, exp10))
    }

    proptest::proptest! {
        /// Zeros where they matter most (leading, trailing, all), and lengths on both sides of
        /// the 38 digits an `i128` holds.
        #[test]
        fn significand_reads_digits_in_place(
            num in proptest::prop_oneof!["0{0,3}", "0{0,3}[1-9]{0,2}0{0,3}", "0{0,3}[0-9]{0,40}0{0,3}"],
            denom in proptest::prop_oneof!["0{0,3}", "0{0,3}[1-9]{0,2}0{0,3}", "0{0,3}[0-9]{0,40}0{0,3}"],
        ) {
            proptest::prop_assert_eq!(significand(&num, &denom), significand_by_copy(&num, &denom));
        }
    }
}
