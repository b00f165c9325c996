//! `defrag --watch`: the EtcdDefrag controller until Ctrl-C or SIGTERM.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::cli::{DefragArgs, GlobalArgs, MoveLeaderArg};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ListParams};

use crate::controller::metrics::{self, Metrics};
use crate::controller::{self, reconcile, reconcile::Context, takeover};
use crate::error::{Error, ExitStatus, Result};
use crate::k8s;
use crate::k8s::crd::EtcdDefrag;
use crate::plan::defrag::MoveLeader;
use crate::reach::session::{self, Connection};

pub async fn run(global: &GlobalArgs, args: &DefragArgs) -> Result<ExitStatus> {
    if args.cluster.cluster.is_some() {
        return Err(Error::usage(
            "--watch processes EtcdDefrag objects; it takes no CLUSTER (create an EtcdDefrag naming it instead)",
        ));
    }
    if args.timeout.is_zero() {
        return Err(Error::usage("--timeout must be greater than 0"));
    }
    let shutdown = CancellationToken::new();
    let metrics = Arc::new(Metrics::new());
    // Listen first: a --metrics-address we cannot use fails before any API
    // call. The server stops when `_server` is dropped, after the controller.
    let _server = match args.metrics_address {
        Some(address) => Some(metrics::start(address, metrics.clone(), shutdown.clone()).await?),
        None => None,
    };
    let kube = k8s::connect(&session::kube_settings(global)).await?;
    let namespace = (!args.all_namespaces).then(|| kube.default_namespace.clone());
    refuse_to_fight(&kube, namespace.as_deref(), args.force_takeover).await?;
    let ctx = Arc::new(Context {
        kube,
        connection: Connection::from(global),
        move_leader: match args.move_leader {
            MoveLeaderArg::Auto => MoveLeader::Auto {
                above: args.move_leader_above,
            },
            MoveLeaderArg::Always => MoveLeader::Always,
            MoveLeaderArg::Never => MoveLeader::Never,
        },
        member_timeout: args.timeout,
        shutdown,
        metrics,
    });
    crate::logging::message(&format!(
        "watching EtcdDefrag objects in {}",
        namespace
            .as_deref()
            .map_or("every namespace".to_string(), |ns| format!(
                "namespace {ns}"
            ))
    ));
    controller::run(ctx, namespace.as_deref()).await?;
    Ok(ExitStatus::Success)
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
