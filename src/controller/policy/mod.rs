//! The EtcdDefragPolicy controller (docs/contract.md#the-policy-pass): on every pass
//! a policy lists the runs it stamped, trims its history, and acts on at
//! most one due tick of its cron schedule — stamp a run
//! `<policy>-<tick as Unix seconds>`, or skip the tick (`MissedSchedule`
//! past the starting deadline, `ConcurrencyForbidden` while a run is still
//! active). Ticks are computed in UTC whatever the process's time zone
//! (`plan::schedule`).
//!
//! [`decide`] is the whole decision, pure over (policy, its runs, now), so
//! every branch is a table test; [`reconcile`] only reads, performs what it
//! names and writes the status (a fenced PUT of the status subresource,
//! guarded by resourceVersion and retried on conflict, as for runs).
//!
//! Times in event messages are RFC 3339 in UTC at whole seconds
//! (`2026-12-01T00:00:00Z`) — for `MissedSchedule` as the contract states,
//! and for `ConcurrencyForbidden` and `StampedRun`, whose `<tick>` the
//! contract leaves unformatted, the same way.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, OwnerReference, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use super::context::{self, api_error, record_on, Context, Error};
use crate::contract::CLUSTER_LABEL;
use crate::k8s;
use crate::k8s::crd::{
    DefragPhase, EtcdDefrag, EtcdDefragPolicy, EtcdDefragPolicySpec, EtcdDefragPolicyStatus,
    EtcdDefragSpec, NameRef,
};
use crate::plan::schedule::{self, Due, Schedule};

/// The label a stamped run carries, naming its policy.
pub const POLICY_LABEL: &str = "etcd-operator.cozystack.io/defrag-policy";

/// The policy's single condition type.
pub const CONDITION_TYPE: &str = "Active";

/// `Active` condition reasons, with their fixed messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActiveReason {
    Scheduled,
    Suspended,
    InvalidSchedule,
}

impl ActiveReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ActiveReason::Scheduled => "Scheduled",
            ActiveReason::Suspended => "Suspended",
            ActiveReason::InvalidSchedule => "InvalidSchedule",
        }
    }
}

/// Event reasons a policy records (against itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyEventReason {
    StampedRun,
    MissedSchedule,
    ConcurrencyForbidden,
}

impl PolicyEventReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyEventReason::StampedRun => "StampedRun",
            PolicyEventReason::MissedSchedule => "MissedSchedule",
            PolicyEventReason::ConcurrencyForbidden => "ConcurrencyForbidden",
        }
    }

    /// `MissedSchedule` is a Warning; the others are Normal.
    pub fn event_type(self) -> &'static str {
        match self {
            PolicyEventReason::MissedSchedule => "Warning",
            _ => "Normal",
        }
    }
}

/// An event to record against the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyEvent {
    pub reason: PolicyEventReason,
    pub message: String,
}

/// The policy as a pass sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyView {
    pub name: String,
    pub generation: Option<i64>,
    /// `creationTimestamp`: the anchor before the first tick is acted on.
    pub created: Timestamp,
    pub spec: EtcdDefragPolicySpec,
    /// The stored status (default when there is none yet).
    pub status: EtcdDefragPolicyStatus,
}

impl PolicyView {
    pub fn of(policy: &EtcdDefragPolicy) -> PolicyView {
        PolicyView {
            name: policy.name_any(),
            generation: policy.metadata.generation,
            created: policy
                .metadata
                .creation_timestamp
                .as_ref()
                .map_or(Timestamp::UNIX_EPOCH, |t| t.0),
            spec: policy.spec.clone(),
            status: policy.status.clone().unwrap_or_default(),
        }
    }
}

/// What a pass needs of one stamped run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInfo {
    pub name: String,
    /// `None` is the wire's `""` (or an unknown phase): not finished.
    pub phase: Option<DefragPhase>,
    pub completed_at: Option<Timestamp>,
    pub created: Option<Timestamp>,
}

impl RunInfo {
    pub fn of(run: &EtcdDefrag) -> RunInfo {
        let status = run.status.as_ref();
        RunInfo {
            name: run.name_any(),
            phase: status.and_then(|s| s.phase),
            completed_at: status.and_then(|s| s.completed_at.as_ref()).map(|t| t.0),
            created: run.metadata.creation_timestamp.as_ref().map(|t| t.0),
        }
    }

    fn finished(&self) -> bool {
        self.phase.is_some_and(DefragPhase::is_terminal)
    }
}

/// What to do about the schedule in this pass.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// `suspend: true`: nothing stamped, `lastScheduleTime` held; no requeue.
    Suspended,
    /// The schedule does not parse; no requeue (an edit brings a new pass).
    InvalidSchedule,
    /// The next tick lies ahead: requeue for it.
    NotYet { requeue: Duration },
    /// No tick within robfig's horizon (e.g. `0 0 30 2 *`): nothing is ever
    /// due; no requeue.
    Never,
    /// The due tick is past the starting deadline: skipped with a Warning.
    Missed {
        tick: Timestamp,
        event: PolicyEvent,
        requeue: Option<Duration>,
    },
    /// `Forbid` with runs still active: the tick is skipped.
    Forbidden {
        tick: Timestamp,
        event: PolicyEvent,
        requeue: Option<Duration>,
    },
    /// Create the run `name`; on success record `event` and add the run to
    /// `status.active` ([`with_stamped`]); AlreadyExists is a silent no-op.
    Stamp {
        tick: Timestamp,
        name: String,
        event: PolicyEvent,
        requeue: Option<Duration>,
    },
}

impl Decision {
    /// When the next pass is due on its own (`None`: only on a change).
    pub fn requeue(&self) -> Option<Duration> {
        match self {
            Decision::Suspended | Decision::InvalidSchedule | Decision::Never => None,
            Decision::NotYet { requeue } => Some(*requeue),
            Decision::Missed { requeue, .. }
            | Decision::Forbidden { requeue, .. }
            | Decision::Stamp { requeue, .. } => *requeue,
        }
    }
}

/// One pass, decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Pass {
    /// The complete status to write (for [`Decision::Stamp`], before the
    /// new run is added: see [`with_stamped`]).
    pub status: EtcdDefragPolicyStatus,
    /// Finished runs to delete for `historyLimit`, oldest first.
    pub delete: Vec<String>,
    pub decision: Decision,
}

/// The whole pass (docs/contract.md#the-policy-pass) over `policy` and the
/// runs labelled with its name.
pub fn decide(policy: &PolicyView, runs: &[RunInfo], now: Timestamp) -> Pass {
    let mut status = policy.status.clone();

    // Step 1: active runs by name; the latest success.
    let active = active_runs(&mut status, runs);

    // Step 2: history.
    let delete = history_victims(runs, policy.spec.history_limit);

    let previous = status
        .conditions
        .iter()
        .find(|c| c.type_ == CONDITION_TYPE)
        .cloned();
    let set_active = |status: &mut EtcdDefragPolicyStatus, reason: ActiveReason, message| {
        let condition =
            active_condition(reason, message, policy.generation, previous.as_ref(), now);
        set_condition(status, condition);
    };

    // Step 3: suspended.
    if policy.spec.suspend == Some(true) {
        set_active(
            &mut status,
            ActiveReason::Suspended,
            "scheduling is suspended".to_string(),
        );
        return Pass {
            status,
            delete,
            decision: Decision::Suspended,
        };
    }

    // Step 4: the schedule.
    let parsed = match Schedule::parse(&policy.spec.schedule) {
        Ok(s) => s,
        Err(e) => {
            set_active(
                &mut status,
                ActiveReason::InvalidSchedule,
                schedule::invalid_schedule_message(&policy.spec.schedule, &e),
            );
            return Pass {
                status,
                delete,
                decision: Decision::InvalidSchedule,
            };
        }
    };
    set_active(
        &mut status,
        ActiveReason::Scheduled,
        "policy is scheduling runs".to_string(),
    );

    // Step 5: the due tick.
    let earliest = status
        .last_schedule_time
        .as_ref()
        .map_or(policy.created, |t| t.0);
    let tick = match parsed.due(earliest, now) {
        Due::Never => {
            return Pass {
                status,
                delete,
                decision: Decision::Never,
            }
        }
        Due::NotYet { next } => {
            return Pass {
                status,
                delete,
                decision: Decision::NotYet {
                    requeue: schedule::requeue_after(next, now),
                },
            }
        }
        // A capped backlog acts on `now`, at the whole second Go's
        // `Unix()` and the status's precision keep of it.
        Due::Tick { at, .. } => whole_second(at),
    };
    status.last_schedule_time = Some(Time(tick));
    let requeue = parsed
        .next_after(tick)
        .map(|next| schedule::requeue_after(next, now));

    Pass {
        status,
        delete,
        decision: at_tick(policy, tick, now, requeue, active.len()),
    }
}

/// Step 1 of a pass: the active runs by name (kept in `status.active`),
/// and the latest success (`status.lastSuccessfulTime`).
fn active_runs<'r>(status: &mut EtcdDefragPolicyStatus, runs: &'r [RunInfo]) -> Vec<&'r str> {
    let mut active: Vec<&str> = runs
        .iter()
        .filter(|r| !r.finished())
        .map(|r| r.name.as_str())
        .collect();
    active.sort_unstable();
    status.active = active
        .iter()
        .map(|name| NameRef {
            name: (*name).to_string(),
        })
        .collect();
    if let Some(latest) = runs
        .iter()
        .filter(|r| r.phase == Some(DefragPhase::Complete))
        .filter_map(|r| r.completed_at)
        .max()
    {
        status.last_successful_time = Some(Time(latest));
    }
    active
}

/// Steps 6 to 8 of a pass, once a tick is due: missed (past the starting
/// deadline), forbidden (a run still active and concurrency forbidden), or
/// stamped.
fn at_tick(
    policy: &PolicyView,
    tick: Timestamp,
    now: Timestamp,
    requeue: Option<std::time::Duration>,
    active: usize,
) -> Decision {
    // Step 6: the starting deadline.
    if let Some(deadline) = policy.spec.starting_deadline_seconds {
        if schedule::past_starting_deadline(tick, now, deadline) {
            return Decision::Missed {
                tick,
                event: PolicyEvent {
                    reason: PolicyEventReason::MissedSchedule,
                    message: format!(
                        "skipped scheduled time {}: past the {deadline}s starting deadline",
                        rfc3339(tick)
                    ),
                },
                requeue,
            };
        }
    }

    // Step 7: concurrency.
    if !allows_concurrency(&policy.spec) && active > 0 {
        return Decision::Forbidden {
            tick,
            event: PolicyEvent {
                reason: PolicyEventReason::ConcurrencyForbidden,
                message: format!(
                    "skipped scheduled time {}: {} run(s) still active",
                    rfc3339(tick),
                    active
                ),
            },
            requeue,
        };
    }

    // Step 8: stamp.
    let name = run_name(&policy.name, tick);
    Decision::Stamp {
        tick,
        event: PolicyEvent {
            reason: PolicyEventReason::StampedRun,
            message: format!(
                "stamped EtcdDefrag \"{name}\" for scheduled time {}",
                rfc3339(tick)
            ),
        },
        name,
        requeue,
    }
}

/// `concurrencyPolicy: Allow`; absent, empty or `Forbid` forbid.
fn allows_concurrency(spec: &EtcdDefragPolicySpec) -> bool {
    spec.concurrency_policy.as_deref() == Some("Allow")
}

/// The finished runs beyond `limit`, oldest first: by `completedAt`, else
/// `creationTimestamp` (then by name, for a stable order).
fn history_victims(runs: &[RunInfo], limit: Option<i32>) -> Vec<String> {
    let Some(limit) = limit else {
        return Vec::new();
    };
    let keep = usize::try_from(limit).unwrap_or(0);
    let mut finished: Vec<&RunInfo> = runs.iter().filter(|r| r.finished()).collect();
    if finished.len() <= keep {
        return Vec::new();
    }
    finished.sort_by(|a, b| {
        let age = |r: &RunInfo| r.completed_at.or(r.created);
        age(a).cmp(&age(b)).then_with(|| a.name.cmp(&b.name))
    });
    let excess = finished.len() - keep;
    finished
        .into_iter()
        .take(excess)
        .map(|r| r.name.clone())
        .collect()
}

/// The `Active` condition; `lastTransitionTime` moves only when the status
/// (True/False) changes, as `meta.SetStatusCondition` does.
pub fn active_condition(
    reason: ActiveReason,
    message: String,
    generation: Option<i64>,
    previous: Option<&Condition>,
    now: Timestamp,
) -> Condition {
    crate::k8s::crd::condition(
        CONDITION_TYPE,
        reason == ActiveReason::Scheduled,
        reason.as_str(),
        message,
        generation,
        previous,
        now,
    )
}

/// Replaces the `Active` entry (or adds it); other types are left alone.
fn set_condition(status: &mut EtcdDefragPolicyStatus, condition: Condition) {
    match status
        .conditions
        .iter_mut()
        .find(|c| c.type_ == CONDITION_TYPE)
    {
        Some(existing) => *existing = condition,
        None => status.conditions.push(condition),
    }
}

/// The status after `name` was created in this pass: appended at the end
/// of `active` (not re-sorted), as the operator does.
pub fn with_stamped(mut status: EtcdDefragPolicyStatus, name: &str) -> EtcdDefragPolicyStatus {
    if !status.active.iter().any(|r| r.name == name) {
        status.active.push(NameRef {
            name: name.to_string(),
        });
    }
    status
}

/// `<policy>-<tick.Unix()>`.
pub fn run_name(policy: &str, tick: Timestamp) -> String {
    format!("{policy}-{}", tick.as_second())
}

fn whole_second(t: Timestamp) -> Timestamp {
    Timestamp::from_second(t.as_second()).unwrap_or(t)
}

/// RFC 3339 in UTC at whole seconds: `2026-12-01T00:00:00Z`.
pub fn rfc3339(t: Timestamp) -> String {
    whole_second(t).to_string()
}

/// The run the policy stamps as `name`: its labels, a controller owner
/// reference to the policy, and `{clusterRef, rule, ttlSecondsAfterFinished}`
/// copied from the policy's spec.
pub fn stamped_run(policy: &EtcdDefragPolicy, name: &str) -> EtcdDefrag {
    let labels = [
        (POLICY_LABEL.to_string(), policy.name_any()),
        (
            CLUSTER_LABEL.to_string(),
            policy.spec.cluster_ref.name.clone(),
        ),
    ]
    .into_iter()
    .collect();
    let mut run = EtcdDefrag::new(
        name,
        EtcdDefragSpec {
            cluster_ref: policy.spec.cluster_ref.clone(),
            rule: policy.spec.rule.clone(),
            ttl_seconds_after_finished: policy.spec.ttl_seconds_after_finished,
        },
    );
    run.metadata.namespace = policy.namespace();
    run.metadata.labels = Some(labels);
    // As controller-runtime's SetControllerReference (the operator's): a
    // controller reference that also blocks the policy's foreground
    // deletion until the run is gone.
    run.metadata.owner_references = policy.controller_owner_ref(&()).map(|r| {
        vec![OwnerReference {
            block_owner_deletion: Some(true),
            ..r
        }]
    });
    run
}

// ---------------------------------------------------------------------------
// I/O
// ---------------------------------------------------------------------------

/// One pass over a policy: read it and its runs from the server, decide,
/// delete history, stamp or skip, record the event, write the status.
pub async fn reconcile(policy: Arc<EtcdDefragPolicy>, ctx: Arc<Context>) -> Result<Action, Error> {
    if ctx.fenced().is_err() {
        return Ok(Action::await_change());
    }
    let namespace = policy.namespace().unwrap_or_default();
    let name = policy.name_any();
    let policies: Api<EtcdDefragPolicy> = Api::namespaced(ctx.kube.client.clone(), &namespace);
    // The server's copy, not the cache's: a pass right after our own status
    // write must see the tick it acted on, or it would act on it again.
    let policy = match policies.get_opt(&name).await {
        Ok(Some(fresh)) => fresh,
        Ok(None) => return Ok(Action::await_change()),
        Err(e) => {
            return Err(api_error(format!(
                "get EtcdDefragPolicy {namespace}/{name}"
            ))(e))
        }
    };
    if policy.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let runs: Api<EtcdDefrag> = Api::namespaced(ctx.kube.client.clone(), &namespace);
    let stamped = runs
        .list(&ListParams::default().labels(&format!("{POLICY_LABEL}={name}")))
        .await
        .map_err(api_error(format!(
            "list the EtcdDefrags of policy {namespace}/{name}"
        )))?;
    let infos: Vec<RunInfo> = stamped.items.iter().map(RunInfo::of).collect();
    let pass = decide(&PolicyView::of(&policy), &infos, Timestamp::now());
    tracing::debug!(policy = %name, ?pass, "policy pass");

    for victim in &pass.delete {
        ctx.fenced()?;
        match runs.delete(victim, &DeleteParams::default()).await {
            Ok(_) => {}
            Err(e) if k8s::is_not_found(&e) => {}
            Err(e) => return Err(api_error(format!("delete EtcdDefrag {namespace}/{victim}"))(e)),
        }
    }

    let mut status = pass.status;
    match &pass.decision {
        Decision::Missed { event, .. } | Decision::Forbidden { event, .. } => {
            ctx.fenced()?;
            record_event(&ctx, &policy, event.reason, &event.message).await;
        }
        Decision::Stamp {
            name: run_name,
            event,
            ..
        } => {
            ctx.fenced()?;
            let run = stamped_run(&policy, run_name);
            match runs.create(&PostParams::default(), &run).await {
                Ok(_) => {
                    tracing::info!(policy = %name, run = %run_name, "{}", event.message);
                    record_event(&ctx, &policy, event.reason, &event.message).await;
                    status = with_stamped(status, run_name);
                }
                Err(kube::Error::Api(s)) if s.code == 409 => {}
                Err(e) => {
                    return Err(api_error(format!(
                        "create EtcdDefrag {namespace}/{run_name}"
                    ))(e))
                }
            }
        }
        _ => {}
    }

    if policy.status.as_ref() != Some(&status) {
        let mut current = policy;
        context::write_status(&ctx, &policies, &mut current, |p| {
            p.status = Some(status.clone())
        })
        .await?;
    }
    Ok(context::action(pass.decision.requeue()))
}

async fn record_event(
    ctx: &Context,
    policy: &EtcdDefragPolicy,
    reason: PolicyEventReason,
    message: &str,
) {
    record_on(ctx, policy, reason.event_type(), reason.as_str(), message).await;
}

#[cfg(test)]
mod tests;
