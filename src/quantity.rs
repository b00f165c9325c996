//! Parsing and printing of sizes, percentages and durations.
//!
//! Sizes use Kubernetes quantity syntax (`200Mi`, `1G`, `1.5Gi`, `1e9`) and
//! convert to bytes the way `Quantity.Value()` does: a fractional result is
//! rounded **up** to the next integer (`100m` is 1 byte). This matters because
//! the EtcdDefrag rule compares sizes strictly and must agree with the
//! operator byte for byte. Durations use Go syntax (`500ms`, `1m30s`), which
//! is what etcdctl users type: one parser, Go's `time.ParseDuration`
//! ([`parse_go_duration`]), which `@every` schedules use as is and the
//! flags through [`parse_duration`].

use std::fmt;
use std::time::Duration;

/// Why a size, percentage or duration did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    input: String,
    why: std::borrow::Cow<'static, str>,
}

impl ParseError {
    fn new(input: &str, why: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        ParseError {
            input: input.to_string(),
            why: why.into(),
        }
    }
}

/// For a size written with a byte unit (`64MB`, `8GiB`, `512KB`), as
/// etcd's docs and people write it: the quantity that means it, in both
/// readings of the prefix.
fn byte_unit_hint(number: &str, suffix: &str) -> Option<String> {
    let prefix = suffix.strip_suffix(['B', 'b'])?;
    let (decimal, binary) = match prefix.trim_end_matches('i') {
        "k" | "K" => ("k", "Ki"),
        "M" | "m" => ("M", "Mi"),
        "G" | "g" => ("G", "Gi"),
        "T" | "t" => ("T", "Ti"),
        "P" | "p" => ("P", "Pi"),
        "E" | "e" => ("E", "Ei"),
        "" => return Some(format!("write the bytes without a unit: {number}")),
        _ => return None,
    };
    Some(if prefix.ends_with('i') {
        format!("write {number}{binary} (Kubernetes quantity: no B)")
    } else {
        format!("write {number}{binary} (powers of 1024) or {number}{decimal} (powers of 1000); Kubernetes quantities take no B")
    })
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid value {:?}: {}", self.input, self.why)
    }
}

impl std::error::Error for ParseError {}

const QUANTITY_HELP: &str =
    "expected a Kubernetes quantity such as 200Mi, 1Gi, 500M or 1e9 (bytes)";

/// `n` revisions, in words: "1 revision", "3 revisions".
pub fn revisions(n: impl Into<i128>) -> String {
    match n.into() {
        1 => "1 revision".to_string(),
        n => format!("{n} revisions"),
    }
}

/// "1 revision is kept", "3 revisions are kept".
pub fn revisions_kept(n: impl Into<i128>) -> String {
    let n = n.into();
    let verb = if n == 1 { "is" } else { "are" };
    format!("{} {verb} kept", revisions(n))
}

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
            _ => {
                return Err(match byte_unit_hint(number, suffix) {
                    Some(hint) => ParseError::new(text, hint),
                    None => ParseError::new(text, QUANTITY_HELP),
                })
            }
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

/// Parses a duration as the etcdctl-style flags take it (`--timeout`,
/// `--wait-healthy`, …) and as doctor reads `autoCompactionRetention`: one
/// or more `<number><unit>` pairs with units `ns`, `us`, `µs`, `ms`, `s`,
/// `m`, `h` (`1m30s`, `1.5s`, `250ms`), or a bare `0`.
///
/// A thin wrapper over the one parser, [`parse_go_duration`], with the
/// flags' own differences from Go's grammar: blanks around the text are
/// ignored; there is no sign; the micro sign is `µ` (U+00B5) only, not
/// Go's other spelling `μ` (U+03BC); and the messages are this tool's
/// ("missing unit (ms, s, m, h)" when the text ends in a number without
/// its unit, "out of range" past Go's limit of about 292 years, a hint
/// with examples otherwise). The value is Go's, exact to the nanosecond
/// (digits below a nanosecond are dropped).
pub fn parse_duration(text: &str) -> Result<Duration, ParseError> {
    const HELP: &str = "expected a duration such as 500ms, 5s, 2m or 1h30m";
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.starts_with(['+', '-']) || trimmed.contains('\u{3bc}') {
        return Err(ParseError::new(text, HELP));
    }
    match parse_go_duration(trimmed) {
        Ok(nanos) => Ok(Duration::from_nanos(nanos.unsigned_abs())),
        Err(e) => {
            let why = if e.kind == GoDurationErrorKind::Overflow {
                "out of range"
            } else if trimmed[e.pair..]
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.')
            {
                "missing unit (ms, s, m, h)"
            } else {
                HELP
            };
            Err(ParseError::new(text, why))
        }
    }
}

/// Why a Go duration did not parse. It prints as Go's `time` package words
/// it (`time: invalid duration "1x"`, …), which is what the operator's
/// messages embed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoDurationError {
    input: String,
    kind: GoDurationErrorKind,
    /// Where the `<number><unit>` pair that failed begins (a byte offset).
    pair: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum GoDurationErrorKind {
    /// Not a duration at all (Go: "invalid duration").
    Invalid,
    /// A number without its unit.
    MissingUnit,
    UnknownUnit(String),
    /// Past Go's limit, ±2⁶³ ns (Go: "invalid duration" too).
    Overflow,
}

impl fmt::Display for GoDurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = time_quote(&self.input);
        match &self.kind {
            GoDurationErrorKind::Invalid | GoDurationErrorKind::Overflow => {
                write!(f, "time: invalid duration {input}")
            }
            GoDurationErrorKind::MissingUnit => {
                write!(f, "time: missing unit in duration {input}")
            }
            GoDurationErrorKind::UnknownUnit(unit) => write!(
                f,
                "time: unknown unit {} in duration {input}",
                time_quote(unit)
            ),
        }
    }
}

impl std::error::Error for GoDurationError {}

/// The one duration parser: Go's `time.ParseDuration`, in nanoseconds.
/// `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, units ns us µs μs ms s m h, and a
/// bare `0`; integer arithmetic, so `1.1s` is exactly 1,100,000,000 ns.
/// Overflow checks follow Go's, including where Go lets a sum wrap.
/// `@every` schedules use it as is; the flags through [`parse_duration`].
pub fn parse_go_duration(text: &str) -> Result<i64, GoDurationError> {
    const LIMIT: u64 = 1 << 63;
    let fail = |kind, pair| GoDurationError {
        input: text.to_string(),
        kind,
        pair,
    };
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut negative = false;
    if let Some(&sign @ (b'-' | b'+')) = bytes.first() {
        negative = sign == b'-';
        at = 1;
    }
    if &bytes[at..] == b"0" {
        return Ok(0);
    }
    if at == bytes.len() {
        return Err(fail(GoDurationErrorKind::Invalid, at));
    }
    let mut total: u64 = 0;
    while at < bytes.len() {
        let pair = at;
        let invalid = || fail(GoDurationErrorKind::Invalid, pair);
        let overflow = || fail(GoDurationErrorKind::Overflow, pair);
        let first = bytes[at];
        if !(first == b'.' || first.is_ascii_digit()) {
            return Err(invalid());
        }
        let digits = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let mut whole: u64 = 0;
        for &digit in &bytes[at..at + digits] {
            if whole > LIMIT / 10 {
                return Err(overflow());
            }
            whole = whole * 10 + u64::from(digit - b'0');
            if whole > LIMIT {
                return Err(overflow());
            }
        }
        at += digits;

        let (mut fraction, mut scale, mut has_fraction) = (0u64, 1f64, false);
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            let fraction_digits;
            (fraction, scale, fraction_digits) = go_fraction(&bytes[at..]);
            has_fraction = fraction_digits > 0;
            at += fraction_digits;
        }
        if digits == 0 && !has_fraction {
            return Err(invalid());
        }

        let unit_len = bytes[at..]
            .iter()
            .take_while(|b| **b != b'.' && !b.is_ascii_digit())
            .count();
        if unit_len == 0 {
            return Err(fail(GoDurationErrorKind::MissingUnit, pair));
        }
        let unit = &bytes[at..at + unit_len];
        at += unit_len;
        let Some(unit_nanos) = go_unit_nanos(unit) else {
            let unit = String::from_utf8_lossy(unit).into_owned();
            return Err(fail(GoDurationErrorKind::UnknownUnit(unit), pair));
        };
        if whole > LIMIT / unit_nanos {
            return Err(overflow());
        }
        let mut value = whole * unit_nanos;
        if fraction > 0 {
            value += (fraction as f64 * (unit_nanos as f64 / scale)) as u64;
            if value > LIMIT {
                return Err(overflow());
            }
        }
        total = total.wrapping_add(value);
        if total > LIMIT {
            return Err(overflow());
        }
    }
    if negative {
        // `total` is at most 2^63 here, whose negation is i64::MIN, as in Go.
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| fail(GoDurationErrorKind::Overflow, bytes.len()))
}

/// The digits after a duration's decimal point, as Go reads them: the
/// fraction, its scale (10 to the digits kept), and how many digits there
/// were. Go stops gaining precision on overflow instead of failing.
fn go_fraction(bytes: &[u8]) -> (u64, f64, usize) {
    const LIMIT: u64 = 1 << 63;
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let (mut fraction, mut scale) = (0u64, 1f64);
    for &digit in &bytes[..digits] {
        if fraction > (LIMIT - 1) / 10 {
            break;
        }
        let next = fraction * 10 + u64::from(digit - b'0');
        if next > LIMIT {
            break;
        }
        fraction = next;
        scale *= 10.0;
    }
    (fraction, scale, digits)
}

/// Nanoseconds in one of Go's duration units (`µs` in either spelling).
fn go_unit_nanos(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// The quoting inside Go's `time` errors: non-ASCII and control characters
/// become `\x` bytes.
fn time_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if !c.is_ascii() || c < ' ' {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// A byte count as a Kubernetes quantity, for an object the tool writes:
/// the largest binary suffix that divides it exactly (`200Mi`), else
/// plain bytes.
pub fn format_quantity(bytes: u64) -> String {
    for (shift, suffix) in [(50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")] {
        if bytes > 0 && bytes.is_multiple_of(1u64 << shift) {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
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

/// Formats a duration as its nonzero parts, largest first, separated by
/// spaces: `5s`, `1h 2m 3s`, `2days 3h`, `1year 1month 1day 10h 30m`,
/// `1s 500ms`; `0s` for zero. A year is 365.25 days and a month 30.44
/// days; the parts are `year(s)`, `month(s)`, `day(s)`, `h`, `m`, `s`,
/// `ms`, `us`, `ns`. (The format humantime's `format_duration` prints,
/// which messages have always used.)
pub fn format_duration_parts(duration: Duration) -> String {
    const YEAR: u64 = 31_557_600;
    const MONTH: u64 = 2_630_016;
    const DAY: u64 = 86_400;
    let secs = duration.as_secs();
    let nanos = u64::from(duration.subsec_nanos());
    if secs == 0 && nanos == 0 {
        return "0s".to_string();
    }
    let in_year = secs % YEAR;
    let in_month = in_year % MONTH;
    let in_day = in_month % DAY;
    let parts: [(u64, &str, bool); 9] = [
        (secs / YEAR, "year", true),
        (in_year / MONTH, "month", true),
        (in_month / DAY, "day", true),
        (in_day / 3600, "h", false),
        (in_day % 3600 / 60, "m", false),
        (in_day % 60, "s", false),
        (nanos / 1_000_000, "ms", false),
        (nanos / 1000 % 1000, "us", false),
        (nanos % 1000, "ns", false),
    ];
    parts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|&(n, unit, plural)| {
            let s = if plural && n > 1 { "s" } else { "" };
            format!("{n}{unit}{s}")
        })
        .collect::<Vec<_>>()
        .join(" ")
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

    /// A byte unit as etcd's docs and people write it is told the
    /// quantity that means it; other junk gets the general form.
    #[test]
    fn byte_units_are_told_their_quantity() {
        let said = |input: &str| parse_bytes(input).unwrap_err().to_string();
        assert_eq!(
            said("64MB"),
            "invalid value \"64MB\": write 64Mi (powers of 1024) or 64M (powers of 1000); Kubernetes quantities take no B"
        );
        assert_eq!(
            said("8GiB"),
            "invalid value \"8GiB\": write 8Gi (Kubernetes quantity: no B)"
        );
        assert_eq!(said("512kB"), "invalid value \"512kB\": write 512Ki (powers of 1024) or 512k (powers of 1000); Kubernetes quantities take no B");
        assert_eq!(
            said("100B"),
            "invalid value \"100B\": write the bytes without a unit: 100"
        );
        assert!(said("64XB").contains("expected a Kubernetes quantity"));
    }

    #[test]
    fn revisions_are_counted_in_words() {
        assert_eq!(revisions(1), "1 revision");
        assert_eq!(revisions(0), "0 revisions");
        assert_eq!(revisions(12), "12 revisions");
        assert_eq!(revisions_kept(1), "1 revision is kept");
        assert_eq!(revisions_kept(2), "2 revisions are kept");
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

    /// The flags' grammar: Go's, less the sign and the second micro sign,
    /// blanks around it ignored, and this tool's messages.
    #[test]
    fn flag_durations_and_their_messages() {
        const HELP: &str = "expected a duration such as 500ms, 5s, 2m or 1h30m";
        const UNIT: &str = "missing unit (ms, s, m, h)";
        let ok: &[(&str, Duration)] = &[
            (" 5s ", Duration::from_secs(5)),
            ("1.s", Duration::from_secs(1)),
            (".5s", Duration::from_millis(500)),
            ("1.1s", Duration::from_millis(1100)),
            ("250µs", Duration::from_micros(250)),
            ("1h1m1s1ms1us1ns", Duration::new(3661, 1_001_001)),
            ("00s", Duration::ZERO),
        ];
        for (input, want) in ok {
            assert_eq!(parse_duration(input), Ok(*want), "{input:?}");
        }
        let refused: &[(&str, &str)] = &[
            ("", HELP),
            ("  ", HELP),
            ("5", UNIT),
            ("1.5", UNIT),
            ("5s5", UNIT),
            ("1..5", UNIT),
            (".", UNIT),
            ("1..5s", HELP),
            (".s", HELP),
            ("s", HELP),
            ("5x", HELP),
            ("5x5", HELP),
            ("1h 30m", HELP),
            ("-1s", HELP),
            ("+1s", HELP),
            ("1\u{3bc}s", HELP),
            ("2562048h", "out of range"),
        ];
        for (input, why) in refused {
            assert_eq!(
                parse_duration(input).map_err(|e| e.to_string()),
                Err(format!("invalid value {input:?}: {why}")),
                "{input:?}"
            );
        }
    }

    /// Go's own grammar and words, which `@every` schedules embed.
    #[test]
    fn go_durations_and_their_messages() {
        let ok: &[(&str, i64)] = &[
            ("0", 0),
            ("-0", 0),
            ("+5s", 5_000_000_000),
            ("-1.5h", -5_400_000_000_000),
            ("1\u{3bc}s", 1_000),
            ("0.0000000015s", 1),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
        ];
        for (input, nanos) in ok {
            assert_eq!(parse_go_duration(input), Ok(*nanos), "{input:?}");
        }
        let refused: &[(&str, &str)] = &[
            ("", r#"time: invalid duration """#),
            (" 5s", r#"time: invalid duration " 5s""#),
            ("5", r#"time: missing unit in duration "5""#),
            ("5x", r#"time: unknown unit "x" in duration "5x""#),
            (
                "1é",
                r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#,
            ),
            ("2562048h", r#"time: invalid duration "2562048h""#),
        ];
        for (input, message) in refused {
            assert_eq!(
                parse_go_duration(input).map_err(|e| e.to_string()),
                Err(message.to_string()),
                "{input:?}"
            );
        }
    }

    /// The spellings humantime's `format_duration` printed, which the
    /// messages had before this formatter replaced it.
    #[test]
    fn duration_parts_are_humantimes_spellings() {
        let cases: &[(Duration, &str)] = &[
            (Duration::ZERO, "0s"),
            (Duration::from_secs(5), "5s"),
            (Duration::from_millis(1500), "1s 500ms"),
            (Duration::from_secs(300), "5m"),
            (Duration::from_secs(1800), "30m"),
            (Duration::from_secs(3723), "1h 2m 3s"),
            (Duration::from_secs(7200), "2h"),
            (Duration::from_secs(86_400), "1day"),
            (Duration::from_secs(2 * 86_400 + 3 * 3600), "2days 3h"),
            (Duration::from_secs(2_630_016), "1month"),
            (Duration::from_secs(2 * 2_630_016 + 86_400), "2months 1day"),
            (Duration::from_secs(31_557_600), "1year"),
            (
                Duration::from_secs(2 * 31_557_600 + 2_630_016 + 86_400 + 37_800),
                "2years 1month 1day 10h 30m",
            ),
            (Duration::new(1, 2_003_004), "1s 2ms 3us 4ns"),
            (Duration::from_nanos(1), "1ns"),
        ];
        for (duration, want) in cases {
            assert_eq!(format_duration_parts(*duration), *want, "{duration:?}");
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

    #[test]
    fn quantities_keep_the_unit_they_were_given_in() {
        for (bytes, text) in [
            (200 << 20, "200Mi"),
            (1 << 30, "1Gi"),
            (1536 << 10, "1536Ki"),
            (1000, "1000"),
            (0, "0"),
            (3 << 40, "3Ti"),
        ] {
            assert_eq!(format_quantity(bytes), text, "{bytes}");
        }
    }
}
