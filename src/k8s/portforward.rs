//! `--connect port-forward`: one local listener per member Pod on
//! 127.0.0.1, each connection tunnelled to the Pod's port 2379 through the
//! API server. Deliberately thin — accept, open a forward, copy bytes — so
//! that everything else (TLS verified against the member's DNS name, one
//! channel per member) is the same code as a direct connection.

use std::net::SocketAddr;

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
        Error::kube(
            format!("port-forward to Pod {namespace}/{pod}:{port}"),
            server,
            e,
        )
    })?;
    let local_error = |source| Error::Local {
        action: "port-forward: cannot listen on 127.0.0.1".into(),
        source,
    };
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(local_error)?;
    let local = listener.local_addr().map_err(local_error)?;
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
            tokio::spawn(async move {
                let Ok(mut forwarder) = forwarder else {
                    let _ = socket.shutdown().await;
                    return;
                };
                if let Some(mut upstream) = forwarder.take_stream(port) {
                    let _ = tokio::io::copy_bidirectional(&mut socket, &mut upstream).await;
                }
                forwarder.abort();
            });
        }
    });
    Ok(Forward { local, task })
}
