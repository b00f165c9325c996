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

mod drive;

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, ListParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::controller::Action;
use kube::ResourceExt;

use super::context::{self, api_error, record_on, Context, Error};
use super::lease::{self, LeaseSettings};
use super::metrics::RunLabels;
use super::phase::{
    self, CheckedReason, EtcdSnapshots, Event, Need, Observation, Reach, RunView, Sibling,
    Transition,
};
use crate::exec::{after, Fresh};
use crate::k8s::crd::{DefragPhase, EtcdCluster, EtcdDefrag, EtcdDefragStatus};
use crate::k8s::{self};
use crate::plan::gate;
use crate::report::AlarmResult;
use crate::session::{self, Session};
use crate::settings;
use crate::source::cozystack;
use drive::drive;

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
    let Some(run) = current_run(&runs, run, finished).await? else {
        return Ok(Action::await_change());
    };
    let mut view = RunView::of(&run);
    view.invalid_spec = settings::rule_of(run.spec.rule.as_ref()).err();
    let mut pass = Pass {
        ctx: &ctx,
        obs: Observation::new(view, Timestamp::now()),
        labels: RunLabels::of(&run),
        run,
        runs,
        namespace,
        name,
        probed: None,
        cluster: None,
    };
    loop {
        let transition = phase::next(&pass.obs);
        tracing::debug!(run = %pass.name, ?transition, "pass");
        if let ControlFlow::Break(action) = pass.perform(transition).await? {
            return Ok(action);
        }
    }
}

/// The run to decide on, or `None` when there is none to act on: it is
/// gone, or another processor drives it.
async fn current_run(
    runs: &Api<EtcdDefrag>,
    run: Arc<EtcdDefrag>,
    finished: bool,
) -> Result<Option<Arc<EtcdDefrag>>, Error> {
    // Decide from the object as the server has it now, not the watch
    // cache's copy: the rows already written are what a resumed run skips.
    // A finished run is the exception: terminal phases are sticky, so the
    // cached copy is as final as the server's (only its TTL is decided),
    // and a watcher starting over hundreds of finished runs reads none.
    if finished {
        return Ok(Some(run));
    }
    let name = run.name_any();
    let run = match runs.get_opt(&name).await {
        Ok(Some(fresh)) => Arc::new(fresh),
        Ok(None) => return Ok(None),
        Err(e) => {
            let namespace = run.namespace().unwrap_or_default();
            return Err(api_error(format!("get EtcdDefrag {namespace}/{name}"))(e));
        }
    };
    // Another processor (the operator's own controller) has written this
    // run's phase or conditions: it drives the run, and a second sweep beside its own
    // could defragment two members at once. Left alone, for good.
    if let Err(e) = not_driven_by_another(&run) {
        tracing::warn!("{e}");
        return Ok(None);
    }
    Ok(Some(run))
}

/// A pass over a run once it is read: what the pass acts with, the facts
/// `phase::next` has been given so far, and what gathering them opened
/// for the transition that acts.
struct Pass<'a> {
    ctx: &'a Context,
    runs: Api<EtcdDefrag>,
    namespace: String,
    name: String,
    run: Arc<EtcdDefrag>,
    labels: RunLabels,
    obs: Observation,
    /// The EtcdCluster as this pass read it (the probe reuses it).
    cluster: Option<EtcdCluster>,
    /// The session the probe opened and its look, for the engine and the
    /// NOSPACE disarm.
    probed: Option<(Session, Fresh)>,
}

impl Pass<'_> {
    /// Performs the one transition `phase::next` named: a fact gathered
    /// goes on to the next transition (`Continue`); any other transition
    /// ends the pass with the action to requeue by (`Break`).
    async fn perform(&mut self, transition: Transition) -> Result<ControlFlow<Action>, Error> {
        // Every way out of the pass but the busy retry is the transition's
        // own requeue.
        let action = context::action(transition.requeue_after());
        match transition {
            Transition::Gather(Need::Probe) if self.ctx.busy.holds(&self.cluster_key()) => {
                // Another run's engine is still at work on this cluster
                // (e.g. its object was deleted mid-sweep): not even a probe.
                return Ok(ControlFlow::Break(Action::requeue(BUSY_RETRY)));
            }
            Transition::Gather(need) => {
                self.gather(need).await?;
                return Ok(ControlFlow::Continue(()));
            }
            Transition::Ignore | Transition::RequeueAfter(_) => {}
            Transition::Delete => self.delete().await?,
            Transition::Fail {
                status,
                event,
                disarm,
                ..
            } => {
                let current = self.end(&status, disarm, DefragPhase::Failed).await?;
                if let Some(event) = event {
                    record(self.ctx, &current, &event).await;
                }
            }
            Transition::Queue { status, write, .. } => {
                if write {
                    write_status(self.ctx, &self.runs, &mut (*self.run).clone(), &status).await?;
                }
                self.ctx
                    .metrics
                    .deferred(&self.labels, CheckedReason::Queued);
            }
            Transition::Defer {
                status,
                write,
                event,
            } => {
                let mut current = (*self.run).clone();
                if write {
                    write_status(self.ctx, &self.runs, &mut current, &status).await?;
                }
                self.ctx
                    .metrics
                    .deferred(&self.labels, CheckedReason::ClusterNotHealthy);
                if let Some(event) = event {
                    record(self.ctx, &current, &event).await;
                }
            }
            Transition::RetryLater { error } => {
                tracing::warn!(run = %self.name, "cannot reach the cluster, retrying: {error}");
            }
            Transition::Run {
                status,
                write,
                finished,
                deadline_in,
                start,
            } => {
                let Some(_claim) = self.ctx.busy.claim(self.cluster_key()) else {
                    return Ok(ControlFlow::Break(Action::requeue(BUSY_RETRY)));
                };
                let mut current = (*self.run).clone();
                if write {
                    write_status(self.ctx, &self.runs, &mut current, &status).await?;
                    if start.is_some() {
                        self.ctx.metrics.entered(&self.labels, DefragPhase::Running);
                    }
                }
                let Some((session, first)) = self.probed.take() else {
                    return Ok(ControlFlow::Break(action));
                };
                let _running = self.ctx.metrics.running(&self.labels);
                drive(
                    self.ctx,
                    &self.runs,
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
            }
            Transition::Finalize {
                phase: ended,
                status,
                disarm,
                ..
            } => {
                self.end(&status, disarm, ended).await?;
            }
        }
        Ok(ControlFlow::Break(action))
    }

    /// Gathers the fact `phase::next` needs into the observation.
    async fn gather(&mut self, need: Need) -> Result<(), Error> {
        let namespace = &self.namespace;
        match need {
            Need::Cluster => {
                let clusters: Api<EtcdCluster> =
                    Api::namespaced(self.ctx.kube.client.clone(), namespace);
                let found = clusters
                    .get_opt(&self.obs.run.cluster)
                    .await
                    .map_err(api_error(format!(
                        "get EtcdCluster {namespace}/{}",
                        self.obs.run.cluster
                    )))?;
                self.obs.cluster_exists = Some(found.is_some());
                self.cluster = found;
            }
            Need::Siblings => {
                let all = self
                    .runs
                    .list(&ListParams::default())
                    .await
                    .map_err(api_error(format!("list EtcdDefrags in {namespace}")))?;
                self.obs.siblings = Some(
                    all.items
                        .iter()
                        .filter(|r| r.spec.cluster_ref.name == self.obs.run.cluster)
                        .map(Sibling::of)
                        .collect(),
                );
            }
            Need::Probe => {
                let (reach, session) = match self.cluster.take() {
                    Some(found) => probe(self.ctx, namespace, found).await,
                    None => (
                        Reach::DialFailed {
                            error: format!(
                                "EtcdCluster {namespace}/{} was not read in this pass",
                                self.obs.run.cluster
                            ),
                        },
                        None,
                    ),
                };
                self.obs.reach = Some(reach);
                self.probed = session;
            }
            Need::EtcdSnapshots => {
                self.obs.etcd_snapshots =
                    Some(etcd_snapshots(self.ctx, namespace, &self.obs.run.cluster).await?);
            }
        }
        Ok(())
    }
    /// Deletes the run, its TTL due; a run already gone is as good.
    async fn delete(&self) -> Result<(), Error> {
        match self.runs.delete(&self.name, &DeleteParams::default()).await {
            Ok(_) => Ok(()),
            Err(e) if k8s::is_not_found(&e) => Ok(()),
            Err(e) => Err(api_error(format!(
                "delete EtcdDefrag {}/{}",
                self.namespace, self.name
            ))(e)),
        }
    }

    /// Ends the run in phase `ended`: disarms NOSPACE first when `disarm`,
    /// takes the note off (every member has its row by now), then writes
    /// the final `status` last, so that whoever sees the run ended reads
    /// it as it stays. The run as the server stored it is returned, for
    /// the event that follows.
    async fn end(
        &self,
        status: &EtcdDefragStatus,
        disarm: bool,
        ended: DefragPhase,
    ) -> Result<EtcdDefrag, Error> {
        if disarm {
            disarm_nospace(self.ctx, &self.run, self.probed.as_ref()).await;
        }
        let mut current = (*self.run).clone();
        clear_note(self.ctx, &self.runs, &mut current).await;
        write_status(self.ctx, &self.runs, &mut current, status).await?;
        self.ctx.metrics.entered(&self.labels, ended);
        Ok(current)
    }

    /// This run's cluster as the engine's busy set names it.
    fn cluster_key(&self) -> String {
        format!("{}/{}", self.namespace, self.obs.run.cluster)
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
    let rooms = session.rooms();
    let first =
        match Fresh::look_with_rooms(&session.clients, &session.target, rooms.as_deref()).await {
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

/// Takes the note `kubectl-etcd/defragmenting` off a run that has just
/// ended, or whose announced Defragment was never sent: left on, it reads
/// as a member in flight. A merge patch that only removes it; `run` ends
/// as the server stored it. A failure is logged (the next holder then
/// judges the member by its sizes, as after a holder that died).
async fn clear_note(ctx: &Context, runs: &Api<EtcdDefrag>, run: &mut EtcdDefrag) {
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
    match runs
        .patch(&run.name_any(), &params, &kube::api::Patch::Merge(&patch))
        .await
    {
        Ok(stored) => *run = stored,
        Err(e) => tracing::warn!(
            "EtcdDefrag {}/{}: could not remove the note {}: {e}",
            run.namespace().unwrap_or_default(),
            run.name_any(),
            crate::contract::DEFRAGMENTING_ANNOTATION
        ),
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
    // The watcher's own log says what the run's Events say (a deferral, a
    // cluster not found, a failure), for whoever alerts on the log.
    tracing::warn!(
        run = %format!("{}/{}", run.namespace().unwrap_or_default(), run.name_any()),
        reason = event.reason.as_str(),
        "{}",
        event.message
    );
    record_on(ctx, run, Event::TYPE, event.reason.as_str(), &event.message).await;
}
