//! `snapshot save` and `snapshot status`: what a snapshot file holds, as
//! `etcdutl snapshot status` reports it, and what a save wrote.

use serde::Serialize;

use super::ClusterRef;

/// What is inside a snapshot file, as `etcdutl snapshot status` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotContents {
    /// CRC-32C over every bucket's keys and values: etcdutl's "hash".
    pub hash: u32,
    /// The last revision in the file.
    pub revision: i64,
    /// The keys that exist at that revision (etcdutl 3.6's "totalKey").
    pub keys: u64,
    /// Every entry of every bucket, history and etcd's own records
    /// included (etcdutl 3.5's "totalKey").
    pub entries: u64,
    /// The bolt database's size (the file less etcd's 32-byte checksum).
    pub total_size: u64,
    /// The storage version etcd 3.6 records; absent for older releases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_version: Option<String>,
}

/// What `snapshot save` wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSaveReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    /// The member it was streamed from, and what that member was.
    pub member: String,
    pub role: crate::plan::backup::Role,
    pub file: String,
    /// The file's size in bytes (the database plus etcd's checksum).
    pub bytes: u64,
    /// SHA-256 of the whole file, as `sha256sum` prints it; also written to
    /// `<file>.sha256`.
    pub sha256: String,
    /// Always true in a report: a mismatch fails the command.
    pub etcd_checksum_verified: bool,
    pub seconds: f64,
    pub bytes_per_second: u64,
    pub contents: SnapshotContents,
}

/// What `snapshot status` read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotStatusReport {
    pub file: String,
    pub bytes: u64,
    /// `verified`, `mismatch` (changed since etcd sent it) or `absent` (a
    /// plain backend file, e.g. a data dir's `member/snap/db`).
    pub etcd_checksum: &'static str,
    #[serde(flatten)]
    pub contents: SnapshotContents,
}
