//! What both controllers (`reconcile` for EtcdDefrag runs, `policy` for
//! EtcdDefragPolicies) share: the context of every pass, the one error
//! type and its retry policy, the fenced status write that rides out
//! conflicts, the events they record, and how a decided requeue becomes
//! kube-runtime's `Action`. kube-rs' controller-rs is the model: one
//! `Context`, one `Error`, one `error_policy`.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Event as KubeEvent, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, PostParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::metrics::Metrics;
use super::phase::REQUEUE;
use crate::k8s::Kube;
use crate::plan::defrag::MoveLeader;
use crate::session::Connection;

/// Who the events say they come from: the operator's component name, so
/// that a run reads the same whichever processor handled it.
pub const EVENT_COMPONENT: &str = "etcd-operator";

/// The field manager of our status writes: how a second processor is
/// recognised in `managedFields` (and how others recognise us).
pub const FIELD_MANAGER: &str = crate::contract::WATCH_FIELD_MANAGER;

/// What every pass shares.
pub struct Context {
    pub kube: Kube,
    pub connection: Connection,
    pub move_leader: MoveLeader,
    /// The Defragment RPC timeout (the operator's is 5 minutes).
    pub member_timeout: Duration,
    /// `--allow-probe-restart`: no member is held back for its probe.
    pub allow_probe_restart: bool,
    /// The gate of every run: the operator's (health, not the quorum
    /// margin) with the watcher's `--max-raft-lag`.
    pub gate: crate::plan::gate::GateOptions,
    /// Cancelled on shutdown or when the Lease is lost: the engine stops
    /// after the member in flight.
    pub shutdown: CancellationToken,
    /// Open while this watcher holds the Lease; checked before every
    /// status write and every Defragment.
    pub fence: super::lease::Fence,
    /// What `/metrics` shows.
    pub metrics: Arc<Metrics>,
    /// Clusters whose run this process is driving right now (`ns/name`).
    /// Serialization by object age alone is not enough: a run deleted
    /// mid-sweep disappears from the list while its engine still waits for
    /// the member in flight, and the next run must not start beside it.
    pub busy: Arc<Busy>,
    /// This watcher's identity and Lease duration, for the per-cluster
    /// Leases (`lease::cluster_lease_name`) as for the election Lease.
    pub identity: String,
    pub lease_duration: Duration,
    /// Runs found waiting for another watcher's hold on their cluster,
    /// with that holder: said once per holder, not on every retry.
    pub waiting: Arc<std::sync::Mutex<std::collections::HashMap<String, String>>>,
    /// The per-cluster Leases this process holds, shared by its passes.
    pub holds: Arc<super::lease::ClusterHolds>,
}

/// The clusters a run is being driven on, in this process.
#[derive(Debug, Default)]
pub struct Busy(std::sync::Mutex<std::collections::HashSet<String>>);

impl Busy {
    /// Claims `cluster` for one run; `None` while another run holds it.
    pub fn claim(&self, cluster: String) -> Option<Claim<'_>> {
        let mut set = match self.0.lock() {
            Ok(set) => set,
            Err(poisoned) => poisoned.into_inner(),
        };
        let claimed = set.insert(cluster.clone());
        drop(set);
        // Built only when claimed: a Claim releases its cluster on drop.
        claimed.then(|| Claim {
            busy: self,
            cluster,
        })
    }

    pub fn holds(&self, cluster: &str) -> bool {
        match self.0.lock() {
            Ok(set) => set.contains(cluster),
            Err(poisoned) => poisoned.into_inner().contains(cluster),
        }
    }
}

/// A claimed cluster, released when dropped (whatever ends the run).
pub struct Claim<'a> {
    busy: &'a Busy,
    cluster: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        match self.busy.0.lock() {
            Ok(mut set) => set.remove(&self.cluster),
            Err(poisoned) => poisoned.into_inner().remove(&self.cluster),
        };
    }
}

impl Context {
    /// The context of one pass over a cluster's run while this watcher
    /// holds that cluster's Lease too: every write and Defragment is then
    /// fenced by both holds, and losing the cluster's stops this pass only
    /// (its own shutdown, a child of the watcher's).
    pub fn for_pass(&self, cluster_fence: &super::lease::Fence) -> Context {
        Context {
            kube: self.kube.clone(),
            connection: self.connection,
            move_leader: self.move_leader,
            member_timeout: self.member_timeout,
            allow_probe_restart: self.allow_probe_restart,
            gate: self.gate,
            shutdown: self.shutdown.child_token(),
            fence: self.fence.and(cluster_fence),
            metrics: self.metrics.clone(),
            busy: self.busy.clone(),
            identity: self.identity.clone(),
            lease_duration: self.lease_duration,
            waiting: self.waiting.clone(),
            holds: self.holds.clone(),
        }
    }

    /// `Err(Fenced)` once the Lease is lost, and the watcher stops acting
    /// with it (the engine stops after the member in flight).
    pub fn fenced(&self) -> Result<(), Error> {
        if self.fence.is_open() {
            Ok(())
        } else {
            self.shutdown.cancel();
            Err(Error::Fenced)
        }
    }
}

/// Errors that end a pass; the controller retries it with backoff.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Tool(#[from] crate::Error),
    #[error("no longer holding the Lease: nothing more is written")]
    Fenced,
    #[error("{action}: {}", api_text(source))]
    Api {
        action: String,
        source: Box<kube::Error>,
    },
}

/// The server's own message for an API error (not the Status dump), with
/// where to look when it is a refusal; the whole chain otherwise.
fn api_text(source: &kube::Error) -> String {
    match source {
        kube::Error::Api(status) if status.code == 403 => {
            // The owner-reference admission check names neither verb nor
            // resource: say which rule it wants.
            let hint = if status.message.contains("blockOwnerDeletion") {
                "a stamped run's owner reference needs update on etcddefragpolicies/finalizers; see deploy/watch/rbac.yaml"
            } else {
                "deploy/watch/rbac.yaml lists what the watcher needs"
            };
            format!("{} ({hint})", status.message)
        }
        kube::Error::Api(status) => status.message.clone(),
        other => crate::error::chain_text(other),
    }
}

pub fn api_error(action: impl Into<String>) -> impl FnOnce(kube::Error) -> Error {
    let action = action.into();
    move |source| Error::Api {
        action,
        source: Box::new(source),
    }
}

/// Retries a failed pass after [`REQUEUE`], as the operator's requeue
/// does; the failure is logged with the object it was about.
pub fn error_policy<K>(object: Arc<K>, error: &Error, _ctx: Arc<Context>) -> Action
where
    K: Resource<DynamicType = ()>,
{
    tracing::warn!(
        kind = %K::kind(&()),
        name = %object.name_any(),
        namespace = object.namespace().unwrap_or_default(),
        "reconcile failed: {error}"
    );
    Action::requeue(REQUEUE)
}

/// kube-runtime's `Action` for a decided requeue: look again after it, or
/// only when the object changes.
pub fn action(requeue: Option<Duration>) -> Action {
    match requeue {
        Some(after) => Action::requeue(after),
        None => Action::await_change(),
    }
}

/// How many conflicts in a row a status write rides out.
const CONFLICT_RETRIES: u32 = 60;

/// Puts the status `set` writes on `current` (a full PUT of the status
/// subresource, guarded by the resourceVersion read), as [`FIELD_MANAGER`].
/// We own the status: a conflict only means someone else touched the
/// object (labels, spec), so it is read again and the same status put on
/// it, with a short backoff, up to [`CONFLICT_RETRIES`] times (~10 s).
/// Fenced: only the Lease holder writes, so a watcher that lost it (or was
/// stopped past it) never puts an old view back. `current` ends as what the
/// server stored.
pub async fn write_status<K>(
    ctx: &Context,
    api: &Api<K>,
    current: &mut K,
    set: impl Fn(&mut K),
) -> Result<(), Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    let name = current.name_any();
    let kind = K::kind(&());
    let mut attempt = 0;
    loop {
        ctx.fenced()?;
        let mut object = current.clone();
        set(&mut object);
        let params = PostParams {
            field_manager: Some(FIELD_MANAGER.to_string()),
            ..PostParams::default()
        };
        match api.replace_status(&name, &params, &object).await {
            Ok(stored) => {
                *current = stored;
                return Ok(());
            }
            Err(kube::Error::Api(s)) if s.code == 409 && attempt < CONFLICT_RETRIES => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(10 * u64::from(attempt.min(20)))).await;
                *current = api
                    .get(&name)
                    .await
                    .map_err(api_error(format!("get {kind} {name}")))?;
            }
            Err(e) => return Err(api_error(format!("write the status of {kind} {name}"))(e)),
        }
    }
}

/// Notes on `current` (merge patch of its metadata, no resourceVersion,
/// so never a conflict) that `member`'s Defragment is about to be sent,
/// with its backend's size now (`contract::DEFRAGMENTING_ANNOTATION`,
/// `plan::defrag::InterruptedDefrag::note`). A fenced watcher writes
/// nothing, and `Err(Fenced)` after the write says the fence closed while
/// it was in flight: the Defragment must not be sent.
pub async fn note_defragmenting<K>(
    ctx: &Context,
    api: &Api<K>,
    current: &mut K,
    member: &str,
    db_size: u64,
) -> Result<(), Error>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
{
    ctx.fenced()?;
    let name = current.name_any();
    let patch = serde_json::json!({
        "metadata": {"annotations": {
            crate::contract::DEFRAGMENTING_ANNOTATION:
                crate::plan::defrag::InterruptedDefrag::note(member, db_size)
        }}
    });
    let params = kube::api::PatchParams {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..kube::api::PatchParams::default()
    };
    let stored = api
        .patch(&name, &params, &kube::api::Patch::Merge(&patch))
        .await
        .map_err(api_error(format!(
            "note on {} {name} that {member} is being defragmented",
            K::kind(&())
        )))?;
    *current = stored;
    // A watcher stopped (SIGSTOP, a pause) while the note was in flight
    // resumes here with the Lease perhaps gone and the run taken over: the
    // fence is asked again, so its Defragment is not sent after all.
    ctx.fenced()
}

/// Records an event against `object` (any namespaced kind): a new core/v1
/// Event per occurrence, from the operator's component, as
/// every controller here does. A failure to record is logged.
pub async fn record_on<K>(ctx: &Context, object: &K, type_: &str, reason: &str, message: &str)
where
    K: Resource<DynamicType = ()>,
{
    let namespace = object.namespace().unwrap_or_default();
    let now = Time(Timestamp::now());
    let event = KubeEvent {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}.", object.name_any())),
            namespace: Some(namespace.clone()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some(K::api_version(&()).into_owned()),
            kind: Some(K::kind(&()).into_owned()),
            name: Some(object.name_any()),
            namespace: Some(namespace.clone()),
            uid: object.uid(),
            resource_version: object.resource_version(),
            ..ObjectReference::default()
        },
        reason: Some(reason.to_string()),
        message: Some(message.to_string()),
        type_: Some(type_.to_string()),
        source: Some(EventSource {
            component: Some(EVENT_COMPONENT.to_string()),
            host: None,
        }),
        reporting_component: Some(EVENT_COMPONENT.to_string()),
        reporting_instance: Some("kubectl-etcd".to_string()),
        first_timestamp: Some(now.clone()),
        last_timestamp: Some(now),
        count: Some(1),
        ..KubeEvent::default()
    };
    let events: Api<KubeEvent> = Api::namespaced(ctx.kube.client.clone(), &namespace);
    if let Err(e) = events.create(&PostParams::default(), &event).await {
        tracing::warn!(
            "cannot record event {reason} on {} {namespace}/{}: {e}",
            K::kind(&()),
            object.name_any()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_per_cluster_at_a_time_in_this_process() {
        let busy = Busy::default();
        let first = busy.claim("ns/db".into());
        assert!(first.is_some());
        assert!(busy.holds("ns/db"));
        assert!(busy.claim("ns/db".into()).is_none(), "a second run waits");
        assert!(
            busy.claim("ns/other".into()).is_some(),
            "other clusters go on"
        );
        drop(first);
        assert!(!busy.holds("ns/db"));
        assert!(busy.claim("ns/db".into()).is_some());
    }
}
