//! The sweep as a series of steps, rebuilt from etcd's own logs and from
//! each member's commit/apply progress, so every tool is accounted for the
//! same way; and each client request placed in the step it met.
//!
//! Phases, from the point of view of a client pinned to member `w`:
//! - its own member defragmenting (as leader, or as follower);
//! - its own member catching up: from the end of its defrag until its
//!   applied index is back within `CAUGHT_UP` entries of its committed
//!   index (a tool that starts the next member at once leaves it catching
//!   up during that member's defrag);
//! - a leadership transfer in flight (from the old leader's "transfer
//!   starting" record to the new leader's "became leader");
//! - another member defragmenting (the leader, or a follower);
//! - another member catching up;
//! - between steps (the tool's own checks and waits).
//!
//! A request belongs to the step in progress when it was sent; each step
//! starts `LEAD_IN` seconds before etcd logged it, so a request already in
//! flight when the step began is counted with it.

use std::fmt;

use kubectl_etcd_testbed::{LeadershipEvent, LoggedLeadership};

/// A member is caught up again once its apply backlog is at most this.
pub const CAUGHT_UP: u64 = 100;
/// How far before etcd's log record a step is taken to begin: a write in
/// flight when the Defragment call arrived waits for it, and etcd logs the
/// start only once it has the backend's locks (measured: up to 30 ms).
pub const LEAD_IN: f64 = 0.1;

/// One Status sample of one member: when, its committed and applied index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub member: usize,
    pub at: f64,
    pub committed: u64,
    pub applied: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    OwnDefragAsLeader,
    OwnDefragAsFollower,
    OwnCatchUp,
    Transfer,
    OtherDefragLeader,
    OtherDefragFollower,
    OtherCatchUp,
    Between,
}

impl Phase {
    /// The wall-clock phase the client-relative phase belongs to, for
    /// per-second rates: "own" and "other" halves of one step share it.
    pub fn step(self) -> &'static str {
        match self {
            Phase::OwnDefragAsLeader | Phase::OtherDefragLeader => "leader defragmenting",
            Phase::OwnDefragAsFollower | Phase::OtherDefragFollower => "follower defragmenting",
            Phase::OwnCatchUp | Phase::OtherCatchUp => "catching up",
            Phase::Transfer => "transfer",
            Phase::Between => "between steps",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::OwnDefragAsLeader => "own member defragmenting, as leader",
            Phase::OwnDefragAsFollower => "own member defragmenting, as follower",
            Phase::OwnCatchUp => "own member catching up after its defrag",
            Phase::Transfer => "leadership transfer in flight",
            Phase::OtherDefragLeader => "the leader defragmenting",
            Phase::OtherDefragFollower => "another follower defragmenting",
            Phase::OtherCatchUp => "another member catching up",
            Phase::Between => "between steps",
        })
    }
}

/// A member's defragmentation as logged, with its role when it began.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defrag {
    pub member: usize,
    pub start: f64,
    pub end: f64,
    pub as_leader: bool,
    /// When its apply backlog was back within `CAUGHT_UP` (or the window
    /// ended).
    pub caught_up: f64,
    /// Its apply backlog in the first sample after the defrag ended.
    pub backlog_after: Option<u64>,
}

/// The steps of one contender's sweep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub defrags: Vec<Defrag>,
    /// (start, end, from member, to member).
    pub transfers: Vec<(f64, f64, usize, Option<usize>)>,
    pub from: f64,
    pub to: f64,
}

/// The leader at `at` by the log: the last member to have become leader.
pub fn leader_at(leadership: &[LoggedLeadership], at: f64) -> Option<usize> {
    leadership
        .iter()
        .filter(|e| e.event == LeadershipEvent::BecameLeader && e.at <= at)
        .max_by(|a, b| a.at.total_cmp(&b.at))
        .map(|e| e.member)
}

/// Builds the timeline of [`from`, `to`] from logged defrags (member,
/// start, end), leadership records and progress samples. Pure.
pub fn timeline(
    from: f64,
    to: f64,
    logged: &[(usize, f64, f64)],
    leadership: &[LoggedLeadership],
    progress: &[Progress],
) -> Timeline {
    let mut transfers = Vec::new();
    for e in leadership
        .iter()
        .filter(|e| e.event == LeadershipEvent::TransferStarting && e.at >= from && e.at <= to)
    {
        let done = leadership
            .iter()
            .filter(|b| b.event == LeadershipEvent::BecameLeader && b.at >= e.at)
            .min_by(|a, b| a.at.total_cmp(&b.at));
        transfers.push((
            e.at,
            done.map_or(e.at, |b| b.at),
            e.member,
            done.map(|b| b.member),
        ));
    }
    let mut sorted: Vec<(usize, f64, f64)> = logged.to_vec();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
    let defrags = sorted
        .iter()
        .map(|&(member, start, end)| {
            let after: Vec<&Progress> = progress
                .iter()
                .filter(|p| p.member == member && p.at >= end)
                .collect();
            let backlog = |p: &Progress| p.committed.saturating_sub(p.applied);
            let caught_up = after
                .iter()
                .find(|p| backlog(p) <= CAUGHT_UP)
                .map_or(to, |p| p.at)
                .max(end);
            Defrag {
                member,
                start,
                end,
                as_leader: leader_at(leadership, start) == Some(member),
                caught_up,
                backlog_after: after.first().map(|p| backlog(p)),
            }
        })
        .collect();
    Timeline {
        defrags,
        transfers,
        from,
        to,
    }
}

impl Timeline {
    /// The phase a request sent at `at` by a client of member `w` met.
    pub fn phase(&self, w: usize, at: f64) -> Phase {
        let running = |d: &&Defrag| d.start - LEAD_IN <= at && at < d.end;
        let catching = |d: &&Defrag| d.end <= at && at < d.caught_up;
        if let Some(d) = self.defrags.iter().find(|d| running(d) && d.member == w) {
            return if d.as_leader {
                Phase::OwnDefragAsLeader
            } else {
                Phase::OwnDefragAsFollower
            };
        }
        if self.defrags.iter().any(|d| catching(&d) && d.member == w) {
            return Phase::OwnCatchUp;
        }
        if self
            .transfers
            .iter()
            .any(|t| t.0 - LEAD_IN <= at && at <= t.1)
        {
            return Phase::Transfer;
        }
        if let Some(d) = self.defrags.iter().find(running) {
            return if d.as_leader {
                Phase::OtherDefragLeader
            } else {
                Phase::OtherDefragFollower
            };
        }
        if self.defrags.iter().any(|d| catching(&d)) {
            return Phase::OtherCatchUp;
        }
        Phase::Between
    }

    /// Seconds of the window spent in each wall-clock step (see
    /// `Phase::step`), sampled every 10 ms.
    pub fn step_seconds(&self) -> Vec<(&'static str, f64)> {
        let mut out: Vec<(&'static str, f64)> = Vec::new();
        let mut t = self.from;
        while t < self.to {
            // A member-independent view: take the view of a client of no
            // member (index beyond any), so "own" phases never apply.
            let step = self.phase(usize::MAX, t).step();
            match out.iter_mut().find(|(s, _)| *s == step) {
                Some((_, secs)) => *secs += 0.01,
                None => out.push((step, 0.01)),
            }
            t += 0.01;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn became(member: usize, at: f64) -> LoggedLeadership {
        LoggedLeadership {
            member,
            at,
            event: LeadershipEvent::BecameLeader,
        }
    }

    fn transfer(member: usize, at: f64) -> LoggedLeadership {
        LoggedLeadership {
            member,
            at,
            event: LeadershipEvent::TransferStarting,
        }
    }

    fn progress(member: usize, at: f64, backlog: u64) -> Progress {
        Progress {
            member,
            at,
            committed: 10_000 + backlog,
            applied: 10_000,
        }
    }

    /// Member 2 leads; followers 0 and 1 are defragmented, leadership moves
    /// to 0, then 2 is defragmented as a follower.
    fn sweep() -> Timeline {
        let leadership = [became(2, 1.0), transfer(2, 40.0), became(0, 40.1)];
        let logged = [(0, 10.0, 20.0), (1, 22.0, 32.0), (2, 41.0, 51.0)];
        let progress = [
            progress(0, 20.05, 6_000),
            progress(0, 21.0, 50),
            progress(1, 32.1, 4_000),
            progress(1, 33.0, 900),
            progress(1, 35.0, 20),
            progress(2, 51.2, 7_000),
        ];
        timeline(5.0, 60.0, &logged, &leadership, &progress)
    }

    #[test]
    fn defrags_carry_their_role_backlog_and_catch_up() {
        let t = sweep();
        assert_eq!(t.defrags.len(), 3);
        assert!(!t.defrags[0].as_leader);
        assert_eq!(t.defrags[0].backlog_after, Some(6_000));
        assert_eq!(t.defrags[0].caught_up, 21.0);
        // Member 1 is caught up at 35.0; no step begins before that.
        assert_eq!(t.defrags[1].caught_up, 35.0);
        // The old leader was a follower when its defrag began; never caught
        // up in the window, it is catching up until the window ends.
        assert!(!t.defrags[2].as_leader);
        assert_eq!(t.defrags[2].caught_up, 60.0);
        assert_eq!(t.transfers, vec![(40.0, 40.1, 2, Some(0))]);
    }

    #[test]
    fn requests_meet_the_phase_of_their_own_member_first() {
        let t = sweep();
        let cases = [
            (0, 6.0, Phase::Between),
            (0, 9.95, Phase::OwnDefragAsFollower),
            (0, 9.85, Phase::Between),
            (0, 15.0, Phase::OwnDefragAsFollower),
            (1, 15.0, Phase::OtherDefragFollower),
            (0, 20.5, Phase::OwnCatchUp),
            (1, 20.5, Phase::OtherCatchUp),
            (2, 21.5, Phase::Between),
            (1, 22.5, Phase::OwnDefragAsFollower),
            (0, 33.0, Phase::OtherCatchUp),
            (1, 33.0, Phase::OwnCatchUp),
            (0, 40.05, Phase::Transfer),
            (2, 45.0, Phase::OwnDefragAsFollower),
            (0, 45.0, Phase::OtherDefragFollower),
            (2, 55.0, Phase::OwnCatchUp),
        ];
        for (w, at, want) in cases {
            assert_eq!(t.phase(w, at), want, "member {w} at {at}");
        }
    }

    #[test]
    fn an_in_place_leader_defrag_is_the_leaders() {
        let leadership = [became(1, 1.0)];
        let t = timeline(5.0, 30.0, &[(1, 10.0, 20.0)], &leadership, &[]);
        assert!(t.defrags[0].as_leader);
        assert_eq!(t.phase(1, 12.0), Phase::OwnDefragAsLeader);
        assert_eq!(t.phase(0, 12.0), Phase::OtherDefragLeader);
        // No progress sample: catching up until the end of the window.
        assert_eq!(t.phase(1, 25.0), Phase::OwnCatchUp);
    }

    #[test]
    fn a_member_still_catching_up_when_the_next_begins_is_its_clients_step() {
        // etcdctl starts the next member at once.
        let leadership = [became(2, 1.0)];
        let progress = [progress(0, 20.05, 6_000), progress(0, 20.5, 50)];
        let t = timeline(
            5.0,
            40.0,
            &[(0, 10.0, 20.0), (1, 20.01, 30.0)],
            &leadership,
            &progress,
        );
        assert_eq!(t.defrags[0].caught_up, 20.5);
        assert_eq!(t.phase(0, 20.2), Phase::OwnCatchUp);
        assert_eq!(t.phase(2, 20.2), Phase::OtherDefragFollower);
        assert_eq!(t.phase(0, 20.6), Phase::OtherDefragFollower);
    }

    #[test]
    fn step_seconds_add_up_to_the_window() {
        let t = sweep();
        let total: f64 = t.step_seconds().iter().map(|(_, s)| s).sum();
        assert!((total - 55.0).abs() < 0.05, "{total}");
        let defrag = t
            .step_seconds()
            .into_iter()
            .find(|(s, _)| *s == "follower defragmenting")
            .map(|(_, s)| s)
            .unwrap_or(0.0);
        assert!((defrag - 30.3).abs() < 0.05, "{defrag}");
    }
}
