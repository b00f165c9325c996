//! Room on the disk to defragment: the one rule the sweep's plan (so the
//! one-shot command and `--watch`), its dry run and `doctor` share.
//!
//! etcd's Defragment copies the live pages of the backend into a new file
//! beside the old one (`db.tmp.*` in the member's data directory), then
//! swaps the two: for that moment the volume holds both. The new file
//! grows to about the in-use size, and the member keeps writing its WAL
//! meanwhile, which can cut a new preallocated 64 MiB segment. A volume
//! without that room fails the Defragment, and before 3.4.35 and 3.5.17
//! the failure panics the member (`defects::DEFRAG_ERROR_PANICS`).
//!
//! The free space is only judged where it was read (`look::Room::Read`:
//! the kubelet's volume statistics, or the filesystem itself); a member
//! whose room is not known is defragmented as before, and the plan says
//! so (`plan::notes`).

use crate::look::{ClusterLook, DiskRoom, Room};
use crate::plan::defrag::{MemberDecision, Plan, SkipReason};
use crate::quantity::format_bytes;

/// The WAL segment a member may cut while it defragments: etcd
/// preallocates each one at 64 MiB.
pub const WAL_SEGMENT: u64 = 64 << 20;

/// The free space a member's Defragment needs: a new file of its in-use
/// size, plus a WAL segment.
pub fn needed(in_use: u64) -> u64 {
    in_use.saturating_add(WAL_SEGMENT)
}

/// What the rule says of one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// The volume has the room.
    Fits { needed: u64, room: &'a DiskRoom },
    /// It has not: a Defragment would fail (or panic the member).
    Short { needed: u64, room: &'a DiskRoom },
    /// Not known, and why (`None`: nobody could ask).
    Unknown(Option<&'a str>),
}

/// Judges a member whose backend has `in_use` bytes in use.
pub fn judge(in_use: u64, room: Option<&Room>) -> Verdict<'_> {
    let needed = needed(in_use);
    match room {
        Some(Room::Read(r)) if r.free_bytes >= needed => Verdict::Fits { needed, room: r },
        Some(Room::Read(r)) => Verdict::Short { needed, room: r },
        Some(Room::Unknown { why }) => Verdict::Unknown(Some(why)),
        None => Verdict::Unknown(None),
    }
}

/// The sentence for a member without room, with the numbers.
pub fn short(member: &str, in_use: u64, needed: u64, room: &DiskRoom) -> String {
    let capacity = room
        .capacity_bytes
        .map(|c| format!(" of {}", format_bytes(c)))
        .unwrap_or_default();
    format!(
        "{member}: a defrag needs about {} free ({} in use, plus a 64 MiB WAL segment) and its data volume has {} free{capacity} ({})",
        format_bytes(needed),
        format_bytes(in_use),
        format_bytes(room.free_bytes),
        room.source
    )
}

/// What to do about a member without room.
pub const REMEDY: &str = "free space on the member's data volume or grow it (a bigger volume, then replace the member), or compact first to lower the in-use size; the sweep holds the member back until it fits";

/// Holds back every member the plan would defragment whose data volume
/// lacks the room its Defragment needs (`Skip(NoDiskRoom)`, with the
/// numbers in `held_back`). There is no flag to override it: a Defragment
/// that runs out of space fails at best. Pure.
pub fn hold_back(mut plan: Plan, look: &ClusterLook) -> Plan {
    for planned in &mut plan.members {
        if !matches!(planned.decision, MemberDecision::Defrag(_)) {
            continue;
        }
        let Some(member) = look.members.iter().find(|m| m.name == planned.name) else {
            continue;
        };
        if let Verdict::Short { needed, room } = judge(planned.in_use, member.room.as_ref()) {
            planned.decision = MemberDecision::Skip(SkipReason::NoDiskRoom);
            planned.held_back = Some(format!(
                "{}; held back: {REMEDY}",
                short(&planned.name, planned.in_use, needed, room)
            ));
        }
    }
    plan.members.sort_by_key(|m| match m.decision {
        MemberDecision::Defrag(_) => 0,
        MemberDecision::Skip(_) => 1,
    });
    plan
}

/// The members the plan would defragment whose room is not known, with
/// why (`None`: nobody could ask, as in standalone mode).
pub fn unknown<'a>(plan: &'a Plan, look: &'a ClusterLook) -> Vec<(&'a str, Option<&'a str>)> {
    plan.to_defrag()
        .filter_map(|p| {
            let member = look.members.iter().find(|m| m.name == p.name)?;
            match judge(p.in_use, member.room.as_ref()) {
                Verdict::Unknown(why) => Some((p.name.as_str(), why)),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{MemberLook, MemberStatus, Probe};
    use crate::plan::defrag::order_sweep;
    use crate::plan::rule::DefragRule;
    use std::collections::BTreeSet;

    const MI: u64 = 1 << 20;

    fn read(free: u64) -> Room {
        Room::Read(DiskRoom {
            free_bytes: free,
            capacity_bytes: Some(1024 * MI),
            source: "the kubelet's statistics of volume data on node n1".into(),
        })
    }

    #[test]
    fn a_member_fits_with_its_in_use_size_and_a_wal_segment_free() {
        let unknown = Room::Unknown {
            why: "no nodes/proxy".into(),
        };
        let cases: Vec<(u64, Option<Room>, &str)> = vec![
            (100 * MI, Some(read(164 * MI)), "fits"),
            (100 * MI, Some(read(164 * MI - 1)), "short"),
            (0, Some(read(63 * MI)), "short"),
            (0, Some(read(64 * MI)), "fits"),
            (100 * MI, Some(unknown), "unknown: no nodes/proxy"),
            (100 * MI, None, "unknown"),
        ];
        for (in_use, room, want) in cases {
            let got = match judge(in_use, room.as_ref()) {
                Verdict::Fits { needed, .. } => {
                    assert_eq!(needed, in_use + WAL_SEGMENT);
                    "fits".to_string()
                }
                Verdict::Short { needed, .. } => {
                    assert_eq!(needed, in_use + WAL_SEGMENT);
                    "short".to_string()
                }
                Verdict::Unknown(Some(why)) => format!("unknown: {why}"),
                Verdict::Unknown(None) => "unknown".to_string(),
            };
            assert_eq!(got, want, "{in_use} {room:?}");
        }
    }

    fn look(rooms: &[(&str, Option<Room>)]) -> ClusterLook {
        ClusterLook {
            members: rooms
                .iter()
                .enumerate()
                .map(|(i, (name, room))| {
                    let id = i as u64 + 1;
                    MemberLook {
                        room: room.clone(),
                        ..MemberLook::listed_for_test(
                            name,
                            id,
                            false,
                            Probe::Answered(MemberStatus {
                                member_id: id,
                                version: "3.6.16".into(),
                                db_size: 500 * MI,
                                db_size_in_use: 100 * MI,
                                leader: 1,
                                ..Default::default()
                            }),
                        )
                    }
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    #[test]
    fn a_member_short_of_room_is_held_back_with_the_numbers_and_the_rest_go_on() {
        let look = look(&[
            ("a", Some(read(120 * MI))),
            ("b", Some(read(900 * MI))),
            ("c", None),
        ]);
        let rule = DefragRule {
            all: true,
            ..DefragRule::default()
        };
        let plan = order_sweep(&look, Some(1), &rule, &[], &BTreeSet::new());
        let plan = hold_back(plan, &look);
        let decided: Vec<(&str, MemberDecision)> = plan
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.decision))
            .collect();
        assert!(matches!(decided[0], ("b", MemberDecision::Defrag(_))));
        assert!(matches!(decided[1], ("c", MemberDecision::Defrag(_))));
        assert_eq!(
            decided[2],
            ("a", MemberDecision::Skip(SkipReason::NoDiskRoom))
        );
        let why = plan.members[2].held_back.clone().unwrap_or_default();
        assert!(
            why.contains("needs about 164 MiB free (100 MiB in use")
                && why.contains("has 120 MiB free of 1.0 GiB")
                && why.contains("kubelet's statistics"),
            "{why}"
        );
        assert_eq!(unknown(&plan, &look), vec![("c", None)]);
    }
}
