//! The checks a sweep asks of a look before it acts on it, beyond the
//! gate's (docs/cli.md, the second table of the health gate): that the
//! look shows one moment of the cluster, and that the member about to be
//! touched still sees what the step was planned on. Pure.

use std::time::Duration;

use crate::look::{ClusterLook, MemberStatus};
use crate::plan::gate::GateReason;

/// How far apart the Status answers of a look that a step acts on may
/// come: half of etcd's default election timeout (1 s). Answers within it
/// are views of nearly one moment; one that came later than the rest (a
/// member frozen, or stalled on its disk) may be a view from before an
/// election the others had not seen yet, or after one they had not.
pub const ONE_MOMENT: Duration = Duration::from_millis(500);

/// Whether a look shows one moment of the cluster, as a step that acts on
/// it needs (the gate itself judges each answer on its own). Pure.
///
/// Every answer must have come within `limit` of the fastest one (a look
/// asks every member at once, so a far network slows every answer alike
/// and passes), and every member that answered must be in the same raft
/// term. The second catches an election under way: members learn a new
/// term within a heartbeat (100 ms), so differing terms pass by
/// themselves, and the sweep looks again rather than refuse at once.
pub fn one_moment(look: &ClusterLook, limit: Duration) -> Vec<GateReason> {
    let mut reasons = Vec::new();
    let fastest = look.members.iter().filter_map(|m| m.answered_in).min();
    for m in &look.members {
        let (Some(took), Some(fastest)) = (m.answered_in, fastest) else {
            continue;
        };
        if took.saturating_sub(fastest) > limit {
            reasons.push(GateReason::SlowAnswer {
                member: m.name.clone(),
                took,
            });
        }
    }
    let views: Vec<(String, u64)> = look
        .members
        .iter()
        .filter_map(|m| Some((m.name.clone(), m.status()?.raft_term)))
        .collect();
    if views.windows(2).any(|w| w[0].1 != w[1].1) {
        reasons.push(GateReason::TermDisagreement { views });
    }
    reasons
}

/// Whether the member about to be defragmented (or handed leadership
/// from) still sees what the step was planned on, asked right before the
/// step: the same leader in the same raft term, and so the same role.
/// `None` when it does; otherwise the reason, naming both views. Pure.
pub fn still_as_looked(
    look: &ClusterLook,
    leader: u64,
    member: &str,
    now: &MemberStatus,
) -> Option<GateReason> {
    let looked_term = look
        .members
        .iter()
        .find(|m| m.name == member)
        .and_then(|m| m.status())
        .map(|s| s.raft_term)?;
    if now.leader == leader && now.raft_term == looked_term {
        return None;
    }
    let view = |leader: u64, term: u64| {
        if leader == 0 {
            format!("no leader in term {term}")
        } else {
            format!("leader {} in term {term}", look.name_of(leader))
        }
    };
    Some(GateReason::ChangedSinceLook {
        member: member.to_string(),
        looked: view(leader, looked_term),
        now: view(now.leader, now.raft_term),
    })
}
