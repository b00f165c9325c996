//! Parsing and printing of sizes, percentages and durations.
//!
//! Sizes use Kubernetes quantity syntax (`200Mi`, `1G`, `1.5Gi`, `1e9`) and
//! convert to bytes the way `Quantity.Value()` does: a fractional result is
//! rounded **up** to the next integer (`100m` is 1 byte). This matters because
//! the EtcdDefrag rule compares sizes strictly and must agree with the
//! operator byte for byte. Durations use Go syntax (`500ms`, `1m30s`), which
//! is what etcdctl users type.

use std::fmt;
use std::time::Duration;

/// Why a size, percentage or duration did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    input: String,
    why: &'static str,
}

impl ParseError {
    fn new(input: &str, why: &'static str) -> Self {
        ParseError {
            input: input.to_string(),
            why,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value {:?}: {}", self.input, self.why)
    }
}

impl std::error::Error for ParseError {}

const QUANTITY_HELP: &str =
    "expected a Kubernetes quantity such as 200Mi, 1Gi, 500M or 1e9 (bytes)";

/// Parses a Kubernetes quantity into bytes, rounding a fraction up.
/// Negative quantities are refused; zero is allowed (callers that need a
/// positive value say so in their own message).
pub fn parse_bytes(text: &str) -> Result<u64, ParseError> {
    let value = parse_quantity(text)?;
    if value < 0 {
        return Err(ParseError::new(text, "must not be negative"));
    }
    u64::try_from(value).map_err(|_| ParseError::new(text, "too large"))
}

/// Parses a Kubernetes quantity into an integer, rounding a fraction up
/// (toward positive infinity, as `Quantity.Value()` does).
pub fn parse_quantity(text: &str) -> Result<i128, ParseError> {
    let s = text.trim();
    if s.is_empty() || s != text {
        return Err(ParseError::new(text, QUANTITY_HELP));
    }
    let (negative, unsigned) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let number_end = unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len());
    let (number, suffix) = unsigned.split_at(number_end);
    let (int_part, frac_part) = match number.split_once('.') {
        Some((i, f)) => (i, f),
        None => (number, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(ParseError::new(text, QUANTITY_HELP));
    }
    if frac_part.contains('.') {
        return Err(ParseError::new(text, QUANTITY_HELP));
    }
    let digits = format!("{int_part}{frac_part}");
    if digits.len() > 30 {
        return Err(ParseError::new(text, "too many digits"));
    }
    let mantissa: i128 = if digits.is_empty() {
        0
    } else {
        digits
            .parse()
            .map_err(|_| ParseError::new(text, QUANTITY_HELP))?
    };
    // value = mantissa * base^exp / 10^frac_len
    let (base, exp): (i128, i32) = match suffix {
        "" => (10, 0),
        "Ki" => (1024, 1),
        "Mi" => (1024, 2),
        "Gi" => (1024, 3),
        "Ti" => (1024, 4),
        "Pi" => (1024, 5),
        "Ei" => (1024, 6),
        "n" => (10, -9),
        "u" => (10, -6),
        "m" => (10, -3),
        "k" => (10, 3),
        "M" => (10, 6),
        "G" => (10, 9),
        "T" => (10, 12),
        "P" => (10, 15),
        "E" => (10, 18),
        other => match other.strip_prefix(['e', 'E']) {
            Some(e) if !e.is_empty() => {
                let exp: i32 = e
                    .parse()
                    .map_err(|_| ParseError::new(text, QUANTITY_HELP))?;
                if !(-30..=30).contains(&exp) {
                    return Err(ParseError::new(text, "exponent out of range"));
                }
                (10, exp)
            }
            _ => return Err(ParseError::new(text, QUANTITY_HELP)),
        },
    };
    let frac_len = u32::try_from(frac_part.len()).map_err(|_| ParseError::new(text, "too long"))?;
    let too_large = || ParseError::new(text, "too large");
    let mut numerator = mantissa;
    let mut denominator: i128 = 10i128.checked_pow(frac_len).ok_or_else(too_large)?;
    let scale = base.checked_pow(exp.unsigned_abs()).ok_or_else(too_large)?;
    if exp >= 0 {
        numerator = numerator.checked_mul(scale).ok_or_else(too_large)?;
    } else {
        denominator = denominator.checked_mul(scale).ok_or_else(too_large)?;
    }
    let value = if negative {
        // Rounding toward +inf of a negative value truncates toward zero.
        -(numerator / denominator)
    } else {
        let whole = numerator / denominator;
        if numerator % denominator == 0 {
            whole
        } else {
            whole + 1
        }
    };
    if value > i128::from(i64::MAX) || value < i128::from(i64::MIN) {
        return Err(too_large());
    }
    Ok(value)
}

/// Parses a Go/etcdctl duration: one or more `<number><unit>` pairs with
/// units `ns`, `us`, `µs`, `ms`, `s`, `m`, `h` (`1m30s`, `1.5s`, `250ms`).
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    const HELP: &str = "expected a duration such as 500ms, 5s, 2m or 1h30m";
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(ParseError::new(text, HELP));
    }
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| ParseError::new(text, "missing unit (ms, s, m, h)"))?;
        let (number, after) = rest.split_at(number_end);
        let value: f64 = number.parse().map_err(|_| ParseError::new(text, HELP))?;
        let unit_end = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_end);
        let seconds_per_unit = match unit {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(ParseError::new(text, HELP)),
        };
        total += value * seconds_per_unit;
        rest = next;
    }
    Duration::try_from_secs_f64(total).map_err(|_| ParseError::new(text, "out of range"))
}

/// Formats a byte count with binary units, one decimal below 10 of a unit:
/// `512 B`, `1.5 KiB`, `312 MiB`, `2.0 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// Formats a duration for tables: `850ms`, `3.2s`, `2m05s`.
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis < 60_000 {
        format!("{:.1}s", duration.as_secs_f64())
    } else {
        let secs = duration.as_secs();
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_convert_like_kubernetes_value() {
        let cases: &[(&str, i128)] = &[
            ("0", 0),
            ("1", 1),
            ("200Mi", 209_715_200),
            ("32Mi", 33_554_432),
            ("2Gi", 2_147_483_648),
            ("1.5Gi", 1_610_612_736),
            ("1k", 1000),
            ("1M", 1_000_000),
            ("500M", 500_000_000),
            ("1e9", 1_000_000_000),
            ("1E3", 1000),
            ("100m", 1),
            ("1500m", 2),
            ("0.5", 1),
            (".5Ki", 512),
            ("+3", 3),
            ("-1Mi", -1_048_576),
            ("-100m", 0),
            ("8Ei", 9_223_372_036_854_775_808 - 1 + 1),
        ];
        for (input, want) in cases {
            if *input == "8Ei" {
                // 8Ei is 2^63, one past i64::MAX: Kubernetes saturates, we refuse.
                assert!(parse_quantity(input).is_err(), "{input}");
                continue;
            }
            assert_eq!(parse_quantity(input), Ok(*want), "{input}");
        }
    }

    #[test]
    fn malformed_quantities_are_refused() {
        for input in [
            "", " 1", "1 ", "Mi", "1MiB", "1.2.3", "1e", "abc", "1mi", "--1", "1e99",
        ] {
            assert!(parse_quantity(input).is_err(), "{input:?} should not parse");
        }
    }

    #[test]
    fn bytes_refuse_negative() {
        assert!(parse_bytes("-1").is_err());
        assert_eq!(parse_bytes("16Mi"), Ok(16 * 1024 * 1024));
    }

    #[test]
    fn durations_follow_go_syntax() {
        let cases: &[(&str, Duration)] = &[
            ("5s", Duration::from_secs(5)),
            ("500ms", Duration::from_millis(500)),
            ("1m30s", Duration::from_secs(90)),
            ("1.5s", Duration::from_millis(1500)),
            ("2h", Duration::from_secs(7200)),
            ("0", Duration::ZERO),
            ("250us", Duration::from_micros(250)),
        ];
        for (input, want) in cases {
            assert_eq!(parse_duration(input), Ok(*want), "{input}");
        }
        for input in ["", "5", "s", "5x", "-1s", "1..5s"] {
            assert!(parse_duration(input).is_err(), "{input:?} should not parse");
        }
    }

    #[test]
    fn bytes_print_with_binary_units() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(300 * 1024 * 1024), "300 MiB");
        assert_eq!(format_bytes(2 * 1024 * 1024 * 1024), "2.0 GiB");
    }
}
