//! The etcd-operator kinds the tool reads, with only the fields it uses
//! (group `etcd-operator.cozystack.io`, version `v1alpha2`). Unknown fields
//! are ignored, so objects written against any of the published CRD
//! revisions deserialise.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
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
    #[serde(default)]
    pub storage: Option<ClusterStorage>,
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
    #[serde(default)]
    pub auto_compaction_mode: Option<String>,
    #[serde(default)]
    pub auto_compaction_retention: Option<String>,
}

/// `spec.storage`: each member's volume.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStorage {
    /// A Quantity (`10Gi`).
    #[serde(default)]
    pub size: Option<k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    /// `Memory` for a tmpfs, else a PVC.
    #[serde(default)]
    pub medium: Option<String>,
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
    #[serde(default)]
    pub conditions: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    #[serde(default)]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub version: Option<String>,
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

impl EtcdMember {
    /// The name of the member's Pod: the one its status names, else the
    /// member's own (the operator names them alike). `None` only for an
    /// object without a name.
    pub fn pod_name(&self) -> Option<String> {
        self.status
            .as_ref()
            .and_then(|s| s.pod_name.clone())
            .filter(|p| !p.is_empty())
            .or_else(|| self.metadata.name.clone())
    }
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

// ---------------------------------------------------------------------------
// EtcdDefrag (docs/contract.md#the-etcddefrag-object): the one-shot run `defrag --watch` drives.
//
// Unlike the kinds above, these types are also *written* (status), so
// serialisation follows the operator's Go types: integer fields are
// `omitempty` (a 0 or unknown size never appears), empty strings and empty
// lists are left out, and times are RFC 3339 at one-second precision (what
// k8s-openapi's `Time`, a `jiff::Timestamp`, writes).
// ---------------------------------------------------------------------------

#[derive(CustomResource, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "etcd-operator.cozystack.io",
    version = "v1alpha2",
    kind = "EtcdDefrag",
    namespaced,
    status = "EtcdDefragStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct EtcdDefragSpec {
    /// The EtcdCluster, in the run's namespace.
    #[serde(default)]
    pub cluster_ref: NameRef,
    /// Absent is the same as `{}`: the default thresholds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<DefragRuleSpec>,
    /// Seconds after the terminal phase before the object is deleted;
    /// absent keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
}

/// `spec.rule` as written. Sizes stay Kubernetes quantity strings (the CRD
/// field is int-or-string; an integer is read as its decimal string); they
/// are converted to bytes by `settings::sweep_of_run`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefragRuleSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<bool>,
    #[serde(
        default,
        deserialize_with = "int_or_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub free_space_above: Option<String>,
    /// `"<N>%"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota_usage_above: Option<String>,
    #[serde(
        default,
        deserialize_with = "int_or_string",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_reclaim: Option<String>,
}

/// Reads an `x-kubernetes-int-or-string` quantity as a string, so
/// `freeSpaceAbove: 1000` and `freeSpaceAbove: "1000"` mean the same.
fn int_or_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum IntOrString {
        Int(i64),
        Big(u64),
        Str(String),
    }
    Ok(Option::<IntOrString>::deserialize(d)?.map(|v| match v {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::Big(n) => n.to_string(),
        IntOrString::Str(s) => s,
    }))
}

/// `status.phase`. The wire value `""` (or no field) is `None` on the
/// status and means Pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefragPhase {
    Pending,
    Running,
    Complete,
    Failed,
}

impl DefragPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            DefragPhase::Pending => "Pending",
            DefragPhase::Running => "Running",
            DefragPhase::Complete => "Complete",
            DefragPhase::Failed => "Failed",
        }
    }

    /// The wire value; `""` and anything unknown are `None`.
    pub fn parse(text: &str) -> Option<DefragPhase> {
        match text {
            "Pending" => Some(DefragPhase::Pending),
            "Running" => Some(DefragPhase::Running),
            "Complete" => Some(DefragPhase::Complete),
            "Failed" => Some(DefragPhase::Failed),
            _ => None,
        }
    }

    /// Complete and Failed are sticky: a run never runs again.
    pub fn is_terminal(self) -> bool {
        matches!(self, DefragPhase::Complete | DefragPhase::Failed)
    }
}

/// An unknown phase string reads as absent: like the operator, which
/// compares strings, it then counts as not terminal (and is overwritten by
/// the next status write).
fn phase_from_wire<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<DefragPhase>, D::Error> {
    Ok(Option::<String>::deserialize(d)?
        .as_deref()
        .and_then(DefragPhase::parse))
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdDefragStatus {
    /// `None` before the first write; read it as Pending.
    #[serde(
        default,
        deserialize_with = "phase_from_wire",
        skip_serializing_if = "Option::is_none"
    )]
    pub phase: Option<DefragPhase>,
    /// Stamped once, on the first pass that acts; never moved afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Time>,
    /// Members actually defragmented in this run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub defragmented: i32,
    /// One row per planned member, keyed by name (`listType=map`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<MemberDefragStatus>,
    /// A single condition of type `DefragChecked`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

impl EtcdDefragStatus {
    /// The phase, with absent read as Pending.
    pub fn phase_or_pending(&self) -> DefragPhase {
        self.phase.unwrap_or(DefragPhase::Pending)
    }

    /// Whether the run is Complete or Failed.
    pub fn is_terminal(&self) -> bool {
        self.phase.is_some_and(DefragPhase::is_terminal)
    }
}

/// One member's row. Strings are kept as written (the outcome is one of
/// `Pending|Skipped|Defragmented|Failed`, the role `leader|follower`, or
/// `learner` for ours), so a row written by another processor reads back
/// unchanged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberDefragStatus {
    /// The EtcdMember name.
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub outcome: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "absent_or_zero")]
    pub db_size_before: Option<i64>,
    #[serde(default, skip_serializing_if = "absent_or_zero")]
    pub db_size_after: Option<i64>,
    #[serde(default, skip_serializing_if = "absent_or_zero")]
    pub reclaimed_bytes: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Time>,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// Go's `omitempty` on an int64: 0 is not written, so an unknown size is
/// never reported as 0.
fn absent_or_zero(n: &Option<i64>) -> bool {
    n.is_none_or(|n| n == 0)
}

// ---------------------------------------------------------------------------
// EtcdDefragPolicy (docs/contract.md#etcddefragpolicy): stamps EtcdDefrag runs
// on a cron schedule. Read whole; only the status is written, with the same
// conventions as EtcdDefrag's (absent and empty fields left out, times at
// one-second precision).
// ---------------------------------------------------------------------------

#[derive(CustomResource, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "etcd-operator.cozystack.io",
    version = "v1alpha2",
    kind = "EtcdDefragPolicy",
    namespaced,
    status = "EtcdDefragPolicyStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct EtcdDefragPolicySpec {
    /// The EtcdCluster (same namespace) every stamped run targets.
    #[serde(default)]
    pub cluster_ref: NameRef,
    /// Five cron fields or a descriptor, in UTC unless it names a `TZ=`.
    #[serde(default)]
    pub schedule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// `Allow` or `Forbid`; absent or empty behaves as `Forbid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,
    /// How many finished stamped runs are kept; absent keeps them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_limit: Option<i32>,
    /// Copied into every stamped run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<DefragRuleSpec>,
    /// Copied into every stamped run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EtcdDefragPolicyStatus {
    /// The tick last acted on (stamped or deliberately skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
    /// The latest `completedAt` among the Complete stamped runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_successful_time: Option<Time>,
    /// Stamped runs not yet Complete/Failed, sorted by name (a run stamped
    /// in the current pass appended at the end); `listType=atomic`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<NameRef>,
    /// A single condition of type `Active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}
/// A condition of `type_`, as `meta.SetStatusCondition` sets it:
/// `lastTransitionTime` is `now` only when the status (True/False) differs
/// from `previous`'s (or there is none); otherwise it is kept.
pub fn condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: String,
    generation: Option<i64>,
    previous: Option<&Condition>,
    now: jiff::Timestamp,
) -> Condition {
    let status = if status { "True" } else { "False" }.to_string();
    let last_transition_time = match previous {
        Some(p) if p.status == status => p.last_transition_time.clone(),
        _ => Time(now),
    };
    Condition {
        last_transition_time,
        message,
        observed_generation: generation,
        reason: reason.to_string(),
        status,
        type_: type_.to_string(),
    }
}
