//! The checks over the members' own `/metrics`: elections and WAL fsync
//! latency, which the Status RPC does not show.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{finding, Finding, MemberMetrics, Severity};
use crate::quantity::format_duration_parts;

/// Elections: each one stalls writes for an election timeout. A transfer
/// someone asked for (MoveLeader: `kubectl etcd move-leader`, the leader
/// handling of `kubectl etcd defrag`, `etcdctl move-leader`) is a leader
/// change too, but says nothing about the disk or the network: the
/// transfers every member carried out (`MemberMetrics::move_leader_requests`)
/// are taken off each member's count. Counters restart with each member's
/// process, so when members restarted at different times the split is
/// approximate; a leader that stops gracefully also hands over, uncounted.
pub fn leader_changes(metrics: &BTreeMap<String, MemberMetrics>) -> Vec<Finding> {
    let requested: u64 = metrics.values().map(|m| m.move_leader_requests).sum();
    let mut out = Vec::new();
    for (name, m) in metrics {
        if m.uptime_seconds <= 0.0 {
            continue;
        }
        let hours = m.uptime_seconds / 3600.0;
        let elections = m.leader_changes.saturating_sub(requested);
        let per_hour = elections as f64 / hours.max(1.0 / 60.0);
        // Startup elects once; more than a few per hour is instability.
        if elections >= 3 && per_hour > 2.0 {
            let up = format_duration_parts(Duration::from_secs(m.uptime_seconds as u64));
            let message = if requested == 0 {
                format!(
                    "{name} has seen {} leader changes in {up} up ({per_hour:.1} per hour)",
                    m.leader_changes
                )
            } else {
                format!(
                    "{name} has seen {} leader changes in {up} up: {} requested through MoveLeader, {elections} elections ({per_hour:.1} per hour)",
                    m.leader_changes,
                    m.leader_changes - elections
                )
            };
            out.push(finding(
                Severity::Warning,
                "leader-changes",
                Some(name),
                message,
                "elections mean missed heartbeats: look at disk latency (WAL fsync), CPU starvation and the network between members. Transfers requested through MoveLeader (kubectl etcd move-leader, kubectl etcd defrag's leader handling) are not counted; a leader that restarts hands over too",
            ));
        }
    }
    out
}

/// etcd wants WAL fsyncs well under its heartbeat; a slow disk causes
/// elections and stalls. Judged over at least this many fsyncs.
pub(super) const MIN_FSYNCS: u64 = 100;

/// etcd's guidance: 99% of WAL fsyncs under 10 ms.
pub fn disk_latency(metrics: &BTreeMap<String, MemberMetrics>) -> Vec<Finding> {
    metrics
        .iter()
        .filter_map(|(name, m)| {
            if m.wal_fsyncs < MIN_FSYNCS {
                return None;
            }
            let p99 = m.wal_fsync_p99_seconds?;
            let severity = if p99 > 0.1 {
                Severity::Critical
            } else if p99 > 0.01 {
                Severity::Warning
            } else {
                return None;
            };
            Some(finding(
                severity,
                "disk-latency",
                Some(name),
                format!(
                    "{name}: 99% of its {} WAL fsyncs finish within {:.0} ms (etcd wants < 10 ms)",
                    m.wal_fsyncs,
                    p99 * 1000.0
                ),
                "give etcd a faster, dedicated disk (SSD); keep other I/O off its volume",
            ))
        })
        .collect()
}
