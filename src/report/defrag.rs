//! `defrag`: what a run did (or would do) member by member, how the leader
//! was handled, why it stopped early if it did, and the checks after it
//! (alarms, HashKV agreement). The EtcdDefrag status rows are built from
//! these same member results.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::{member_id, AlarmAction, AlarmResult, ClusterRef, MemberReason, NotRefreshed, Outcome};
use crate::plan::defrag::{LeaderChoice, PlannedMember, Role};
use crate::plan::gate::{GateReason, ReasonView};
use crate::plan::rule::DefragRule;

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
    /// `compactedAt` had been compacted already: this run compacted nothing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub already_compacted: bool,
    /// Members whose in-use size etcd had not recomputed since the
    /// compaction, so their figures are not known (see `NotRefreshed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_use_not_refreshed: Option<NotRefreshed>,
    /// Wall time of the whole run (the sweep and the checks after it, from
    /// the engine's start), and the sum of Defragment durations.
    pub wall_ms: u64,
    pub defrag_ms: u64,
    pub alarms: Vec<AlarmAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_check: Option<HashCheck>,
    /// How the servers change the plan (`plan::notes`): feature gates,
    /// known defects, probes, predicted write outages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `--via-operator`: the EtcdDefrag the operator's controller ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<OperatorRun>,
}

/// The EtcdDefrag a `--via-operator` run was handed over as, as last seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorRun {
    pub namespace: String,
    pub name: String,
    /// `status.phase` (Pending when none was written).
    pub phase: String,
    /// The `DefragChecked` condition, `reason: message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl DefragReport {
    /// Whether the run did everything it set out to: nothing stopped it, no
    /// member failed, every alarm it meant to clear is gone, and the members
    /// do not disagree (a check that could not be made is not a failure).
    pub fn succeeded(&self) -> bool {
        self.stopped.is_none()
            && self.members.iter().all(|m| m.outcome != Outcome::Failed)
            && self.skipped_unknown().next().is_none()
            && self.held_back().next().is_none()
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

    /// Members held back because the kubelet would restart them
    /// mid-defrag (`MemberReason::ProbeBudget`) or their data volume lacks
    /// the room (`NoDiskRoom`): the run did not do what it was asked for
    /// them.
    pub fn held_back(&self) -> impl Iterator<Item = &MemberResult> {
        self.members.iter().filter(|m| {
            matches!(
                m.reason,
                Some(MemberReason::ProbeBudget | MemberReason::NoDiskRoom)
            )
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
        parts.extend(self.held_back().map(|m| match m.reason {
            Some(MemberReason::NoDiskRoom) => format!(
                "{} held back: its data volume lacks the free space a defrag needs (its row has the numbers)",
                m.name
            ),
            _ => format!(
                "{} held back: the kubelet would restart it mid-defrag ({} to defragment it anyway)",
                m.name,
                crate::plan::probes::ALLOW_FLAG
            ),
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
                .or_else(|| m.held_back.clone())
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
    /// `--via-operator`: the operator failed the run for a reason of its
    /// own (not a member's failure, not its deadline), e.g.
    /// `ClusterNotFound`.
    RunFailed { reason: String, message: String },
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
            StopReason::RunFailed { .. } => "RunFailed",
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
            StopReason::RunFailed { reason, message } => {
                write!(f, "the etcd-operator failed the run: {reason}: {message}")
            }
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
