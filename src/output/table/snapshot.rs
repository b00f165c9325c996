//! `snapshot save` and `snapshot status`: what was saved and its
//! checksums, and etcdutl's columns for a file.

use super::rows;
use crate::quantity::format_bytes;
use crate::report::{SnapshotSaveReport, SnapshotStatusReport};

/// `snapshot save`: what was saved, from whom, and its checksums.
pub fn snapshot_saved(report: &SnapshotSaveReport) -> String {
    let c = &report.contents;
    format!(
        "Saved {} from {} ({}) to {} in {:.1} s ({}/s).\n\
         SHA-256 {}  (in {}.sha256)\n\
         etcd's checksum verified; revision {}, {} keys, hash {:x}\n",
        format_bytes(report.bytes),
        report.member,
        report.role,
        report.file,
        report.seconds,
        format_bytes(report.bytes_per_second),
        report.sha256,
        report.file,
        c.revision,
        c.keys,
        c.hash,
    )
}

/// `snapshot status`: etcdutl's columns, plus whether etcd's checksum holds.
pub fn snapshot_status(report: &SnapshotStatusReport) -> String {
    let c = &report.contents;
    rows(
        &[
            "HASH",
            "REVISION",
            "KEYS",
            "ENTRIES",
            "TOTAL SIZE",
            "VERSION",
            "ETCD CHECKSUM",
        ],
        [vec![
            format!("{:x}", c.hash),
            c.revision.to_string(),
            c.keys.to_string(),
            c.entries.to_string(),
            format_bytes(c.total_size),
            c.storage_version.clone().unwrap_or_else(|| "-".into()),
            report.etcd_checksum.to_string(),
        ]]
        .into_iter(),
    )
}

impl crate::output::Render for SnapshotSaveReport {
    fn table(&self, _wide: bool) -> String {
        snapshot_saved(self)
    }
}

impl crate::output::Render for SnapshotStatusReport {
    fn table(&self, _wide: bool) -> String {
        snapshot_status(self)
    }
}
