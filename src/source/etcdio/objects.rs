//! The etcd project's own operator's kind (group `operator.etcd.io`,
//! version `v1alpha1`, kind `EtcdCluster`), with only the fields the tool
//! reads, and what is read for one cluster, as plain data. Unknown fields
//! are ignored: the API is pre-GA and changes fast.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

use crate::source::pods::PodFacts;

/// The API group, for messages and `--kind`'s help.
pub const GROUP: &str = "operator.etcd.io";

/// Where the operator keeps a member's data: its `ETCD_DATA_DIR`, set in
/// the cluster's `<name>-state` ConfigMap rather than in the Pod spec.
pub const DATA_DIR: &str = "/var/lib/etcd";

#[derive(CustomResource, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "operator.etcd.io",
    version = "v1alpha1",
    kind = "EtcdCluster",
    namespaced,
    status = "EtcdClusterStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct EtcdClusterSpec {
    #[serde(default)]
    pub size: Option<i32>,
    #[serde(default)]
    pub version: Option<String>,
    /// Present when the operator is to make TLS Secrets for the cluster.
    #[serde(default)]
    pub tls: Option<serde_json::Value>,
    /// Raw etcd flags, appended to the operator's own (a flag given here
    /// replaces the operator's of the same name).
    #[serde(default)]
    pub etcd_options: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdClusterStatus {
    #[serde(default)]
    pub ready_replicas: Option<i32>,
    #[serde(default)]
    pub current_replicas: Option<i32>,
    #[serde(default)]
    pub current_version: Option<String>,
    /// The leader's member ID, in hex.
    #[serde(default, rename = "leaderID")]
    pub leader_id: Option<String>,
    #[serde(default)]
    pub members: Vec<MemberStatus>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// A member as the operator last saw it in etcd's MemberList.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberStatus {
    #[serde(default)]
    pub name: String,
    /// etcd's member ID, in hex.
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub is_healthy: Option<bool>,
    #[serde(default)]
    pub is_learner: Option<bool>,
    #[serde(default)]
    pub is_leader: Option<bool>,
}

/// The data of one Secret (`None` when it does not exist).
pub type SecretData = Option<BTreeMap<String, Vec<u8>>>;

/// Everything read from the API for one cluster.
#[derive(Debug, Clone)]
pub struct ClusterObjects {
    pub namespace: String,
    pub cluster: EtcdCluster,
    /// The cluster's Pods (labelled `app=<name>,controller=<name>`), by
    /// name.
    pub pods: BTreeMap<String, PodFacts>,
    /// The client TLS Secret `<name>-client-tls`, read when the spec asks
    /// for TLS (`None` inside: it does not exist).
    pub client_tls: Option<SecretData>,
}

/// The labels the operator puts on a cluster's Pods.
pub fn pod_selector(name: &str) -> String {
    format!("app={name},controller={name}")
}

/// The client TLS Secret the operator makes for cluster `name`.
pub fn client_tls_secret(name: &str) -> String {
    format!("{name}-client-tls")
}
