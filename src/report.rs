//! Reports: the one `Serialize` structure per command that the table, JSON
//! and YAML renderers all print. Built purely from a snapshot and a verdict.
//!
//! Field names are camelCase and stable (documented in `docs/output.md`);
//! sizes are bytes; member ids are lower-case hex strings, the form tables
//! and `move-leader` use (etcd's own JSON prints them in decimal).

use serde::Serialize;

use crate::etcd::ListedMember;
use crate::plan::gate::{GateVerdict, ReasonView};
use crate::plan::traffic::{Assessment, FieldOwner, ServiceAction, TrafficValue};
use crate::snapshot::{ClusterSnapshot, Probe};
use crate::target::QuotaSource;

/// Which EtcdCluster a report is about (plugin mode only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterRef {
    pub namespace: String,
    pub name: String,
}

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
}

/// A quota figure and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Quota {
    pub bytes: u64,
    pub source: QuotaSource,
}

/// One raised alarm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRow {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
}

impl AlarmRow {
    /// Every alarm in the snapshot, with the member's name. Pure.
    pub fn all(snapshot: &ClusterSnapshot) -> Vec<AlarmRow> {
        snapshot
            .alarms
            .iter()
            .map(|a| AlarmRow {
                member: snapshot.name_of(a.member_id),
                member_id: format!("{:x}", a.member_id),
                alarm: a.kind.as_str().to_string(),
            })
            .collect()
    }
}

impl StatusReport {
    /// Builds the status report. Pure.
    pub fn build(
        cluster: Option<ClusterRef>,
        snapshot: &ClusterSnapshot,
        verdict: &GateVerdict,
    ) -> StatusReport {
        let mut members: Vec<MemberRow> = snapshot
            .members
            .iter()
            .map(|m| {
                let status = m.status();
                let alarms: Vec<String> = snapshot
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
                    id: m.id.map(|id| format!("{id:x}")),
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
                }
            })
            .collect();
        members.sort_by(|a, b| a.name.cmp(&b.name));
        StatusReport {
            cluster,
            leader: verdict.leader.map(|id| format!("{id:x}")),
            members,
            alarms: AlarmRow::all(snapshot),
            gate: GateView {
                passed: verdict.passed(),
                reasons: verdict.reasons.iter().map(ReasonView::from).collect(),
            },
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
}

/// One cluster of `status -A`: its status, or why it could not be probed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterStatus {
    pub cluster: ClusterRef,
    pub error: Option<String>,
    pub status: Option<StatusReport>,
}

/// `members`: the member list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MembersReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub members: Vec<MemberListRow>,
}

/// One MemberList entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberListRow {
    pub id: String,
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

impl MembersReport {
    /// Builds the member-list report. Pure.
    pub fn build(cluster: Option<ClusterRef>, list: &[ListedMember]) -> MembersReport {
        let mut list = list.to_vec();
        list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        MembersReport {
            cluster,
            members: list
                .iter()
                .map(|m| MemberListRow {
                    id: format!("{:x}", m.id),
                    name: m.name.clone(),
                    peer_urls: m.peer_urls.clone(),
                    client_urls: m.client_urls.clone(),
                    is_learner: m.is_learner,
                })
                .collect(),
        }
    }
}

/// What `traffic show` prints, and the state after `set`/`clear`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrafficReport {
    pub cluster: ClusterRef,
    /// The client Service (`<cluster>-client`).
    pub service: String,
    /// `spec.trafficDistribution`, if set.
    pub value: Option<String>,
    /// Managers that own the field, from `managedFields`.
    pub owners: Vec<FieldOwner>,
    /// Whether the operator's field manager is one of them.
    pub owned_by_field_manager: bool,
    pub field_manager: &'static str,
    /// The EtcdCluster annotation, if present.
    pub annotation: Option<String>,
    pub state: Assessment,
    pub server: ServerSupport,
    /// For `set` and `clear`: what was (or, with --dry-run, would be) done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

/// The API server release and what it is expected to keep.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSupport {
    pub version: String,
    pub values: Vec<ValueSupport>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueSupport {
    pub value: TrafficValue,
    /// First release that keeps it with default feature gates.
    pub since: String,
    /// Expected from the version (`null` when the version is unknown);
    /// feature gates can differ, `set --dry-run` asks the server itself.
    pub supported: Option<bool>,
}

/// What `set` / `clear` did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub dry_run: bool,
    pub annotation_before: Option<String>,
    pub annotation_written: bool,
    pub value_before: Option<String>,
    pub service_action: ServiceAction,
    pub service_written: bool,
    /// One sentence per step, as the table prints them.
    pub notes: Vec<String>,
}

impl Change {
    /// Nothing written yet.
    pub fn planned(
        dry_run: bool,
        annotation_before: Option<String>,
        value_before: Option<String>,
        service_action: ServiceAction,
    ) -> Change {
        Change {
            dry_run,
            annotation_before,
            annotation_written: false,
            value_before,
            service_action,
            service_written: false,
            notes: Vec::new(),
        }
    }
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
