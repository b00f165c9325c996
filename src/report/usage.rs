//! `usage` and `snapshot usage`: where the space and the writes go, per key
//! prefix.

use serde::Serialize;

use super::ClusterRef;
pub use crate::plan::usage::{Churn, GroupUsage};

/// What `usage` read from a member, or `snapshot usage` from a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The member read (`usage`) or the file (`snapshot usage`).
    pub source: String,
    /// What the member was (`a follower`, `the leader`); absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<crate::plan::backup::Role>,
    /// The revision the keys were read at (a file: its last revision).
    pub revision: i64,
    /// When a compaction past `revision` moved the rest of the read to a
    /// newer one: the revision it ended at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_revision: Option<i64>,
    /// Only keys under this were read (empty: all).
    pub prefix: String,
    /// `kubernetes`, or `depth N`.
    pub grouping: String,
    /// Live keys read.
    pub keys: u64,
    /// What their newest revisions take; absent with --keys-only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The pages those records fill as etcd packs them (an estimate for
    /// 4 KiB pages, the same for a live read and a snapshot); absent with
    /// --keys-only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_bytes: Option<u64>,
    /// False when the read was stopped (a signal): the figures cover only
    /// the keys read before.
    pub complete: bool,
    /// How long the read took, and in how many Range pages (0 for a file).
    pub read_seconds: f64,
    pub pages: u64,
    /// The member's (or the file's) in-use size and file size at the time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_size_in_use: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_size: Option<u64>,
    /// The history kept (a file only): revisions and bytes a compaction at
    /// its revision would drop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_revisions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_bytes: Option<u64>,
    /// The sampling window of the writes, and the writes seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes: Option<u64>,
    /// Every group, largest first.
    pub groups: Vec<GroupUsage>,
    /// How many rows each table ranking shows.
    #[serde(skip)]
    pub top: usize,
    /// The command that narrows down the largest group (tables only).
    #[serde(skip)]
    pub next: Option<String>,
}
