//! `defrag --watch`: the EtcdDefrag controller until Ctrl-C or SIGTERM.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::cli::{DefragArgs, GlobalArgs, MoveLeaderArg};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ListParams};

use crate::controller::lease::{self, LeaseSettings};
use crate::controller::metrics::{self, Metrics};
use crate::controller::{self, reconcile, reconcile::Context, takeover};
use crate::error::{Error, ExitStatus, Result};
use crate::k8s;
use crate::k8s::crd::EtcdDefrag;
use crate::plan::defrag::MoveLeader;
use crate::session::{self, Connection};

pub async fn run(global: &GlobalArgs, args: &DefragArgs) -> Result<ExitStatus> {
    if args.cluster.cluster.is_some() {
        return Err(Error::usage(
            "--watch processes EtcdDefrag objects; it takes no CLUSTER (create an EtcdDefrag naming it instead)",
        ));
    }
    if args.timeout.is_zero() {
        return Err(Error::usage("--timeout must be greater than 0"));
    }
    if args.lease_duration < std::time::Duration::from_secs(1) {
        return Err(Error::usage("--lease-duration must be at least 1s"));
    }
    // Ctrl-C or SIGTERM: stop acting after the member in flight, write its
    // row, hand the Lease back, exit 0.
    let stopping = CancellationToken::new();
    tokio::spawn({
        let stopping = stopping.clone();
        async move {
            wait_for_signal().await;
            crate::logging::message(
                "stopping: runs in progress stop once the member being defragmented has answered",
            );
            stopping.cancel();
        }
    });
    let metrics = Arc::new(Metrics::new());
    // Listen first: a --metrics-address we cannot use fails before any API
    // call. The server stops when `_server` is dropped, after the controller.
    let _server = match args.metrics_address {
        Some(address) => Some(metrics::start(address, metrics.clone(), stopping.clone()).await?),
        None => None,
    };
    let kube = k8s::connect(&session::kube_settings(global)).await?;
    let namespace = (!args.all_namespaces).then(|| kube.default_namespace.clone());
    refuse_to_fight(&kube, namespace.as_deref(), args.force_takeover).await?;
    let scope = namespace
        .as_deref()
        .map_or("every namespace".to_string(), |ns| {
            format!("namespace {ns}")
        });
    let lease = LeaseSettings {
        namespace: kube.default_namespace.clone(),
        name: LEASE_NAME.to_string(),
        identity: lease::identity(),
        duration: args.lease_duration,
    };
    let move_leader = match args.move_leader {
        MoveLeaderArg::Auto => MoveLeader::Auto {
            above: args.move_leader_above,
        },
        MoveLeaderArg::Always => MoveLeader::Always,
        MoveLeaderArg::Never => MoveLeader::Never,
    };
    let lease_labels = metrics::LeaseLabels {
        lease: format!("{}/{}", lease.namespace, lease.name),
        identity: lease.identity.clone(),
    };
    metrics.lease_held(&lease_labels, false);
    // Act only while holding the Lease; after losing it, wait to take it
    // back (another watcher may hold it meanwhile).
    // A standby is ready too (`/readyz`): it reached the API server and
    // found a live holder. Otherwise a Deployment of two replicas is never
    // Available and a rolling update waits for it for ever.
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
            kube: k8s::Kube {
                client: kube.client.clone(),
                default_namespace: kube.default_namespace.clone(),
                server: kube.server.clone(),
            },
            connection: Connection::from(global),
            move_leader,
            member_timeout: args.timeout,
            shutdown: acting,
            fence,
            metrics: metrics.clone(),
            busy: Default::default(),
        });
        controller::run(ctx, namespace.as_deref()).await?;
        relay.abort();
        metrics.lease_held(&lease_labels, false);
        if stopping.is_cancelled() {
            held.release().await;
            break;
        }
        crate::logging::message("no longer holding the Lease: waiting to take it back");
    }
    Ok(ExitStatus::Success)
}

/// The Lease that elects the one active watcher, in the kubeconfig's (or
/// the Pod's) namespace.
pub const LEASE_NAME: &str = "kubectl-etcd-watch";

/// SIGINT or SIGTERM (a Deployment's stop).
async fn wait_for_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
    }
}

/// Refuses to start when another field manager wrote EtcdDefrag status in
/// scope recently (two processors both defragment), unless forced.
async fn refuse_to_fight(kube: &k8s::Kube, namespace: Option<&str>, force: bool) -> Result<()> {
    let runs: Api<EtcdDefrag> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let scope = namespace.map_or("all namespaces".to_string(), |ns| format!("namespace {ns}"));
    let list = runs
        .list(&ListParams::default())
        .await
        .map_err(|e| Error::kube(format!("list EtcdDefrags in {scope}"), &kube.server, e))?;
    let Some(other) =
        takeover::foreign_status_writer(&list.items, reconcile::FIELD_MANAGER, Timestamp::now())
    else {
        return Ok(());
    };
    let what = format!(
        "field manager {:?} wrote the status of EtcdDefrag {} at {} (within the last 15 minutes)",
        other.manager, other.run, other.at
    );
    if force {
        crate::logging::message(&format!("taking over: {what} (--force-takeover)"));
        return Ok(());
    }
    Err(Error::usage(format!(
        "another processor is active in {scope}: {what}; two processors would both defragment: stop it (e.g. the operator's defrag controller) or pass --force-takeover"
    )))
}
