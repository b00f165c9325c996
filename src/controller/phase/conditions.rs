//! The `DefragChecked` condition of an EtcdDefrag (docs/contract.md#conditions-and-events): its
//! reasons, how a pass builds it (keeping `lastTransitionTime` while the
//! status holds), and whether writing it changes anything. Apart from the
//! state machine, which only picks the reason and message: this is the
//! condition's bookkeeping (its reasons also label the deferral metrics).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;

use crate::k8s::crd::EtcdDefragStatus;

/// The single condition type an EtcdDefrag carries.
pub const CONDITION_TYPE: &str = "DefragChecked";

/// `DefragChecked` reasons (docs/contract.md#conditions-and-events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckedReason {
    Queued,
    ClusterNotHealthy,
    Running,
    Complete,
    MemberFailed,
    ClusterNotFound,
    DeadlineExceeded,
    /// Ours: a spec the CRD accepts but no rule can be built from (a size
    /// past what a byte count holds, `1e400`): failed at once, naming the
    /// field, instead of holding its cluster's queue until the deadline.
    InvalidSpec,
}

impl CheckedReason {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckedReason::Queued => "Queued",
            CheckedReason::ClusterNotHealthy => "ClusterNotHealthy",
            CheckedReason::Running => "Running",
            CheckedReason::Complete => "Complete",
            CheckedReason::MemberFailed => "MemberFailed",
            CheckedReason::ClusterNotFound => "ClusterNotFound",
            CheckedReason::DeadlineExceeded => "DeadlineExceeded",
            CheckedReason::InvalidSpec => "InvalidSpec",
        }
    }
}

/// The run's `DefragChecked` condition, if any.
pub fn checked(status: &EtcdDefragStatus) -> Option<&Condition> {
    status.conditions.iter().find(|c| c.type_ == CONDITION_TYPE)
}

/// Builds `DefragChecked` with `observedGeneration = generation`.
/// `lastTransitionTime` is `now` only when the status value differs from
/// `previous`'s (or there is none); otherwise it is kept
/// (docs/contract.md#conditions-and-events).
pub fn checked_condition(
    status: bool,
    reason: CheckedReason,
    message: String,
    generation: Option<i64>,
    previous: Option<&Condition>,
    now: Timestamp,
) -> Condition {
    crate::k8s::crd::condition(
        CONDITION_TYPE,
        status,
        reason.as_str(),
        message,
        generation,
        previous,
        now,
    )
}

/// Whether writing `next` changes the condition: its status, reason,
/// message or observedGeneration (what decides a DefragDeferred or fail
/// event; `lastTransitionTime` follows from status).
pub fn condition_changed(previous: Option<&Condition>, next: &Condition) -> bool {
    previous.is_none_or(|p| {
        p.status != next.status
            || p.reason != next.reason
            || p.message != next.message
            || p.observed_generation != next.observed_generation
    })
}

/// Replaces the `DefragChecked` entry (or adds it); other condition types
/// are left alone.
pub(super) fn set_checked(status: &mut EtcdDefragStatus, condition: Condition) {
    match status
        .conditions
        .iter_mut()
        .find(|c| c.type_ == CONDITION_TYPE)
    {
        Some(c) => *c = condition,
        None => status.conditions.push(condition),
    }
}
