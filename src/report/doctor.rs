//! `doctor` and `doctor -A`: the findings per cluster, worst first, and
//! what could not be read.

use serde::Serialize;

use super::ClusterRef;

/// What `doctor` found in one cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The kind of EtcdCluster (`doctor -A`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::reach::Kind>,
    /// The worst severity among the findings.
    pub worst: crate::plan::doctor::Severity,
    /// Worst first; `ok` ones included (tables show them with `-o wide`).
    pub findings: Vec<crate::plan::doctor::Finding>,
    /// What could not be read, so its checks are missing (e.g. a member's
    /// /metrics).
    pub unread: Vec<String>,
}

/// `doctor -A`: one report per cluster, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetDoctorReport {
    pub clusters: Vec<DoctorReport>,
    /// The contexts read when several were (`--context` more than once,
    /// `--all-contexts`); absent for one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<super::ContextRow>,
}
