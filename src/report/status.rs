//! `status` and `status -A`: a row per member with its sizes, quota use,
//! raft progress and verdict, the cluster's alarms and the gate's verdict;
//! for `-A`, one such report (or why there is none) per EtcdCluster.

use serde::Serialize;

use super::{member_id, AlarmRow, ClusterRef};
use crate::look::{ClusterLook, Probe};
use crate::plan::gate::{GateVerdict, ReasonView};
use crate::reach::QuotaSource;

/// `status`: one row per member plus the gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The leader all answering members agree on (hex id), if any.
    pub leader: Option<String>,
    pub members: Vec<MemberRow>,
    pub alarms: Vec<AlarmRow>,
    pub gate: GateView,
    /// Plugin mode: the cluster's EtcdDefrag runs and EtcdDefragPolicies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defrag: Option<DefragActivity>,
    /// Plugin mode: where the EtcdCluster's status disagrees with what the
    /// members answered (`plan::operator`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub operator_disagrees: Vec<String>,
}

/// What the cluster's defrag processors are doing: the run that acts now
/// (the oldest unfinished one), how many wait behind it, the last finished
/// run, and each policy's next tick.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefragActivity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<RunSummary>,
    /// Unfinished runs behind the active one.
    pub queued: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_finished: Option<RunSummary>,
    pub policies: Vec<PolicyNext>,
    /// Why the runs or policies could not be read (nothing else is then
    /// filled in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One EtcdDefrag, summed up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub name: String,
    /// `status.phase`, Pending when none was written.
    pub phase: String,
    /// Who drives it (the field manager of its last status write).
    pub driver: String,
    /// Members planned, and how many of them are done (not Pending).
    pub members: usize,
    pub done: usize,
    pub defragmented: usize,
    pub reclaimed_bytes: u64,
    /// RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// The `DefragChecked` condition, `reason: message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// An EtcdDefragPolicy of the cluster and its next tick.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyNext {
    pub name: String,
    pub schedule: String,
    pub suspended: bool,
    /// RFC 3339; absent when suspended or the schedule does not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_tick: Option<String>,
    /// Why the schedule does not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The health gate as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GateView {
    pub passed: bool,
    pub reasons: Vec<ReasonView>,
}

/// One member in `status`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberRow {
    pub name: String,
    pub endpoint: Option<String>,
    pub id: Option<String>,
    pub reachable: bool,
    /// Why the member could not be probed, when it could not.
    pub error: Option<String>,
    pub version: Option<String>,
    pub db_size: Option<u64>,
    pub db_size_in_use: Option<u64>,
    pub reclaimable: Option<u64>,
    pub quota: Quota,
    /// dbSize as a percentage of the quota.
    pub quota_used_percent: Option<f64>,
    pub is_leader: bool,
    pub is_learner: bool,
    pub raft_term: Option<u64>,
    pub raft_index: Option<u64>,
    pub raft_applied_index: Option<u64>,
    /// Alarms raised on this member (`NOSPACE`, `CORRUPT`, …).
    pub alarms: Vec<String>,
    /// `healthy`, `learner`, or the gate's short labels for this member.
    pub verdict: String,
    /// Stable codes of the gate reasons that name this member.
    pub reasons: Vec<&'static str>,
    /// For a member whose release has the applySnapshot/Defragment race:
    /// what says whether a snapshot from the leader could be reaching it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_watch: Option<SnapshotWatchView>,
    /// The server feature gates that change maintenance and are on for
    /// this member (`plan::doctor::MAINTENANCE_GATES`), from its
    /// `/metrics`: read for `-o wide` only; empty before etcd 3.6.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_gates: Option<Vec<String>>,
}

/// `look::SnapshotWatch` as `status -o json` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotWatchView {
    /// The leader's raft progress state for the member.
    pub leader_progress: Option<String>,
    /// Snapshots the member is receiving or applying.
    pub in_flight: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

/// A quota figure and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Quota {
    pub bytes: u64,
    pub source: QuotaSource,
}

impl StatusReport {
    /// Builds the status report. Pure.
    pub fn build(
        cluster: Option<ClusterRef>,
        look: &ClusterLook,
        verdict: &GateVerdict,
    ) -> StatusReport {
        let mut members: Vec<MemberRow> = look
            .members
            .iter()
            .map(|m| {
                let status = m.status();
                let alarms: Vec<String> = look
                    .alarms
                    .iter()
                    .filter(|a| Some(a.member_id) == m.id)
                    .map(|a| a.kind.as_str().to_string())
                    .collect();
                let own: Vec<_> = verdict.for_member(&m.name).collect();
                let verdict_text = if !own.is_empty() {
                    own.iter().map(|r| r.short()).collect::<Vec<_>>().join(", ")
                } else if m.is_learner() {
                    "learner".to_string()
                } else {
                    "healthy".to_string()
                };
                let error = match &m.probe {
                    Probe::Answered(_) => None,
                    Probe::Failed(e) => Some(e.cause.to_string()),
                    Probe::NotProbed(why) => Some(why.clone()),
                };
                MemberRow {
                    name: m.name.clone(),
                    endpoint: m.dial.as_ref().map(|d| d.endpoint.to_string()),
                    id: m.id.map(member_id),
                    reachable: status.is_some(),
                    error,
                    version: status.map(|s| s.version.clone()),
                    db_size: status.map(|s| s.db_size),
                    db_size_in_use: status.map(|s| s.db_size_in_use),
                    reclaimable: status.map(|s| s.db_size.saturating_sub(s.db_size_in_use)),
                    quota: Quota {
                        bytes: m.quota_bytes,
                        source: m.quota_source,
                    },
                    quota_used_percent: status.and_then(|s| percent(s.db_size, m.quota_bytes)),
                    is_leader: m.id.is_some() && m.id == verdict.leader,
                    is_learner: m.is_learner(),
                    raft_term: status.map(|s| s.raft_term),
                    raft_index: status.map(|s| s.raft_index),
                    raft_applied_index: status.map(|s| s.raft_applied_index),
                    alarms,
                    verdict: verdict_text,
                    reasons: own.iter().map(|r| r.code()).collect(),
                    snapshot_watch: m.snapshot_watch.as_ref().map(|w| SnapshotWatchView {
                        leader_progress: w.leader_progress.clone(),
                        in_flight: w.in_flight,
                        unread: w.unread.clone(),
                    }),
                    feature_gates: None,
                }
            })
            .collect();
        members.sort_by(|a, b| a.name.cmp(&b.name));
        StatusReport {
            cluster,
            leader: verdict.leader.map(member_id),
            members,
            alarms: AlarmRow::all(look),
            gate: GateView {
                passed: verdict.passed(),
                reasons: verdict.reasons.iter().map(ReasonView::from).collect(),
            },
            defrag: None,
            operator_disagrees: Vec::new(),
        }
    }
}

/// `part / whole` as a percentage rounded to one decimal; `None` for a zero
/// whole.
fn percent(part: u64, whole: u64) -> Option<f64> {
    if whole == 0 {
        return None;
    }
    Some(((part as f64 / whole as f64) * 1000.0).round() / 10.0)
}

/// `status -A`: one entry per EtcdCluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultiStatusReport {
    pub clusters: Vec<ClusterStatus>,
    /// The contexts read when several were (`--context` more than once,
    /// `--all-contexts`); absent for one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<super::ContextRow>,
}

/// One cluster of `status -A`: its status, or why it could not be probed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterStatus {
    pub cluster: ClusterRef,
    /// The kind of EtcdCluster (`cozystack`, `etcd-io`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::reach::Kind>,
    pub error: Option<String>,
    pub status: Option<StatusReport>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_rounds_to_one_decimal() {
        assert_eq!(percent(1, 0), None);
        assert_eq!(percent(1 << 30, 2 << 30), Some(50.0));
        assert_eq!(percent(1, 3), Some(33.3));
    }
}
