//! One reconcile pass over an EtcdDefrag: gather the facts `phase::next`
//! asks for (the cluster, the sibling runs, a probe of the members, the
//! cluster's snapshots), then perform the one transition it names. Running
//! a run means calling the engine (`exec::run`) with the rows already
//! finished, persisting each member's row before the engine touches the
//! next one.
//!
//! Status writes are full PUTs of the status subresource carrying the
//! resourceVersion read; on a conflict the object is read again and the
//! same status put on it (we own the status). A row that still cannot be
//! saved stops the run before the next member, so an outcome is never lost
//! and a member never defragmented twice.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::controller::Action;
use kube::ResourceExt;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::context::{self, api_error, record_on, Context, Error};
use super::lease::{self, LeaseSettings};
use super::metrics::RunLabels;
use super::phase::{
    self, CheckedReason, EtcdSnapshots, Event, Need, Observation, Reach, RunView, Sibling,
    Transition,
};
use crate::exec::{self, after, Fresh, Observer, RunControl, RunEvent, RunInput};
use crate::k8s::crd::{DefragPhase, EtcdCluster, EtcdDefrag, EtcdDefragStatus};
use crate::k8s::{self};
use crate::plan::gate;
use crate::report::{AlarmResult, MemberReason, Outcome};
use crate::session::{self, Session};
use crate::settings;
use crate::source::cozystack;

/// How soon a run whose cluster is busy in this process looks again.
const BUSY_RETRY: Duration = Duration::from_secs(1);

/// One pass. An unfinished run's pass holds its cluster's Lease
/// (`lease::cluster_lease_name`) throughout, beside the election Lease:
/// two watchers of ours whose scopes overlap (`-A` and `-n`, two
/// Deployments) never act on one cluster at once. While another holds it
/// the run is left as it is and looked at again a third of the Lease
/// duration later.
pub async fn reconcile(run: Arc<EtcdDefrag>, ctx: Arc<Context>) -> Result<Action, Error> {
    if ctx.fenced().is_err() {
        return Ok(Action::await_change());
    }
    let finished = run
        .status
        .as_ref()
        .is_some_and(EtcdDefragStatus::is_terminal);
    // A run naming no cluster acts on none (it fails as ClusterNotFound).
    if finished || run.spec.cluster_ref.name.is_empty() {
        return pass(run, ctx, finished).await;
    }
    let namespace = run.namespace().unwrap_or_default();
    let key = format!("{namespace}/{}", run.name_any());
    let cluster = &run.spec.cluster_ref.name;
    let settings = LeaseSettings {
        namespace: namespace.clone(),
        name: lease::cluster_lease_name(cluster),
        identity: ctx.identity.clone(),
        duration: ctx.lease_duration,
    };
    let entered = match ctx.holds.enter(ctx.kube.client.clone(), &settings).await {
        Ok(Ok(entered)) => entered,
        Ok(Err(holder)) => {
            let new = match ctx.waiting.lock() {
                Ok(mut waiting) => {
                    waiting.insert(key.clone(), holder.clone()) != Some(holder.clone())
                }
                Err(_) => true,
            };
            if new {
                crate::logging::message(&format!(
                    "EtcdDefrag {key}: cluster {namespace}/{cluster} is being acted on by {holder} (Lease {namespace}/{}): this watcher leaves the run to it and looks again",
                    settings.name
                ));
            }
            return Ok(Action::requeue(ctx.lease_duration / 3));
        }
        Err(e) => {
            return Err(api_error(format!(
                "take Lease {namespace}/{}",
                settings.name
            ))(e))
        }
    };
    if let Ok(mut waiting) = ctx.waiting.lock() {
        waiting.remove(&key);
    }
    let outcome = pass(run, Arc::new(ctx.for_pass(&entered.fence)), false).await;
    ctx.holds.leave(entered).await;
    outcome
}

/// One pass over `run`, acting only while `ctx`'s fence is open;
/// `finished`: its cached copy is terminal.
async fn pass(run: Arc<EtcdDefrag>, ctx: Arc<Context>, finished: bool) -> Result<Action, Error> {
    let namespace = run.namespace().unwrap_or_default();
    let name = run.name_any();
    let runs: Api<EtcdDefrag> = Api::namespaced(ctx.kube.client.clone(), &namespace);
    if ctx.fenced().is_err() {
        return Ok(Action::await_change());
    }
    // Decide from the object as the server has it now, not the watch
    // cache's copy: the rows already written are what a resumed run skips.
    // A finished run is the exception: terminal phases are sticky, so the
    // cached copy is as final as the server's (only its TTL is decided),
    // and a watcher starting over hundreds of finished runs reads none.
    let run = if finished {
        run
    } else {
        match runs.get_opt(&name).await {
            Ok(Some(fresh)) => Arc::new(fresh),
            Ok(None) => return Ok(Action::await_change()),
            Err(e) => return Err(api_error(format!("get EtcdDefrag {namespace}/{name}"))(e)),
        }
    };
    // Another processor (the operator's own controller) has written this
    // run's phase or conditions: it drives the run, and a second sweep beside its own
    // could defragment two members at once. Left alone, for good.
    if !finished {
        if let Err(e) = not_driven_by_another(&run) {
            tracing::warn!("{e}");
            return Ok(Action::await_change());
        }
    }
    let mut view = RunView::of(&run);
    view.invalid_spec = settings::rule_of(run.spec.rule.as_ref()).err();
    let mut obs = Observation::new(view, Timestamp::now());
    let labels = RunLabels::of(&run);
    let mut probed: Option<(Session, Fresh)> = None;
    // The EtcdCluster as this pass read it (the probe reuses it).
    let mut cluster: Option<EtcdCluster> = None;
    loop {
        let transition = phase::next(&obs);
        tracing::debug!(run = %name, ?transition, "pass");
        // Every way out of the pass but the busy retry is the transition's
        // own requeue.
        let action = context::action(transition.requeue_after());
        match transition {
            Transition::Gather(Need::Cluster) => {
                let clusters: Api<EtcdCluster> =
                    Api::namespaced(ctx.kube.client.clone(), &namespace);
                let found =
                    clusters
                        .get_opt(&obs.run.cluster)
                        .await
                        .map_err(api_error(format!(
                            "get EtcdCluster {namespace}/{}",
                            obs.run.cluster
                        )))?;
                obs.cluster_exists = Some(found.is_some());
                cluster = found;
            }
            Transition::Gather(Need::Siblings) => {
                let all = runs
                    .list(&ListParams::default())
                    .await
                    .map_err(api_error(format!("list EtcdDefrags in {namespace}")))?;
                obs.siblings = Some(
                    all.items
                        .iter()
                        .filter(|r| r.spec.cluster_ref.name == obs.run.cluster)
                        .map(Sibling::of)
                        .collect(),
                );
            }
            Transition::Gather(Need::Probe)
                if ctx.busy.holds(&format!("{namespace}/{}", obs.run.cluster)) =>
            {
                // Another run's engine is still at work on this cluster
                // (e.g. its object was deleted mid-sweep): not even a probe.
                return Ok(Action::requeue(BUSY_RETRY));
            }
            Transition::Gather(Need::Probe) => {
                let (reach, session) = match cluster.take() {
                    Some(found) => probe(&ctx, &namespace, found).await,
                    None => (
                        Reach::DialFailed {
                            error: format!(
                                "EtcdCluster {namespace}/{} was not read in this pass",
                                obs.run.cluster
                            ),
                        },
                        None,
                    ),
                };
                obs.reach = Some(reach);
                probed = session;
            }
            Transition::Gather(Need::EtcdSnapshots) => {
                obs.etcd_snapshots =
                    Some(etcd_snapshots(&ctx, &namespace, &obs.run.cluster).await?);
            }
            Transition::Ignore => return Ok(action),
            Transition::RequeueAfter(_) => return Ok(action),
            Transition::Delete => {
                match runs.delete(&name, &DeleteParams::default()).await {
                    Ok(_) => {}
                    Err(e) if k8s::is_not_found(&e) => {}
                    Err(e) => {
                        return Err(api_error(format!("delete EtcdDefrag {namespace}/{name}"))(
                            e,
                        ))
                    }
                }
                return Ok(action);
            }
            Transition::Fail {
                status,
                event,
                disarm,
                ..
            } => {
                if disarm {
                    disarm_nospace(&ctx, &run, probed.as_ref()).await;
                }
                let mut current = (*run).clone();
                write_status(&ctx, &runs, &mut current, &status).await?;
                clear_note(&ctx, &runs, &current).await;
                ctx.metrics.entered(&labels, DefragPhase::Failed);
                if let Some(event) = event {
                    record(&ctx, &current, &event).await;
                }
                return Ok(action);
            }
            Transition::Queue { status, write, .. } => {
                if write {
                    write_status(&ctx, &runs, &mut (*run).clone(), &status).await?;
                }
                ctx.metrics.deferred(&labels, CheckedReason::Queued);
                return Ok(action);
            }
            Transition::Defer {
                status,
                write,
                event,
            } => {
                let mut current = (*run).clone();
                if write {
                    write_status(&ctx, &runs, &mut current, &status).await?;
                }
                ctx.metrics
                    .deferred(&labels, CheckedReason::ClusterNotHealthy);
                if let Some(event) = event {
                    record(&ctx, &current, &event).await;
                }
                return Ok(action);
            }
            Transition::RetryLater { error } => {
                tracing::warn!(run = %name, "cannot reach the cluster, retrying: {error}");
                return Ok(action);
            }
            Transition::Run {
                status,
                write,
                finished,
                deadline_in,
                start,
            } => {
                let Some(_claim) = ctx.busy.claim(format!("{namespace}/{}", obs.run.cluster))
                else {
                    return Ok(Action::requeue(BUSY_RETRY));
                };
                let mut current = (*run).clone();
                if write {
                    write_status(&ctx, &runs, &mut current, &status).await?;
                    if start.is_some() {
                        ctx.metrics.entered(&labels, DefragPhase::Running);
                    }
                }
                let Some((session, first)) = probed.take() else {
                    return Ok(action);
                };
                let _running = ctx.metrics.running(&labels);
                drive(
                    &ctx,
                    &runs,
                    current,
                    status,
                    finished,
                    deadline_in,
                    session,
                    first,
                )
                .await?;
                // The writes bring the next pass through the watch; this is
                // the fallback.
                return Ok(action);
            }
            Transition::Finalize {
                phase: ended,
                status,
                disarm,
                ..
            } => {
                if disarm {
                    disarm_nospace(&ctx, &run, probed.as_ref()).await;
                }
                let mut current = (*run).clone();
                write_status(&ctx, &runs, &mut current, &status).await?;
                clear_note(&ctx, &runs, &current).await;
                ctx.metrics.entered(&labels, ended);
                return Ok(action);
            }
        }
    }
}

/// Lists the running members, dials them and runs the gate. The EtcdDefrag
/// is the consent for a 1- or 2-voter cluster.
async fn probe(
    ctx: &Context,
    namespace: &str,
    cluster: EtcdCluster,
) -> (Reach, Option<(Session, Fresh)>) {
    let desired = cluster
        .status
        .as_ref()
        .and_then(|s| s.observed.as_ref())
        .and_then(|o| o.replicas)
        .map_or(0, |r| usize::try_from(r).unwrap_or(0));
    let opened = match cozystack::fetch_read(&ctx.kube, namespace, cluster).await {
        Ok(fetched) => session::open_fetched(&ctx.kube, &ctx.connection, fetched).await,
        Err(e) => Err(e),
    };
    let session = match opened {
        Ok(s) => s,
        Err(e) => {
            return (
                Reach::DialFailed {
                    error: e.to_string(),
                },
                None,
            )
        }
    };
    let first = match Fresh::look(&session.clients, &session.target).await {
        Ok(f) => f,
        Err(e) => {
            return (
                Reach::DialFailed {
                    error: e.to_string(),
                },
                None,
            )
        }
    };
    let verdict = gate::evaluate(&first.look, &ctx.gate);
    let reach = Reach::Probed {
        running: session.target.known.len(),
        desired,
        verdict,
    };
    (reach, Some((session, first)))
}

/// Whether an EtcdSnapshot of the cluster is in progress (any phase but
/// Complete and Failed). A server without the EtcdSnapshot kind has none.
async fn etcd_snapshots(
    ctx: &Context,
    namespace: &str,
    cluster: &str,
) -> Result<EtcdSnapshots, Error> {
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(crate::contract::GROUP, "v1alpha2", "EtcdSnapshot"),
        "etcdsnapshots",
    );
    let api: Api<DynamicObject> =
        Api::namespaced_with(ctx.kube.client.clone(), namespace, &resource);
    let list = match api.list(&ListParams::default()).await {
        Ok(list) => list,
        Err(e) if k8s::is_not_found(&e) => return Ok(EtcdSnapshots::Idle),
        Err(e) => return Err(api_error(format!("list EtcdSnapshots in {namespace}"))(e)),
    };
    for s in &list.items {
        let of_cluster = s.data["spec"]["clusterRef"]["name"].as_str() == Some(cluster);
        let phase = s.data["status"]["phase"].as_str().unwrap_or("");
        if of_cluster && !matches!(phase, "Complete" | "Failed") {
            return Ok(EtcdSnapshots::InProgress { name: s.name_any() });
        }
    }
    Ok(EtcdSnapshots::Idle)
}

/// Runs the engine for this run and persists every member's row as it
/// finishes; records `DefragFailed` and `AlarmDisarmFailed` events.
#[allow(clippy::too_many_arguments)]
async fn drive(
    ctx: &Context,
    runs: &Api<EtcdDefrag>,
    current: EtcdDefrag,
    status: EtcdDefragStatus,
    finished: Vec<crate::report::MemberResult>,
    deadline_in: Duration,
    session: Session,
    first: Fresh,
) -> Result<(), Error> {
    let options = settings::sweep_of_run(
        current.spec.rule.as_ref(),
        ctx.move_leader,
        ctx.member_timeout,
        ctx.allow_probe_restart,
        ctx.gate,
    )
    .map_err(crate::Error::Usage)?;
    let earlier: Vec<String> = finished.iter().map(|m| m.name.clone()).collect();
    // A holder that died mid-Defragment left the member's name (and its
    // size then) and no row.
    let interrupted = current
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(crate::contract::DEFRAGMENTING_ANNOTATION))
        .and_then(|note| crate::plan::defrag::InterruptedDefrag::parse(note))
        .filter(|noted| !earlier.contains(&noted.member));
    let input = RunInput {
        options,
        finished,
        cluster: session.target.cluster.clone(),
        interrupted,
        // The watcher is the processor that serializes the runs (the
        // oldest unfinished one acts): the others are queued behind it.
        others: None,
    };
    let control = RunControl {
        cancel: ctx.shutdown.child_token(),
        deadline: Some(tokio::time::Instant::now() + deadline_in),
        ..RunControl::default()
    };
    let labels = RunLabels::of(&current);
    let persist = Persist {
        ctx,
        runs,
        state: Mutex::new((current, status)),
        failed: Mutex::new(None),
        stop_run: control.cancel.clone(),
    };
    let report = exec::run(
        &session.clients,
        &session.target,
        &input,
        &persist,
        &control,
        Some(first),
    )
    .await?;
    ctx.metrics.sweep_finished(&labels, &report);
    if let Some(e) = persist.failed.lock().await.take() {
        return Err(e);
    }
    let (mut current, mut status) = persist.state.into_inner();
    let now = Timestamp::now();
    phase::record_results(&mut status, &report.members, now);
    if report.stopped.is_none() {
        phase::mark_gone(&mut status, now);
    }
    write_status(ctx, runs, &mut current, &status).await?;
    // The row has no room for why a member was held back: the event does.
    for m in report.held_back().filter(|m| !earlier.contains(&m.name)) {
        let why = m.detail.clone().unwrap_or_default();
        record(ctx, &current, &Event::defrag_held_back(&m.name, &why)).await;
    }
    let failures: Vec<String> = report
        .alarms
        .iter()
        .filter(|a| a.alarm == "NOSPACE" && a.result == AlarmResult::Failed)
        .map(|a| format!("member {}: {}", a.member_id, a.why))
        .collect();
    if !failures.is_empty() {
        record(
            ctx,
            &current,
            &Event::alarm_disarm_failed(&failures.join("; ")),
        )
        .await;
    }
    Ok(())
}

/// The engine's observer: writes the planned rows, then each finished
/// member's row, before the engine goes on.
struct Persist<'a> {
    ctx: &'a Context,
    runs: &'a Api<EtcdDefrag>,
    state: Mutex<(EtcdDefrag, EtcdDefragStatus)>,
    /// The first write that failed; the run is stopped then.
    failed: Mutex<Option<Error>>,
    /// The engine's stop: a row that cannot be saved stops the run before
    /// the next member is touched (the next pass resumes from what is saved).
    stop_run: CancellationToken,
}

impl Observer for Persist<'_> {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Fencing: a watcher that lost the Lease (or was stopped past
            // it) writes nothing more and stops the engine, which checks
            // before its next Defragment.
            if !self.ctx.fence.is_open() {
                self.ctx.shutdown.cancel();
                return;
            }
            let results = match &event {
                RunEvent::Planned { members, .. } => members.clone(),
                RunEvent::MemberFinished { result } => vec![result.clone()],
                // Word for the next holder, should this one die before
                // the row is written: without it, nothing is sent.
                RunEvent::DefragStarted { member } => {
                    tracing::info!("{}", event.describe());
                    let mut guard = self.state.lock().await;
                    let (current, _) = &mut *guard;
                    let noted = context::note_defragmenting(
                        self.ctx,
                        self.runs,
                        current,
                        &member.name,
                        member.db_size,
                    )
                    .await
                    .and_then(|()| not_driven_by_another(current));
                    if let Err(e) = noted {
                        tracing::warn!("{e}; stopping the run before the Defragment");
                        self.stop_run.cancel();
                        *self.failed.lock().await = Some(e);
                    }
                    return;
                }
                other => {
                    tracing::info!("{}", other.describe());
                    return;
                }
            };
            tracing::info!("{}", event.describe());
            let mut guard = self.state.lock().await;
            let (current, status) = &mut *guard;
            phase::record_results(status, &results, Timestamp::now());
            let snapshot = status.clone();
            if let Err(e) = write_status(self.ctx, self.runs, current, &snapshot).await {
                tracing::warn!("cannot persist the run's status: {e}; stopping the run");
                self.stop_run.cancel();
                *self.failed.lock().await = Some(e);
            }
            if let RunEvent::MemberFinished { result } = &event {
                self.ctx
                    .metrics
                    .member_finished(&RunLabels::of(current), result);
                if result.outcome == Outcome::Failed
                    && result.reason == Some(MemberReason::RpcError)
                {
                    let detail = result.detail.clone().unwrap_or_default();
                    record(
                        self.ctx,
                        current,
                        &Event::defrag_failed(&result.name, &detail),
                    )
                    .await;
                }
            }
        })
    }
}

/// Takes the note `kubectl-etcd/defragmenting` off a run that has just
/// ended: left on, it reads as a member in flight. A merge patch that only
/// removes it; a failure is logged (the run's status is already final).
async fn clear_note(ctx: &Context, runs: &Api<EtcdDefrag>, run: &EtcdDefrag) {
    let noted = run
        .metadata
        .annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(crate::contract::DEFRAGMENTING_ANNOTATION));
    if !noted || ctx.fenced().is_err() {
        return;
    }
    let patch = serde_json::json!({
        "metadata": {"annotations": {crate::contract::DEFRAGMENTING_ANNOTATION: null}}
    });
    let params = kube::api::PatchParams {
        field_manager: Some(context::FIELD_MANAGER.to_string()),
        ..kube::api::PatchParams::default()
    };
    if let Err(e) = runs
        .patch(&run.name_any(), &params, &kube::api::Patch::Merge(&patch))
        .await
    {
        tracing::warn!(
            "EtcdDefrag {}/{}: could not remove the note {}: {e}",
            run.namespace().unwrap_or_default(),
            run.name_any(),
            crate::contract::DEFRAGMENTING_ANNOTATION
        );
    }
}

/// Refuses a run whose phase or conditions another field manager has
/// written (`takeover::other_status_writer`): asked at the start of every
/// pass and again on the object the note before each Defragment returned.
fn not_driven_by_another(run: &EtcdDefrag) -> Result<(), Error> {
    match super::takeover::other_status_writer(run, context::FIELD_MANAGER) {
        None => Ok(()),
        Some(manager) => Err(Error::Tool(crate::Error::Resolve(format!(
            "EtcdDefrag {}/{}: its phase or conditions were written by field manager {manager:?} (\"manager\" is the etcd-operator's own defrag controller): another processor drives this run, so --watch sends no Defragment for it",
            run.namespace().unwrap_or_default(),
            run.name_any()
        )))),
    }
}

/// Disarms NOSPACE where a member is back under its quota (never CORRUPT),
/// recording `AlarmDisarmFailed` when one fails.
async fn disarm_nospace(ctx: &Context, run: &EtcdDefrag, probed: Option<&(Session, Fresh)>) {
    let Some((session, first)) = probed else {
        return;
    };
    let look = match crate::etcd::take::look(&session.clients, &session.target).await {
        Ok(s) => s,
        Err(_) => first.look.clone(),
    };
    let failures: Vec<String> = after::disarm(
        &session.clients,
        &look,
        &[],
        false,
        session.target.cluster.as_ref(),
    )
    .await
    .into_iter()
    .filter(|a| a.alarm == "NOSPACE" && a.result == AlarmResult::Failed)
    .map(|a| format!("member {}: {}", a.member_id, a.why))
    .collect();
    if !failures.is_empty() {
        record(ctx, run, &Event::alarm_disarm_failed(&failures.join("; "))).await;
    }
}

/// Records a Warning event against the run. Each call creates a new Event
/// (no client-side de-duplication): a deferral whose reason changed must
/// show its new message. A failure to record is logged, not fatal.
/// Puts `status` on the run (`context::write_status`); `current` ends as
/// what the server stored.
async fn write_status(
    ctx: &Context,
    runs: &Api<EtcdDefrag>,
    current: &mut EtcdDefrag,
    status: &EtcdDefragStatus,
) -> Result<(), Error> {
    context::write_status(ctx, runs, current, |run| run.status = Some(status.clone())).await
}

async fn record(ctx: &Context, run: &EtcdDefrag, event: &Event) {
    record_on(ctx, run, Event::TYPE, event.reason.as_str(), &event.message).await;
}
