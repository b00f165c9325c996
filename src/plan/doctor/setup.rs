//! The checks over how the cluster is set up: its compaction (history
//! kept, auto-compaction options), certificates, the Pods' defrag flag and
//! the client Service's traffic distribution.

use std::collections::BTreeMap;

use super::{finding, CertFact, ClusterSpecFacts, Finding, Severity, TrafficFacts, Zone};
use crate::look::{ClusterLook, MemberMetrics, MemberStatus};
use crate::quantity::format_bytes;

/// History that is never compacted grows until the quota; a retention that
/// is off or very long is the usual cause.
pub fn compaction(revisions: Option<(i64, i64)>, spec: Option<&ClusterSpecFacts>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some((current, compacted)) = revisions {
        let kept = current - compacted;
        if kept > 1_000_000 {
            out.push(finding(
                Severity::Warning,
                "compaction",
                None,
                format!(
                    "{} (current {current}, compacted up to {compacted}): history is not being compacted",
                    crate::quantity::revisions_kept(kept)
                ),
                "compact (kubectl etcd compact --keep 10000) and turn on auto-compaction; a client that compacts (kube-apiserver does every 5 min) also counts",
            ));
        }
    }
    if let Some(spec) = spec {
        let retention = spec.auto_compaction_retention.as_deref().unwrap_or("0");
        let mode = spec.auto_compaction_mode.as_deref().unwrap_or("periodic");
        let off = retention.trim_matches('0').trim_matches('.').is_empty();
        let lax = match mode {
            "revision" => retention.parse::<u64>().is_ok_and(|r| r > 1_000_000),
            // A bare number means hours.
            _ => retention
                .parse::<f64>()
                .map(|h| h * 3600.0)
                .or_else(|_| crate::quantity::parse_duration(retention).map(|d| d.as_secs_f64()))
                .is_ok_and(|s| s > 24.0 * 3600.0),
        };
        if off {
            out.push(finding(
                Severity::Warning,
                "auto-compaction",
                None,
                "auto-compaction is off (spec.options.autoCompactionRetention is unset or 0)".into(),
                "set spec.options.autoCompactionRetention (e.g. 1h), unless a client such as kube-apiserver compacts",
            ));
        } else if lax {
            out.push(finding(
                Severity::Warning,
                "auto-compaction",
                None,
                format!("auto-compaction keeps {retention} ({mode}): history that long fills the backend"),
                "lower spec.options.autoCompactionRetention (an hour or less is usual)",
            ));
        }
    }
    out
}

/// How much of the quota history takes, and whether anything compacts
/// (issue 45): a standalone cluster with no auto-compaction filled its
/// quota with old versions while the `compaction` check waited for a
/// million revisions. Judged from the revisions kept since the last
/// compaction against the keys the members' indexes hold (each revision
/// kept is at least one old version or tombstone), and from how many
/// compactions each member finished since it started (its `/metrics`).
pub fn history(
    revisions: Option<(i64, i64)>,
    metrics: &BTreeMap<String, MemberMetrics>,
    look: &ClusterLook,
    cluster: &str,
) -> Vec<Finding> {
    let Some((current, compacted)) = revisions else {
        return vec![];
    };
    let kept = u64::try_from(current - compacted).unwrap_or(0);
    let mut out = Vec::new();
    // The fullest member against its quota.
    let fullest = look
        .members
        .iter()
        .filter_map(|m| Some((m, m.status()?.db_size_in_use, m.quota_bytes)))
        .filter(|(_, _, quota)| *quota > 0)
        .max_by(|a, b| (a.1 as f64 / a.2 as f64).total_cmp(&(b.1 as f64 / b.2 as f64)));
    let keys = metrics.values().filter_map(|m| m.keys).max();
    let remedy = format!(
        "compact the old revisions and give the space back: kubectl etcd defrag {cluster} --compact; then have something compact regularly (etcd's --auto-compaction-retention, the EtcdCluster's spec.options.autoCompactionRetention, or a client such as kube-apiserver)"
    )
    .replace("defrag  --compact", "defrag --compact");
    if let (Some((m, in_use, quota)), Some(keys)) = (fullest, keys) {
        if kept >= HISTORY_MIN_REVISIONS && kept > keys && in_use.saturating_mul(4) >= quota {
            out.push(finding(
                Severity::Warning,
                "history",
                None,
                format!(
                    "{} since the last compaction (current {current}, compacted up to {compacted}) against {keys} live keys: most of what is in use is likely old versions ({} on {}, {:.0}% of its {} quota)",
                    crate::quantity::revisions_kept(kept),
                    format_bytes(in_use),
                    m.name,
                    in_use as f64 * 100.0 / quota as f64,
                    format_bytes(quota)
                ),
                remedy.clone(),
            ));
        }
    }
    // No compaction on any member since it started, while revisions pile
    // up: the compacted revision is not moving.
    let judged: Vec<&MemberMetrics> = metrics
        .values()
        .filter(|m| m.compactions.is_some() && m.uptime_seconds > 0.0)
        .collect();
    let never = !judged.is_empty() && judged.iter().all(|m| m.compactions == Some(0));
    let up = judged
        .iter()
        .map(|m| m.uptime_seconds)
        .fold(f64::INFINITY, f64::min);
    if never && up >= STILL_COMPACTION_SECONDS && kept >= STILL_COMPACTION_REVISIONS {
        out.push(finding(
            Severity::Warning,
            "compaction-stalled",
            None,
            format!(
                "no member has compacted since it started ({} ago for the most recent), while {} piled up: the compacted revision ({compacted}) is not moving, so history grows until the quota",
                crate::quantity::format_duration_parts(std::time::Duration::from_secs(up as u64)),
                crate::quantity::revisions(kept)
            ),
            remedy,
        ));
    }
    out
}

/// Revisions kept below which history is not judged.
const HISTORY_MIN_REVISIONS: u64 = 1_000;
/// A member up this long with no compaction, and this many revisions
/// kept: nothing compacts (kube-apiserver compacts every 5 minutes).
const STILL_COMPACTION_SECONDS: f64 = 1_800.0;
const STILL_COMPACTION_REVISIONS: u64 = 10_000;

/// Certificates that expire soon or have expired.
pub fn certificates(certs: &[CertFact], now: i64) -> Vec<Finding> {
    certs
        .iter()
        .filter_map(|c| {
            let left = c.not_after - now;
            let days = left / 86_400;
            let (severity, message) = if left <= 0 {
                (Severity::Critical, format!("the {} expired {} day(s) ago", c.what, -days))
            } else if days < 7 {
                (Severity::Critical, format!("the {} expires in {days} day(s)", c.what))
            } else if days < 30 {
                (Severity::Warning, format!("the {} expires in {days} days", c.what))
            } else {
                return None;
            };
            Some(finding(
                severity,
                "certificate",
                None,
                message,
                "renew it (cert-manager renews before expiry when its Certificate is healthy) and let the members reload",
            ))
        })
        .collect()
}

/// etcd 3.6's `StopGRPCServiceOnDefrag` (3.5: the experimental flag) makes
/// a defragmenting member report NOT_SERVING, so clients that health-check
/// move away instead of waiting for the whole defrag. etcd 3.4 has neither.
///
/// Says only what was verified, member by member: which members' Pod
/// arguments set it, which could and do not, which run a release without
/// it, and which run a release that was not read (so whether they could is
/// not known). Informational (`ok`): the setting is a choice.
pub fn stop_grpc_on_defrag(
    pod_args: &BTreeMap<String, Vec<String>>,
    look: Option<&ClusterLook>,
) -> Vec<Finding> {
    if pod_args.is_empty() {
        return vec![];
    }
    let set = |args: &Vec<String>| {
        args.iter().any(|a| {
            a.contains("StopGRPCServiceOnDefrag=true")
                || a == "--experimental-stop-grpc-service-on-defrag"
                || a == "--experimental-stop-grpc-service-on-defrag=true"
        })
    };
    let version = |name: &str| {
        look.and_then(|s| s.members.iter().find(|m| m.name == name))
            .and_then(|m| m.status())
            .map(|s: &MemberStatus| s.version.clone())
    };
    let (mut on, mut off, mut without, mut unknown) = (vec![], vec![], vec![], vec![]);
    for (name, args) in pod_args {
        match version(name) {
            Some(v) if v.starts_with("3.4") => without.push(format!("{name} ({v})")),
            _ if set(args) => on.push(name.as_str().to_string()),
            Some(_) => off.push(name.as_str().to_string()),
            None => unknown.push(name.as_str().to_string()),
        }
    }
    let mut parts = Vec::new();
    if !on.is_empty() {
        parts.push(format!(
            "{} set StopGRPCServiceOnDefrag in their Pod arguments: they stop serving gRPC health while they defragment, so health-checking clients move away",
            on.join(", ")
        ));
    }
    if !off.is_empty() {
        parts.push(format!(
            "{} do not set StopGRPCServiceOnDefrag: clients sending to a defragmenting member wait for the whole defrag",
            off.join(", ")
        ));
    }
    if !without.is_empty() {
        parts.push(format!(
            "{} run etcd 3.4, which has no StopGRPCServiceOnDefrag: clients sending to it wait for the whole defrag",
            without.join(", ")
        ));
    }
    if !unknown.is_empty() {
        parts.push(format!(
            "{} do not set it, and their release was not read, so whether they could is not known",
            unknown.join(", ")
        ));
    }
    let remedy = if !without.is_empty() {
        "etcd 3.5 and later can stop serving gRPC health while they defragment (--experimental-stop-grpc-service-on-defrag in 3.5, --feature-gates=StopGRPCServiceOnDefrag=true in 3.6+): upgrade, then set it for clients that health-check gRPC"
    } else if !off.is_empty() || !unknown.is_empty() {
        "consider --feature-gates=StopGRPCServiceOnDefrag=true (3.6) or --experimental-stop-grpc-service-on-defrag (3.5) for clients that health-check gRPC"
    } else {
        ""
    };
    vec![finding(
        Severity::Ok,
        "stop-grpc-on-defrag",
        None,
        parts.join("; "),
        remedy,
    )]
}

/// A trafficDistribution value whose prerequisites are missing: zone
/// hints need zone labels on the members' nodes and members in more than
/// one zone; without them the proxy falls back to every endpoint.
pub fn traffic(t: &TrafficFacts) -> Vec<Finding> {
    let mut problems = Vec::new();
    let unplaced: Vec<&str> = t
        .placement
        .iter()
        .filter(|(_, node, _)| node.is_none())
        .map(|(m, _, _)| m.as_str())
        .collect();
    if !unplaced.is_empty() {
        problems.push(format!("{} have no node yet", unplaced.join(", ")));
    }
    if t.value != "PreferSameNode" {
        let nodes_where = |wanted: fn(&Zone) -> bool| -> Vec<String> {
            t.placement
                .iter()
                .filter_map(|(m, node, zone)| match node {
                    Some(n) if wanted(zone) => Some(format!("{n} (runs {m})")),
                    _ => None,
                })
                .collect()
        };
        let unlabelled = nodes_where(|z| *z == Zone::Unlabelled);
        if !unlabelled.is_empty() {
            problems.push(format!(
                "{}: nodes {} have no topology.kubernetes.io/zone label, so their endpoints carry no zone hint",
                t.value,
                unlabelled.join(", ")
            ));
        }
        let missing = nodes_where(|z| *z == Zone::NodeMissing);
        if !missing.is_empty() {
            problems.push(format!(
                "{}: nodes {} do not exist in the API server, so their endpoints carry no zone hint",
                t.value,
                missing.join(", ")
            ));
        }
        // Spread is judged only when every member's zone is known.
        let zones: Option<std::collections::BTreeSet<&str>> = t
            .placement
            .iter()
            .map(|(_, _, z)| match z {
                Zone::Labelled(zone) => Some(zone.as_str()),
                _ => None,
            })
            .collect();
        if let Some(zones) = zones {
            if zones.len() == 1 && t.placement.len() > 1 {
                problems.push(format!(
                    "{}: every member runs in zone {}, so clients in other zones get no same-zone member",
                    t.value,
                    zones.iter().next().copied().unwrap_or_default()
                ));
            }
        }
    }
    problems
        .into_iter()
        .map(|p| {
            finding(
                Severity::Warning,
                "traffic",
                None,
                p,
                "label nodes with topology.kubernetes.io/zone and spread members across zones, or clear the value (kubectl etcd traffic clear)",
            )
        })
        .collect()
}
