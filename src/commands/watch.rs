//! `defrag --watch`: the EtcdDefrag controller until Ctrl-C or SIGTERM.
//! This is the command's glue only: the stop signals, the `/metrics`
//! listener, the refusal to fight another processor (installed, asked
//! again every minute while running, or active), then the controller's own
//! Lease loop (`controller::lead`).

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
    // The etcd-operator's own EtcdDefrag controller (or any processor but
    // another watcher of ours) installed: refuse, whatever the flags.
    let me = takeover::whoami(&kube).await?;
    let grants = takeover::installed_processors(&kube, namespace.as_deref(), &me).await?;
    if let Some(refusal) = takeover::refusal(&grants) {
        return Err(refusal);
    }
    takeover::refuse_to_fight(&kube, namespace.as_deref(), args.force_takeover).await?;
    // Installed later (the operator upgraded under a running watcher):
    // stop as SIGTERM does, after the member in flight, and exit 2 saying
    // why. A read that fails meanwhile is logged and asked again.
    let installed = Arc::new(std::sync::Mutex::new(None::<String>));
    let recheck = tokio::spawn({
        let (kube, installed, stopping) = (kube.clone(), installed.clone(), stopping.clone());
        let namespace = namespace.clone();
        let recheck = args.recheck_processors;
        async move {
            loop {
                tokio::select! {
                    _ = stopping.cancelled() => return,
                    _ = tokio::time::sleep(recheck) => {}
                }
                match takeover::installed_processors(&kube, namespace.as_deref(), &me).await {
                    Ok(grants) => {
                        if let Some(refusal) = takeover::refusal(&grants) {
                            crate::logging::message(&format!(
                                "standing down: {refusal}; stopping once the member in flight has answered"
                            ));
                            if let Ok(mut slot) = installed.lock() {
                                *slot = Some(refusal.to_string());
                            }
                            stopping.cancel();
                            return;
                        }
                    }
                    Err(e) => tracing::warn!("{e}"),
                }
            }
        }
    });
    let connection = Connection::from(&global.reach);
    let led = controller::lead(
        kube,
        connection,
        args,
        namespace.as_deref(),
        metrics,
        stopping,
    )
    .await;
    recheck.abort();
    led?;
    let found = installed.lock().ok().and_then(|mut slot| slot.take());
    match found {
        Some(refusal) => Err(crate::error::Error::usage(refusal)),
        None => Ok(ExitStatus::Success),
    }
}
