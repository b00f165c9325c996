//! The operator's interoperability literals (`docs/contract.md`): names,
//! labels, annotations, ports, the trafficDistribution values and field
//! manager, and who holds a field. Plain data shared by the Kubernetes I/O
//! in `k8s` and the pure decisions in `plan`, so that neither needs the
//! other.

use std::fmt;

use serde::Serialize;

/// API group of every etcd-operator kind.
pub const GROUP: &str = "etcd-operator.cozystack.io";
/// Label on EtcdMembers (and Pods, Services) naming their cluster.
pub const CLUSTER_LABEL: &str = "etcd-operator.cozystack.io/cluster";
/// EtcdMember annotation that overrides the headless Service name.
pub const HEADLESS_SERVICE_ANNOTATION: &str = "etcd-operator.cozystack.io/headless-service-name";
/// etcd's client port in every member Pod.
pub const CLIENT_PORT: u16 = 2379;

/// The field manager the operator applies the field with (docs/contract.md#traffic-distribution).
pub const FIELD_MANAGER: &str = "etcd-operator-traffic-distribution";

/// The EtcdCluster annotation that holds the wanted value (docs/contract.md#traffic-distribution).
pub const ANNOTATION: &str = "etcd-operator.cozystack.io/client-service-traffic-distribution";

/// The field manager of every write `--watch` makes to EtcdDefrag and
/// EtcdDefragPolicy status.
pub const WATCH_FIELD_MANAGER: &str = "kubectl-etcd";

/// The field manager the API server records for the operator's writes: it
/// names none, so the server takes its User-Agent's program name, and its
/// image runs `/manager`.
pub const OPERATOR_FIELD_MANAGER: &str = "manager";

/// The tool's own EtcdDefrag annotation (not the operator's): the member
/// whose Defragment `--watch` is about to send and its backend's size then
/// (`<member>; dbSizeBefore=<bytes>`), written before the RPC, so that a
/// holder that dies mid-RPC leaves word for the next one
/// (`plan::defrag::already_reclaimed`). The operator ignores it.
pub const DEFRAGMENTING_ANNOTATION: &str = "kubectl-etcd/defragmenting";

/// The tool's own Lease per cluster (not the operator's), in the cluster's
/// namespace: `kubectl-etcd-defrag-<cluster>`, held by the watcher acting on
/// that cluster's runs, so that two watchers of ours whose scopes overlap
/// never act on one cluster at once.
pub const CLUSTER_LEASE_PREFIX: &str = "kubectl-etcd-defrag-";

/// The client Service of a cluster; the headless one (`<cluster>`) is never
/// touched.
pub fn client_service_name(cluster: &str) -> String {
    format!("{cluster}-client")
}

/// A value the annotation may hold, matched exactly (case-sensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TrafficValue {
    PreferClose,
    PreferSameZone,
    PreferSameNode,
}

impl TrafficValue {
    pub const ALL: [TrafficValue; 3] = [
        TrafficValue::PreferClose,
        TrafficValue::PreferSameZone,
        TrafficValue::PreferSameNode,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TrafficValue::PreferClose => "PreferClose",
            TrafficValue::PreferSameZone => "PreferSameZone",
            TrafficValue::PreferSameNode => "PreferSameNode",
        }
    }

    /// Exact match; anything else (other case, spaces, empty) is invalid.
    pub fn parse(text: &str) -> Option<TrafficValue> {
        TrafficValue::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// The first Kubernetes minor release (1.x) that accepts and keeps the
    /// value with its default feature gates.
    pub fn since_minor(self) -> u32 {
        match self {
            TrafficValue::PreferClose => 31,
            TrafficValue::PreferSameZone | TrafficValue::PreferSameNode => 34,
        }
    }
}

impl TrafficValue {
    /// The first Kubernetes minor release (1.x) that answers a write of the
    /// value with a deprecation warning, and the value it names instead:
    /// from 1.35 (`PreferSameZone` GA, KEP-3015) `PreferClose` is
    /// `deprecated; use "PreferSameZone"`. The two mean the same to
    /// kube-proxy; the annotation keeps the value the user chose, as the
    /// operator applies it literally.
    pub fn deprecated(self) -> Option<(u32, TrafficValue)> {
        match self {
            TrafficValue::PreferClose => Some((35, TrafficValue::PreferSameZone)),
            TrafficValue::PreferSameZone | TrafficValue::PreferSameNode => None,
        }
    }
}

impl fmt::Display for TrafficValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A manager that owns `spec.trafficDistribution`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldOwner {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

impl fmt::Display for FieldOwner {
    /// `manager (Apply)`, as tables and messages name a holder.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.manager, self.operation)
    }
}
