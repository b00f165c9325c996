//! Cron schedules of `EtcdDefragPolicy` (contract §5.12), evaluated exactly
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
/// and uses `now` as the due time (§5.12 step 5: "102 or more due ticks (the
/// catch-up cap is 100)").
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

/// What a policy reconcile should do about its schedule at `now` (§5.12
/// step 5), given `earliest` = `lastScheduleTime`, else `creationTimestamp`.
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

    /// The operator's due computation (§5.12 step 5). Invariant: a `Tick`'s
    /// `at` lies in `(earliest, now]`, and only `Never` ends the search early.
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

/// §5.12 step 6: the tick is skipped (`MissedSchedule`) when strictly more
/// than `deadline_seconds` have passed since it; exactly on the deadline it
/// still runs.
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

/// Go's `time.ParseDuration`, in nanoseconds, with Go's error texts:
/// `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, units ns us µs μs ms s m h, and a bare
/// `0`. Overflow checks follow Go's, including where Go lets a sum wrap.
fn parse_go_duration(text: &str) -> Result<i64, String> {
    const LIMIT: u64 = 1 << 63;
    let invalid = || format!("time: invalid duration {}", time_quote(text));
    let mut rest = text.as_bytes();
    let mut negative = false;
    if let Some((&sign @ (b'-' | b'+'), after)) = rest.split_first() {
        negative = sign == b'-';
        rest = after;
    }
    if rest == b"0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while let Some(&first) = rest.first() {
        if !(first == b'.' || first.is_ascii_digit()) {
            return Err(invalid());
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (whole_digits, after) = rest.split_at(digits);
        let mut whole: u64 = 0;
        for &digit in whole_digits {
            if whole > LIMIT / 10 {
                return Err(invalid());
            }
            whole = whole * 10 + u64::from(digit - b'0');
            if whole > LIMIT {
                return Err(invalid());
            }
        }
        rest = after;

        let (mut fraction, mut scale, mut has_fraction) = (0u64, 1f64, false);
        if let Some((b'.', after)) = rest.split_first() {
            let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
            let (fraction_digits, after) = after.split_at(digits);
            // Go stops gaining precision on overflow instead of failing.
            let mut overflowed = false;
            for &digit in fraction_digits {
                if overflowed || fraction > (LIMIT - 1) / 10 {
                    overflowed = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(digit - b'0');
                if next > LIMIT {
                    overflowed = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            has_fraction = digits > 0;
            rest = after;
        }
        if whole_digits.is_empty() && !has_fraction {
            return Err(invalid());
        }

        let unit_len = rest
            .iter()
            .take_while(|b| **b != b'.' && !b.is_ascii_digit())
            .count();
        if unit_len == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                time_quote(text)
            ));
        }
        let (unit, after) = rest.split_at(unit_len);
        rest = after;
        let unit_nanos: u64 = match unit {
            b"ns" => 1,
            b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    time_quote(&String::from_utf8_lossy(unit)),
                    time_quote(text)
                ))
            }
        };
        if whole > LIMIT / unit_nanos {
            return Err(invalid());
        }
        let mut value = whole * unit_nanos;
        if fraction > 0 {
            value += (fraction as f64 * (unit_nanos as f64 / scale)) as u64;
            if value > LIMIT {
                return Err(invalid());
            }
        }
        total = total.wrapping_add(value);
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        // `total` is at most 2^63 here, whose negation is i64::MIN, as in Go.
        return Ok((total as i64).wrapping_neg());
    }
    i64::try_from(total).map_err(|_| invalid())
}

/// The quoting inside Go's `time` errors: non-ASCII and control characters
/// become `\x` bytes.
fn time_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if !c.is_ascii() || c < ' ' {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "\\x{byte:02x}");
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
mod tests {
    use super::*;

    fn ts(text: &str) -> Timestamp {
        text.parse()
            .unwrap_or_else(|e| panic!("bad test time {text}: {e}"))
    }

    /// Splits a table row `a => b => c`. Nothing is trimmed, so a schedule's
    /// own leading or trailing blanks survive.
    fn row<const N: usize>(line: &str) -> [&str; N] {
        let parts: Vec<&str> = line.split(" => ").collect();
        parts
            .try_into()
            .unwrap_or_else(|_| panic!("row needs {N} parts: {line:?}"))
    }

    /// `never` stands for robfig's zero time.
    fn tick(text: &str) -> Option<Timestamp> {
        (text != "never").then(|| ts(text))
    }

    /// Fixed-rule stand-ins for the tzdb, so DST tests do not depend on the
    /// host. Each rule is the zone's rule in the years the tests use.
    fn fixed_zones(name: &str) -> Result<TimeZone, String> {
        let rule = match name {
            "" | "UTC" | "Local" => return Ok(TimeZone::UTC),
            "America/New_York" => "EST5EDT,M3.2.0,M11.1.0",
            "America/Sao_Paulo" => "<-03>3<-02>,M11.1.0/0,M2.3.0/0",
            "Europe/Berlin" => "CET-1CEST,M3.5.0,M10.5.0/3",
            _ => return Err(format!("unknown time zone {name}")),
        };
        TimeZone::posix(rule).map_err(|e| e.to_string())
    }

    fn parse_fixed(spec: &str) -> Schedule {
        parse_with(spec, &fixed_zones).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    /// robfig's own `TestNext` table uses a seconds-first parser; this builds
    /// the same bits from six fields so those rows can be replayed verbatim.
    fn parse_with_seconds(spec: &str) -> Schedule {
        let (zone, rest) = split_zone(spec, &fixed_zones).unwrap();
        let f: Vec<&str> = rest.split_whitespace().collect();
        assert_eq!(f.len(), 6, "{spec}");
        Schedule {
            kind: Kind::Fields(Fields {
                second: parse_field(f[0], &MINUTES).unwrap(), // same 0-59 bounds
                minute: parse_field(f[1], &MINUTES).unwrap(),
                hour: parse_field(f[2], &HOURS).unwrap(),
                day_of_month: parse_field(f[3], &DAYS_OF_MONTH).unwrap(),
                month: parse_field(f[4], &MONTHS).unwrap(),
                day_of_week: parse_field(f[5], &DAYS_OF_WEEK).unwrap(),
                zone,
            }),
        }
    }

    fn set(values: &[u64]) -> u64 {
        values.iter().fold(0, |acc, v| acc | 1 << v)
    }

    #[test]
    fn field_forms_expand_to_robfig_bits() {
        let all_minutes = bits(0, 59, 1);
        let odd_days: Vec<u64> = (1..=31).step_by(2).collect();
        let cases: &[(&str, &Bounds, u64)] = &[
            ("5", &MINUTES, set(&[5])),
            ("0", &MINUTES, set(&[0])),
            ("+5", &MINUTES, set(&[5])),
            ("5-7", &MINUTES, set(&[5, 6, 7])),
            ("5-5", &MINUTES, set(&[5])),
            ("5-7/2", &MINUTES, set(&[5, 7])),
            ("5-7/1", &MINUTES, set(&[5, 6, 7])),
            ("5/20", &MINUTES, set(&[5, 25, 45])),
            ("*", &MINUTES, all_minutes | STAR),
            ("?", &MINUTES, all_minutes | STAR),
            ("*/1", &MINUTES, all_minutes | STAR),
            ("*/15", &MINUTES, set(&[0, 15, 30, 45])),
            ("?/30", &MINUTES, set(&[0, 30])),
            ("*/100", &MINUTES, set(&[0])),
            ("*-5", &MINUTES, all_minutes | STAR),
            ("1,5-7/2,3", &MINUTES, set(&[1, 3, 5, 7])),
            (",,5,", &MINUTES, set(&[5])),
            (",", &MINUTES, 0),
            ("*/2", &DAYS_OF_MONTH, set(&odd_days)),
            ("jan", &MONTHS, set(&[1])),
            ("JAN-Mar", &MONTHS, set(&[1, 2, 3])),
            ("nov,DEC", &MONTHS, set(&[11, 12])),
            ("*/3", &MONTHS, set(&[1, 4, 7, 10])),
            ("0", &DAYS_OF_WEEK, set(&[0])),
            ("sun", &DAYS_OF_WEEK, set(&[0])),
            ("Mon-Fri", &DAYS_OF_WEEK, set(&[1, 2, 3, 4, 5])),
            ("sat,SUN", &DAYS_OF_WEEK, set(&[0, 6])),
            ("mon/2", &DAYS_OF_WEEK, set(&[1, 3, 5])),
        ];
        for (expr, bounds, expected) in cases {
            assert_eq!(parse_field(expr, bounds), Ok(*expected), "{expr}");
        }
    }

    #[test]
    fn descriptors_expand_to_robfig_bits() {
        let Kind::Fields(daily) = parse_fixed("@daily").kind else {
            panic!("@daily is a field schedule")
        };
        assert_eq!((daily.second, daily.minute, daily.hour), (1, 1, 1));
        assert_eq!(daily.day_of_month, bits(1, 31, 1) | STAR);
        assert_eq!(daily.day_of_week, bits(0, 6, 1) | STAR);
        let Kind::Fields(yearly) = parse_fixed("@yearly").kind else {
            panic!("@yearly is a field schedule")
        };
        assert_eq!((yearly.day_of_month, yearly.month), (1 << 1, 1 << 1));
    }

    /// Five-field schedules and descriptors, evaluated in UTC:
    /// `schedule => after => next`.
    #[test]
    fn next_after_table() {
        let rows = [
            // every field form
            "*/15 * * * * => 2024-06-01T10:07:00Z => 2024-06-01T10:15:00Z",
            "5/20 * * * * => 2024-06-01T10:46:00Z => 2024-06-01T11:05:00Z",
            "10-20/5 * * * * => 2024-06-01T10:16:00Z => 2024-06-01T10:20:00Z",
            "10-20/5 * * * * => 2024-06-01T10:20:00Z => 2024-06-01T11:10:00Z",
            "0,30 9-17 * * * => 2024-06-01T17:30:00Z => 2024-06-02T09:00:00Z",
            "0 0 * jul * => 2024-06-01T00:00:00Z => 2024-07-01T00:00:00Z",
            "0 0 1 JAN-MAR * => 2024-04-01T00:00:00Z => 2025-01-01T00:00:00Z",
            "0 0 ? * * => 2024-06-01T00:00:00Z => 2024-06-02T00:00:00Z",
            "0 0 * * ? => 2024-06-01T00:00:00Z => 2024-06-02T00:00:00Z",
            // strictly after, with sub-seconds dropped first
            "0 3 * * * => 2024-06-01T02:59:59.999Z => 2024-06-01T03:00:00Z",
            "0 3 * * * => 2024-06-01T03:00:00Z => 2024-06-02T03:00:00Z",
            "0 3 * * * => 2024-06-01T03:00:00.5Z => 2024-06-02T03:00:00Z",
            "* * * * * => 2024-06-01T10:00:59.9Z => 2024-06-01T10:01:00Z",
            // Sunday is 0 (2024-06-03 is a Monday)
            "0 0 * * 0 => 2024-06-03T00:00:00Z => 2024-06-09T00:00:00Z",
            "0 0 * * SUN => 2024-06-03T00:00:00Z => 2024-06-09T00:00:00Z",
            "0 0 * * mon-fri => 2024-06-07T00:00:00Z => 2024-06-10T00:00:00Z",
            // a star in either day field: both must match
            "0 0 * * mon => 2024-06-04T00:00:00Z => 2024-06-10T00:00:00Z",
            "0 0 13 * * => 2024-06-14T00:00:00Z => 2024-07-13T00:00:00Z",
            "0 0 13 * ? => 2024-06-14T00:00:00Z => 2024-07-13T00:00:00Z",
            "0 0 *-5 * mon => 2024-06-04T00:00:00Z => 2024-06-10T00:00:00Z",
            // both restricted: either matches (Friday the 7th, then the 13th)
            "0 0 13 * fri => 2024-06-06T00:00:00Z => 2024-06-07T00:00:00Z",
            "0 0 13 * fri => 2024-06-07T00:00:00Z => 2024-06-13T00:00:00Z",
            // a stepped star is restricted (robfig #70): odd days or Sundays
            "0 0 */10 * sun => 2024-06-03T00:00:00Z => 2024-06-09T00:00:00Z",
            "0 0 */10 * sun => 2024-06-09T00:00:00Z => 2024-06-11T00:00:00Z",
            // month ends and leap years
            "0 0 31 * * => 2024-04-01T00:00:00Z => 2024-05-31T00:00:00Z",
            "0 0 30 * * => 2024-02-01T00:00:00Z => 2024-03-30T00:00:00Z",
            "59 23 31 12 * => 2024-06-01T00:00:00Z => 2024-12-31T23:59:00Z",
            "0 0 29 2 * => 2023-03-01T00:00:00Z => 2024-02-29T00:00:00Z",
            "0 0 29 2 * => 1999-01-01T00:00:00Z => 2000-02-29T00:00:00Z",
            "0 0 29 2 * => 2099-03-01T00:00:00Z => 2104-02-29T00:00:00Z",
            // 2100 is no leap year, and 2104 is past the five-year horizon
            "0 0 29 2 * => 2096-03-01T00:00:00Z => never",
            "0 0 30 2 * => 2024-01-01T00:00:00Z => never",
            "0 0 31 apr,jun,sep,nov * => 2024-01-01T00:00:00Z => never",
            "0 0 , * * => 2024-01-01T00:00:00Z => never",
            // descriptors
            "@yearly => 2024-06-01T00:00:00Z => 2025-01-01T00:00:00Z",
            "@annually => 2024-12-31T23:59:59Z => 2025-01-01T00:00:00Z",
            "@monthly => 2024-01-31T12:00:00Z => 2024-02-01T00:00:00Z",
            "@weekly => 2024-06-05T00:00:00Z => 2024-06-09T00:00:00Z",
            "@daily => 2024-06-01T00:00:00Z => 2024-06-02T00:00:00Z",
            "@midnight => 2024-02-28T23:00:00Z => 2024-02-29T00:00:00Z",
            "@hourly => 2024-06-01T10:59:59.9Z => 2024-06-01T11:00:00Z",
            // @every: whole seconds after the truncated start, at least 1s
            "@every 1h30m => 2024-06-01T10:00:00.7Z => 2024-06-01T11:30:00Z",
            "@every 1.5h => 2024-06-01T10:00:00Z => 2024-06-01T11:30:00Z",
            "@every 90s => 2024-06-01T10:00:00Z => 2024-06-01T10:01:30Z",
            "@every 2.9s => 2024-06-01T10:00:00Z => 2024-06-01T10:00:02Z",
            "@every 500ms => 2024-06-01T10:00:00.2Z => 2024-06-01T10:00:01Z",
            "@every 0 => 2024-06-01T10:00:00Z => 2024-06-01T10:00:01Z",
            "@every -5m => 2024-06-01T10:00:00Z => 2024-06-01T10:00:01Z",
            "@every 1µs => 2024-06-01T10:00:00Z => 2024-06-01T10:00:01Z",
            // the longest Go duration: 2562047h is 292 years
            "@every 2562047h => 2024-06-01T10:00:00Z => 2316-09-11T09:00:00Z",
            // zone prefixes that name UTC, and blanks anywhere
            "CRON_TZ=UTC 0 3 * * * => 2024-06-01T05:00:00Z => 2024-06-02T03:00:00Z",
            "TZ=UTC   0 3 * * * => 2024-06-01T05:00:00Z => 2024-06-02T03:00:00Z",
            "TZ= 0 3 * * * => 2024-06-01T05:00:00Z => 2024-06-02T03:00:00Z",
            "TZ=Local 0 3 * * * => 2024-06-01T05:00:00Z => 2024-06-02T03:00:00Z",
            "  0   3 * *\t*  => 2024-06-01T05:00:00Z => 2024-06-02T03:00:00Z",
        ];
        for line in rows {
            let [spec, after, expected] = row(line);
            let schedule = Schedule::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(schedule.next_after(ts(after)), tick(expected), "{line}");
        }
    }

    /// Rows of robfig's own `TestNext` (spec_test.go, six fields with
    /// seconds), replayed: `after => schedule => next`. Its zone-less rows run
    /// in Go's Local zone; here that is UTC.
    #[test]
    fn next_after_replays_robfig_test_next() {
        let rows = [
            "2012-07-09T14:45:00Z => 0 0/15 * * * * => 2012-07-09T15:00:00Z",
            "2012-07-09T14:59:00Z => 0 0/15 * * * * => 2012-07-09T15:00:00Z",
            "2012-07-09T14:59:59Z => 0 0/15 * * * * => 2012-07-09T15:00:00Z",
            "2012-07-09T15:45:00Z => 0 20-35/15 * * * * => 2012-07-09T16:20:00Z",
            "2012-07-09T23:46:00Z => 0 */15 * * * * => 2012-07-10T00:00:00Z",
            "2012-07-09T23:45:00Z => 0 20-35/15 * * * * => 2012-07-10T00:20:00Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 * * * * => 2012-07-10T00:20:15Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 1/2 * * * => 2012-07-10T01:20:15Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 10-12 * * * => 2012-07-10T10:20:15Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 1/2 */2 * * => 2012-07-11T01:20:15Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 * 9-20 * * => 2012-07-10T00:20:15Z",
            "2012-07-09T23:35:51Z => 15/35 20-35/15 * 9-20 Jul * => 2012-07-10T00:20:15Z",
            "2012-07-09T23:35:00Z => 0 0 0 9 Apr-Oct ? => 2012-08-09T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 */5 Apr,Aug,Oct Mon => 2012-08-01T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 */5 Oct Mon => 2012-10-01T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 * Feb Mon => 2013-02-04T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 * Feb Mon/2 => 2013-02-01T00:00:00Z",
            "2012-12-31T23:59:45Z => 0 * * * * * => 2013-01-01T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 29 Feb ? => 2016-02-29T00:00:00Z",
            "2012-07-09T23:35:00Z => 0 0 0 30 Feb ? => never",
            "2012-07-09T23:35:00Z => 0 0 0 31 Apr ? => never",
            // New York spring forward: 2am EST -> 3am EDT
            "2012-03-11T00:00:00-05:00 => TZ=America/New_York 0 30 2 11 Mar ? => 2013-03-11T02:30:00-04:00",
            "2012-03-11T00:00:00-05:00 => TZ=America/New_York 0 0 * * * ? => 2012-03-11T01:00:00-05:00",
            "2012-03-11T01:00:00-05:00 => TZ=America/New_York 0 0 * * * ? => 2012-03-11T03:00:00-04:00",
            "2012-03-11T03:00:00-04:00 => TZ=America/New_York 0 0 * * * ? => 2012-03-11T04:00:00-04:00",
            "2012-03-11T04:00:00-04:00 => TZ=America/New_York 0 0 * * * ? => 2012-03-11T05:00:00-04:00",
            "2012-03-11T01:00:00-05:00 => CRON_TZ=America/New_York 0 0 * * * ? => 2012-03-11T03:00:00-04:00",
            "2012-03-11T00:00:00-05:00 => TZ=America/New_York 0 0 1 * * ? => 2012-03-11T01:00:00-05:00",
            "2012-03-11T01:00:00-05:00 => TZ=America/New_York 0 0 1 * * ? => 2012-03-12T01:00:00-04:00",
            "2012-03-11T00:00:00-05:00 => TZ=America/New_York 0 0 2 * * ? => 2012-03-12T02:00:00-04:00",
            // New York fall back: 2am EDT -> 1am EST
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 30 2 04 Nov ? => 2012-11-04T02:30:00-05:00",
            "2012-11-04T01:45:00-04:00 => TZ=America/New_York 0 30 1 04 Nov ? => 2012-11-04T01:30:00-05:00",
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 0 * * * ? => 2012-11-04T01:00:00-04:00",
            "2012-11-04T01:00:00-04:00 => TZ=America/New_York 0 0 * * * ? => 2012-11-04T01:00:00-05:00",
            "2012-11-04T01:00:00-05:00 => TZ=America/New_York 0 0 * * * ? => 2012-11-04T02:00:00-05:00",
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 0 1 * * ? => 2012-11-04T01:00:00-04:00",
            "2012-11-04T01:00:00-04:00 => TZ=America/New_York 0 0 1 * * ? => 2012-11-04T01:00:00-05:00",
            "2012-11-04T01:00:00-05:00 => TZ=America/New_York 0 0 1 * * ? => 2012-11-05T01:00:00-05:00",
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 0 2 * * ? => 2012-11-04T02:00:00-05:00",
            "2012-11-04T02:00:00-05:00 => TZ=America/New_York 0 0 2 * * ? => 2012-11-05T02:00:00-05:00",
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 0 3 * * ? => 2012-11-04T03:00:00-05:00",
            "2012-11-04T03:00:00-05:00 => TZ=America/New_York 0 0 3 * * ? => 2012-11-05T03:00:00-05:00",
            "2012-11-04T00:00:00-04:00 => TZ=America/New_York 0 0 3 3 * ? => 2012-12-03T03:00:00-05:00",
            // a midnight that does not exist (robfig #157)
            "2018-10-17T05:00:00-04:00 => TZ=America/Sao_Paulo 0 0 9 10 * ? => 2018-11-10T06:00:00-05:00",
            "2018-02-14T05:00:00-05:00 => TZ=America/Sao_Paulo 0 0 9 22 * ? => 2018-02-22T07:00:00-05:00",
        ];
        for line in rows {
            let [after, spec, expected] = row(line);
            let next = parse_with_seconds(spec).next_after(ts(after));
            assert_eq!(next, tick(expected), "{line}");
        }
    }

    /// Berlin's DST changes, five fields: a wall time in the spring gap is
    /// skipped that day, one in the autumn fold fires twice (robfig's result).
    #[test]
    fn zoned_schedule_across_dst() {
        let rows = [
            "CRON_TZ=Europe/Berlin 30 2 * * * => 2024-03-30T02:30:00+01:00 => 2024-04-01T02:30:00+02:00",
            "CRON_TZ=Europe/Berlin 30 2 * * * => 2024-10-27T00:00:00+02:00 => 2024-10-27T02:30:00+02:00",
            "CRON_TZ=Europe/Berlin 30 2 * * * => 2024-10-27T02:30:00+02:00 => 2024-10-27T02:30:00+01:00",
            "CRON_TZ=Europe/Berlin 30 2 * * * => 2024-10-27T02:30:00+01:00 => 2024-10-28T02:30:00+01:00",
            "TZ=Europe/Berlin @daily => 2024-06-01T12:00:00Z => 2024-06-01T22:00:00Z",
            // @every keeps no zone, so the lost hour is not skipped
            "CRON_TZ=Europe/Berlin @every 1h => 2024-03-31T00:30:00Z => 2024-03-31T01:30:00Z",
        ];
        for line in rows {
            let [spec, after, expected] = row(line);
            assert_eq!(
                parse_fixed(spec).next_after(ts(after)),
                tick(expected),
                "{line}"
            );
        }
    }

    /// No schedule consults the process's zone: without a prefix the operator's
    /// `CRON_TZ=UTC ` applies, and `TZ=Local` is pinned to UTC, so these hold
    /// whatever TZ the test process runs with.
    #[test]
    fn evaluated_in_utc_whatever_the_process_tz() {
        for spec in ["0 3 * * *", "CRON_TZ=UTC 0 3 * * *", "TZ=Local 0 3 * * *"] {
            let schedule = Schedule::parse(spec).unwrap();
            let Kind::Fields(fields) = &schedule.kind else {
                panic!("{spec} is a field schedule")
            };
            assert_eq!(fields.zone, TimeZone::UTC, "{spec}");
            let next = schedule.next_after(ts("2024-06-01T03:00:00Z"));
            assert_eq!(next, Some(ts("2024-06-02T03:00:00Z")), "{spec}");
        }
        // A named zone does move the tick: 03:00 CEST is 01:00 UTC.
        let berlin = parse_fixed("CRON_TZ=Europe/Berlin 0 3 * * *");
        let next = berlin.next_after(ts("2024-06-01T03:00:00Z"));
        assert_eq!(next, Some(ts("2024-06-02T01:00:00Z")));
    }

    /// Named zones come from the host tzdb, as in Go; where it lacks the zone
    /// the error names it.
    #[test]
    fn named_zone_from_the_host_tzdb_or_an_error_naming_it() {
        let parsed = Schedule::parse("CRON_TZ=America/New_York 0 * * * *");
        if jiff::tz::db().get("America/New_York").is_ok() {
            let next = parsed.unwrap().next_after(ts("2012-03-11T01:00:00-05:00"));
            assert_eq!(next, Some(ts("2012-03-11T03:00:00-04:00")));
        } else {
            assert_eq!(
                parsed.unwrap_err().to_string(),
                "provided bad location America/New_York: unknown time zone America/New_York"
            );
        }
    }

    /// `schedule => robfig's message`.
    #[test]
    fn invalid_schedules_give_robfig_messages() {
        let rows = [
            "0 0 * * * * => expected exactly 5 fields, found 6: [0 0 * * * *]",
            "* * * * => expected exactly 5 fields, found 4: [* * * *]",
            " => expected exactly 5 fields, found 0: []",
            "    => expected exactly 5 fields, found 0: []",
            " TZ=UTC 0 3 * * * => expected exactly 5 fields, found 6: [TZ=UTC 0 3 * * *]",
            "0 3 * * * TZ=UTC => expected exactly 5 fields, found 6: [0 3 * * * TZ=UTC]",
            // robfig panics on a zone with no space after it; we read no fields
            "TZ=UTC => expected exactly 5 fields, found 0: []",
            "0-60 * * * * => end of range (60) above maximum (59): 0-60",
            "60 * * * * => end of range (60) above maximum (59): 60",
            "0 24 * * * => end of range (24) above maximum (23): 24",
            "0 0 32 * * => end of range (32) above maximum (31): 32",
            "0 0 0 * * => beginning of range (0) below minimum (1): 0",
            "0 0 * 13 * => end of range (13) above maximum (12): 13",
            "0 0 * 0 * => beginning of range (0) below minimum (1): 0",
            // Sunday is 0 only
            "0 0 * * 7 => end of range (7) above maximum (6): 7",
            "0 0 * * 5-7 => end of range (7) above maximum (6): 5-7",
            "5-3 * * * * => beginning of range (5) beyond end of range (3): 5-3",
            "70/5 * * * * => beginning of range (70) beyond end of range (59): 70/5",
            "0 0 * dec-jan * => beginning of range (12) beyond end of range (1): dec-jan",
            "*/0 * * * * => step of range should be a positive number: */0",
            "1-2-3 * * * * => too many hyphens: 1-2-3",
            "*/2/3 * * * * => too many slashes: */2/3",
            r#"x * * * * => failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax"#,
            r#"x-1-2 * * * * => failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax"#,
            r#"-1 * * * * => failed to parse int from : strconv.Atoi: parsing "": invalid syntax"#,
            r#"*/ * * * * => failed to parse int from : strconv.Atoi: parsing "": invalid syntax"#,
            r#"1.5 * * * * => failed to parse int from 1.5: strconv.Atoi: parsing "1.5": invalid syntax"#,
            "*/-1 * * * * => negative number (-1) not allowed: -1",
            r#"99999999999999999999 * * * * => failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range"#,
            r#"9223372036854775808 * * * * => failed to parse int from 9223372036854775808: strconv.Atoi: parsing "9223372036854775808": value out of range"#,
            "9223372036854775807 * * * * => end of range (9223372036854775807) above maximum (59): 9223372036854775807",
            r#"0 0 * * monday => failed to parse int from monday: strconv.Atoi: parsing "monday": invalid syntax"#,
            r#"0 0 * janu * => failed to parse int from janu: strconv.Atoi: parsing "janu": invalid syntax"#,
            // names belong to their own field, and steps take no names
            r#"0 0 jan * * => failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax"#,
            r#"0 0 * 1/jan * => failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax"#,
            // the first bad field wins, minute first
            r#"x y * * * => failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax"#,
            "@foo => unrecognized descriptor: @foo",
            "@Daily => unrecognized descriptor: @Daily",
            "@every => unrecognized descriptor: @every",
            "@every  => unrecognized descriptor: @every",
            "@every1h => unrecognized descriptor: @every1h",
            r#"@every 1x => failed to parse duration @every 1x: time: unknown unit "x" in duration "1x""#,
            r#"@every 1 => failed to parse duration @every 1: time: missing unit in duration "1""#,
            r#"@every x => failed to parse duration @every x: time: invalid duration "x""#,
            r#"@every 1d => failed to parse duration @every 1d: time: unknown unit "d" in duration "1d""#,
            r#"@every 1e3s => failed to parse duration @every 1e3s: time: unknown unit "e" in duration "1e3s""#,
            r#"@every .s => failed to parse duration @every .s: time: invalid duration ".s""#,
            r#"@every 1h 30m => failed to parse duration @every 1h 30m: time: unknown unit "h " in duration "1h 30m""#,
            r#"@every 2562048h => failed to parse duration @every 2562048h: time: invalid duration "2562048h""#,
            "CRON_TZ=Nowhere/Atlantis 0 3 * * * => provided bad location Nowhere/Atlantis: unknown time zone Nowhere/Atlantis",
            // Go finds zones by file name, so case matters
            "CRON_TZ=america/new_york 0 3 * * * => provided bad location america/new_york: unknown time zone america/new_york",
            "CRON_TZ=utc 0 3 * * * => provided bad location utc: unknown time zone utc",
            "TZ=../etc/passwd 0 3 * * * => provided bad location ../etc/passwd: time: invalid location name",
            "TZ=/etc/localtime 0 3 * * * => provided bad location /etc/localtime: time: invalid location name",
        ];
        for line in rows {
            let [spec, message] = row(line);
            match Schedule::parse(spec) {
                Ok(_) => panic!("{spec:?} parsed"),
                Err(e) => assert_eq!(e.to_string(), message, "{spec:?}"),
            }
        }
    }

    /// `schedule => condition message`; `\x01` in a row is the control
    /// character itself in the schedule (it is no blank, so it stays a field).
    #[test]
    fn invalid_schedule_message_quotes_like_go() {
        let rows = [
            r#"0 0 * * 7 => cannot parse schedule "0 0 * * 7": end of range (7) above maximum (6): 7"#,
            r#"0 0 * * "x" => cannot parse schedule "0 0 * * \"x\"": failed to parse int from "x": strconv.Atoi: parsing "\"x\"": invalid syntax"#,
            r#"0 0 * * \x01 => cannot parse schedule "0 0 * * \x01": failed to parse int from \x01: strconv.Atoi: parsing "\x01": invalid syntax"#,
            r#"@every 1é => cannot parse schedule "@every 1é": failed to parse duration @every 1é: time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#,
        ];
        for line in rows {
            let [spec, expected] = row(line);
            let spec = spec.replace(r"\x01", "\u{1}");
            let error = Schedule::parse(&spec).unwrap_err();
            // The error text carries the raw character; show it as the row does.
            let message = invalid_schedule_message(&spec, &error).replace('\u{1}', r"\x01");
            assert_eq!(message, expected, "{spec:?}");
        }
    }

    #[test]
    fn go_duration_parser_table() {
        let ok: &[(&str, i64)] = &[
            ("0", 0),
            ("-0", 0),
            ("+0", 0),
            ("5s", 5_000_000_000),
            ("+5s", 5_000_000_000),
            ("-5s", -5_000_000_000),
            ("1h30m", 5_400_000_000_000),
            ("1.5h", 5_400_000_000_000),
            (".5s", 500_000_000),
            ("1.s", 1_000_000_000),
            ("100ms", 100_000_000),
            ("1us", 1_000),
            ("1µs", 1_000),
            ("1μs", 1_000),
            ("3ns", 3),
            ("1h1m1s1ms1us1ns", 3_661_001_001_001),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
        ];
        for (text, nanos) in ok {
            assert_eq!(parse_go_duration(text), Ok(*nanos), "{text:?}");
        }
        let rows = [
            r#"9223372036854775808ns => time: invalid duration "9223372036854775808ns""#,
            r#" => time: invalid duration """#,
            r#"- => time: invalid duration "-""#,
            r#"00 => time: missing unit in duration "00""#,
            r#"1.5 => time: missing unit in duration "1.5""#,
            r#"s => time: invalid duration "s""#,
            r#"1S => time: unknown unit "S" in duration "1S""#,
        ];
        for line in rows {
            let [text, message] = row(line);
            assert_eq!(
                parse_go_duration(text),
                Err(message.to_string()),
                "{text:?}"
            );
        }
    }

    /// `earliest => now => outcome` for a daily 03:00 UTC schedule.
    #[test]
    fn due_table() {
        let daily = Schedule::parse("0 3 * * *").unwrap();
        let tick = |at: &str, ticks: usize| Due::Tick {
            at: ts(at),
            ticks,
            capped: false,
        };
        let cases = [
            // the next tick is still ahead: requeue for it
            (
                "2024-06-01T03:00:00Z => 2024-06-01T12:00:00Z",
                Due::NotYet {
                    next: ts("2024-06-02T03:00:00Z"),
                },
            ),
            // a tick exactly at now is due
            (
                "2024-06-01T03:00:00Z => 2024-06-02T03:00:00Z",
                tick("2024-06-02T03:00:00Z", 1),
            ),
            // created mid-second, just before the tick
            (
                "2024-06-01T02:59:59.5Z => 2024-06-01T03:00:30Z",
                tick("2024-06-01T03:00:00Z", 1),
            ),
            // suspended over three ticks, then resumed: one catch-up, the latest
            (
                "2024-06-01T03:00:00Z => 2024-06-04T12:00:00Z",
                tick("2024-06-04T03:00:00Z", 3),
            ),
        ];
        for (line, expected) in cases {
            let [earliest, now] = row(line);
            assert_eq!(daily.due(ts(earliest), ts(now)), expected, "{line}");
        }

        // 101 due ticks are walked; the 102nd makes the due time `now`
        let minutely = Schedule::parse("* * * * *").unwrap();
        let start = ts("2024-06-01T00:00:00Z");
        let walked = minutely.due(start, ts("2024-06-01T01:41:00Z"));
        assert_eq!(walked, tick("2024-06-01T01:41:00Z", 101));
        for now in ["2024-06-01T01:42:30Z", "2030-01-01T00:00:00Z"] {
            let capped = Due::Tick {
                at: ts(now),
                ticks: BACKLOG_LIMIT,
                capped: true,
            };
            assert_eq!(minutely.due(start, ts(now)), capped, "{now}");
        }

        let every = Schedule::parse("@every 1h").unwrap();
        let due = every.due(ts("2024-06-01T10:00:00.7Z"), ts("2024-06-01T12:30:00Z"));
        assert_eq!(due, tick("2024-06-01T12:00:00Z", 2));

        let never = Schedule::parse("0 0 30 2 *").unwrap();
        assert_eq!(never.due(start, ts("2030-01-01T00:00:00Z")), Due::Never);
    }

    #[test]
    fn requeue_waits_at_least_a_second() {
        let now = ts("2024-06-01T10:00:00Z");
        let cases = [
            ("2024-06-01T10:01:30Z", Duration::from_secs(90)),
            ("2024-06-01T10:00:01.5Z", Duration::from_millis(1500)),
            ("2024-06-01T10:00:00.2Z", Duration::from_secs(1)),
            ("2024-06-01T10:00:00Z", Duration::from_secs(1)),
            ("2024-06-01T09:00:00Z", Duration::from_secs(1)),
        ];
        for (next, expected) in cases {
            assert_eq!(requeue_after(ts(next), now), expected, "{next}");
        }
    }

    #[test]
    fn starting_deadline_is_exclusive() {
        let tick = ts("2024-06-01T03:00:00Z");
        let cases = [
            ("2024-06-01T03:01:40Z", 100, false),
            ("2024-06-01T03:01:40.000000001Z", 100, true),
            ("2024-06-01T03:00:00Z", 0, false),
            ("2024-06-01T03:00:00.5Z", 0, true),
            ("2024-06-04T12:00:00Z", 86_400, true),
        ];
        for (now, deadline, expected) in cases {
            let past = past_starting_deadline(tick, ts(now), deadline);
            assert_eq!(past, expected, "{now} {deadline}s");
        }
    }

    #[test]
    fn go_date_normalises_and_resolves_gaps_like_go() {
        let midnight = |y, m, d| go_date(&TimeZone::UTC, y, m, d, Time::midnight());
        let second = |text: &str| Some(ts(text).as_second());
        assert_eq!(midnight(2024, 13, 1), second("2025-01-01T00:00:00Z"));
        assert_eq!(midnight(2024, 2, 30), second("2024-03-01T00:00:00Z"));
        assert_eq!(midnight(2024, 1, 0), second("2023-12-31T00:00:00Z"));
        // In a spring gap Go lands on 01:30 EST in New York (jiff's own
        // rule would give 03:30 EDT) but on 03:30 CEST in Berlin.
        let half_past_two = Time::new(2, 30, 0, 0).unwrap();
        let ny = fixed_zones("America/New_York").unwrap();
        let in_ny = go_date(&ny, 2024, 3, 10, half_past_two);
        assert_eq!(in_ny, second("2024-03-10T01:30:00-05:00"));
        let berlin = fixed_zones("Europe/Berlin").unwrap();
        let in_berlin = go_date(&berlin, 2024, 3, 31, half_past_two);
        assert_eq!(in_berlin, second("2024-03-31T03:30:00+02:00"));
    }
}
