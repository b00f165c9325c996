//! `traffic show|set|clear`: the client Service's `trafficDistribution`,
//! who owns the field, what the API server keeps, and what a change did.

use serde::Serialize;

use super::ClusterRef;
use crate::contract::{FieldOwner, TrafficValue};
use crate::plan::traffic::{Assessment, ServiceAction};

/// What `traffic show` prints, and the state after `set`/`clear`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrafficReport {
    pub cluster: ClusterRef,
    /// The client Service (`<cluster>-client`).
    pub service: String,
    /// `spec.trafficDistribution`, if set.
    pub value: Option<String>,
    /// Managers that own the field, from `managedFields`.
    pub owners: Vec<FieldOwner>,
    /// Whether the operator's field manager is one of them.
    pub owned_by_field_manager: bool,
    pub field_manager: &'static str,
    /// The EtcdCluster annotation, if present.
    pub annotation: Option<String>,
    pub state: Assessment,
    pub server: ServerSupport,
    /// For `set` and `clear`: what was (or, with --dry-run, would be) done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<Change>,
}

/// The API server release and what it is expected to keep.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSupport {
    pub version: String,
    pub values: Vec<ValueSupport>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValueSupport {
    pub value: TrafficValue,
    /// First release that keeps it with default feature gates.
    pub since: String,
    /// Expected from the version (`null` when the version is unknown);
    /// feature gates can differ, `set --dry-run` asks the server itself.
    pub supported: Option<bool>,
    /// On a server that deprecates the value: from which release, and
    /// the value it names instead (`1.35: use PreferSameZone`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
}

/// What `set` / `clear` did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub dry_run: bool,
    pub annotation_before: Option<String>,
    pub annotation_written: bool,
    pub value_before: Option<String>,
    pub service_action: ServiceAction,
    pub service_written: bool,
    /// One sentence per step, as the table prints them.
    pub notes: Vec<String>,
    /// What the API server said in `Warning` headers to the writes (and
    /// their dry runs), as it said it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_warnings: Vec<String>,
}

impl Change {
    /// Nothing written yet.
    pub fn planned(
        dry_run: bool,
        annotation_before: Option<String>,
        value_before: Option<String>,
        service_action: ServiceAction,
    ) -> Change {
        Change {
            dry_run,
            annotation_before,
            annotation_written: false,
            value_before,
            service_action,
            service_written: false,
            server_warnings: vec![],
            notes: Vec::new(),
        }
    }
}
