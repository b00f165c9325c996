//! Reports: the one `Serialize` structure per command that the table, JSON
//! and YAML renderers all print. Built purely from a snapshot and a verdict.
//!
//! Field names are camelCase and stable (documented in `docs/output.md`);
//! sizes are bytes; member ids are 16 zero-padded lower-case hex digits, the
//! form EtcdMember `status.memberID`, tables and `move-leader` use (etcd's
//! own JSON prints them in decimal). Reasons and results are typed enums
//! whose stable strings are what JSON shows.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::contract::{FieldOwner, TrafficValue};
use crate::plan::defrag::{LeaderChoice, PlannedMember, Role, SkipReason};
use crate::plan::gate::{GateReason, GateVerdict, ReasonView};
use crate::plan::rule::DefragRule;
use crate::plan::traffic::{Assessment, ServiceAction};
pub use crate::reach::ClusterRef;
use crate::reach::QuotaSource;
use crate::snapshot::{ClusterSnapshot, ListedMember, Probe};

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
                member_id: member_id(a.member_id),
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
                }
            })
            .collect();
        members.sort_by(|a, b| a.name.cmp(&b.name));
        StatusReport {
            cluster,
            leader: verdict.leader.map(member_id),
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

/// `defrag -A` / `defrag -l`: a row per cluster around its `DefragReport`.
pub mod fleet;
pub use fleet::{FleetCluster, FleetOutcome, FleetReport, FleetTotals};

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
                    id: member_id(m.id),
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

/// `defrag`: what the run did (or, with `dryRun`, would do), member by
/// member, and the checks after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefragReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub rule: DefragRule,
    /// Execution order, then skipped members.
    pub members: Vec<MemberResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<LeaderReport>,
    /// Why the run stopped early (`stopped`: a sentence; `stopReason`: its
    /// stable code), if it did.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// Gate reasons behind a stop, as codes and messages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refusal: Vec<ReasonView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted_at: Option<i64>,
    /// Members whose in-use size etcd had not recomputed since the
    /// compaction, so their figures are not known (see `NotRefreshed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_use_not_refreshed: Option<NotRefreshed>,
    /// Wall time of the whole sweep, and the sum of Defragment durations.
    pub wall_ms: u64,
    pub defrag_ms: u64,
    pub alarms: Vec<AlarmAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_check: Option<HashCheck>,
}

/// In-use figures that are not known: etcd recomputes a member's in-use
/// size when it commits its backend, and after a compaction the tool's
/// refresh (a Lease granted and revoked) was refused, so members whose
/// figure did not move still show the size from before the compaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRefreshed {
    pub members: Vec<String>,
    /// Why the refresh was refused (etcd's words).
    pub why: String,
}

impl DefragReport {
    /// Whether the run did everything it set out to: nothing stopped it, no
    /// member failed, every alarm it meant to clear is gone, and the members
    /// do not disagree (a check that could not be made is not a failure).
    pub fn succeeded(&self) -> bool {
        self.stopped.is_none()
            && self.members.iter().all(|m| m.outcome != Outcome::Failed)
            && self.skipped_unknown().next().is_none()
            && self
                .alarms
                .iter()
                .all(|a| a.result == AlarmResult::Disarmed)
            && self
                .hash_check
                .as_ref()
                .is_none_or(|h| h.verdict != HashVerdict::Disagree)
    }

    /// Members the rule skipped on an in-use figure that is not known
    /// (`in_use_not_refreshed`): they may still hold the space.
    pub fn skipped_unknown(&self) -> impl Iterator<Item = &MemberResult> {
        let stale = self
            .in_use_not_refreshed
            .as_ref()
            .map(|n| n.members.as_slice())
            .unwrap_or_default();
        self.members.iter().filter(move |m| {
            m.outcome == Outcome::Skipped
                && m.reason == Some(MemberReason::BelowThreshold)
                && stale.contains(&m.name)
        })
    }

    /// The stop reason, if the run stopped early.
    pub fn stop_reason(&self) -> Option<&StopReason> {
        self.stopped.as_ref().map(|s| &s.0)
    }

    /// Members that were defragmented.
    pub fn defragmented(&self) -> usize {
        self.members
            .iter()
            .filter(|m| m.outcome == Outcome::Defragmented)
            .count()
    }

    /// Why a finished run did not succeed, one phrase per problem: the stop
    /// reason alone when it stopped early, else every failed member, every
    /// alarm left raised and a HashKV disagreement. Empty when it succeeded.
    pub fn problems(&self) -> Vec<String> {
        if let Some(reason) = self.stop_reason() {
            return vec![format!("stopped: {reason}")];
        }
        let mut parts: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.outcome == Outcome::Failed)
            .map(|m| {
                format!(
                    "{} failed ({})",
                    m.name,
                    m.reason.map(MemberReason::as_str).unwrap_or("")
                )
            })
            .collect();
        // A member skipped on a figure etcd had not refreshed may still
        // hold the space the run was for: that is no success.
        parts.extend(self.skipped_unknown().map(|m| {
            format!(
                "{} skipped on an in-use figure etcd had not refreshed since the compaction; what it holds is not known",
                m.name
            )
        }));
        parts.extend(
            self.alarms
                .iter()
                .filter(|a| a.result != AlarmResult::Disarmed)
                .map(|a| format!("alarm {} on {} {}", a.alarm, a.member, a.result.as_str())),
        );
        if self
            .hash_check
            .as_ref()
            .is_some_and(|h| h.verdict == HashVerdict::Disagree)
        {
            parts.push("the members' HashKV disagree".into());
        }
        parts
    }
}

/// A member's outcome (the EtcdDefrag `outcome` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// Not reached (the run stopped first), or planned in a dry run.
    Pending,
    Skipped,
    Defragmented,
    Failed,
}

/// Why a member ended as it did. The strings are the EtcdDefrag
/// `status.members[].reason` values (and ours, in the same style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MemberReason {
    /// Skipped: the rule did not trigger.
    BelowThreshold,
    /// Skipped: learners are reported, not defragmented.
    Learner,
    /// Skipped: not named by `--member`.
    NotSelected,
    /// Failed: the Defragment RPC failed or timed out.
    #[serde(rename = "RPCError")]
    RpcError,
    /// Defragmented, but the size afterwards could not be read.
    AfterSizeUnavailable,
    /// Failed: planned, but no longer a member of the cluster.
    MemberGone,
    /// Failed: the member has no client URL to dial.
    NoEndpoint,
    /// Skipped: it did not answer Status (the detail has its probe error);
    /// its sizes are not known.
    Unreachable,
}

impl MemberReason {
    /// The stable string.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberReason::BelowThreshold => "BelowThreshold",
            MemberReason::Learner => "Learner",
            MemberReason::NotSelected => "NotSelected",
            MemberReason::RpcError => "RPCError",
            MemberReason::AfterSizeUnavailable => "AfterSizeUnavailable",
            MemberReason::MemberGone => "MemberGone",
            MemberReason::NoEndpoint => "NoEndpoint",
            MemberReason::Unreachable => "Unreachable",
        }
    }
}

impl From<SkipReason> for MemberReason {
    fn from(r: SkipReason) -> Self {
        match r {
            SkipReason::BelowThreshold => MemberReason::BelowThreshold,
            SkipReason::Learner => MemberReason::Learner,
            SkipReason::NotSelected => MemberReason::NotSelected,
            SkipReason::Unreachable => MemberReason::Unreachable,
        }
    }
}

impl fmt::Display for MemberReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `reason` is a string in JSON, empty when there is none (as in
/// EtcdDefrag status).
fn reason_or_empty<S: serde::Serializer>(
    reason: &Option<MemberReason>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(reason.map_or("", MemberReason::as_str))
}

/// One member's line in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberResult {
    pub name: String,
    /// 16 hex digits, as EtcdMember `status.memberID`.
    pub id: String,
    pub role: Role,
    pub outcome: Outcome,
    #[serde(serialize_with = "reason_or_empty")]
    pub reason: Option<MemberReason>,
    /// A sentence with details, when there is more to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub db_size_before: u64,
    pub db_size_in_use: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_size_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reclaimed_bytes: Option<u64>,
    /// Predicted reclaim (size − in use) when planned.
    pub predicted_reclaim: u64,
    /// How long the Defragment RPC took (or until it timed out), ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// How long until the member answered again and had caught up, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered_ms: Option<u64>,
}

impl MemberResult {
    /// The line for a planned member, before anything happened to it.
    pub fn planned(m: &PlannedMember, outcome: Outcome, reason: Option<MemberReason>) -> Self {
        MemberResult {
            name: m.name.clone(),
            id: member_id(m.id),
            role: m.role,
            outcome,
            reason,
            // A silent member: its probe error, and its id (the table has
            // no id column).
            detail: m
                .silent
                .as_ref()
                .map(|why| format!("{why} (member id {})", member_id(m.id)))
                .or_else(|| {
                    (m.decision
                        == crate::plan::defrag::MemberDecision::Defrag(
                            crate::plan::rule::Trigger::Nospace,
                        ))
                    .then(|| {
                        "NOSPACE recovery: below the rule, but its defrag helps bring the cluster back under its quota".to_string()
                    })
                }),
            db_size_before: m.db_size,
            db_size_in_use: m.in_use,
            db_size_after: None,
            reclaimed_bytes: None,
            predicted_reclaim: m.predicted_reclaim(),
            duration_ms: None,
            recovered_ms: None,
        }
    }
}

/// A member id as users see it elsewhere (EtcdMember `status.memberID`):
/// 16 lower-case hex digits, zero-padded.
pub fn member_id(id: u64) -> String {
    format!("{id:016x}")
}

/// How the leader was handled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderReport {
    /// The leader when its turn came.
    pub member: String,
    #[serde(flatten)]
    pub choice: LeaderChoice,
    /// Where leadership went, when it was transferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transferred_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_ms: Option<u64>,
    /// Why a wanted transfer did not happen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_error: Option<String>,
}

/// Why a run stopped before it was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The health gate refused (with `--wait-healthy`: for longer than that).
    GateRefused { reasons: Vec<GateReason> },
    /// The gate refused before compaction.
    GateRefusedBeforeCompaction { reasons: Vec<GateReason> },
    /// Compaction failed.
    CompactionFailed { detail: String },
    /// A stop was requested (Ctrl-C, the controller shutting down): taken
    /// once the member in flight had answered again.
    Interrupted,
    /// A second stop request: the wait for the member in flight was
    /// abandoned; the server may still be defragmenting it.
    Abandoned { member: Option<String> },
    /// The run's deadline passed.
    DeadlineExceeded,
    /// A member did not answer and catch up after its defragmentation.
    MemberDidNotReturn {
        member: String,
        limit: Duration,
        why: String,
    },
    /// No member of the cluster answered any more.
    ClusterUnreachable { detail: String },
    /// etcd refused a call for lack of permission (the user lacks the root
    /// role); the same user is refused on every member, so the run stopped
    /// at the first refusal.
    PermissionDenied {
        member: String,
        op: String,
        user: Option<String>,
    },
}

impl StopReason {
    /// Stable identifier for JSON and scripts.
    pub fn code(&self) -> &'static str {
        match self {
            StopReason::GateRefused { .. } => "GateRefused",
            StopReason::GateRefusedBeforeCompaction { .. } => "GateRefused",
            StopReason::CompactionFailed { .. } => "CompactionFailed",
            StopReason::Interrupted => "Interrupted",
            StopReason::Abandoned { .. } => "Abandoned",
            StopReason::DeadlineExceeded => "DeadlineExceeded",
            StopReason::MemberDidNotReturn { .. } => "MemberDidNotReturn",
            StopReason::ClusterUnreachable { .. } => "ClusterUnreachable",
            StopReason::PermissionDenied { .. } => "PermissionDenied",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |reasons: &[GateReason]| {
            reasons
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        match self {
            StopReason::GateRefused { reasons } => {
                write!(f, "the health gate refused: {}", join(reasons))
            }
            StopReason::GateRefusedBeforeCompaction { reasons } => write!(
                f,
                "the health gate refused before compaction: {}",
                join(reasons)
            ),
            StopReason::CompactionFailed { detail } => {
                write!(f, "compaction failed: {detail}; no member was defragmented")
            }
            StopReason::Interrupted => f.write_str("interrupted"),
            StopReason::Abandoned { member: Some(m) } => write!(
                f,
                "interrupted twice: stopped waiting for {m}, which may still be defragmenting (check with `kubectl etcd status`)"
            ),
            StopReason::Abandoned { member: None } => f.write_str("interrupted twice"),
            StopReason::DeadlineExceeded => {
                f.write_str("the run's deadline passed; members not reached were left alone")
            }
            StopReason::MemberDidNotReturn { member, limit, why } => write!(
                f,
                "member {member} did not answer and catch up within {} after its defragmentation, so no further member was touched; last seen: {why}",
                crate::quantity::format_duration(*limit)
            ),
            StopReason::ClusterUnreachable { detail } => write!(
                f,
                "no member answers any more, so members not reached were left alone; last seen: {detail}"
            ),
            StopReason::PermissionDenied { member, op, user } => {
                let who = match user {
                    Some(u) => format!("user {u:?}"),
                    None => "the client certificate's user (its common name)".to_string(),
                };
                write!(
                    f,
                    "etcd refused {op} on {member} for lack of permission, and refuses the same user on every member, so the run stopped there: {op} needs the root role, which {who} lacks; run as a user with the root role (e.g. --user root)"
                )?;
                if let Some(u) = user {
                    write!(f, ", or grant it: etcdctl user grant-role {u} root")?;
                }
                Ok(())
            }
        }
    }
}

/// A stop as reported: `stopped` (the sentence) and `stopReason` (the code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped(pub StopReason);

impl Serialize for Stopped {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("stopped", &self.0.to_string())?;
        map.serialize_entry("stopReason", self.0.code())?;
        map.end()
    }
}

/// What became of one alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AlarmResult {
    #[serde(rename = "disarmed")]
    Disarmed,
    /// `alarm disarm --dry-run`.
    #[serde(rename = "would disarm")]
    WouldDisarm,
    /// Left raised, on purpose (the `why` says).
    #[serde(rename = "kept")]
    Kept,
    /// The disarm RPC failed.
    #[serde(rename = "failed")]
    Failed,
}

impl AlarmResult {
    pub fn as_str(self) -> &'static str {
        match self {
            AlarmResult::Disarmed => "disarmed",
            AlarmResult::WouldDisarm => "would disarm",
            AlarmResult::Kept => "kept",
            AlarmResult::Failed => "failed",
        }
    }
}

/// One alarm and what was done about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmAction {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
    pub result: AlarmResult,
    pub why: String,
}

/// Whether the members' key-value stores agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HashVerdict {
    Agree,
    Disagree,
    /// No revision every member could hash was found (etcd 3.4 refuses a
    /// compacted revision; writes kept the members apart): not a failure.
    NotPossible,
}

/// HashKV per member at one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HashCheck {
    /// The revision hashed (0 when no common revision was found).
    pub revision: i64,
    /// `true`/`false` when compared; `null` when the check was not possible.
    pub agree: Option<bool>,
    pub verdict: HashVerdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub members: Vec<MemberHash>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberHash {
    pub member: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_revision: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `alarm list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmListReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub alarms: Vec<AlarmRow>,
}

/// `alarm disarm`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmDisarmReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub alarms: Vec<AlarmAction>,
}

/// `move-leader`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveLeaderReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub from: String,
    pub to: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_after: Option<String>,
}

/// What `compact` did (or, with `dryRun`, would do).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    /// Revisions before this one are (or would be) gone.
    pub revision: i64,
    /// The cluster's revision when the command ran.
    pub current_revision: i64,
    /// Compacted up to here before (0: never compacted).
    pub compacted_before: i64,
    pub physical: bool,
    /// With `--keep-duration`: when `revision` was written (RFC 3339), as
    /// dated by the Leases; absent when it predates every Lease.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_at: Option<String>,
    /// The member the compaction went through.
    pub leader: String,
    /// Each answering member's sizes before, and after the compaction
    /// settled (`None` on a dry run, and for a member whose figure etcd
    /// had not recomputed: see `inUseNotRefreshed`).
    pub members: Vec<CompactedMember>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_use_not_refreshed: Option<NotRefreshed>,
    /// Set when there was nothing to compact (what was asked to go is gone
    /// already; exit 0): why, e.g. `nothing to compact: already compacted
    /// at revision N, the current revision`. Nothing was sent to etcd.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nothing_to_compact: Option<String>,
}

/// One member's sizes around a compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactedMember {
    pub name: String,
    pub db_size: u64,
    pub in_use_before: u64,
    pub in_use_after: Option<u64>,
}

/// What `member add|promote|remove` did (or, with `dryRun`, would do).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberChangeReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    /// `add`, `promote` or `remove`.
    pub action: &'static str,
    /// The member's name (for an add, the name it is to start with).
    pub member: String,
    /// Its id in hex; for a dry-run add, not known yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub learner: bool,
    /// The quorum arithmetic the change was checked against.
    pub quorum: QuorumView,
    /// Whether `--force` overrode a refusal; `refusal` says which.
    pub forced: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// For an add: the settings the new member must start with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_with: Vec<(String, String)>,
    /// The member list after the change (empty on a dry run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members_after: Vec<MemberListRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuorumView {
    pub voters_before: usize,
    pub voters_after: usize,
    pub answering_after: usize,
    pub needed: usize,
}

impl From<crate::plan::membership::Quorum> for QuorumView {
    fn from(q: crate::plan::membership::Quorum) -> Self {
        QuorumView {
            voters_before: q.voters_before,
            voters_after: q.voters_after,
            answering_after: q.answering_after,
            needed: q.needed,
        }
    }
}

/// What `doctor` found in one cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The worst severity among the findings.
    pub worst: crate::plan::doctor::Severity,
    /// Worst first; `ok` ones included (tables show them with `-o wide`).
    pub findings: Vec<crate::plan::doctor::Finding>,
    /// What could not be read, so its checks are missing (e.g. a member's
    /// /metrics).
    pub unread: Vec<String>,
}

/// `doctor -A`: one report per cluster, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetDoctorReport {
    pub clusters: Vec<DoctorReport>,
}

/// What is inside a snapshot file, as `etcdutl snapshot status` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotContents {
    /// CRC-32C over every bucket's keys and values: etcdutl's "hash".
    pub hash: u32,
    /// The last revision in the file.
    pub revision: i64,
    /// The keys that exist at that revision (etcdutl 3.6's "totalKey").
    pub keys: u64,
    /// Every entry of every bucket, history and etcd's own records
    /// included (etcdutl 3.5's "totalKey").
    pub entries: u64,
    /// The bolt database's size (the file less etcd's 32-byte checksum).
    pub total_size: u64,
    /// The storage version etcd 3.6 records; absent for older releases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_version: Option<String>,
}

/// What `snapshot save` wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSaveReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The member it was streamed from, and what that member was.
    pub member: String,
    pub role: crate::plan::backup::Role,
    pub file: String,
    /// The file's size in bytes (the database plus etcd's checksum).
    pub bytes: u64,
    /// SHA-256 of the whole file, as `sha256sum` prints it; also written to
    /// `<file>.sha256`.
    pub sha256: String,
    /// Always true in a report: a mismatch fails the command.
    pub etcd_checksum_verified: bool,
    pub seconds: f64,
    pub bytes_per_second: u64,
    pub contents: SnapshotContents,
}

/// What `snapshot status` read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotStatusReport {
    pub file: String,
    pub bytes: u64,
    /// `verified`, `mismatch` (changed since etcd sent it) or `absent` (a
    /// plain backend file, e.g. a data dir's `member/snap/db`).
    pub etcd_checksum: &'static str,
    #[serde(flatten)]
    pub contents: SnapshotContents,
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
