//! `snapshot save`: which member to stream the backend from. Pure over the
//! `ClusterLook`; the command does the transfer.
//!
//! The default is the most caught-up healthy follower, not the leader: a
//! Snapshot reads the whole backend under a read transaction and keeps the
//! member's disk and network busy for as long as it lasts, which the
//! leader (heartbeats, every write's replication) can least afford. The
//! leader is used only when no follower qualifies (a one-member cluster).
//! A Snapshot needs no quorum, so a cluster without a leader can still be
//! saved from its most caught-up member: that is when a backup matters most.

use std::fmt;

use serde::Serialize;

use crate::look::{AlarmKind, ClusterLook, MemberLook, StatusError};

/// The member chosen, and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub name: String,
    pub role: Role,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Follower,
    Leader,
    Learner,
    /// The members agree on no leader.
    Leaderless,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Follower => "a follower",
            Role::Leader => "the leader",
            Role::Learner => "a learner",
            Role::Leaderless => "no leader agreed",
        })
    }
}

/// Why no member is used (nothing is transferred).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `--member` names no member of the cluster (a usage error).
    NoSuchMember { named: String, known: Vec<String> },
    /// `--member` names a member that did not answer Status.
    NotAnswering { named: String, why: String },
    /// The member has a CORRUPT alarm: its data may differ from the others.
    Corrupt { named: String },
    /// No member answered cleanly.
    NoneAnswering,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoSuchMember { named, known } => write!(
                f,
                "--member {named}: no such member; the members are {}",
                known.join(", ")
            ),
            Refusal::NotAnswering { named, why } => write!(
                f,
                "--member {named} does not answer ({why}); pick another member or leave --member out"
            ),
            Refusal::Corrupt { named } => write!(
                f,
                "{named} has a CORRUPT alarm, so its data may differ from the other members'; save from another member (--member)"
            ),
            Refusal::NoneAnswering => f.write_str(
                "no member answered Status cleanly, so there is nothing to save from; see kubectl etcd status",
            ),
        }
    }
}

impl Refusal {
    /// Whether the user's input is at fault (exit 2) rather than the cluster.
    pub fn is_usage(&self) -> bool {
        matches!(self, Refusal::NoSuchMember { .. })
    }
}

/// The member to save from: `named` when given, else the most caught-up
/// follower that answered cleanly (highest applied index, ties by name),
/// else the leader. `leader` is the leader the members agree on, if any.
pub fn source(
    look: &ClusterLook,
    leader: Option<u64>,
    named: Option<&str>,
) -> Result<Source, Refusal> {
    let corrupt = |m: &MemberLook| {
        look.alarms
            .iter()
            .any(|a| a.kind == AlarmKind::Corrupt && Some(a.member_id) == m.id)
    };
    let role = |m: &MemberLook| match leader {
        None => Role::Leaderless,
        Some(l) if m.id == Some(l) => Role::Leader,
        Some(_) if m.is_learner() => Role::Learner,
        Some(_) => Role::Follower,
    };
    if let Some(named) = named {
        let m = look
            .members
            .iter()
            .find(|m| m.name == named)
            .ok_or_else(|| Refusal::NoSuchMember {
                named: named.to_string(),
                known: look.members.iter().map(|m| m.name.clone()).collect(),
            })?;
        if m.status().is_none() {
            return Err(Refusal::NotAnswering {
                named: named.to_string(),
                why: why_silent(m),
            });
        }
        if corrupt(m) {
            return Err(Refusal::Corrupt {
                named: named.to_string(),
            });
        }
        return Ok(Source {
            name: m.name.clone(),
            role: role(m),
        });
    }
    let candidates = look
        .members
        .iter()
        .filter(|m| !m.is_learner() && !corrupt(m))
        .filter_map(|m| Some((m, m.status()?)))
        // Alarms are listed on every member; any other error disqualifies.
        .filter(|(_, s)| s.errors.iter().all(|e| matches!(e, StatusError::Alarm(_))));
    let best = candidates
        .filter(|(m, _)| leader.is_none() || m.id != leader)
        .max_by(|(a, sa), (b, sb)| {
            sa.raft_applied_index
                .cmp(&sb.raft_applied_index)
                .then_with(|| b.name.cmp(&a.name))
        })
        .map(|(m, _)| m);
    let fallback = || {
        leader
            .and_then(|l| look.member_by_id(l))
            .filter(|m| m.status().is_some() && !corrupt(m))
    };
    best.or_else(fallback)
        .map(|m| Source {
            name: m.name.clone(),
            role: role(m),
        })
        .ok_or(Refusal::NoneAnswering)
}

fn why_silent(m: &MemberLook) -> String {
    match &m.probe {
        crate::look::Probe::Failed(e) => e.cause.to_string(),
        crate::look::Probe::NotProbed(why) => why.clone(),
        crate::look::Probe::Answered(_) => "it answered".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{Alarm, MemberStatus, Probe};

    /// Members (name, id, applied index, learner, answered); all believe
    /// in leader 2.
    fn cluster(rows: &[(&str, u64, u64, bool, bool)]) -> ClusterLook {
        ClusterLook {
            members: rows
                .iter()
                .map(|&(name, id, applied, learner, answered)| {
                    let probe = if answered {
                        Probe::Answered(MemberStatus {
                            member_id: id,
                            leader: 2,
                            raft_applied_index: applied,
                            is_learner: learner,
                            ..Default::default()
                        })
                    } else {
                        Probe::refused_for_test()
                    };
                    MemberLook::listed_for_test(name, id, learner, probe)
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn three() -> ClusterLook {
        cluster(&[
            ("a", 1, 100, false, true),
            ("b", 2, 120, false, true),
            ("c", 3, 110, false, true),
        ])
    }

    fn picked(s: &ClusterLook, leader: Option<u64>, named: Option<&str>) -> (String, Role) {
        match source(s, leader, named) {
            Ok(src) => (src.name, src.role),
            Err(e) => (format!("refused: {e}"), Role::Leaderless),
        }
    }

    #[test]
    fn chooses_the_most_caught_up_follower_never_the_leader_by_default() {
        let s = three();
        // b (the leader) is the most caught up, c is the best follower.
        assert_eq!(picked(&s, Some(2), None), ("c".into(), Role::Follower));
    }

    #[test]
    fn ties_go_by_name() {
        let s = cluster(&[
            ("z", 1, 100, false, true),
            ("b", 2, 100, false, true),
            ("m", 3, 100, false, true),
        ]);
        assert_eq!(picked(&s, Some(2), None).0, "m");
    }

    #[test]
    fn learners_silent_and_corrupt_members_are_passed_over() {
        let mut s = cluster(&[
            ("a", 1, 100, false, true),
            ("b", 2, 120, false, true),
            ("c", 3, 130, true, true),
            ("d", 4, 125, false, false),
            ("e", 5, 119, false, true),
        ]);
        s.alarms.push(Alarm {
            member_id: 5,
            kind: AlarmKind::Corrupt,
        });
        assert_eq!(picked(&s, Some(2), None).0, "a");
    }

    #[test]
    fn a_member_with_any_non_alarm_error_is_passed_over() {
        let mut s = three();
        if let Probe::Answered(st) = &mut s.members[2].probe {
            st.errors.push(StatusError::Other("something".into()));
        }
        assert_eq!(picked(&s, Some(2), None).0, "a");
    }

    #[test]
    fn the_leader_only_when_no_follower_qualifies() {
        let one = cluster(&[("solo", 2, 10, false, true)]);
        assert_eq!(picked(&one, Some(2), None), ("solo".into(), Role::Leader));
        let silent_followers = cluster(&[("a", 1, 100, false, false), ("b", 2, 120, false, true)]);
        assert_eq!(picked(&silent_followers, Some(2), None).0, "b");
    }

    #[test]
    fn without_a_leader_the_most_caught_up_answering_member() {
        let s = three();
        assert_eq!(picked(&s, None, None), ("b".into(), Role::Leaderless));
    }

    #[test]
    fn nothing_answering_is_refused() {
        let s = cluster(&[("a", 1, 1, false, false), ("b", 2, 1, false, false)]);
        assert_eq!(source(&s, Some(2), None), Err(Refusal::NoneAnswering));
    }

    #[test]
    fn a_named_member_is_used_as_it_is_even_the_leader_or_a_learner() {
        let mut s = three();
        assert_eq!(picked(&s, Some(2), Some("b")), ("b".into(), Role::Leader));
        s.members.push(MemberLook::listed_for_test(
            "l",
            9,
            true,
            Probe::Answered(MemberStatus {
                is_learner: true,
                ..Default::default()
            }),
        ));
        assert_eq!(picked(&s, Some(2), Some("l")), ("l".into(), Role::Learner));
    }

    #[test]
    fn a_named_member_that_is_unknown_silent_or_corrupt_is_refused_with_why() {
        let mut s = cluster(&[("a", 1, 1, false, true), ("b", 2, 1, false, false)]);
        let unknown = source(&s, Some(1), Some("x")).unwrap_err();
        assert!(unknown.is_usage());
        assert_eq!(
            unknown.to_string(),
            "--member x: no such member; the members are a, b"
        );
        let silent = source(&s, Some(1), Some("b")).unwrap_err();
        assert!(!silent.is_usage());
        assert!(silent
            .to_string()
            .starts_with("--member b does not answer ("));
        s.alarms.push(Alarm {
            member_id: 1,
            kind: AlarmKind::Corrupt,
        });
        assert_eq!(
            source(&s, Some(1), Some("a")),
            Err(Refusal::Corrupt { named: "a".into() })
        );
    }
}
