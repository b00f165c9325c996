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

/// The server feature gates that change maintenance, with what each does
/// to it when on and when off. etcd 3.6 and later publish every gate's
/// state in `/metrics` (`etcd_server_feature_enabled`).
pub const MAINTENANCE_GATES: &[(&str, &str, &str)] = &[
    (
        "StopGRPCServiceOnDefrag",
        "a defragmenting member answers NOT_SERVING to gRPC health checks, so clients that health-check (the kube-apiserver's etcd client does) move to another member for the defrag: a follower's defrag costs them a reconnect, not a stall",
        "clients sending to a defragmenting member wait for the whole defrag (or fail after etcd's 7 s request timeout); --feature-gates=StopGRPCServiceOnDefrag=true lets them move away",
    ),
    (
        "CompactHashCheck",
        "the leader compares the members' hashes after each compaction and raises CORRUPT on a mismatch, which stops every defrag until it is looked into",
        "a member whose data diverged is found only by a hash check (the sweep compares HashKV before and after; kubectl etcd doctor)",
    ),
    (
        "InitialCorruptCheck",
        "a member compares its data with its peers when it starts, so one that comes back diverged (after a crash mid-defrag, say) refuses to serve",
        "a member that comes back diverged serves its own data until a hash check finds it",
    ),
];

/// One finding per gate of [`MAINTENANCE_GATES`] that some member
/// reports: which members have it on and off, and how that changes
/// maintenance. Informational (`ok`): gates are choices, not faults.
pub fn server_features(features: &BTreeMap<String, BTreeMap<String, bool>>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (gate, when_on, when_off) in MAINTENANCE_GATES {
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for (member, gates) in features {
            match gates.get(*gate) {
                Some(true) => on.push(member.as_str()),
                Some(false) => off.push(member.as_str()),
                None => {}
            }
        }
        let message = match (on.is_empty(), off.is_empty()) {
            (true, true) => continue,
            (false, true) => format!("{gate} is on for every member ({}): {when_on}", on.join(", ")),
            (true, false) => format!("{gate} is off for every member ({}): {when_off}", off.join(", ")),
            (false, false) => format!(
                "{gate} is on for {} and off for {}: with it on, {when_on}; with it off, {when_off}",
                on.join(", "),
                off.join(", ")
            ),
        };
        out.push(finding(
            Severity::Ok,
            &format!("feature-gate/{gate}"),
            None,
            message,
            "",
        ));
    }
    out
}
