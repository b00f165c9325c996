//! Dialing one member for `EtcdClients`: TCP, TLS verified against the CA
//! (keeping the chain the server showed), then authentication, falling
//! back to none, once and said, on a cluster where it is not enabled.

use std::sync::atomic::Ordering;
use std::time::Duration;

use etcd_client::{Client, ConnectOptions};
use tonic::transport::{ClientTlsConfig, Identity};

use super::{served, Connected, EtcdClients};
use crate::error::chain_text;
use crate::etcd::{FailureCause, RpcError};
use crate::failure::classify;
use crate::reach::{Dial, Scheme};

impl EtcdClients {
    /// Dials one member: TCP, TLS (verified against the CA, always), then
    /// authentication when credentials are set. Bounded by the dial timeout
    /// (connection) and the command timeout (authentication).
    pub(super) async fn connect(&self, dial: &Dial) -> Result<Connected, RpcError> {
        let ctx = self.context(dial);
        let fail = |cause: FailureCause| RpcError {
            endpoint: dial.endpoint.to_string(),
            op: "connect",
            cause,
        };
        let mut endpoint = tonic::transport::Endpoint::from_shared(dial.endpoint.url())
            .map_err(|e| fail(FailureCause::Other(chain_text(&e))))?
            .connect_timeout(self.dial_timeout)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(10))
            .keep_alive_timeout(Duration::from_secs(5));
        let mut served = served::Served::default();
        if dial.endpoint.scheme == Scheme::Https {
            let tls = self.tls.as_ref().ok_or_else(|| {
                fail(FailureCause::Other(
                    "https endpoint without a CA: pass --cacert".into(),
                ))
            })?;
            // The CA is the verifier's (`served::Keeping`, the WebPKI
            // verifier of this CA, keeping the chain it verified).
            let mut config = ClientTlsConfig::new().domain_name(ctx.tls_host.clone());
            if let Some(id) = &tls.identity {
                config = config.identity(Identity::from_pem(&id.cert_pem, &id.key_pem));
            }
            let (verifier, kept) =
                served::Keeping::new(tls).map_err(|e| fail(FailureCause::Other(e)))?;
            served = kept;
            endpoint = endpoint
                .tls_config_with_verifier(config, verifier)
                .map_err(|e| fail(classify(&chain_text(&e), &ctx)))?;
        }
        let channel = match tokio::time::timeout(self.dial_timeout, endpoint.connect()).await {
            Err(_) => {
                return Err(fail(FailureCause::Timeout {
                    after: self.dial_timeout,
                }))
            }
            Ok(Err(e)) => return Err(fail(classify(&chain_text(&e), &ctx))),
            Ok(Ok(channel)) => channel,
        };
        let credentials = self
            .credentials
            .as_ref()
            .filter(|_| !self.learned.auth_off.load(Ordering::SeqCst));
        let options = credentials
            .map(|c| ConnectOptions::new().with_user(c.user.clone(), c.password.clone()));
        let connected = tokio::time::timeout(
            self.command_timeout,
            Client::from_channel(etcd_client::Channel::Tonic(channel.clone()), options),
        )
        .await;
        match connected {
            Err(_) => Err(fail(FailureCause::Timeout {
                after: self.command_timeout,
            })),
            Ok(Err(e)) => match classify(&chain_text(&e), &ctx) {
                // etcdctl works on such a cluster: so do we, without the
                // credentials, saying so once.
                FailureCause::AuthNotEnabled => {
                    if !self.learned.auth_off.swap(true, Ordering::SeqCst) {
                        crate::logging::message(&format!(
                            "warning: authentication is not enabled on this cluster ({}), so the user name and password given are not used",
                            dial.endpoint
                        ));
                    }
                    Client::from_channel(etcd_client::Channel::Tonic(channel.clone()), None)
                        .await
                        .map(|client| Connected {
                            client,
                            channel,
                            served,
                        })
                        .map_err(|e| fail(classify(&chain_text(&e), &ctx)))
                }
                cause => Err(fail(cause)),
            },
            Ok(Ok(client)) => Ok(Connected {
                client,
                channel,
                served,
            }),
        }
    }
}
