//! Failures and slow requests counted by kind and step, grouped into
//! incidents, and summarised over rounds.

use std::collections::BTreeMap;

use crate::kinds::{Kind, SLOW_SECONDS};
use crate::steps::{Phase, Timeline};

/// One request: when it was sent (epoch seconds), how long it took, and
/// what it failed with.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub sent: f64,
    pub latency: f64,
    pub error: Option<Kind>,
}

impl Sample {
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }
}

/// Failures in a row on one client (no success between them), or one slow
/// success: what the client's user experiences as one outage.
#[derive(Debug, Clone, PartialEq)]
pub struct Incident {
    pub member: usize,
    /// The kind of its first request.
    pub kind: Kind,
    /// The step its first request met.
    pub phase: Phase,
    pub start: f64,
    pub end: f64,
    pub requests: usize,
}

/// The incidents of the client of `member` among requests sent in
/// [`from`, `to`]. Pure.
pub fn incidents(
    member: usize,
    samples: &[Sample],
    timeline: &Timeline,
    from: f64,
    to: f64,
) -> Vec<Incident> {
    let mut out: Vec<Incident> = Vec::new();
    let mut open: Option<Incident> = None;
    for s in samples.iter().filter(|s| s.sent >= from && s.sent <= to) {
        let end = s.sent + s.latency;
        match (&s.error, open.as_mut()) {
            (Some(_), Some(run)) => {
                run.end = end;
                run.requests += 1;
            }
            (Some(kind), None) => {
                open = Some(Incident {
                    member,
                    kind: kind.clone(),
                    phase: timeline.phase(member, s.sent),
                    start: s.sent,
                    end,
                    requests: 1,
                })
            }
            (None, _) => {
                out.extend(open.take());
                if s.latency >= SLOW_SECONDS {
                    out.push(Incident {
                        member,
                        kind: Kind::Slow,
                        phase: timeline.phase(member, s.sent),
                        start: s.sent,
                        end,
                        requests: 1,
                    });
                }
            }
        }
    }
    out.extend(open);
    out
}

/// Counts of one (kind, step) in one round.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cell {
    /// Requests of this kind sent in this step.
    pub requests: usize,
    /// Incidents that began with this kind in this step.
    pub incidents: usize,
    /// Their total duration, seconds.
    pub seconds: f64,
}

/// One round's failures by (kind, step), and the seconds spent in each
/// wall-clock step.
#[derive(Debug, Clone, Default)]
pub struct Breakdown {
    pub cells: BTreeMap<(Kind, Phase), Cell>,
    pub step_seconds: Vec<(&'static str, f64)>,
    /// Every client's incidents, in client order.
    pub incidents: Vec<Incident>,
}

impl Breakdown {
    /// Sorts every failed or slow request of every client. Pure.
    pub fn of(writers: &[Vec<Sample>], timeline: &Timeline, from: f64, to: f64) -> Breakdown {
        let mut cells: BTreeMap<(Kind, Phase), Cell> = BTreeMap::new();
        let mut all = Vec::new();
        for (member, samples) in writers.iter().enumerate() {
            for s in samples.iter().filter(|s| s.sent >= from && s.sent <= to) {
                let kind = match &s.error {
                    Some(k) => k.clone(),
                    None if s.latency >= SLOW_SECONDS => Kind::Slow,
                    None => continue,
                };
                cells
                    .entry((kind, timeline.phase(member, s.sent)))
                    .or_default()
                    .requests += 1;
            }
            for i in incidents(member, samples, timeline, from, to) {
                let cell = cells.entry((i.kind.clone(), i.phase)).or_default();
                cell.incidents += 1;
                cell.seconds += i.end - i.start;
                all.push(i);
            }
        }
        Breakdown {
            cells,
            step_seconds: timeline.step_seconds(),
            incidents: all,
        }
    }

    pub fn failed_incidents(&self) -> usize {
        self.cells
            .iter()
            .filter(|((k, _), _)| *k != Kind::Slow)
            .map(|(_, c)| c.incidents)
            .sum()
    }

    /// Seconds clients spent in failure incidents (slow successes apart).
    pub fn failed_seconds(&self) -> f64 {
        self.cells
            .iter()
            .filter(|((k, _), _)| *k != Kind::Slow)
            .map(|(_, c)| c.seconds)
            // An empty float sum is -0.0, which would print as "-0.0 s".
            .fold(0.0, |a, b| a + b)
    }

    fn seconds_of(&self, step: &str) -> f64 {
        self.step_seconds
            .iter()
            .find(|(s, _)| *s == step)
            .map_or(0.0, |(_, secs)| *secs)
    }
}

/// The median (upper middle for an even count), smallest and largest.
pub fn spread(values: &[f64]) -> (f64, f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let median = v.get(v.len() / 2).copied().unwrap_or(0.0);
    (
        median,
        v.first().copied().unwrap_or(0.0),
        v.last().copied().unwrap_or(0.0),
    )
}

/// "median (min–max)" for counts, or just the median when all rounds agree.
pub fn count_spread(values: &[f64]) -> String {
    let (m, lo, hi) = spread(values);
    if lo == hi {
        format!("{m:.0}")
    } else {
        format!("{m:.0} ({lo:.0}–{hi:.0})")
    }
}

/// A Markdown table of one contender's rounds: every (kind, step) with its
/// failed requests, incidents, incident time and requests per second of
/// the step, medians over the rounds with the range of requests.
pub fn kind_table(rounds: &[Breakdown]) -> String {
    let mut keys: Vec<&(Kind, Phase)> = rounds.iter().flat_map(|r| r.cells.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = String::from(
        "| kind | step met (from the client's member) | requests | incidents | incident time | requests per second of the step |\n|---|---|---|---|---|---|\n",
    );
    for key in keys {
        let cell = |r: &Breakdown| r.cells.get(key).copied().unwrap_or_default();
        let requests: Vec<f64> = rounds.iter().map(|r| cell(r).requests as f64).collect();
        let incidents: Vec<f64> = rounds.iter().map(|r| cell(r).incidents as f64).collect();
        let seconds: Vec<f64> = rounds.iter().map(|r| cell(r).seconds).collect();
        let rates: Vec<f64> = rounds
            .iter()
            .map(|r| {
                let secs = r.seconds_of(key.1.step());
                if secs > 0.0 {
                    cell(r).requests as f64 / secs
                } else {
                    0.0
                }
            })
            .collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} s | {:.1} /s of {} |\n",
            key.0,
            key.1,
            count_spread(&requests),
            count_spread(&incidents),
            spread(&seconds).0,
            spread(&rates).0,
            key.1.step(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::timeline;

    fn ok(sent: f64, latency: f64) -> Sample {
        Sample {
            sent,
            latency,
            error: None,
        }
    }

    fn err(sent: f64, latency: f64, kind: Kind) -> Sample {
        Sample {
            sent,
            latency,
            error: Some(kind),
        }
    }

    /// Member 0 (a follower) defragments from 10 to 20 s.
    fn window() -> Timeline {
        let leadership = [kubectl_etcd_testbed::LoggedLeadership {
            member: 1,
            at: 0.0,
            event: kubectl_etcd_testbed::LeadershipEvent::BecameLeader,
        }];
        timeline(5.0, 30.0, &[(0, 10.0, 20.0)], &leadership, &[])
    }

    #[test]
    fn a_burst_of_failures_is_one_incident_and_a_slow_success_another() {
        let samples = [
            ok(9.0, 0.01),
            err(9.995, 7.0, Kind::Timeout),
            err(17.05, 0.001, Kind::TooManyRequests),
            err(17.1, 0.001, Kind::TooManyRequests),
            ok(17.15, 2.9),
            ok(20.1, 0.01),
            err(40.0, 0.01, Kind::NoLeader),
        ];
        let got = incidents(0, &samples, &window(), 5.0, 30.0);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].kind, Kind::Timeout);
        assert_eq!(got[0].phase, Phase::OwnDefragAsFollower);
        assert_eq!(got[0].requests, 3);
        assert!((got[0].end - got[0].start - 7.106).abs() < 1e-9);
        assert_eq!(got[1].kind, Kind::Slow);
        assert_eq!(got[1].requests, 1);
    }

    #[test]
    fn the_breakdown_counts_requests_and_incidents_per_kind_and_step() {
        let writers = vec![
            vec![
                err(11.0, 7.0, Kind::Timeout),
                err(18.0, 0.001, Kind::TooManyRequests),
                err(18.1, 0.001, Kind::TooManyRequests),
                ok(18.2, 0.01),
            ],
            vec![ok(11.0, 1.5), ok(12.6, 0.01)],
        ];
        let b = Breakdown::of(&writers, &window(), 5.0, 30.0);
        let cell = |k: Kind, p: Phase| b.cells.get(&(k, p)).copied().unwrap_or_default();
        let t = cell(Kind::Timeout, Phase::OwnDefragAsFollower);
        assert_eq!((t.requests, t.incidents), (1, 1));
        let m = cell(Kind::TooManyRequests, Phase::OwnDefragAsFollower);
        assert_eq!((m.requests, m.incidents), (2, 0));
        let slow = cell(Kind::Slow, Phase::OtherDefragFollower);
        assert_eq!((slow.requests, slow.incidents), (1, 1));
        assert_eq!(b.failed_incidents(), 1);
        let table = kind_table(&[b]);
        assert!(
            table.contains("| too many requests | own member defragmenting, as follower | 2 | 0 |")
        );
    }

    #[test]
    fn spreads_take_the_upper_middle() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(spread(&[1.0, 4.0]), (4.0, 1.0, 4.0));
        assert_eq!(count_spread(&[5.0, 5.0]), "5");
        assert_eq!(count_spread(&[5.0, 9.0, 7.0]), "7 (5–9)");
    }
}
