//! A member's HTTP endpoints as `EtcdClients` reads them: over TLS on the
//! member's gRPC connection (etcd serves `/metrics` and `/debug/vars` on
//! the same port and connection, from 3.4 on), so a read costs no
//! handshake; over plain HTTP, where etcd hands HTTP/2 to gRPC only, on a
//! connection of its own. A member's `/metrics` is read once per command.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt, Shared};

use super::EtcdClients;
use crate::reach::{Dial, Scheme, TlsMaterial};

/// A member's `/metrics` being read, or read: every caller awaits the same
/// read.
pub(super) type Reading = Shared<BoxFuture<'static, Result<Arc<str>, String>>>;

impl EtcdClients {
    fn readings(&self) -> std::sync::MutexGuard<'_, HashMap<String, Reading>> {
        match self.metrics.lock() {
            Ok(map) => map,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// GETs `path` from the member behind `dial` within the command
    /// timeout: over TLS on the member's gRPC connection (dialed now when
    /// it is not yet, and shared with every RPC), so the read costs no
    /// handshake and can go out beside the member's first RPCs; over plain
    /// HTTP, where etcd hands every HTTP/2 connection to gRPC, on a
    /// connection of its own.
    pub(super) async fn http_get(&self, dial: &Dial, path: &str) -> Result<Arc<str>, String> {
        let channel = self.channel_for_http(dial).await?;
        http_get(dial, self.tls.clone(), channel, path, self.command_timeout).await
    }

    /// The channel an HTTP read of `dial` goes on: its gRPC one over TLS,
    /// none over plain HTTP.
    async fn channel_for_http(
        &self,
        dial: &Dial,
    ) -> Result<Option<tonic::transport::Channel>, String> {
        if dial.endpoint.scheme != Scheme::Https {
            return Ok(None);
        }
        match self.client(dial).await {
            Ok(connected) => Ok(Some(connected.channel)),
            Err(e) => Err(format!("connect: {}", e.cause)),
        }
    }

    /// The certificate chain the member behind `dial` serves (DER, its own
    /// first), as its gRPC connection's handshake verified it (dialed now
    /// when it is not yet): no handshake of its own. Empty over plain HTTP.
    pub async fn served_certificates(&self, dial: &Dial) -> Result<Vec<Vec<u8>>, String> {
        let connected = self
            .client(dial)
            .await
            .map_err(|e| format!("connect: {}", e.cause))?;
        let chain = match connected.served.lock() {
            Ok(chain) => chain.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        Ok(chain)
    }

    /// The member's `/metrics`, read once per `EtcdClients` (a command):
    /// every caller awaits the same read, and a failed read is not asked
    /// again.
    pub(super) async fn metrics_once(&self, dial: &Dial) -> Result<Arc<str>, String> {
        let key = Self::key(dial);
        let known = self.readings().get(&key).cloned();
        if let Some(reading) = known {
            return reading.await;
        }
        let channel = self.channel_for_http(dial).await?;
        let reading = self
            .readings()
            .entry(key)
            .or_insert_with(|| {
                let (dial, tls, limit) = (dial.clone(), self.tls.clone(), self.command_timeout);
                async move { http_get(&dial, tls, channel, "/metrics", limit).await }
                    .boxed()
                    .shared()
            })
            .clone();
        reading.await
    }
}

/// GETs `path` within `limit`: on `channel` (a member's gRPC connection,
/// over TLS) when there is one, else on a connection of its own.
async fn http_get(
    dial: &Dial,
    tls: Option<TlsMaterial>,
    channel: Option<tonic::transport::Channel>,
    path: &str,
    limit: Duration,
) -> Result<Arc<str>, String> {
    let Some(channel) = channel else {
        // `http::get` holds the read to `limit` itself.
        return crate::etcd::http::get(dial, tls.as_ref(), path, limit)
            .await
            .map(|answer| Arc::from(answer.body));
    };
    match tokio::time::timeout(limit, crate::etcd::http::get_on(channel, path)).await {
        Ok(body) => body.map(Arc::from),
        Err(_) => Err(format!(
            "no answer within {}",
            crate::quantity::format_duration_parts(limit)
        )),
    }
}
