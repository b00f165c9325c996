//! What plugin mode reads for one cluster, as plain data: the EtcdCluster,
//! its EtcdMembers, their Pods' IPs and probes, and the Secrets its spec
//! names. `source::cozystack::fetch` fills it; `resolve::resolve` decides from it.

use std::collections::BTreeMap;

use crate::k8s::crd::{EtcdCluster, EtcdMember};
use crate::kubelet::PodProbes;

/// The data of one Secret (`None` when it does not exist).
pub type SecretData = Option<BTreeMap<String, Vec<u8>>>;

/// Everything read from the API for one cluster.
#[derive(Debug, Clone)]
pub struct ClusterObjects {
    pub namespace: String,
    pub cluster: EtcdCluster,
    /// EtcdMembers labelled with the cluster, in any order.
    pub members: Vec<EtcdMember>,
    /// Pod name → `status.podIP`, for Pods that have one.
    pub pod_ips: BTreeMap<String, String>,
    /// Pod name → its etcd container's probes, for Pods that exist.
    pub probes: BTreeMap<String, PodProbes>,
    /// The Secrets `secret_names` asked for.
    pub secrets: BTreeMap<String, SecretData>,
    /// Each member's Pod: its node and etcd arguments (zones not read).
    pub placement: Vec<crate::source::MemberPod>,
}

/// What a Secret is used for, to name it in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretRole {
    Server,
    OperatorClient,
    RootCredentials,
}

impl SecretRole {
    pub fn describe(self) -> &'static str {
        match self {
            SecretRole::Server => "server TLS Secret",
            SecretRole::OperatorClient => "operator-client TLS Secret",
            SecretRole::RootCredentials => "root credentials Secret",
        }
    }
}

/// The Secrets a cluster's spec refers to, by role. Pure.
pub fn secret_names(cluster: &EtcdCluster) -> Vec<(String, SecretRole)> {
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let mut out = Vec::new();
    if let Some(client) = cluster.spec.tls.as_ref().and_then(|t| t.client.as_ref()) {
        if let Some(r) = &client.server_secret_ref {
            out.push((r.name.clone(), SecretRole::Server));
            if let Some(o) = &client.operator_client_secret_ref {
                out.push((o.name.clone(), SecretRole::OperatorClient));
            }
        } else if let Some(cm) = &client.cert_manager {
            if cm.server_issuer_ref.is_some() {
                out.push((format!("{name}-server-tls"), SecretRole::Server));
            }
            if cm.operator_client_issuer_ref.is_some() {
                out.push((
                    format!("{name}-operator-client-tls"),
                    SecretRole::OperatorClient,
                ));
            }
        }
    }
    if auth_active(cluster) {
        if let Some(r) = cluster
            .spec
            .auth
            .as_ref()
            .and_then(|a| a.root_credentials_secret_ref.as_ref())
        {
            out.push((r.name.clone(), SecretRole::RootCredentials));
        }
    }
    out
}

/// Credentials are sent only when auth is requested and already on.
pub fn auth_active(cluster: &EtcdCluster) -> bool {
    let requested = cluster.spec.auth.as_ref().and_then(|a| a.enabled) == Some(true);
    let on = cluster.status.as_ref().and_then(|s| s.auth_enabled) == Some(true);
    requested && on
}
