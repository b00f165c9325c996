//! The EtcdDefrag state machine (docs/contract.md#the-etcddefrag-controller), as one pure
//! function: [`next`] maps what a reconcile pass has observed to the one
//! [`Transition`] the reconciler must perform. Nothing here reads a clock,
//! the API server or etcd; `now` is part of the [`Observation`].
//!
//! The pass follows the operator's PR 361 order, so that a user cannot tell
//! from status, conditions and events which processor handled a run:
//! terminal → TTL only; cluster missing → fail (before serialization, so a
//! queued run whose cluster vanished fails at once); not the oldest
//! unfinished run of its cluster → Queued; dial failure → retry (or fail
//! past the deadline); deadline (45m15s from `startedAt`, else creation) →
//! fail; gate refused → defer; every row done → finalize; else run.
//!
//! Facts are gathered lazily: when a decision needs something the
//! observation lacks, [`next`] answers [`Transition::Gather`] and the
//! reconciler fills it in and asks again. A queued run is therefore decided
//! without dialing etcd, and a terminal one without any read at all.
//!
//! Where we depart from the operator, on purpose: the deadline clock, gate
//! and serialization are identical, but our gate has more reasons (each
//! rendered into the contract's message format), a run also defers while an
//! EtcdSnapshot of its cluster is in progress, a deferral or queue status is
//! only written when it changed (the operator's identical write is a no-op
//! on the server), and `defragmented` is counted from the rows, so a retried
//! write can never count a member twice.
//!
//! The `DefragChecked` condition lives in `conditions.rs` and the status
//! rows' wire format (rows to engine results and back, `spec.rule`) in
//! `wire.rs`; both are re-exported here.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::{SignedDuration, Timestamp};

use crate::k8s::crd::{DefragPhase, EtcdDefrag, EtcdDefragStatus};
use crate::plan::gate::GateVerdict;
use crate::report::{MemberResult, Outcome};
use conditions::set_checked;
use wire::is_pending;

mod conditions;
mod wire;

pub use conditions::{
    checked, checked_condition, condition_changed, CheckedReason, CONDITION_TYPE,
};
pub use wire::{
    defragmented_rows, finished_from_rows, mark_gone, record_results, result_from_row,
    row_from_result,
};

/// How long a waiting run (queued, deferred, dial failed) sleeps before its
/// next pass, unless a watch event comes first.
pub const REQUEUE: Duration = Duration::from_secs(10);

/// Largest cluster the operator sizes its deadline for.
const MAX_SUPPORTED_MEMBERS: u64 = 7;
/// The operator's Defragment RPC timeout, in seconds.
const DEFRAG_TIMEOUT_SECS: u64 = 300;
/// The operator's Status probe timeout, in seconds.
const PROBE_TIMEOUT_SECS: u64 = 5;

/// The active deadline: 7 × (5m + 10s + 7 × 5s) + 5m = 45m15s, i.e. one
/// Defragment, one requeue and a probe of every member per member, plus one
/// spare Defragment.
pub const DEADLINE: Duration = Duration::from_secs(
    MAX_SUPPORTED_MEMBERS
        * (DEFRAG_TIMEOUT_SECS + REQUEUE.as_secs() + MAX_SUPPORTED_MEMBERS * PROBE_TIMEOUT_SECS)
        + DEFRAG_TIMEOUT_SECS,
);

/// [`DEADLINE`] as Go prints it, which is what the messages contain.
pub const DEADLINE_TEXT: &str = "45m15s";

// ---------------------------------------------------------------------------
// What a pass observes
// ---------------------------------------------------------------------------

/// The run being reconciled, as plain data.
#[derive(Debug, Clone, PartialEq)]
pub struct RunView {
    pub name: String,
    pub namespace: String,
    /// `spec.clusterRef.name`.
    pub cluster: String,
    /// `metadata.creationTimestamp`; `None` stands for Go's zero time.
    pub created: Option<Timestamp>,
    pub generation: Option<i64>,
    pub ttl_seconds_after_finished: Option<i32>,
    pub status: EtcdDefragStatus,
    /// Why no rule can be built from `spec.rule` (the field and its value),
    /// if none can: the run fails at once (`InvalidSpec`). Filled in by the
    /// reconciler (`settings::rule_of`); `None` from [`RunView::of`].
    pub invalid_spec: Option<String>,
}

impl RunView {
    /// Reads the fields the state machine needs from the object.
    pub fn of(run: &EtcdDefrag) -> RunView {
        RunView {
            name: run.metadata.name.clone().unwrap_or_default(),
            namespace: run.metadata.namespace.clone().unwrap_or_default(),
            cluster: run.spec.cluster_ref.name.clone(),
            created: run.metadata.creation_timestamp.as_ref().map(|t| t.0),
            generation: run.metadata.generation,
            ttl_seconds_after_finished: run.spec.ttl_seconds_after_finished,
            status: run.status.clone().unwrap_or_default(),
            invalid_spec: None,
        }
    }
}

/// Another EtcdDefrag of the same cluster and namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sibling {
    pub name: String,
    pub created: Option<Timestamp>,
    pub phase: Option<DefragPhase>,
}

impl Sibling {
    pub fn of(run: &EtcdDefrag) -> Sibling {
        Sibling {
            name: run.metadata.name.clone().unwrap_or_default(),
            created: run.metadata.creation_timestamp.as_ref().map(|t| t.0),
            phase: run.status.as_ref().and_then(|s| s.phase),
        }
    }
}

/// What dialing and probing the cluster gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Reach {
    /// TLS material, credentials or the dial itself failed: nothing is
    /// known about the members.
    DialFailed { error: String },
    /// The members were probed and the gate evaluated.
    Probed {
        /// Running EtcdMembers (no deletionTimestamp, not dormant).
        running: usize,
        /// `EtcdCluster.status.observed.replicas`, 0 when absent.
        desired: usize,
        verdict: GateVerdict,
    },
}

/// Whether an EtcdSnapshot of the cluster is in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EtcdSnapshots {
    Idle,
    InProgress { name: String },
}

/// Everything one pass knows. `None` means "not gathered yet";
/// [`next`] asks for what it needs, in the order the contract checks it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub now: Timestamp,
    pub run: RunView,
    pub cluster_exists: Option<bool>,
    /// Runs for the same cluster; the run itself may be among them.
    pub siblings: Option<Vec<Sibling>>,
    pub reach: Option<Reach>,
    pub etcd_snapshots: Option<EtcdSnapshots>,
}

impl Observation {
    /// An observation with nothing gathered but the run itself.
    pub fn new(run: RunView, now: Timestamp) -> Observation {
        Observation {
            now,
            run,
            cluster_exists: None,
            siblings: None,
            reach: None,
            etcd_snapshots: None,
        }
    }
}

/// A fact [`next`] needs before it can decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// GET the EtcdCluster: found or NotFound (other errors are the
    /// reconciler's, retried with backoff).
    Cluster,
    /// LIST the EtcdDefrags of the namespace that name the same cluster.
    Siblings,
    /// List running members, dial, probe and run the gate.
    Probe,
    /// LIST EtcdSnapshots of the cluster.
    EtcdSnapshots,
}

// ---------------------------------------------------------------------------
// What a pass does
// ---------------------------------------------------------------------------

/// Event reasons (docs/contract.md#conditions-and-events). Every EtcdDefrag event is a Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventReason {
    DefragDeferred,
    DefragFailed,
    ClusterNotFound,
    DeadlineExceeded,
    /// Ours: the run's spec cannot be evaluated (`CheckedReason::InvalidSpec`).
    InvalidSpec,
    AlarmDisarmFailed,
    /// Ours: a member held back because the kubelet would restart it
    /// mid-defrag (its row is `Skipped`/`ProbeBudget`, which has no room
    /// for the numbers).
    DefragHeldBack,
}

impl EventReason {
    pub fn as_str(self) -> &'static str {
        match self {
            EventReason::DefragDeferred => "DefragDeferred",
            EventReason::DefragFailed => "DefragFailed",
            EventReason::ClusterNotFound => "ClusterNotFound",
            EventReason::DeadlineExceeded => "DeadlineExceeded",
            EventReason::InvalidSpec => "InvalidSpec",
            EventReason::AlarmDisarmFailed => "AlarmDisarmFailed",
            EventReason::DefragHeldBack => "DefragHeldBack",
        }
    }
}

/// An event to record against the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub reason: EventReason,
    pub message: String,
}

impl Event {
    /// The operator emits no Normal events for EtcdDefrag.
    pub const TYPE: &'static str = "Warning";

    /// A failed Defragment RPC.
    pub fn defrag_failed(member: &str, error: &str) -> Event {
        Event {
            reason: EventReason::DefragFailed,
            message: format!("defragmentation of member {member} failed: {error}"),
        }
    }

    /// A member held back for its probe budget; `why` has the numbers.
    pub fn defrag_held_back(member: &str, why: &str) -> Event {
        Event {
            reason: EventReason::DefragHeldBack,
            message: format!("member {member} was not defragmented: {why}"),
        }
    }

    /// A NOSPACE disarm that failed after space was reclaimed.
    pub fn alarm_disarm_failed(error: &str) -> Event {
        Event {
            reason: EventReason::AlarmDisarmFailed,
            message: format!(
                "reclaimed backend space but could not disarm NOSPACE alarm; cluster may stay read-only: {error}"
            ),
        }
    }
}

/// The one thing the reconciler does next. Every `status` carried is the
/// complete new status, ready to be written as is.
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// Gather this fact, then call [`next`] again.
    Gather(Need),
    /// Nothing to do until the object changes (terminal, no TTL).
    Ignore,
    /// Terminal with a TTL not yet due: requeue after exactly this long.
    RequeueAfter(Duration),
    /// Terminal and the TTL is due: DELETE (NotFound is fine).
    Delete,
    /// The fail path (docs/contract.md#finishing-a-run): write `status` (phase
    /// Failed, completedAt), emit `event` when there is one, and first disarm
    /// NOSPACE when `disarm` is set.
    Fail {
        reason: CheckedReason,
        message: String,
        status: EtcdDefragStatus,
        /// Only when the condition changed.
        event: Option<Event>,
        /// Deadline path after a successful dial, with members defragmented.
        disarm: bool,
    },
    /// Not the oldest unfinished run of the cluster: wait for `active`.
    /// Write `status` only when `write`; no requeue: a change of any run
    /// of the cluster wakes it ([`queued_behind`]).
    Queue {
        active: String,
        status: EtcdDefragStatus,
        write: bool,
    },
    /// Gate refused or a snapshot is in progress. Write `status` when
    /// `write`, emit `event` (DefragDeferred, only when the condition
    /// changed), requeue after [`REQUEUE`].
    Defer {
        status: EtcdDefragStatus,
        write: bool,
        event: Option<Event>,
    },
    /// Dialing failed before the deadline: change nothing, requeue after
    /// [`REQUEUE`].
    RetryLater { error: String },
    /// Write `status` (Running, `startedAt`, condition Running) when
    /// `write`, then call the engine with `finished` as
    /// `RunInput.finished` and a deadline `deadline_in` from now.
    Run {
        status: EtcdDefragStatus,
        write: bool,
        /// `startedAt`, when this pass stamps it (first start only).
        start: Option<Timestamp>,
        finished: Vec<MemberResult>,
        deadline_in: Duration,
    },
    /// Every row is done and the gate passed: disarm NOSPACE when
    /// `disarm`, then write `status`.
    Finalize {
        phase: DefragPhase,
        reason: CheckedReason,
        message: String,
        status: EtcdDefragStatus,
        disarm: bool,
    },
}

impl Transition {
    /// When to look at the object again if no watch event comes first.
    /// `None` for transitions that end in a write (the write's own watch
    /// event brings the next pass) or that wait for a change.
    pub fn requeue_after(&self) -> Option<Duration> {
        match self {
            Transition::RequeueAfter(d) => Some(*d),
            Transition::Defer { .. } | Transition::RetryLater { .. } | Transition::Run { .. } => {
                Some(REQUEUE)
            }
            Transition::Gather(_)
            | Transition::Queue { .. }
            | Transition::Ignore
            | Transition::Delete
            | Transition::Fail { .. }
            | Transition::Finalize { .. } => None,
        }
    }
}

// ---------------------------------------------------------------------------
// The state machine
// ---------------------------------------------------------------------------

/// Decides one pass. Pure.
///
/// Invariants: a terminal run only ever gets the TTL decision; the cluster
/// check comes before serialization; a queued run is never dialed and never
/// fails on the deadline; `startedAt` is stamped once; a started run that
/// defers stays Running; a run finalizes only in a pass whose gate passed.
pub fn next(obs: &Observation) -> Transition {
    let run = &obs.run;
    let status = &run.status;
    if status.is_terminal() {
        return ttl(run, obs.now);
    }
    // Before anything is read: a spec no rule can be built from fails at
    // once, whatever its place in the queue, and never holds it.
    if let Some(why) = &run.invalid_spec {
        let message = format!(
            "invalid spec: {why}; no member was touched (create a new EtcdDefrag with a value that fits)"
        );
        return fail(obs, CheckedReason::InvalidSpec, message, false);
    }

    match obs.cluster_exists {
        None => return Transition::Gather(Need::Cluster),
        Some(false) => {
            let message = format!(
                "EtcdCluster \"{}\" not found in namespace \"{}\"",
                run.cluster, run.namespace
            );
            return fail(obs, CheckedReason::ClusterNotFound, message, false);
        }
        Some(true) => {}
    }

    let Some(siblings) = &obs.siblings else {
        return Transition::Gather(Need::Siblings);
    };
    let active = active_run(run, siblings);
    if active != run.name {
        return queue(obs, active.to_string());
    }

    let Some(reach) = &obs.reach else {
        return Transition::Gather(Need::Probe);
    };
    let overdue = deadline_exceeded(run, obs.now);
    let (running, desired, verdict) = match reach {
        // Without a client nothing can be disarmed, whatever was done.
        Reach::DialFailed { error } => {
            return match overdue {
                Some(message) => fail(obs, CheckedReason::DeadlineExceeded, message, false),
                None => Transition::RetryLater {
                    error: error.clone(),
                },
            };
        }
        Reach::Probed {
            running,
            desired,
            verdict,
        } => (*running, *desired, verdict),
    };
    if let Some(message) = overdue {
        let disarm = defragmented_rows(status) > 0;
        return fail(obs, CheckedReason::DeadlineExceeded, message, disarm);
    }
    if let Some(reason) = gate_refusal(running, desired, verdict) {
        return defer(obs, &reason);
    }

    if !status.members.is_empty() && !status.members.iter().any(is_pending) {
        return finalize(obs);
    }

    // Only a step that may defragment waits for a snapshot; finalizing
    // touches no member.
    match &obs.etcd_snapshots {
        None => Transition::Gather(Need::EtcdSnapshots),
        Some(EtcdSnapshots::InProgress { name }) => defer(
            obs,
            &format!("EtcdSnapshot \"{name}\" of this cluster is in progress"),
        ),
        Some(EtcdSnapshots::Idle) => start(obs),
    }
}

/// docs/contract.md#ttl: delete `ttlSecondsAfterFinished` after `completedAt`. A run with
/// no TTL, or (oddly) no `completedAt`, is kept.
fn ttl(run: &RunView, now: Timestamp) -> Transition {
    let (Some(ttl), Some(done)) = (run.ttl_seconds_after_finished, &run.status.completed_at) else {
        return Transition::Ignore;
    };
    match remaining(
        SignedDuration::from_secs(i64::from(ttl)),
        now.duration_since(done.0),
    ) {
        Some(left) => Transition::RequeueAfter(left),
        None => Transition::Delete,
    }
}

/// `limit − elapsed` when positive.
fn remaining(limit: SignedDuration, elapsed: SignedDuration) -> Option<Duration> {
    let left = limit.checked_sub(elapsed)?;
    if left.is_positive() {
        Duration::try_from(left).ok()
    } else {
        None
    }
}

/// The run that may act (docs/contract.md#which-run-acts): the oldest unfinished one by
/// `creationTimestamp`, then by name. Terminal siblings do not count; the
/// run itself always does (it is not terminal when this is asked).
pub fn active_run<'a>(run: &'a RunView, siblings: &'a [Sibling]) -> &'a str {
    siblings
        .iter()
        .filter(|s| s.name != run.name && !s.phase.is_some_and(DefragPhase::is_terminal))
        .map(|s| (s.created, s.name.as_str()))
        .chain(std::iter::once((run.created, run.name.as_str())))
        // Option orders None first, as Go's zero time sorts before any other.
        .min()
        .map_or(run.name.as_str(), |(_, name)| name)
}

/// The runs to look at again because `changed` changed or was deleted: the
/// other unfinished runs of its cluster (same namespace), any of which may
/// be queued behind it. A queued run is never requeued on a timer; the end,
/// deletion or progress of the run ahead of it wakes it through this.
pub fn queued_behind<'a>(
    changed: &EtcdDefrag,
    all: impl IntoIterator<Item = &'a EtcdDefrag>,
) -> Vec<String> {
    let same_cluster = |r: &EtcdDefrag| {
        r.metadata.namespace == changed.metadata.namespace
            && r.spec.cluster_ref.name == changed.spec.cluster_ref.name
            && r.metadata.name != changed.metadata.name
    };
    all.into_iter()
        .filter(|r| same_cluster(r))
        .filter(|r| !r.status.as_ref().is_some_and(EtcdDefragStatus::is_terminal))
        .filter_map(|r| r.metadata.name.clone())
        .collect()
}

/// The deadline's start and which message applies: `startedAt` when set,
/// else a non-zero creation time; `None` when neither exists.
fn deadline_clock(run: &RunView) -> Option<(Timestamp, bool)> {
    match (&run.status.started_at, run.created) {
        (Some(started), _) => Some((started.0, true)),
        (None, Some(created)) => Some((created, false)),
        (None, None) => None,
    }
}

/// The DeadlineExceeded message when more than [`DEADLINE`] has passed
/// (strictly) on the run's clock.
pub fn deadline_exceeded(run: &RunView, now: Timestamp) -> Option<String> {
    let (since, started) = deadline_clock(run)?;
    let elapsed = now.duration_since(since);
    if elapsed <= deadline_signed() {
        return None;
    }
    Some(if started {
        format!("defragmentation did not complete within {DEADLINE_TEXT}")
    } else {
        format!(
            "defragmentation could not start within {DEADLINE_TEXT} (cluster never became healthy)"
        )
    })
}

fn deadline_signed() -> SignedDuration {
    SignedDuration::try_from(DEADLINE).unwrap_or(SignedDuration::MAX)
}

/// The first reason the gate refuses, as one sentence: the operator's
/// replica check first (`have R running members, want D`), then our gate's
/// first reason. `None` when the run may go on.
pub fn gate_refusal(running: usize, desired: usize, verdict: &GateVerdict) -> Option<String> {
    if desired == 0 || running != desired {
        return Some(format!("have {running} running members, want {desired}"));
    }
    verdict.reasons.first().map(ToString::to_string)
}

/// The ClusterNotHealthy message around one reason sentence.
pub fn deferral_message(reason: &str) -> String {
    format!(
        "a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: {reason}"
    )
}

fn queue(obs: &Observation, active: String) -> Transition {
    let old = &obs.run.status;
    let mut status = old.clone();
    status.phase = Some(DefragPhase::Pending);
    let message = format!("waiting for EtcdDefrag \"{active}\" to finish");
    set_checked(
        &mut status,
        checked_condition(
            false,
            CheckedReason::Queued,
            message,
            obs.run.generation,
            checked(old),
            obs.now,
        ),
    );
    let write = status != *old;
    Transition::Queue {
        active,
        status,
        write,
    }
}

fn defer(obs: &Observation, reason: &str) -> Transition {
    let old = &obs.run.status;
    let mut status = old.clone();
    // A started run keeps its phase (Running): only a run that never
    // started is shown as Pending.
    if status.started_at.is_none() {
        status.phase = Some(DefragPhase::Pending);
    }
    let message = deferral_message(reason);
    let condition = checked_condition(
        false,
        CheckedReason::ClusterNotHealthy,
        message.clone(),
        obs.run.generation,
        checked(old),
        obs.now,
    );
    let event = condition_changed(checked(old), &condition).then_some(Event {
        reason: EventReason::DefragDeferred,
        message,
    });
    set_checked(&mut status, condition);
    let write = status != *old;
    Transition::Defer {
        status,
        write,
        event,
    }
}

fn fail(obs: &Observation, reason: CheckedReason, message: String, disarm: bool) -> Transition {
    let old = &obs.run.status;
    let mut status = old.clone();
    status.phase = Some(DefragPhase::Failed);
    status.completed_at = Some(Time(obs.now));
    let condition = checked_condition(
        false,
        reason,
        message.clone(),
        obs.run.generation,
        checked(old),
        obs.now,
    );
    let event_reason = match reason {
        CheckedReason::ClusterNotFound => EventReason::ClusterNotFound,
        CheckedReason::InvalidSpec => EventReason::InvalidSpec,
        _ => EventReason::DeadlineExceeded,
    };
    let event = condition_changed(checked(old), &condition).then(|| Event {
        reason: event_reason,
        message: message.clone(),
    });
    set_checked(&mut status, condition);
    Transition::Fail {
        reason,
        message,
        status,
        event,
        disarm,
    }
}

fn finalize(obs: &Observation) -> Transition {
    let old = &obs.run.status;
    let mut status = old.clone();
    let done = defragmented_rows(old);
    let failed = old
        .members
        .iter()
        .any(|r| r.outcome == Outcome::Failed.as_str());
    let (phase, reason) = if failed {
        (DefragPhase::Failed, CheckedReason::MemberFailed)
    } else {
        (DefragPhase::Complete, CheckedReason::Complete)
    };
    let message = format!("{done}/{} members defragmented", old.members.len());
    status.phase = Some(phase);
    status.completed_at = Some(Time(obs.now));
    status.defragmented = done;
    set_checked(
        &mut status,
        checked_condition(
            !failed,
            reason,
            message.clone(),
            obs.run.generation,
            checked(old),
            obs.now,
        ),
    );
    Transition::Finalize {
        phase,
        reason,
        message,
        status,
        disarm: done > 0,
    }
}

fn start(obs: &Observation) -> Transition {
    let old = &obs.run.status;
    let mut status = old.clone();
    status.phase = Some(DefragPhase::Running);
    // Stamped once: a run that was queued or deferred after starting keeps
    // its first startedAt, and so its deadline.
    let start = old.started_at.is_none().then_some(obs.now);
    let started = old.started_at.as_ref().map_or(obs.now, |t| t.0);
    status.started_at = Some(Time(started));
    set_checked(
        &mut status,
        checked_condition(
            true,
            CheckedReason::Running,
            "defragmenting members".to_string(),
            obs.run.generation,
            checked(old),
            obs.now,
        ),
    );
    let write = status != *old;
    Transition::Run {
        status,
        write,
        start,
        finished: finished_from_rows(&old.members),
        deadline_in: remaining(deadline_signed(), obs.now.duration_since(started))
            .unwrap_or(Duration::ZERO),
    }
}

#[cfg(test)]
mod tests;
