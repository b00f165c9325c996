//! `defrag --watch`: the EtcdDefrag controller until Ctrl-C or SIGTERM.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::cli::{DefragArgs, GlobalArgs, MoveLeaderArg};
use crate::controller::{self, reconcile::Context};
use crate::error::{Error, ExitStatus, Result};
use crate::k8s;
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
    let kube = k8s::connect(&session::kube_settings(global)).await?;
    let namespace = (!args.all_namespaces).then(|| kube.default_namespace.clone());
    let shutdown = CancellationToken::new();
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
