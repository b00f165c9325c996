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
