//! `member add|promote|remove`: whether a membership change keeps the
//! cluster able to reach quorum with the members that answer now. Pure over
//! the `ClusterLook`; the command asks etcd.
//!
//! Raft needs a majority of the voters *after* the change to commit anything
//! (including the next membership change). Counting only the voters that
//! answered Status, a change is safe when that majority is still there:
//! - adding a voter raises the majority while the new member is not yet
//!   running (the classic way to wedge a one-member cluster: add a second
//!   voter and the first can no longer commit until the second starts);
//! - removing a voter that answers lowers the voter count and the answering
//!   count together;
//! - removing a voter that does not answer (the usual reason to remove one)
//!   only shrinks the majority needed;
//! - learners never count, so adding or removing one is always safe, and
//!   promoting one is safe when it answers and has caught up.

use std::fmt;

use crate::look::{ClusterLook, MemberLook};

/// The change asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    Add { learner: bool },
    Promote(&'a MemberLook),
    Remove(&'a MemberLook),
}

/// Voters before and after, and how many of them answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quorum {
    pub voters_before: usize,
    pub voters_after: usize,
    /// Voters after the change that answer now.
    pub answering_after: usize,
    /// A majority of `voters_after`.
    pub needed: usize,
}

impl Quorum {
    pub fn holds(&self) -> bool {
        self.answering_after >= self.needed
    }
}

/// Why a change is refused (overridable with `--force` for quorum only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The change would leave fewer answering voters than a majority.
    Quorum { change: String, quorum: Quorum },
    /// Removing the only voter leaves no cluster at all.
    LastVoter { name: String },
    /// Only a learner can be promoted.
    NotALearner { name: String },
    /// A learner must answer and be caught up before it can vote.
    LearnerBehind { name: String, why: String },
}

impl Refusal {
    /// Whether `--force` may override it (only a quorum shortfall: the
    /// operator may know a member is about to come back).
    pub fn forceable(&self) -> bool {
        matches!(self, Refusal::Quorum { .. })
    }

    /// Whether the request itself is wrong (exit 2) rather than the
    /// cluster's state (exit 1).
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Refusal::LastVoter { .. } | Refusal::NotALearner { .. }
        )
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Quorum { change, quorum: q } => write!(
                f,
                "{change} would leave {} voters, which need {} to reach quorum, and only {} of them answer now; bring the silent members back first (kubectl etcd status), or pass --force if you know why",
                q.voters_after, q.needed, q.answering_after
            ),
            Refusal::LastVoter { name } => write!(
                f,
                "{name} is the only voter; removing it would leave no cluster"
            ),
            Refusal::NotALearner { name } => {
                write!(f, "{name} is already a voter; only a learner can be promoted")
            }
            Refusal::LearnerBehind { name, why } => write!(
                f,
                "{name} cannot be promoted yet: {why}; wait until it has caught up (kubectl etcd status) and try again"
            ),
        }
    }
}

/// A member counts as answering when it answered Status (its errors are
/// the gate's business; a member that answers can vote).
fn answers(m: &MemberLook) -> bool {
    m.status().is_some()
}

/// The quorum arithmetic for `change`, then whether it is allowed.
/// `max_lag`: how far behind the leader's applied index a learner may be
/// and still be promoted.
pub fn check(
    look: &ClusterLook,
    change: Change<'_>,
    leader_applied: Option<u64>,
    max_lag: u64,
) -> Result<Quorum, Refusal> {
    let voters: Vec<&MemberLook> = look.members.iter().filter(|m| !m.is_learner()).collect();
    let voters_before = voters.len();
    let answering = voters.iter().filter(|m| answers(m)).count();
    let (voters_after, answering_after, what) = match change {
        Change::Add { learner: true } => (voters_before, answering, "adding a learner".to_string()),
        Change::Add { learner: false } => {
            (voters_before + 1, answering, "adding a voter".to_string())
        }
        Change::Remove(m) if m.is_learner() => (
            voters_before,
            answering,
            format!("removing learner {}", m.name),
        ),
        Change::Remove(m) => {
            if voters_before <= 1 {
                return Err(Refusal::LastVoter {
                    name: m.name.clone(),
                });
            }
            let still = answering - usize::from(answers(m));
            (voters_before - 1, still, format!("removing {}", m.name))
        }
        Change::Promote(m) => {
            if !m.is_learner() {
                return Err(Refusal::NotALearner {
                    name: m.name.clone(),
                });
            }
            let Some(status) = m.status() else {
                return Err(Refusal::LearnerBehind {
                    name: m.name.clone(),
                    why: "it does not answer".into(),
                });
            };
            if let Some(leader) = leader_applied {
                let behind = leader.saturating_sub(status.raft_applied_index);
                if behind > max_lag {
                    return Err(Refusal::LearnerBehind {
                        name: m.name.clone(),
                        why: format!(
                            "it has applied {} entries, {behind} behind the leader's {leader} (at most {max_lag} allowed)",
                            status.raft_applied_index
                        ),
                    });
                }
            }
            (
                voters_before + 1,
                answering + 1,
                format!("promoting {}", m.name),
            )
        }
    };
    let quorum = Quorum {
        voters_before,
        voters_after,
        answering_after,
        needed: voters_after / 2 + 1,
    };
    if quorum.holds() {
        Ok(quorum)
    } else {
        Err(Refusal::Quorum {
            change: what,
            quorum,
        })
    }
}

/// Which member a typed MEMBER (or `--to`) names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// This member (an index into the look's members).
    One(usize),
    /// The text reads as the id of more than one member (hex for one,
    /// decimal for another); the name is the way out.
    Ambiguous(Vec<usize>),
    /// No member has that name or id.
    None,
}

/// The member `text` names: its name (as MemberList gives it), else its id
/// in hex as `status` and `members` show it (`0x` and leading zeros
/// optional), else its id in decimal as `etcdctl -w json` prints it. A
/// member that was added but never started has no name in MemberList, so
/// its id is the only way to name it. Pure.
pub fn find_member(look: &ClusterLook, text: &str) -> Named {
    let text = text.trim();
    if text.is_empty() {
        return Named::None;
    }
    if let Some(i) = look.members.iter().position(|m| m.name == text) {
        return Named::One(i);
    }
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let ids = [u64::from_str_radix(hex, 16).ok(), text.parse::<u64>().ok()];
    let mut found: Vec<usize> = Vec::new();
    for id in ids.into_iter().flatten() {
        if let Some(i) = look.members.iter().position(|m| m.id == Some(id)) {
            if !found.contains(&i) {
                found.push(i);
            }
        }
    }
    match found.as_slice() {
        [] => Named::None,
        [one] => Named::One(*one),
        _ => Named::Ambiguous(found),
    }
}

/// Whether a member was added but has not started yet: MemberList gives
/// it no name until it has joined.
pub fn never_started(m: &MemberLook) -> bool {
    m.listed.as_ref().is_some_and(|l| l.name.is_empty())
}

/// The members as an error message lists them: `name (hex id)`, and a
/// member that never started by its id alone. Pure.
pub fn describe_members(look: &ClusterLook) -> String {
    let mut shown: Vec<String> = look
        .members
        .iter()
        .map(|m| match m.id {
            Some(id) if never_started(m) => format!("{id:016x} (added, never started)"),
            Some(id) => format!("{} ({id:016x})", m.name),
            None => m.name.clone(),
        })
        .collect();
    shown.sort();
    shown.join(", ")
}

/// Known defects of learner promotion (`defects`, `Touches::Promotion`) in
/// the releases the members run, one line each: which members, what goes
/// wrong, what to upgrade to. Every member applies a promotion to its own
/// backend, so every member's release counts. Pure.
/// Issue 45: what a new member must take in before it has caught up — the
/// leader's backend, sent as a snapshot, and the raft log since the last
/// one, replayed — near its quota. A learner added after fill-and-recover
/// cycles replayed past its quota (85 MiB on 64 MiB) and raised NOSPACE for
/// the whole cluster; no defrag reaches a learner. Said before the add, with
/// what to do first; `None` when there is room (size under 80% of the
/// leader's quota, or no size or quota known).
pub fn replay_warning(look: &ClusterLook, cluster_args: &str) -> Option<String> {
    // The leader's backend is what is sent; any voter's is as large give or
    // take, so the largest that answered stands for it (the leader's
    // Status may be the one that did not come back).
    let fullest = look
        .members
        .iter()
        .filter(|m| !m.is_learner())
        .filter_map(|m| Some((m.status()?.db_size, m.quota_bytes)))
        .filter(|(_, quota)| *quota > 0)
        .max_by(|a, b| {
            (u128::from(a.0) * u128::from(b.1)).cmp(&(u128::from(b.0) * u128::from(a.1)))
        })?;
    let (size, quota) = fullest;
    if quota == 0 || u128::from(size) * 5 < u128::from(quota) * 4 {
        return None;
    }
    use crate::quantity::format_bytes;
    Some(format!(
        "the new member starts by receiving the leader's backend, about {} ({}% of the {} quota it will run with, if it runs with the same) and replaying the raft log since the last snapshot: it can pass its quota before it has caught up and raise NOSPACE for the whole cluster, and no defrag reaches a learner. Compact and defragment first (kubectl etcd defrag{cluster_args} --compact), or give the new member a larger --quota-backend-bytes",
        format_bytes(size),
        u128::from(size) * 100 / u128::from(quota),
        format_bytes(quota)
    ))
}

pub fn promotion_hazards(look: &ClusterLook) -> Vec<String> {
    use crate::defects::{among, Touches};
    among(look.versions())
        .into_iter()
        .filter(|a| a.hit.defect.touches == Touches::Promotion)
        .map(|a| {
            format!(
                "{} [{}]: {}: {}",
                a.members.join(", "),
                a.hit.defect.code,
                a.hit.defect.summary,
                a.hit.advice(a.release)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{MemberStatus, Probe};

    /// Members (name, learner, answers, applied index).
    fn cluster(rows: &[(&str, bool, bool, u64)]) -> ClusterLook {
        ClusterLook {
            members: rows
                .iter()
                .enumerate()
                .map(|(i, &(name, learner, up, applied))| {
                    let probe = if up {
                        Probe::Answered(MemberStatus {
                            member_id: i as u64 + 1,
                            raft_applied_index: applied,
                            is_learner: learner,
                            ..Default::default()
                        })
                    } else {
                        Probe::refused_for_test()
                    };
                    MemberLook::listed_for_test(name, i as u64 + 1, learner, probe)
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn named<'a>(s: &'a ClusterLook, name: &str) -> &'a MemberLook {
        s.members.iter().find(|m| m.name == name).unwrap()
    }

    /// (voters after, answering after, needed) or the refusal's text.
    fn outcome(s: &ClusterLook, change: Change<'_>) -> Result<(usize, usize, usize), String> {
        check(s, change, Some(100), 10)
            .map(|q| (q.voters_after, q.answering_after, q.needed))
            .map_err(|r| r.to_string())
    }

    #[test]
    fn adding_a_voter_needs_the_new_majority_without_the_new_member() {
        let all_up = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("c", false, true, 100),
        ]);
        assert_eq!(
            outcome(&all_up, Change::Add { learner: false }),
            Ok((4, 3, 3))
        );
        let one_down = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("c", false, false, 0),
        ]);
        assert_eq!(
            outcome(&one_down, Change::Add { learner: false }),
            Err("adding a voter would leave 4 voters, which need 3 to reach quorum, and only 2 of them answer now; bring the silent members back first (kubectl etcd status), or pass --force if you know why".into())
        );
        // The one-member trap: a second voter wedges the first.
        let solo = cluster(&[("a", false, true, 100)]);
        assert!(outcome(&solo, Change::Add { learner: false }).is_err());
        assert_eq!(outcome(&solo, Change::Add { learner: true }), Ok((1, 1, 1)));
    }

    #[test]
    fn removing_counts_only_the_voters_that_answer() {
        let one_down = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("c", false, false, 0),
        ]);
        // Removing the silent member is the remedy: 2 voters, both answer.
        assert_eq!(
            outcome(&one_down, Change::Remove(named(&one_down, "c"))),
            Ok((2, 2, 2))
        );
        // Removing an answering one leaves 1 of 2 needed.
        assert!(outcome(&one_down, Change::Remove(named(&one_down, "a")))
            .unwrap_err()
            .starts_with("removing a would leave 2 voters, which need 2 to reach quorum, and only 1 of them answer now"));
        let five = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("c", false, true, 100),
            ("d", false, false, 0),
            ("e", false, false, 0),
        ]);
        assert!(outcome(&five, Change::Remove(named(&five, "a"))).is_err());
        assert_eq!(
            outcome(&five, Change::Remove(named(&five, "e"))),
            Ok((4, 3, 3))
        );
    }

    #[test]
    fn learners_never_change_the_count() {
        let s = cluster(&[
            ("a", false, true, 100),
            ("b", false, false, 0),
            ("l", true, false, 0),
        ]);
        // 2 voters, 1 answers: already below quorum, and a learner changes nothing.
        let refused = outcome(&s, Change::Remove(named(&s, "l"))).unwrap_err();
        assert!(refused.starts_with("removing learner l would leave 2 voters, which need 2"));
        let healthy = cluster(&[("a", false, true, 100), ("l", true, false, 0)]);
        assert_eq!(
            outcome(&healthy, Change::Remove(named(&healthy, "l"))),
            Ok((1, 1, 1))
        );
    }

    #[test]
    fn a_member_is_named_by_name_hex_id_or_decimal_id() {
        let mut s = cluster(&[("m0", false, true, 100), ("m1", false, true, 100)]);
        // Real ids, as etcd hands them out, and one added but never started.
        s.members[0].id = Some(0x8e9e_05c5_2164_694d);
        s.members[1].id = Some(0x0000_0000_0000_0abc);
        let mut unstarted = MemberLook::listed_for_test(
            "",
            0xdead_beef_0000_0001,
            false,
            Probe::refused_for_test(),
        );
        unstarted.name = "(unstarted deadbeef00000001)".into();
        s.members.push(unstarted);
        let cases: Vec<(&str, Named)> = vec![
            ("m0", Named::One(0)),
            ("m1", Named::One(1)),
            ("8e9e05c52164694d", Named::One(0)),
            ("0x8e9e05c52164694d", Named::One(0)),
            ("8E9E05C52164694D", Named::One(0)),
            // etcdctl -w json prints ids in decimal.
            ("10276657743932975437", Named::One(0)),
            ("0000000000000abc", Named::One(1)),
            ("abc", Named::One(1)),
            ("2748", Named::One(1)),
            ("deadbeef00000001", Named::One(2)),
            ("(unstarted deadbeef00000001)", Named::One(2)),
            ("m3", Named::None),
            ("", Named::None),
            ("12345", Named::None),
        ];
        for (text, want) in cases {
            assert_eq!(find_member(&s, text), want, "{text}");
        }
        assert_eq!(
            describe_members(&s),
            "deadbeef00000001 (added, never started), m0 (8e9e05c52164694d), m1 (0000000000000abc)"
        );
        assert!(never_started(&s.members[2]) && !never_started(&s.members[0]));
        // One member's id in hex reads as another's in decimal: the name
        // is the way out.
        s.members[1].id = Some(0x10);
        s.members[0].id = Some(10);
        assert_eq!(find_member(&s, "10"), Named::Ambiguous(vec![1, 0]));
    }

    #[test]
    fn the_last_voter_is_never_removed_even_with_force() {
        let solo = cluster(&[("a", false, true, 100), ("l", true, true, 100)]);
        let refusal = check(&solo, Change::Remove(named(&solo, "a")), None, 10).unwrap_err();
        assert_eq!(refusal, Refusal::LastVoter { name: "a".into() });
        assert!(!refusal.forceable());
    }

    #[test]
    fn promotion_needs_a_caught_up_answering_learner() {
        let s = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("c", false, true, 100),
            ("l", true, true, 95),
            ("slow", true, true, 50),
            ("gone", true, false, 0),
        ]);
        assert_eq!(outcome(&s, Change::Promote(named(&s, "l"))), Ok((4, 4, 3)));
        assert_eq!(
            outcome(&s, Change::Promote(named(&s, "slow"))),
            Err("slow cannot be promoted yet: it has applied 50 entries, 50 behind the leader's 100 (at most 10 allowed); wait until it has caught up (kubectl etcd status) and try again".into())
        );
        assert!(outcome(&s, Change::Promote(named(&s, "gone")))
            .unwrap_err()
            .contains("it does not answer"));
        let refusal = check(&s, Change::Promote(named(&s, "a")), Some(100), 10).unwrap_err();
        assert_eq!(refusal, Refusal::NotALearner { name: "a".into() });
        assert!(!refusal.forceable());
    }

    #[test]
    fn promotion_hazards_name_every_affected_member_once_per_defect() {
        let mut s = cluster(&[
            ("a", false, true, 100),
            ("b", false, true, 100),
            ("l", true, true, 100),
        ]);
        let versions = ["3.5.19", "3.5.19", "3.5.35"];
        for (m, v) in s.members.iter_mut().zip(versions) {
            if let Probe::Answered(st) = &mut m.probe {
                st.version = v.into();
            }
        }
        let lines = promotion_hazards(&s);
        let persisted = lines
            .iter()
            .find(|l| l.contains("[learner-promotion-not-persisted]"))
            .expect("3.5.19 does not persist promotions");
        assert!(
            persisted.starts_with("a (3.5.19), b (3.5.19) ["),
            "{persisted}"
        );
        assert!(
            persisted.ends_with("upgrade to 3.5.24 or later (etcd PR 20797)"),
            "{persisted}"
        );
        assert!(!persisted.contains("l (3.5.35)"), "{persisted}");
        // 3.5.19 also has the MemberUpdate and auth defects; 3.5.35 none.
        assert_eq!(lines.len(), 3, "{lines:?}");
        for (m, v) in s.members.iter_mut().zip(["3.5.35", "3.6.16", "3.7.3"]) {
            if let Probe::Answered(st) = &mut m.probe {
                st.version = v.into();
            }
        }
        assert!(promotion_hazards(&s).is_empty());
    }

    /// Issue 45: a new member that must take in a backend near its quota
    /// is warned about before it is added.
    #[test]
    fn a_backend_near_the_quota_is_said_before_an_add() {
        use crate::look::{MemberStatus, Probe};
        let look = |size: u64| ClusterLook {
            members: vec![{
                let mut m = MemberLook::listed_for_test(
                    "m1",
                    1,
                    false,
                    Probe::Answered(MemberStatus {
                        member_id: 1,
                        leader: 1,
                        db_size: size,
                        ..Default::default()
                    }),
                );
                m.quota_bytes = 64 << 20;
                m
            }],
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        };
        assert_eq!(replay_warning(&look(40 << 20), ""), None);
        let said = replay_warning(&look(56 << 20), " db -n prod").unwrap();
        assert!(
            said.starts_with("the new member starts by receiving the leader's backend, about 56 MiB (87% of the 64 MiB quota")
                && said.contains("(kubectl etcd defrag db -n prod --compact)"),
            "{said}"
        );
    }
}
