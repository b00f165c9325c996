//! `defrag --watch`: the EtcdDefrag controller, behaving as the
//! etcd-operator's own (docs/contract.md#the-etcddefrag-controller). The decisions live in
//! [`phase`], a pure state machine over plain observations with `now` as an
//! input, so every edge is a table test; the reconciler around it only
//! gathers the facts `phase::next` asks for and performs the one transition
//! it names, calling the same engine (`exec::run`) as the one-shot `defrag`.

pub mod activity;
pub mod context;
pub mod handover;
pub mod lease;
pub mod metrics;
pub mod phase;
pub mod policy;
pub mod reconcile;
pub mod takeover;

use std::sync::Arc;

use futures::StreamExt;
use kube::api::Api;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::{controller, watcher, Controller};
use kube::ResourceExt;
use tokio_util::sync::CancellationToken;

use crate::k8s::crd::{EtcdDefrag, EtcdDefragPolicy};
use crate::k8s::Kube;
use crate::session::Connection;
use crate::settings::Watch;
use context::{error_policy, Context};
use lease::LeaseSettings;
use metrics::Metrics;
use reconcile::reconcile;

/// The Lease that elects the one active watcher, in the kubeconfig's (or
/// the Pod's) namespace.
pub const LEASE_NAME: &str = "kubectl-etcd-watch";

/// The watcher's life: take the Lease, act while holding it, and after
/// losing it wait to take it back (another watcher may hold it meanwhile),
/// until `stopping` is cancelled (Ctrl-C, SIGTERM). Then the run in flight
/// stops after its member, its row is written and the Lease handed back.
///
/// A standby is ready too (`/readyz`): it reached the API server and found
/// a live holder. Otherwise a Deployment of two replicas is never Available
/// and a rolling update waits for it for ever.
pub async fn lead(
    kube: Kube,
    connection: Connection,
    settings: &Watch,
    namespace: Option<&str>,
    metrics: Arc<Metrics>,
    stopping: CancellationToken,
) -> crate::Result<()> {
    let scope = namespace.map_or("every namespace".to_string(), |ns| {
        format!("namespace {ns}")
    });
    let lease = LeaseSettings {
        namespace: kube.default_namespace.clone(),
        name: LEASE_NAME.to_string(),
        identity: lease::identity(),
        duration: settings.lease_duration,
    };
    let lease_labels = metrics::LeaseLabels {
        lease: format!("{}/{}", lease.namespace, lease.name),
        identity: lease.identity.clone(),
    };
    metrics.lease_held(&lease_labels, false);
    let standby = {
        let metrics = metrics.clone();
        move || metrics.set_ready()
    };
    while let Some(held) = lease::acquire(kube.client.clone(), &lease, &stopping, &standby).await? {
        crate::logging::message(&format!(
            "holding Lease {}/{} as {}: watching EtcdDefrag objects in {scope}",
            lease.namespace, lease.name, lease.identity
        ));
        metrics.lease_held(&lease_labels, true);
        let acting = CancellationToken::new();
        let fence = held.fence.clone();
        let relay = tokio::spawn({
            let (acting, stopping, lost) = (acting.clone(), stopping.clone(), fence.lost());
            async move {
                tokio::select! {
                    _ = stopping.cancelled() => {}
                    _ = lost.cancelled() => {}
                }
                acting.cancel();
            }
        });
        let ctx = Arc::new(Context {
            kube: kube.clone(),
            connection,
            move_leader: settings.move_leader,
            member_timeout: settings.member_timeout,
            allow_probe_restart: settings.allow_probe_restart,
            gate: settings.gate,
            shutdown: acting,
            fence,
            metrics: metrics.clone(),
            busy: Default::default(),
            identity: lease.identity.clone(),
            lease_duration: settings.lease_duration,
            waiting: Default::default(),
            holds: Default::default(),
        });
        run(ctx, namespace).await?;
        relay.abort();
        metrics.lease_held(&lease_labels, false);
        if stopping.is_cancelled() {
            held.release().await;
            break;
        }
        crate::logging::message("no longer holding the Lease: waiting to take it back");
    }
    Ok(())
}

/// How many runs proceed at once (on different clusters; one object is
/// never reconciled twice at the same time), as the operator's
/// `MaxConcurrentReconciles`.
pub const CONCURRENCY: u16 = 4;

/// Runs the controller over the EtcdDefrags of `namespace` (all when
/// `None`), and beside it the EtcdDefragPolicy controller that stamps runs
/// (docs/contract.md#etcddefragpolicy), until `ctx.shutdown` is cancelled (a signal,
/// or the Lease lost).
/// A run in progress then stops once the member in flight has answered
/// again and its row is written.
pub async fn run(ctx: Arc<Context>, namespace: Option<&str>) -> crate::Result<()> {
    let client = ctx.kube.client.clone();
    let runs: Api<EtcdDefrag> = match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    };
    let policies: Api<EtcdDefragPolicy> = match namespace {
        Some(ns) => Api::namespaced(client, ns),
        None => Api::all(client),
    };
    // The policy controller owns the runs it stamps: a stamped run's status
    // change brings its policy a pass (`active`, `lastSuccessfulTime`).
    let stamping = Controller::new(policies, watcher::Config::default())
        .owns(runs.clone(), watcher::Config::default())
        .with_config(controller::Config::default().concurrency(CONCURRENCY))
        .graceful_shutdown_on(ctx.shutdown.clone().cancelled_owned())
        .run(policy::reconcile, error_policy, ctx.clone())
        .for_each(|outcome| async move {
            if let Err(e) = outcome {
                log_outcome("policy reconcile", &e);
            }
        });
    let stop = ctx.shutdown.clone().cancelled_owned();
    let defrags = Controller::new(runs.clone(), watcher::Config::default());
    let store = defrags.store();
    // Ready (`/readyz`) once the controller's watch has listed everything.
    let readiness = tokio::spawn(metrics::ready_when_listed(
        store.clone(),
        ctx.metrics.clone(),
    ));
    // A queued run is never polled: any change of a run of its cluster (it
    // progressed, finished or was deleted) wakes the unfinished others.
    let defrags = defrags.watches(runs, watcher::Config::default(), move |changed| {
        let namespace = changed.namespace().unwrap_or_default();
        let all = store.state();
        phase::queued_behind(&changed, all.iter().map(|r| r.as_ref()))
            .into_iter()
            .map(|name| ObjectRef::new(&name).within(&namespace))
            .collect::<Vec<_>>()
    });
    let running = defrags
        .with_config(controller::Config::default().concurrency(CONCURRENCY))
        .graceful_shutdown_on(stop)
        .run(reconcile, error_policy, ctx)
        .for_each(|outcome| async move {
            if let Err(e) = outcome {
                log_outcome("reconcile", &e);
            }
        });
    futures::join!(running, stamping);
    readiness.abort();
    Ok(())
}

/// A watch or list the server refused (RBAC, a missing CRD) is logged as a
/// warning: it is what an operator must fix. A failed reconcile was logged
/// by its error policy already.
fn log_outcome<E: std::error::Error + 'static>(
    what: &str,
    error: &controller::Error<E, watcher::Error>,
) {
    match error {
        controller::Error::QueueError(e) => tracing::warn!("{what}: watching failed: {e}"),
        other => tracing::debug!("{what}: {other}"),
    }
}
