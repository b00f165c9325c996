//! `move-leader`: from whom, to whom, and who leads afterwards.

use serde::Serialize;

use super::ClusterRef;

/// `move-leader`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveLeaderReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub from: String,
    pub to: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader_after: Option<String>,
}
