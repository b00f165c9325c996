//! The EtcdDefrag status rows (`status.members[]`) as the engine's member
//! results and back, and `spec.rule` as the engine's rule: the wire format
//! a run is resumed from, apart from the state machine that decides what
//! to do with it. Outcomes and reasons are spelled by their serde names
//! (`Outcome::as_str`/`parse`), so what one pass writes the next reads as
//! the same variant.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use crate::k8s::crd::{EtcdDefragStatus, MemberDefragStatus};
use crate::plan::defrag::Role;
use crate::report::{MemberReason, MemberResult, Outcome};

/// A role as a status row spells it.
fn role_text(role: Role) -> &'static str {
    match role {
        Role::Leader => "leader",
        Role::Follower => "follower",
        Role::Learner => "learner",
    }
}

pub(super) fn is_pending(row: &MemberDefragStatus) -> bool {
    row.outcome == Outcome::Pending.as_str()
}

/// Rows whose outcome is Defragmented: the `n` of `n/m members
/// defragmented` and the `defragmented` counter.
pub fn defragmented_rows(status: &EtcdDefragStatus) -> i32 {
    let n = status
        .members
        .iter()
        .filter(|r| r.outcome == Outcome::Defragmented.as_str())
        .count();
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A size as the CRD's int64, absent when 0 or unknown.
fn size(bytes: u64) -> Option<i64> {
    (bytes > 0).then(|| i64::try_from(bytes).unwrap_or(i64::MAX))
}

/// One engine result as a status row (docs/contract.md#marking-a-member). A Pending row carries
/// only name, role and outcome; a finished row gets `finishedAt = now`,
/// `dbSizeBefore`, and, when the size afterwards was read, `dbSizeAfter`
/// and `reclaimedBytes` (only when before ≥ after; 0 is never written). A
/// MemberGone row has no sizes: there was no probe of it.
pub fn row_from_result(result: &MemberResult, now: Timestamp) -> MemberDefragStatus {
    let mut row = MemberDefragStatus {
        name: result.name.clone(),
        role: role_text(result.role).to_string(),
        outcome: result.outcome.as_str().to_string(),
        reason: result.reason.map_or("", MemberReason::as_str).to_string(),
        ..Default::default()
    };
    if result.outcome == Outcome::Pending {
        return row;
    }
    row.finished_at = Some(Time(now));
    if result.reason == Some(MemberReason::MemberGone) {
        return row;
    }
    let before = result.db_size_before;
    row.db_size_before = size(before);
    if let Some(after) = result.db_size_after {
        row.db_size_after = size(after);
        if before >= after {
            row.reclaimed_bytes = size(before - after);
        }
    }
    row
}

fn role_of(text: &str) -> Role {
    match text {
        "leader" => Role::Leader,
        "learner" => Role::Learner,
        // The operator's rule: whoever is not the leader is a follower.
        _ => Role::Follower,
    }
}

fn bytes(size: Option<i64>) -> Option<u64> {
    size.and_then(|s| u64::try_from(s).ok())
}

/// A finished row as the engine's `MemberResult`, so a resumed run never
/// touches that member again. `None` for a Pending row. The member id is
/// not stored in status and stays empty. An outcome this tool does not
/// know counts as done but not failed (Skipped), as the operator, which
/// only looks for `Pending` and `Failed`, treats it.
pub fn result_from_row(row: &MemberDefragStatus) -> Option<MemberResult> {
    let outcome = Outcome::parse(&row.outcome).unwrap_or(Outcome::Skipped);
    if outcome == Outcome::Pending {
        return None;
    }
    Some(MemberResult {
        name: row.name.clone(),
        id: String::new(),
        role: role_of(&row.role),
        outcome,
        reason: MemberReason::parse(&row.reason),
        detail: None,
        db_size_before: bytes(row.db_size_before).unwrap_or(0),
        db_size_in_use: 0,
        db_size_after: bytes(row.db_size_after),
        reclaimed_bytes: bytes(row.reclaimed_bytes),
        predicted_reclaim: 0,
        duration_ms: None,
        recovered_ms: None,
    })
}

/// Every non-Pending row, for `RunInput.finished`.
pub fn finished_from_rows(rows: &[MemberDefragStatus]) -> Vec<MemberResult> {
    rows.iter().filter_map(result_from_row).collect()
}

/// Folds engine results into the rows, keyed by name: a row already
/// finished is history and never rewritten (it keeps its `finishedAt` and
/// role); a Pending row is replaced; a new member is appended. The
/// `defragmented` counter is recounted from the rows.
pub fn record_results(status: &mut EtcdDefragStatus, results: &[MemberResult], now: Timestamp) {
    for result in results {
        match status.members.iter_mut().find(|r| r.name == result.name) {
            Some(row) if !is_pending(row) => {}
            Some(row) => *row = row_from_result(result, now),
            None => status.members.push(row_from_result(result, now)),
        }
    }
    status.defragmented = defragmented_rows(status);
}

/// After an engine run that ended without a stop reason, every member it
/// could reach has a finished row; a row still Pending names a member that
/// is no longer part of the cluster (removed between passes, so the engine
/// never planned it). It becomes Failed/MemberGone with no sizes, as the
/// operator marks it, so the run can finalize instead of waiting for the
/// deadline.
pub fn mark_gone(status: &mut EtcdDefragStatus, now: Timestamp) {
    for row in status.members.iter_mut().filter(|r| is_pending(r)) {
        row.outcome = Outcome::Failed.as_str().to_string();
        row.reason = MemberReason::MemberGone.as_str().to_string();
        row.db_size_before = None;
        row.db_size_after = None;
        row.reclaimed_bytes = None;
        row.finished_at = Some(Time(now));
    }
}
