//! `compact`: the revision compacted up to (or that would be), and each
//! member's sizes before and after.

use serde::Serialize;

use super::{ClusterRef, NotRefreshed};

/// What `compact` did (or, with `dryRun`, would do).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    /// Revisions before this one are (or would be) gone.
    pub revision: i64,
    /// The cluster's revision when the command ran.
    pub current_revision: i64,
    /// Compacted up to here before (0: never compacted).
    pub compacted_before: i64,
    pub physical: bool,
    /// With `--keep-duration`: when `revision` was written (RFC 3339), as
    /// dated by the Leases; absent when it predates every Lease.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_at: Option<String>,
    /// The member the compaction went through.
    pub leader: String,
    /// Each answering member's sizes before, and after the compaction
    /// settled (`None` on a dry run, and for a member whose figure etcd
    /// had not recomputed: see `inUseNotRefreshed`).
    pub members: Vec<CompactedMember>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_use_not_refreshed: Option<NotRefreshed>,
    /// Set when there was nothing to compact (what was asked to go is gone
    /// already; exit 0): why, e.g. `nothing to compact: already compacted
    /// at revision N, the current revision`. Nothing was sent to etcd.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nothing_to_compact: Option<String>,
}

/// One member's sizes around a compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactedMember {
    pub name: String,
    pub db_size: u64,
    pub in_use_before: u64,
    pub in_use_after: Option<u64>,
}
