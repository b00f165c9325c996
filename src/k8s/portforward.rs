//! `--connect port-forward`: one local listener per member Pod on
//! 127.0.0.1, each connection tunnelled to the Pod's port 2379 through the
//! API server. Deliberately thin — accept, open a forward, copy bytes — so
//! that everything else (TLS verified against the member's DNS name, one
//! channel per member) is the same code as a direct connection.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};

/// A running forward; stops when dropped.
pub struct Forward {
    pub local: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Opens a forward to `pod`'s `port`. One tunnel is opened right away, so
/// that a missing Pod, a Pod that is not running or a missing
/// `pods/portforward` permission is reported here, naming the Pod.
pub async fn open(
    pods: Api<Pod>,
    server: &str,
    namespace: &str,
    pod: &str,
    port: u16,
) -> Result<Forward> {
    let first = pods.portforward(pod, &[port]).await.map_err(|e| {
        let what = format!("port-forward to Pod {namespace}/{pod}:{port}");
        let said = match &e {
            kube::Error::Api(status) => status.message.clone(),
            other => crate::error::chain_text(other),
        };
        match kubelet_unreachable(pod, &said) {
            true => Error::Resolve(format!("{what}: {said}: {KUBELET_HINT}")),
            false => Error::kube(what, server, e),
        }
    })?;
    let local_error = |source| Error::Local {
        action: "port-forward: cannot listen on 127.0.0.1".into(),
        source,
    };
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(local_error)?;
    let local = listener.local_addr().map_err(local_error)?;
    let health = Arc::new(Health {
        what: format!("port-forward to Pod {namespace}/{pod}:{port}"),
        failing: Mutex::new(None),
    });
    let pod = pod.to_string();
    let task = tokio::spawn(async move {
        let mut ready = Some(first);
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let forwarder = match ready.take() {
                Some(f) => Ok(f),
                None => pods.portforward(&pod, &[port]).await,
            };
            let health = health.clone();
            tokio::spawn(async move {
                let mut forwarder = match forwarder {
                    Ok(f) => f,
                    Err(e) => {
                        health.failed(crate::error::chain_text(&e));
                        let _ = socket.shutdown().await;
                        return;
                    }
                };
                let error = forwarder.take_error(port);
                let Some(mut upstream) = forwarder.take_stream(port) else {
                    return;
                };
                let copy = tokio::io::copy_bidirectional(&mut socket, &mut upstream);
                tokio::pin!(copy);
                // A refused tunnel ends at once; one still open after the
                // grace period is carrying traffic.
                if tokio::time::timeout(ERROR_GRACE, &mut copy).await.is_err() {
                    health.worked();
                    let _ = copy.await;
                }
                // The kubelet names why a tunnel failed (nothing listening
                // in the Pod, the tunnel cut) on the error channel, which
                // has it by the time the data stream ends.
                if let Some(e) = error {
                    if let Ok(Some(message)) = tokio::time::timeout(ERROR_GRACE, e).await {
                        health.failed(message);
                    }
                }
                forwarder.abort();
            });
        }
    });
    Ok(Forward { local, task })
}

/// What to try when the API server cannot carry a port-forward to the
/// Pod's kubelet (docs/cli.md, `--connect`).
const KUBELET_HINT: &str = "the API server could not reach the kubelet of the Pod's node, which carries every port-forward; where the Pods' IPs are routable from here add --connect direct, else run the tool inside the cluster (deploy/)";

/// Whether the API server's words for a refused port-forward say it could
/// not reach the node's kubelet, rather than anything about the Pod: a
/// "not found" of another name than the Pod's (the node it looked up),
/// or the proxy's own errors. Pure.
fn kubelet_unreachable(pod: &str, said: &str) -> bool {
    let other_not_found = ["pods \"", "nodes \""].iter().any(|kind| {
        said.split(kind)
            .skip(1)
            .filter_map(|rest| rest.split_once("\" not found"))
            .any(|(name, _)| *kind == "nodes \"" || name != pod)
    });
    other_not_found
        || said.contains("error dialing backend")
        || said.contains("proxy error")
        || said.contains(":10250")
}

/// How long to wait for the error channel after a tunnel's data ended.
const ERROR_GRACE: Duration = Duration::from_millis(200);

/// Whether a forward's tunnels are failing, so that a failure is logged
/// once (with the kubelet's or the API server's own words) and a recovery
/// once, not on every retry.
struct Health {
    what: String,
    failing: Mutex<Option<String>>,
}

impl Health {
    fn failed(&self, message: String) {
        let Ok(mut failing) = self.failing.lock() else {
            return;
        };
        if failing.as_deref() != Some(message.as_str()) {
            tracing::warn!("{} failed: {message}", self.what);
            *failing = Some(message);
        }
    }

    fn worked(&self) {
        let Ok(mut failing) = self.failing.lock() else {
            return;
        };
        if failing.take().is_some() {
            tracing::warn!("{} works again", self.what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::kubelet_unreachable;

    #[test]
    fn the_api_servers_words_that_mean_its_kubelet() {
        let cases = [
            // From a workstation (issue 46): the node's name, not the Pod's.
            (r#"pods "node-1" not found"#, true),
            (r#"nodes "node-1" not found"#, true),
            (r#"pods "ledger-0" not found"#, false),
            (
                "error dialing backend: dial tcp 10.0.0.5:10250: i/o timeout",
                true,
            ),
            (
                "error trying to reach service: proxy error from 127.0.0.1:6443",
                true,
            ),
            (
                r#"pods "ledger-0" is forbidden: User "u" cannot get resource "pods/portforward""#,
                false,
            ),
            ("pod ledger-0 is not running", false),
        ];
        for (said, want) in cases {
            assert_eq!(kubelet_unreachable("ledger-0", said), want, "{said}");
        }
    }
}
