//! The etcd-operator kinds the tool reads, with only the fields it uses
//! (group `etcd-operator.cozystack.io`, version `v1alpha2`). Unknown fields
//! are ignored, so objects written against any of the published CRD
//! revisions deserialise.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

pub use crate::contract::{CLIENT_PORT, CLUSTER_LABEL, GROUP, HEADLESS_SERVICE_ANNOTATION};

/// A `{name: …}` reference to an object in the same namespace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameRef {
    #[serde(default)]
    pub name: String,
}

#[derive(CustomResource, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "etcd-operator.cozystack.io",
    version = "v1alpha2",
    kind = "EtcdCluster",
    namespaced,
    status = "EtcdClusterStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct EtcdClusterSpec {
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub tls: Option<ClusterTls>,
    #[serde(default)]
    pub auth: Option<ClusterAuth>,
    #[serde(default)]
    pub options: Option<ClusterOptions>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTls {
    #[serde(default)]
    pub client: Option<ClientTls>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTls {
    #[serde(default)]
    pub server_secret_ref: Option<NameRef>,
    #[serde(default)]
    pub operator_client_secret_ref: Option<NameRef>,
    #[serde(default)]
    pub cert_manager: Option<CertManager>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CertManager {
    #[serde(default)]
    pub server_issuer_ref: Option<serde_json::Value>,
    #[serde(default)]
    pub operator_client_issuer_ref: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterAuth {
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub root_credentials_secret_ref: Option<NameRef>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterOptions {
    #[serde(default)]
    pub quota_backend_bytes: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdClusterStatus {
    #[serde(default)]
    pub observed: Option<Observed>,
    #[serde(default)]
    pub auth_enabled: Option<bool>,
    #[serde(default)]
    pub ready_members: Option<i32>,
    #[serde(default)]
    pub cluster_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub options: Option<ClusterOptions>,
}

#[derive(CustomResource, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "etcd-operator.cozystack.io",
    version = "v1alpha2",
    kind = "EtcdMember",
    namespaced,
    status = "EtcdMemberStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct EtcdMemberSpec {
    #[serde(default)]
    pub cluster_name: String,
    #[serde(default)]
    pub dormant: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdMemberStatus {
    #[serde(default, rename = "memberID")]
    pub member_id: Option<String>,
    #[serde(default)]
    pub pod_name: Option<String>,
    #[serde(default)]
    pub is_voter: Option<bool>,
}
