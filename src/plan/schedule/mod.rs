//! Cron schedules of `EtcdDefragPolicy` (docs/contract.md#etcddefragpolicy), evaluated exactly
//! as the operator evaluates them: robfig/cron v3 `ParseStandard` on the
//! schedule prefixed with `CRON_TZ=UTC ` (unless it already contains `TZ=`),
//! then `Schedule.Next` to find ticks.
//!
//! Bit-for-bit agreement with robfig matters because a tick becomes the
//! stamped run's name (`<policy>-<unix seconds>`): if the operator and this
//! tool disagreed on a tick, handing a policy from one to the other would stamp
//! a second run for the same slot. Error texts are robfig's, including the Go
//! `strconv`/`time` texts it embeds, because they end up in the
//! `InvalidSchedule` condition message.
//!
//! Everything here is pure over `jiff::Timestamp`, which k8s-openapi's `Time`
//! wraps. The process's time zone is never consulted: a schedule without a
//! zone is UTC by construction. The one I/O is Go's: `CRON_TZ=<zone>` loads the
//! zone from the system tzdb, as `time.LoadLocation` does.

use std::fmt::Write as _;
use std::time::Duration;

use jiff::civil::{Date, DateTime, Time};
use jiff::tz::{Offset, TimeZone};
use jiff::{SignedDuration, Span, Timestamp};

/// The number of due ticks at which the operator stops walking the backlog
/// and uses `now` as the due time (docs/contract.md#the-policy-pass, step 5).
pub const BACKLOG_LIMIT: usize = 102;

/// robfig's `Next` gives up when no tick exists within five years.
const SEARCH_YEARS: i32 = 5;

/// Set in a field's bits when it was written `*` or `?` without a step above
/// 1. It switches the day rule from "either day field" to "both day fields".
const STAR: u64 = 1 << 63;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// A field's range; `names[i]` (lower case) stands for `min + i`.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
}

impl Bounds {
    const fn new(min: u64, max: u64, names: &'static [&'static str]) -> Self {
        Bounds { min, max, names }
    }
}

const MINUTES: Bounds = Bounds::new(0, 59, &[]);
const HOURS: Bounds = Bounds::new(0, 23, &[]);
const DAYS_OF_MONTH: Bounds = Bounds::new(1, 31, &[]);
const MONTHS: Bounds = Bounds::new(
    1,
    12,
    &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
);
/// Sunday is 0 only: robfig's bounds stop at 6, so `7` is rejected (Vixie
/// cron would accept it).
const DAYS_OF_WEEK: Bounds = Bounds::new(0, 6, &["sun", "mon", "tue", "wed", "thu", "fri", "sat"]);

/// A parsed `spec.schedule`.
#[derive(Debug, Clone)]
pub struct Schedule {
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Fields(Fields),
    /// `@every <duration>`: whole seconds, at least one, and no time zone.
    Every {
        seconds: i64,
    },
}

/// One bit per allowed value (plus [`STAR`]), as robfig's `SpecSchedule`.
#[derive(Debug, Clone)]
struct Fields {
    second: u64,
    minute: u64,
    hour: u64,
    day_of_month: u64,
    month: u64,
    day_of_week: u64,
    zone: TimeZone,
}

/// Why a schedule does not parse. `Display` is robfig's error text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    #[error("provided bad location {name}: {reason}")]
    BadLocation { name: String, reason: String },
    #[error("expected exactly 5 fields, found {}: [{}]", .fields.len(), .fields.join(" "))]
    FieldCount { fields: Vec<String> },
    #[error("too many hyphens: {0}")]
    TooManyHyphens(String),
    #[error("too many slashes: {0}")]
    TooManySlashes(String),
    #[error("failed to parse int from {expr}: strconv.Atoi: parsing {}: {reason}", strconv_quote(.expr))]
    NotAnInteger { expr: String, reason: IntError },
    #[error("negative number ({value}) not allowed: {expr}")]
    Negative { value: i64, expr: String },
    #[error("beginning of range ({start}) below minimum ({min}): {expr}")]
    BelowMinimum { start: u64, min: u64, expr: String },
    #[error("end of range ({end}) above maximum ({max}): {expr}")]
    AboveMaximum { end: u64, max: u64, expr: String },
    #[error("beginning of range ({start}) beyond end of range ({end}): {expr}")]
    StartAfterEnd { start: u64, end: u64, expr: String },
    #[error("step of range should be a positive number: {0}")]
    ZeroStep(String),
    #[error("unrecognized descriptor: {0}")]
    UnknownDescriptor(String),
    #[error("failed to parse duration {descriptor}: {reason}")]
    BadDuration { descriptor: String, reason: String },
}

/// Go's `strconv.Atoi` failure kinds, worded as Go words them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IntError {
    #[error("invalid syntax")]
    Syntax,
    #[error("value out of range")]
    Range,
}

/// What a policy reconcile should do about its schedule at `now`
/// (docs/contract.md#the-policy-pass, step 5), given `earliest` = `lastScheduleTime`,
/// else `creationTimestamp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// The first tick after `earliest` is later than `now`: requeue for it.
    NotYet { next: Timestamp },
    /// At least one tick lies in `(earliest, now]`. Only `at`, the latest, is
    /// acted on (stamped, or skipped for the deadline or `Forbid`); the others
    /// vanish, which is why a resumed policy gets exactly one catch-up run.
    /// `ticks` counts them; when it reaches [`BACKLOG_LIMIT`] the walk stops,
    /// `capped` is set and `at` is `now` itself, as the operator does.
    Tick {
        at: Timestamp,
        ticks: usize,
        capped: bool,
    },
    /// No tick within robfig's five-year horizon (e.g. `0 0 30 2 *`). The
    /// contract does not say what the operator does then; nothing is due.
    Never,
}

impl Schedule {
    /// Parses `spec.schedule` as the operator does: `CRON_TZ=UTC ` is put in
    /// front unless the text contains `TZ=`, then robfig's standard parser
    /// (five fields, or a descriptor) reads it.
    ///
    /// Two deliberate departures, both where Go gives no usable answer:
    /// `TZ=Local` means UTC (Go's process zone, UTC in the operator's image;
    /// the issue asks for UTC whatever our process's TZ), and a `TZ=` prefix
    /// without a following space reads as "zone, then nothing" where robfig
    /// would panic slicing the string.
    pub fn parse(schedule: &str) -> Result<Self, ScheduleError> {
        parse_with(schedule, &load_location)
    }

    /// The first activation strictly after `after`, as robfig's `Next`:
    /// sub-second parts are dropped, ticks are whole seconds, and `None` stands
    /// for robfig's zero time (no tick within five years of `after`, or past
    /// what a timestamp can hold).
    pub fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        match &self.kind {
            Kind::Fields(fields) => fields.next_after(after),
            Kind::Every { seconds } => {
                Timestamp::from_second(floor_second(after).checked_add(*seconds)?).ok()
            }
        }
    }

    /// The operator's due computation (docs/contract.md#the-policy-pass, step 5). Invariant:
    /// a `Tick`'s `at` lies in `(earliest, now]`, and only `Never` ends the search early.
    pub fn due(&self, earliest: Timestamp, now: Timestamp) -> Due {
        let Some(first) = self.next_after(earliest) else {
            return Due::Never;
        };
        if first > now {
            return Due::NotYet { next: first };
        }
        let (mut at, mut ticks) = (first, 1);
        while let Some(next) = self.next_after(at).filter(|next| *next <= now) {
            ticks += 1;
            if ticks >= BACKLOG_LIMIT {
                return Due::Tick {
                    at: now,
                    ticks,
                    capped: true,
                };
            }
            at = next;
        }
        Due::Tick {
            at,
            ticks,
            capped: false,
        }
    }
}

/// How long to wait for `next`: never less than a second, so a tick that is
/// already due (or a clock a little behind) cannot spin the controller.
pub fn requeue_after(next: Timestamp, now: Timestamp) -> Duration {
    Duration::try_from(next.duration_since(now))
        .ok()
        .filter(|wait| *wait >= Duration::from_secs(1))
        .unwrap_or(Duration::from_secs(1))
}

/// docs/contract.md#the-policy-pass, step 6: the tick is skipped (`MissedSchedule`) when
/// strictly more than `deadline_seconds` have passed since it; exactly on the
/// deadline it still runs.
pub fn past_starting_deadline(tick: Timestamp, now: Timestamp, deadline_seconds: i64) -> bool {
    now.duration_since(tick) > SignedDuration::from_secs(deadline_seconds)
}

/// The `InvalidSchedule` condition message, with the schedule quoted the way
/// Go's `%q` quotes it.
pub fn invalid_schedule_message(schedule: &str, error: &ScheduleError) -> String {
    format!("cannot parse schedule {}: {error}", strconv_quote(schedule))
}

/// [`Schedule::parse`] with the zone loader injected, so tests can pin zones
/// to fixed rules instead of the host's tzdb.
fn parse_with(
    schedule: &str,
    load_zone: &dyn Fn(&str) -> Result<TimeZone, String>,
) -> Result<Schedule, ScheduleError> {
    // The operator's own step before robfig: anything naming no zone is UTC.
    // (With the prefix, robfig's "empty spec string" cannot happen.)
    let prefixed;
    let spec = if schedule.contains("TZ=") {
        schedule
    } else {
        prefixed = format!("CRON_TZ=UTC {schedule}");
        prefixed.as_str()
    };
    let (zone, spec) = split_zone(spec, load_zone)?;
    if spec.starts_with('@') {
        return parse_descriptor(spec, zone);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    let [minute, hour, day_of_month, month, day_of_week] = fields.as_slice() else {
        return Err(ScheduleError::FieldCount {
            fields: fields.iter().map(|f| f.to_string()).collect(),
        });
    };
    // Go evaluates the fields in this order and reports the first error.
    Ok(Schedule {
        kind: Kind::Fields(Fields {
            second: 1, // the standard parser's implicit seconds field, "0"
            minute: parse_field(minute, &MINUTES)?,
            hour: parse_field(hour, &HOURS)?,
            day_of_month: parse_field(day_of_month, &DAYS_OF_MONTH)?,
            month: parse_field(month, &MONTHS)?,
            day_of_week: parse_field(day_of_week, &DAYS_OF_WEEK)?,
            zone,
        }),
    })
}

/// Takes a leading `TZ=<zone> ` / `CRON_TZ=<zone> ` off `spec`. Only a
/// prefix counts: `TZ=` elsewhere stays in the text (and fails as a field).
fn split_zone<'s>(
    spec: &'s str,
    load_zone: &dyn Fn(&str) -> Result<TimeZone, String>,
) -> Result<(TimeZone, &'s str), ScheduleError> {
    if !(spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
        // robfig would use time.Local; UTC is what "no zone" means here.
        return Ok((TimeZone::UTC, spec));
    }
    let after_equals = spec.split_once('=').map_or("", |(_, rest)| rest);
    let (name, rest) = after_equals.split_once(' ').unwrap_or((after_equals, ""));
    let zone = load_zone(name).map_err(|reason| ScheduleError::BadLocation {
        name: name.to_string(),
        reason,
    })?;
    Ok((zone, rest.trim()))
}

/// Go's `time.LoadLocation`, with `Local` pinned to UTC. Names are matched
/// case-sensitively, as Go's file lookup in /usr/share/zoneinfo is (jiff's
/// database alone would accept `utc` or `europe/berlin`).
fn load_location(name: &str) -> Result<TimeZone, String> {
    match name {
        "" | "UTC" | "Local" => Ok(TimeZone::UTC),
        _ if name.contains("..") || name.starts_with('/') || name.starts_with('\\') => {
            Err("time: invalid location name".to_string())
        }
        _ => jiff::tz::db()
            .get(name)
            .ok()
            .filter(|zone| zone.iana_name() == Some(name))
            .ok_or_else(|| format!("unknown time zone {name}")),
    }
}

fn parse_descriptor(descriptor: &str, zone: TimeZone) -> Result<Schedule, ScheduleError> {
    let all = |bounds: &Bounds| bits(bounds.min, bounds.max, 1) | STAR;
    // Bit sets (hour, day of month, month, day of week): `1` is {0} and
    // `1 << 1` is {1}; second and minute are always {0}.
    let (hour, day_of_month, month, day_of_week) = match descriptor {
        "@yearly" | "@annually" => (1, 1 << 1, 1 << 1, all(&DAYS_OF_WEEK)),
        "@monthly" => (1, 1 << 1, all(&MONTHS), all(&DAYS_OF_WEEK)),
        "@weekly" => (1, all(&DAYS_OF_MONTH), all(&MONTHS), 1),
        "@daily" | "@midnight" => (1, all(&DAYS_OF_MONTH), all(&MONTHS), all(&DAYS_OF_WEEK)),
        "@hourly" => (
            all(&HOURS),
            all(&DAYS_OF_MONTH),
            all(&MONTHS),
            all(&DAYS_OF_WEEK),
        ),
        _ => {
            let Some(text) = descriptor.strip_prefix("@every ") else {
                return Err(ScheduleError::UnknownDescriptor(descriptor.to_string()));
            };
            let nanos = parse_go_duration(text).map_err(|reason| ScheduleError::BadDuration {
                descriptor: descriptor.to_string(),
                reason,
            })?;
            // robfig's Every: below a second (zero and negatives too) becomes
            // one second, and the sub-second remainder is dropped.
            let seconds = nanos.max(NANOS_PER_SECOND) / NANOS_PER_SECOND;
            return Ok(Schedule {
                kind: Kind::Every { seconds },
            });
        }
    };
    Ok(Schedule {
        kind: Kind::Fields(Fields {
            second: 1,
            minute: 1,
            hour,
            day_of_month,
            month,
            day_of_week,
            zone,
        }),
    })
}

/// A comma-separated list of ranges. Go splits with `FieldsFunc`, so empty
/// items vanish: `1,,2` is `1,2`, and `,` alone matches nothing at all.
fn parse_field(field: &str, bounds: &Bounds) -> Result<u64, ScheduleError> {
    field
        .split(',')
        .filter(|range| !range.is_empty())
        .try_fold(0, |acc, range| Ok(acc | parse_range(range, bounds)?))
}

/// `*`, `?`, `N`, `N-M`, each optionally `/step`; `N/step` runs to the
/// field's maximum. The checks run in robfig's order, so the same input gets
/// the same first error.
fn parse_range(expr: &str, bounds: &Bounds) -> Result<u64, ScheduleError> {
    let mut slashes = expr.split('/');
    let range = slashes.next().unwrap_or_default();
    let steps: Vec<&str> = slashes.collect();
    let mut hyphens = range.split('-');
    let low = hyphens.next().unwrap_or_default();
    let highs: Vec<&str> = hyphens.collect();

    // robfig reads only the text before the first hyphen here, so `*-5` is `*`.
    let (start, end, star) = if low == "*" || low == "?" {
        (bounds.min, bounds.max, STAR)
    } else {
        let start = int_or_name(low, bounds)?;
        match highs.as_slice() {
            [] => (start, start, 0),
            [high] => (start, int_or_name(high, bounds)?, 0),
            _ => return Err(ScheduleError::TooManyHyphens(expr.to_string())),
        }
    };
    let (end, star, step) = match steps.as_slice() {
        [] => (end, star, 1),
        [step] => {
            let step = non_negative_int(step)?;
            let end = if highs.is_empty() { bounds.max } else { end };
            // A real step (`*/2`) is a restriction, not a star: it takes part in
            // the either-day rule (robfig #70).
            let star = if step > 1 { 0 } else { star };
            (end, star, step)
        }
        _ => return Err(ScheduleError::TooManySlashes(expr.to_string())),
    };

    if start < bounds.min {
        return Err(ScheduleError::BelowMinimum {
            start,
            min: bounds.min,
            expr: expr.to_string(),
        });
    }
    if end > bounds.max {
        return Err(ScheduleError::AboveMaximum {
            end,
            max: bounds.max,
            expr: expr.to_string(),
        });
    }
    if start > end {
        return Err(ScheduleError::StartAfterEnd {
            start,
            end,
            expr: expr.to_string(),
        });
    }
    if step == 0 {
        return Err(ScheduleError::ZeroStep(expr.to_string()));
    }
    Ok(bits(start, end, step) | star)
}

/// Month and weekday names are three letters, in any case.
fn int_or_name(expr: &str, bounds: &Bounds) -> Result<u64, ScheduleError> {
    let lower = expr.to_lowercase();
    if let Some(index) = bounds.names.iter().position(|name| *name == lower) {
        return Ok(bounds.min + index as u64);
    }
    non_negative_int(expr)
}

fn non_negative_int(expr: &str) -> Result<u64, ScheduleError> {
    let value = go_atoi(expr).map_err(|reason| ScheduleError::NotAnInteger {
        expr: expr.to_string(),
        reason,
    })?;
    u64::try_from(value).map_err(|_| ScheduleError::Negative {
        value,
        expr: expr.to_string(),
    })
}

/// Callers guarantee `step >= 1` and `end <= 59`.
fn bits(start: u64, end: u64, step: u64) -> u64 {
    let step = usize::try_from(step).unwrap_or(usize::MAX);
    (start..=end)
        .step_by(step)
        .fold(0, |acc, value| acc | 1 << value)
}

fn has(bits: u64, value: i8) -> bool {
    u32::try_from(value)
        .ok()
        .and_then(|value| 1u64.checked_shl(value))
        .is_some_and(|bit| bits & bit != 0)
}

impl Fields {
    /// robfig's `SpecSchedule.Next`, step for step: find the month, then the
    /// day, hour, minute and second, resetting the smaller units the first time
    /// anything moves and starting over whenever a unit wraps. Its DST
    /// behaviour (a wall time in a spring-forward gap is skipped, one in a fall-
    /// back fold fires twice) falls out of mixing wall-clock resets with
    /// absolute hour steps, so the same mix is kept here rather than a cleaner
    /// search that would pick different ticks.
    ///
    /// `t` is whole Unix seconds: everything after the first step stays whole.
    fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let zone = &self.zone;
        let wall = |t: i64| civil(zone, t);
        let mut t = floor_second(after).checked_add(1)?;
        let year_limit = i32::from(wall(t)?.year()) + SEARCH_YEARS;
        let mut moved = false;

        'wrap: loop {
            if i32::from(wall(t)?.year()) > year_limit {
                return None;
            }

            while !has(self.month, wall(t)?.month()) {
                if !moved {
                    moved = true;
                    let w = wall(t)?;
                    t = go_date(zone, w.year().into(), w.month().into(), 1, Time::midnight())?;
                }
                t = add_date(zone, t, 1, 0)?;
                if wall(t)?.month() == 1 {
                    continue 'wrap;
                }
            }

            while !self.day_matches(wall(t)?) {
                if !moved {
                    moved = true;
                    let w = wall(t)?;
                    t = go_date(
                        zone,
                        w.year().into(),
                        w.month().into(),
                        w.day().into(),
                        Time::midnight(),
                    )?;
                }
                t = add_date(zone, t, 0, 1)?;
                // Where midnight does not exist (a DST change at 00:00), Go's
                // date lands an hour off; robfig pulls it back to the day's start.
                let hour = i64::from(wall(t)?.hour());
                if hour != 0 {
                    t += if hour > 12 {
                        (24 - hour) * 3600
                    } else {
                        -hour * 3600
                    };
                }
                if wall(t)?.day() == 1 {
                    continue 'wrap;
                }
            }

            while !has(self.hour, wall(t)?.hour()) {
                if !moved {
                    moved = true;
                    let w = wall(t)?;
                    let top_of_hour = Time::new(w.hour(), 0, 0, 0).ok()?;
                    t = go_date(
                        zone,
                        w.year().into(),
                        w.month().into(),
                        w.day().into(),
                        top_of_hour,
                    )?;
                }
                t += 3600;
                if wall(t)?.hour() == 0 {
                    continue 'wrap;
                }
            }

            while !has(self.minute, wall(t)?.minute()) {
                if !moved {
                    moved = true;
                    t = t.div_euclid(60) * 60;
                }
                t += 60;
                if wall(t)?.minute() == 0 {
                    continue 'wrap;
                }
            }

            while !has(self.second, wall(t)?.second()) {
                moved = true;
                t += 1;
                if wall(t)?.second() == 0 {
                    continue 'wrap;
                }
            }

            return Timestamp::from_second(t).ok();
        }
    }

    /// robfig's `dayMatches`: if either day field is a star, both must match
    /// (so `* * * * mon` is Mondays only); if both are restricted, either may
    /// (so `0 0 1,15 * sun` is the 1st, the 15th and every Sunday).
    fn day_matches(&self, wall: DateTime) -> bool {
        let by_month = has(self.day_of_month, wall.day());
        let by_week = has(self.day_of_week, wall.weekday().to_sunday_zero_offset());
        if (self.day_of_month | self.day_of_week) & STAR != 0 {
            by_month && by_week
        } else {
            by_month || by_week
        }
    }
}

fn civil(zone: &TimeZone, second: i64) -> Option<DateTime> {
    Timestamp::from_second(second)
        .ok()
        .map(|at| zone.to_datetime(at))
}

fn offset_at(zone: &TimeZone, second: i64) -> Option<i64> {
    Timestamp::from_second(second)
        .ok()
        .map(|at| i64::from(zone.to_offset(at).seconds()))
}

/// Go's `time.Date` in `zone`, in Unix seconds. Month and day may run past
/// their ends and are carried over, as Go does. A wall time in a gap or fold
/// resolves the way Go resolves it: the offset is looked up at the wall time
/// read as UTC, then corrected once. That is not jiff's "compatible" rule
/// west of Greenwich, and robfig's DST results depend on it.
fn go_date(zone: &TimeZone, year: i64, month: i64, day: i64, time: Time) -> Option<i64> {
    let months = year.checked_mul(12)?.checked_add(month.checked_sub(1)?)?;
    let year = i16::try_from(months.div_euclid(12)).ok()?;
    let month = i8::try_from(months.rem_euclid(12) + 1).ok()?;
    let days = Span::new().try_days(day.checked_sub(1)?).ok()?;
    let date = Date::new(year, month, 1).ok()?.checked_add(days).ok()?;
    let wall = Offset::UTC
        .to_timestamp(date.to_datetime(time))
        .ok()?
        .as_second();
    let guess = offset_at(zone, wall)?;
    let offset = offset_at(zone, wall.checked_sub(guess)?)?;
    wall.checked_sub(offset)
}

/// Go's `Time.AddDate(0, months, days)` in `zone`.
fn add_date(zone: &TimeZone, t: i64, months: i64, days: i64) -> Option<i64> {
    let w = civil(zone, t)?;
    go_date(
        zone,
        w.year().into(),
        i64::from(w.month()) + months,
        i64::from(w.day()) + days,
        w.time(),
    )
}

/// Go's `t.Unix()`: seconds rounded down, also before 1970.
fn floor_second(at: Timestamp) -> i64 {
    at.as_second() - i64::from(at.subsec_nanosecond() < 0)
}

/// Go's `strconv.Atoi` on 64-bit: an optional sign, then ASCII digits only.
/// An overflow is reported where it happens, before any later bad character.
fn go_atoi(text: &str) -> Result<i64, IntError> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() {
        return Err(IntError::Syntax);
    }
    let mut magnitude: u64 = 0;
    for byte in digits.bytes() {
        if !byte.is_ascii_digit() {
            return Err(IntError::Syntax);
        }
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(byte - b'0')))
            .ok_or(IntError::Range)?;
    }
    if negative {
        0i64.checked_sub_unsigned(magnitude).ok_or(IntError::Range)
    } else {
        i64::try_from(magnitude).map_err(|_| IntError::Range)
    }
}

/// Go's `time.ParseDuration`, in nanoseconds, with Go's error texts (the
/// one parser, in `quantity`; robfig embeds its message as a string).
fn parse_go_duration(text: &str) -> Result<i64, String> {
    crate::quantity::parse_go_duration(text).map_err(|e| e.to_string())
}

/// Go's `strconv.Quote` (and `%q`). Printable characters stay as they are;
/// Go's notion of printable is approximated by "not a control, format,
/// private-use or non-ASCII space character", which is exact for ASCII.
fn strconv_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ if go_printable(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            _ if c < ' ' || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            _ if u32::from(c) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

fn go_printable(c: char) -> bool {
    c == ' '
        || !(c.is_control()
            || c.is_whitespace()
            || matches!(
                c,
                '\u{ad}'
                    | '\u{600}'..='\u{605}'
                    | '\u{61c}'
                    | '\u{6dd}'
                    | '\u{70f}'
                    | '\u{180e}'
                    | '\u{200b}'..='\u{200f}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2060}'..='\u{206f}'
                    | '\u{feff}'
                    | '\u{fff9}'..='\u{fffb}'
                    | '\u{e000}'..='\u{f8ff}'
            ))
}

#[cfg(test)]
mod tests;
