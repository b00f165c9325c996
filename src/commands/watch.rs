//! `defrag --watch`: the EtcdDefrag controller until Ctrl-C or SIGTERM.
//! This is the command's glue only: the stop signals, the `/metrics`
//! listener, the refusal to fight another processor, then the controller's
//! own Lease loop (`controller::lead`).

use std::sync::Arc;

use crate::controller::metrics::{self, Metrics};
use crate::controller::{self, takeover};
use crate::error::{ExitStatus, Result};
use crate::exec::signals::{Notices, SignalWatch};
use crate::exec::RunControl;
use crate::k8s;
use crate::session::{self, Connection};
use crate::settings::{Global, Watch};

pub async fn run(global: &Global, args: &Watch) -> Result<ExitStatus> {
    // Ctrl-C or SIGTERM: stop acting after the member in flight, write its
    // row, hand the Lease back, exit 0.
    let control = RunControl::default();
    let _signals = SignalWatch::start(
        &control,
        Notices {
            first: "runs in progress stop once the member being defragmented has answered".into(),
            hint: None,
            second:
                "still waiting for the member in flight; the Lease is handed back once it answers"
                    .into(),
        },
        crate::logging::message,
    )?;
    let stopping = control.cancel.clone();
    let metrics = Arc::new(Metrics::new());
    // Listen first: a --metrics-address we cannot use fails before any API
    // call. The server stops when `_server` is dropped, after the controller.
    let _server = match args.metrics_address {
        Some(address) => Some(metrics::start(address, metrics.clone(), stopping.clone()).await?),
        None => None,
    };
    let kube = k8s::connect(&session::kube_settings(&global.reach)).await?;
    let namespace = (!args.all_namespaces).then(|| kube.default_namespace.clone());
    takeover::refuse_to_fight(&kube, namespace.as_deref(), args.force_takeover).await?;
    let connection = Connection::from(&global.reach);
    controller::lead(
        kube,
        connection,
        args,
        namespace.as_deref(),
        metrics,
        stopping,
    )
    .await?;
    Ok(ExitStatus::Success)
}
