//! Which alarms may be disarmed (pure).
//!
//! Invariants: only NOSPACE is disarmed by default, and only on a member that
//! is back under its quota with room to write: its file size at most 90% of
//! the quota (etcd raises NOSPACE when size + request > quota, so a member
//! just under the quota would raise it again on the next write); CORRUPT and unknown alarms are never
//! cleared without `force`, which the command pairs with a typed
//! confirmation.

use serde::Serialize;

use crate::look::{Alarm, AlarmKind, ClusterLook, MemberLook};
use crate::reach::{ClusterRef, QuotaSource};

/// The verdict for one raised alarm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DisarmDecision {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
    pub disarm: bool,
    /// Why it is (not) disarmed.
    pub why: String,
    #[serde(skip)]
    pub raw: Alarm,
}

/// Decides for every alarm in the look. `members` narrows to these
/// member names (empty: all). `force` allows CORRUPT/unknown alarms and
/// NOSPACE on a member still over quota. `cluster` names the cluster in
/// the advice, so that it runs as printed.
pub fn disarm_decisions(
    look: &ClusterLook,
    members: &[String],
    force: bool,
    cluster: Option<&ClusterRef>,
) -> Vec<DisarmDecision> {
    let cluster_args = ClusterRef::command_args(cluster);
    look
        .alarms
        .iter()
        .filter(|a| members.is_empty() || members.contains(&look.name_of(a.member_id)))
        .map(|a| {
            let name = look.name_of(a.member_id);
            let member = look.member_by_id(a.member_id);
            let sizes = member.and_then(|m| m.status().map(|s| (s.db_size, m.quota_bytes)));
            let assumed = member.is_some_and(|m| m.quota_source == QuotaSource::Default);
            let learner = member.filter(|m| m.is_learner());
            let (disarm, why) = match (&a.kind, sizes) {
                // Issue 45: no defrag reaches a learner, so no remedy that
                // defragments it can ever work.
                (AlarmKind::Nospace, _) if learner.is_some() && !force => (
                    false,
                    learner.map_or_else(String::new, |l| {
                        learner_way_out(look, l, &cluster_args)
                    }),
                ),
                (AlarmKind::Nospace, _) if assumed && !force => (
                    false,
                    format!(
                        "its quota is not known: {name} does not report it (Status before etcd 3.6) and its /metrics could not be read, so etcd's 2 GiB default would be a guess; pass --quota-backend-bytes with the value {name} runs with, or --force"
                    ),
                ),
                (AlarmKind::Nospace, Some((size, quota))) if back_under_quota(size, quota) => (
                    true,
                    format!(
                        "back under its quota: {} of {} used, within the 90% that leaves room to write",
                        used_percent(size, quota),
                        crate::quantity::format_bytes(quota)
                    ),
                ),
                (AlarmKind::Nospace, _) if force => (true, "--force".to_string()),
                (AlarmKind::Nospace, Some((size, quota))) => (
                    false,
                    format!(
                        "still over its quota for a disarm: {} of {} used, and a disarm needs 90% or less so the next write fits; {}",
                        used_percent(size, quota),
                        crate::quantity::format_bytes(quota),
                        nospace_remedy(member.and_then(|m| m.status()).map(|s| s.db_size_in_use), quota, &name, &cluster_args)
                    ),
                ),
                (AlarmKind::Nospace, None) => (
                    false,
                    "its size is unknown (the member did not answer); pass --force to disarm anyway".to_string(),
                ),
                (_, _) if force => (true, "--force with confirmation".to_string()),
                (kind, _) => (
                    false,
                    format!(
                        "{} means the member's data may be damaged: investigate (compare `kubectl etcd status`, HashKV, logs) before clearing it with --force",
                        kind.as_str()
                    ),
                ),
            };
            DisarmDecision {
                member: name,
                member_id: format!("{:016x}", a.member_id),
                alarm: a.kind.as_str().to_string(),
                disarm,
                why,
                raw: a.clone(),
            }
        })
        .collect()
}

/// How far behind the leader's applied index a learner may be and still
/// count as caught up (the gate's default raft-lag bound).
const CAUGHT_UP_ENTRIES: u64 = 1_000;

/// The way out of NOSPACE held by a learner (issue 45). etcd serves a
/// learner only Status and serializable reads, so no Defragment reaches
/// it: every remedy that defragments it loops, and a disarm holds only
/// until the next write. A learner that has caught up with the leader (its
/// applied index within [`CAUGHT_UP_ENTRIES`] of the leader's) is promoted
/// and then compacted and defragmented like any member; one that has not is
/// removed, the alarm disarmed, the others compacted and defragmented, and
/// it is added back.
pub fn learner_way_out(look: &ClusterLook, learner: &MemberLook, cluster_args: &str) -> String {
    let name = &learner.name;
    let leader = look
        .members
        .iter()
        .filter_map(|m| m.status())
        .find(|s| s.leader != 0 && s.leader == s.member_id);
    let applied = learner.status().map(|s| s.raft_applied_index);
    let said = format!(
        "{name} is a learner: etcd serves a learner only Status and serializable reads, so no defrag reaches it, and a disarm holds only until the next write"
    );
    match (applied, leader) {
        (Some(applied), Some(leader))
            if applied.saturating_add(CAUGHT_UP_ENTRIES) >= leader.raft_applied_index =>
        {
            format!(
                "{said}. It has caught up with the leader (applied index {applied}, the leader's {}): promote it, then compact and defragment, which disarms the alarm once every member is back under its quota: kubectl etcd member promote {name}{cluster_args}, then kubectl etcd defrag{cluster_args} --compact",
                leader.raft_applied_index
            )
        }
        (applied, leader) => {
            let progress = match (applied, leader) {
                (Some(a), Some(l)) => {
                    format!("applied index {a}, the leader's {}", l.raft_applied_index)
                }
                (None, _) => "it does not answer".to_string(),
                (Some(a), None) => format!("applied index {a}, no leader known"),
            };
            let id = learner
                .id
                .map(|id| format!("{id:016x}"))
                .unwrap_or_else(|| name.clone());
            let peers = learner
                .listed
                .as_ref()
                .map(|l| l.peer_urls.join(","))
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "<its peer URLs>".into());
            // A learner that never started has no name in etcd: the add
            // takes the one it will start with.
            let (named, start_name) = if crate::plan::membership::never_started(learner) {
                ("NAME", " under the name it will start with")
            } else {
                (name.as_str(), "")
            };
            format!(
                "{said}. It has not caught up ({progress}), so it cannot be promoted: remove it, disarm the alarm it raised, compact and defragment, then add it back{start_name} with an empty data directory: kubectl etcd member remove {id}{cluster_args}, then kubectl etcd alarm disarm{cluster_args} --force, then kubectl etcd defrag{cluster_args} --compact, then kubectl etcd member add {named}{cluster_args} --learner --peer-urls {peers}"
            )
        }
    }
}

/// What brings a member with NOSPACE back under its quota: a defrag when
/// what it holds in use fits, else less history or a larger quota (a
/// defrag cannot shrink the file below what is in use).
fn nospace_remedy(in_use: Option<u64>, quota: u64, name: &str, cluster_args: &str) -> String {
    match in_use {
        Some(used) if back_under_quota(used, quota) => format!(
            "defragment it first (kubectl etcd defrag{cluster_args} --member {name}; it disarms the alarm when done), or pass --force"
        ),
        _ => format!(
            "what it holds in use fills the quota: compact the history and defragment (kubectl etcd defrag{cluster_args} --compact; it disarms the alarm when done), delete data, or raise the quota"
        ),
    }
}

/// `size` as a percentage of `quota`, one decimal, rounded down so that a
/// member just over the line never reads as exactly on it.
fn used_percent(size: u64, quota: u64) -> String {
    if quota == 0 {
        return "?%".into();
    }
    let tenths = u128::from(size) * 1000 / u128::from(quota);
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// Whether a member's backend has room again: size ≤ 90% of the quota.
pub fn back_under_quota(size: u64, quota: u64) -> bool {
    u128::from(size) * 10 <= u128::from(quota) * 9
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{MemberLook, MemberStatus, Probe};

    fn snap(sizes: &[(u64, u64)], alarms: Vec<Alarm>) -> ClusterLook {
        ClusterLook {
            members: sizes
                .iter()
                .enumerate()
                .map(|(i, &(size, quota))| {
                    let id = i as u64 + 1;
                    MemberLook {
                        quota_bytes: quota,
                        quota_source: QuotaSource::Flag,
                        ..MemberLook::listed_for_test(
                            &format!("m{id}"),
                            id,
                            false,
                            Probe::Answered(MemberStatus {
                                member_id: id,
                                db_size: size,
                                ..Default::default()
                            }),
                        )
                    }
                })
                .collect(),
            member_list_known: true,
            alarms,
            alarm_list_error: None,
        }
    }

    #[test]
    fn nospace_only_when_back_under_quota_corrupt_only_forced() {
        let alarms = vec![
            Alarm {
                member_id: 1,
                kind: AlarmKind::Nospace,
            },
            Alarm {
                member_id: 2,
                kind: AlarmKind::Nospace,
            },
            Alarm {
                member_id: 3,
                kind: AlarmKind::Corrupt,
            },
        ];
        assert!(back_under_quota(90, 100) && !back_under_quota(91, 100));
        let s = snap(&[(10, 100), (95, 100), (10, 100)], alarms);
        let d = disarm_decisions(&s, &[], false, None);
        assert_eq!(
            d.iter().map(|x| x.disarm).collect::<Vec<_>>(),
            [true, false, false]
        );
        assert!(d[1].why.contains("still over its quota") && d[1].why.contains("--member m2"));
        assert!(d[2].why.contains("CORRUPT"));
        let forced = disarm_decisions(&s, &[], true, None);
        assert!(forced.iter().all(|x| x.disarm));
        let only_m1 = disarm_decisions(&s, &["m1".into()], false, None);
        assert_eq!(only_m1.len(), 1);
    }

    /// Issue 45: NOSPACE held by a learner is never "defragment it first":
    /// promoted when caught up, else removed, disarmed and added back.
    #[test]
    fn a_learner_holding_nospace_gets_the_way_out_that_works() {
        use crate::look::MemberStatus;
        let member = |name: &str, id: u64, learner: bool, applied: u64| {
            let mut m = MemberLook::listed_for_test(
                name,
                id,
                learner,
                Probe::Answered(MemberStatus {
                    member_id: id,
                    leader: 1,
                    raft_applied_index: applied,
                    db_size: 10,
                    is_learner: learner,
                    ..Default::default()
                }),
            );
            m.quota_bytes = 100;
            m.quota_source = QuotaSource::Member;
            if let Some(l) = m.listed.as_mut() {
                l.peer_urls = vec![format!("http://127.0.0.1:{id}")];
            }
            m
        };
        let look = |learner_applied: u64| ClusterLook {
            members: vec![
                member("m1", 1, false, 50_000),
                member("m2", 2, false, 50_000),
                member("l4", 4, true, learner_applied),
            ],
            member_list_known: true,
            alarms: vec![Alarm {
                member_id: 4,
                kind: AlarmKind::Nospace,
            }],
            alarm_list_error: None,
        };
        let caught_up = look(49_500);
        let d = disarm_decisions(&caught_up, &[], false, None);
        assert!(!d[0].disarm, "a disarm holds only until the next write");
        assert!(!d[0].why.contains("--member l4"), "{}", d[0].why);
        assert!(
            d[0].why.ends_with("(applied index 49500, the leader's 50000): promote it, then compact and defragment, which disarms the alarm once every member is back under its quota: kubectl etcd member promote l4, then kubectl etcd defrag --compact"),
            "{}",
            d[0].why
        );
        let cluster = ClusterRef::new("prod", "db");
        let d = disarm_decisions(&caught_up, &[], false, Some(&cluster));
        assert!(d[0].why.contains("kubectl etcd member promote l4 db -n prod, then kubectl etcd defrag db -n prod --compact"), "{}", d[0].why);
        let behind = look(1_000);
        let d = disarm_decisions(&behind, &[], false, None);
        assert!(
            d[0].why.ends_with("It has not caught up (applied index 1000, the leader's 50000), so it cannot be promoted: remove it, disarm the alarm it raised, compact and defragment, then add it back with an empty data directory: kubectl etcd member remove 0000000000000004, then kubectl etcd alarm disarm --force, then kubectl etcd defrag --compact, then kubectl etcd member add l4 --learner --peer-urls http://127.0.0.1:4"),
            "{}",
            d[0].why
        );
        // --force still disarms, as for any member.
        assert!(disarm_decisions(&behind, &[], true, None)[0].disarm);
    }
}
