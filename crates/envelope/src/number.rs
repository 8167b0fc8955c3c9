//! A JSON number's value as an `f64`, without core's decimal-to-float
//! parser.
//!
//! With serde_json's `arbitrary_precision`, `Number::as_f64` parses the
//! number's text with `str::parse::<f64>`, whose correctly rounded algorithm
//! (Eisel–Lemire with a 10 KB table of powers of five, and a big-decimal
//! fallback) is about 10 KB gzip of the app's first load. The first screen
//! only needs timestamps: whether one is in range, and its value to show.
//! [`value`] reads a number exactly when it has at most 15 significant
//! digits and a power of ten a float holds exactly (every timestamp written
//! by a program), and otherwise to within a few units in the last place,
//! which no display or range check can tell apart.

/// The value of a JSON number's text (as serde_json's `Number` holds it):
/// `None` when it is not a JSON number. Overflow gives an infinity, as
/// `str::parse::<f64>` does.
pub fn value(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let (negative, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        _ => (false, 0),
    };
    let digits_from = |start: usize| start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_end = digits_from(i);
    if int_end == i {
        return None;
    }
    let int = &b[i..int_end];
    i = int_end;
    let mut frac: &[u8] = &[];
    if b.get(i) == Some(&b'.') {
        let end = digits_from(i + 1);
        if end == i + 1 {
            return None;
        }
        frac = &b[i + 1..end];
        i = end;
    }
    // Significant digits (at most 19 kept; an integer digit beyond them
    // counts in the exponent, a fraction digit beyond them is dropped) and
    // the power of ten they are scaled by.
    let mut mantissa: u64 = 0;
    let mut kept = 0u32;
    let mut exponent: i64 = 0;
    for (k, &c) in int.iter().chain(frac).enumerate() {
        let after_point = k >= int.len();
        if kept < 19 {
            if mantissa != 0 || c != b'0' {
                mantissa = mantissa * 10 + u64::from(c - b'0');
                kept += 1;
            }
            if after_point {
                exponent -= 1;
            }
        } else if !after_point {
            exponent += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let sign = match b.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        let end = digits_from(i);
        if end == i {
            return None;
        }
        // Far beyond any float's range either way: saturate.
        let e = b[i..end].iter().fold(0i64, |e, &c| (e * 10 + i64::from(c - b'0')).min(1_000_000));
        i = end;
        exponent += sign * e;
    }
    if i != b.len() {
        return None;
    }
    let magnitude = scale(mantissa, exponent);
    Some(if negative { -magnitude } else { magnitude })
}

/// `mantissa × 10^exponent`.
fn scale(mantissa: u64, exponent: i64) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    // Exact powers of ten a float holds (10^22 is the last).
    const EXACT: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ];
    let m = mantissa as f64;
    // Clinger's fast path: both operands exact, one rounding.
    if mantissa < (1 << 53) && exponent.unsigned_abs() <= 22 {
        let p = EXACT[exponent.unsigned_abs() as usize];
        return if exponent < 0 { m / p } else { m * p };
    }
    // Out of any float's range (the mantissa has at most 19 digits).
    if exponent > 310 {
        return f64::INFINITY;
    }
    if exponent < -345 {
        return 0.0;
    }
    // Otherwise a few roundings: steps of 10^22, then the rest; below the
    // normal range, in two halves so the intermediate does not underflow.
    let mut x = m;
    let mut e = exponent;
    while e > 22 {
        x *= 1e22;
        e -= 22;
    }
    while e < -22 {
        x /= 1e22;
        e += 22;
    }
    let p = EXACT[e.unsigned_abs() as usize];
    if e < 0 {
        x / p
    } else {
        x * p
    }
}

#[cfg(test)]
mod tests {
    use super::value;

    fn same(text: &str) {
        let want: f64 = text.parse().unwrap();
        assert_eq!(value(text).map(f64::to_bits), Some(want.to_bits()), "{text}");
    }

    fn close(text: &str) {
        let want: f64 = text.parse().unwrap();
        let got = value(text).unwrap();
        if want == 0.0 || want.is_infinite() {
            assert_eq!(got, want, "{text}");
        } else {
            assert!(((got - want) / want).abs() < 1e-14, "{text}: {got} vs {want}");
        }
    }

    #[test]
    fn timestamps_and_short_numbers_are_exact() {
        for t in [
            "0",
            "-0",
            "1",
            "-1",
            "1700000000000",
            "1700000000000.5",
            "-62135596800000",
            "8.64e15",
            "-8.64e15",
            "8640000000000000",
            "8640000000000001",
            "1.7e12",
            "17E11",
            "1.5e-3",
            "0.1",
            "0.2",
            "0.3",
            "123456789012345",
            "1e22",
            "1e-22",
            "9007199254740991",
            "4.35",
            "2.5e+3",
            "100.000",
        ] {
            same(t);
        }
        assert_eq!(value("-0").map(f64::is_sign_negative), Some(true));
    }

    #[test]
    fn long_and_far_numbers_are_within_a_few_units() {
        for t in [
            "8640000000000000.4",
            "12345678901234567890123",
            "1.2345678901234567890123e-30",
            "9.999999999999999999e300",
            "1e308",
            "1.7976931348623157e308",
            "2.2250738585072014e-308",
            "5e-324",
            "1e-400",
            "1e400",
            "-1e400",
            "0.000000000000000000000000000001",
            "123456789.123456789123456789",
        ] {
            close(t);
        }
        assert_eq!(value("1e400"), Some(f64::INFINITY));
        assert_eq!(value("1e999999999999999999"), Some(f64::INFINITY));
        assert_eq!(value("1e-999999999999999999"), Some(0.0));
    }

    #[test]
    fn not_numbers() {
        for t in ["", "-", ".5", "1.", "1e", "1e+", "abc", "1.5x", "--1", "1..2"] {
            assert_eq!(value(t), None, "{t:?}");
        }
    }

    #[test]
    fn many_random_numbers_agree_with_the_standard_parser() {
        // A small deterministic generator: no dependency, same cases each run.
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..20_000 {
            let int = next() % 10_000_000_000_000;
            let frac = next() % 1000;
            let exp = (next() % 60) as i64 - 30;
            let text = format!("{int}.{frac:03}e{exp}");
            let digits = format!("{int}{frac:03}").trim_start_matches('0').len();
            if digits <= 15 && (exp - 3).abs() <= 22 {
                same(&text);
            } else {
                close(&text);
            }
        }
    }
}
