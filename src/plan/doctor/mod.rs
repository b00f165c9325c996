//! `doctor`: what needs attention in one cluster, how bad it is, and what to
//! do about it. Pure over `Facts` (the snapshot, the gate's verdict, and
//! what the command could read besides: members' `/metrics`, certificates,
//! the EtcdCluster's options, its Pods' arguments, the traffic setting);
//! every check is its own function with a table test.
//!
//! A fact the command could not read is `None` and its check says nothing:
//! doctor reports what it saw, and the command lists what it could not see.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::plan::defrag::{predicted_outage, Measured, ETCD_REQUEST_TIMEOUT_SECONDS};
use crate::plan::gate::{GateReason, GateVerdict};
use crate::plan::rule::{DefragRule, RuleOutcome};
use crate::quantity::format_bytes;
pub use crate::snapshot::MemberMetrics;
use crate::snapshot::{AlarmKind, ClusterSnapshot, MemberStatus};

/// How much a finding matters; ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Ok,
    Warning,
    Critical,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Ok => "ok",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        })
    }
}

/// One thing doctor found (or checked and found fine).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    /// Stable identifier of the check, e.g. `fragmentation`, `gate/ApplyLag`.
    pub check: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// What was seen, with the numbers.
    pub message: String,
    /// One line: what to do (empty for ok findings).
    pub remedy: String,
}

fn finding(
    severity: Severity,
    check: &str,
    member: Option<&str>,
    message: String,
    remedy: impl Into<String>,
) -> Finding {
    Finding {
        severity,
        check: check.to_string(),
        member: member.map(str::to_string),
        message,
        remedy: remedy.into(),
    }
}

/// A certificate's end of validity, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertFact {
    /// E.g. `server certificate of m1 (CN=…)`, `client certificate (--cert)`.
    pub what: String,
    /// Unix seconds.
    pub not_after: i64,
}

/// The EtcdCluster's `spec.options` and `spec.storage` (plugin mode).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterSpecFacts {
    pub auto_compaction_mode: Option<String>,
    pub auto_compaction_retention: Option<String>,
    /// `spec.storage.size` in bytes: each member's volume.
    pub volume_bytes: Option<u64>,
    /// `spec.storage.medium` is `Memory`.
    pub memory_medium: bool,
}

/// The client Service's trafficDistribution and the members' placement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrafficFacts {
    pub value: String,
    /// (member, its Pod's node, that node's `topology.kubernetes.io/zone`).
    pub placement: Vec<(String, Option<String>, Option<String>)>,
}

/// Everything the checks look at. `None`: could not be read.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    pub snapshot: Option<&'a ClusterSnapshot>,
    pub verdict: Option<&'a GateVerdict>,
    /// The cluster's current revision, and the one compacted up to (0:
    /// never compacted).
    pub revisions: Option<(i64, i64)>,
    pub metrics: BTreeMap<String, MemberMetrics>,
    pub certs: Vec<CertFact>,
    pub now: i64,
    pub spec: Option<ClusterSpecFacts>,
    /// Member name → its Pod's etcd arguments (plugin mode).
    pub pod_args: BTreeMap<String, Vec<String>>,
    /// The trafficDistribution in effect and where the members run (plugin
    /// mode, when a value is set).
    pub traffic: Option<TrafficFacts>,
    /// The rule a defrag would use (the defaults unless given).
    pub rule: DefragRule,
    /// The cluster as the remedies name it (`my-etcd -n prod`, or empty).
    pub cluster_args: String,
}

/// Every check, in the order the report lists them. A check that ran and
/// found nothing adds an `ok` finding saying what it looked at, so that
/// `-o wide` (and JSON) list every check that passed; a check whose facts
/// could not be read adds nothing (the command lists what it could not
/// read).
pub fn examine(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let (Some(snap), Some(verdict)) = (facts.snapshot, facts.verdict) {
        out.extend(gate(verdict, &facts.cluster_args));
        if snap.alarm_list_error.is_none() {
            out.extend(or_passed(
                alarms(snap, &facts.cluster_args),
                "alarm",
                "no alarm is raised",
            ));
        } else {
            out.extend(alarms(snap, &facts.cluster_args));
        }
        out.extend(fragmentation(snap, &facts.rule, &facts.cluster_args));
        out.extend(or_passed(
            quota(snap),
            "quota",
            "every member's backend is under 80% of its quota",
        ));
        let minors: std::collections::BTreeSet<String> = snap
            .members
            .iter()
            .filter_map(|m| m.status())
            .map(|s| s.version.split('.').take(2).collect::<Vec<_>>().join("."))
            .collect();
        if let Some(minor) = minors.first() {
            out.extend(or_passed(
                versions(snap),
                "version-skew",
                format!("every member runs etcd {minor}"),
            ));
        }
        out.extend(or_passed(
            learners(snap, verdict),
            "learner",
            "no learner is waiting to be promoted",
        ));
        if let Some(spec) = &facts.spec {
            if let Some(volume) = spec.volume_bytes {
                out.extend(or_passed(
                    defrag_space(snap, spec),
                    "defrag-space",
                    format!(
                        "a defrag fits on every member's {} volume",
                        format_bytes(volume)
                    ),
                ));
            }
        }
    }
    if !facts.metrics.is_empty() {
        let requested: u64 = facts.metrics.values().map(|m| m.move_leader_requests).sum();
        let mut passed =
            "no member sees frequent elections (3 or more, over 2 per hour)".to_string();
        if requested > 0 {
            passed.push_str(&format!(
                "; {requested} transfer(s) requested through MoveLeader not counted"
            ));
        }
        out.extend(or_passed(
            leader_changes(&facts.metrics),
            "leader-changes",
            passed,
        ));
        let judged = facts
            .metrics
            .values()
            .filter(|m| m.wal_fsyncs >= MIN_FSYNCS && m.wal_fsync_p99_seconds.is_some())
            .count();
        if judged > 0 {
            out.extend(or_passed(
                disk_latency(&facts.metrics),
                "disk-latency",
                format!("99% of WAL fsyncs finish within 10 ms on each of the {judged} member(s) with at least {MIN_FSYNCS} fsyncs"),
            ));
        }
    }
    let compacted = compaction(facts.revisions, facts.spec.as_ref());
    let has = |check: &str| compacted.iter().any(|f| f.check == check);
    let mut passed = Vec::new();
    if let (Some((current, compacted_at)), false) = (facts.revisions, has("compaction")) {
        passed.push(finding(
            Severity::Ok,
            "compaction",
            None,
            format!(
                "{} revisions are kept (current {current}, compacted up to {compacted_at})",
                current - compacted_at
            ),
            "",
        ));
    }
    if let (Some(spec), false) = (&facts.spec, has("auto-compaction")) {
        passed.push(finding(
            Severity::Ok,
            "auto-compaction",
            None,
            format!(
                "auto-compaction keeps {} ({})",
                spec.auto_compaction_retention.as_deref().unwrap_or("0"),
                spec.auto_compaction_mode.as_deref().unwrap_or("periodic")
            ),
            "",
        ));
    }
    out.extend(compacted);
    out.extend(passed);
    if let Some(first) = facts.certs.iter().min_by_key(|c| c.not_after) {
        out.extend(or_passed(
            certificates(&facts.certs, facts.now),
            "certificate",
            format!(
                "every certificate is valid for 30 days or more (the first to expire: the {}, in {} days)",
                first.what,
                (first.not_after - facts.now) / 86_400
            ),
        ));
    }
    out.extend(stop_grpc_on_defrag(&facts.pod_args, facts.snapshot));
    if let Some(t) = &facts.traffic {
        out.extend(or_passed(
            traffic(t),
            "traffic",
            format!("trafficDistribution {}: its prerequisites hold", t.value),
        ));
    }
    // While NOSPACE is raised its remedy is the one to run: the others
    // that would defragment defer to it, so that one command is offered.
    if out.iter().any(|f| f.check == "alarm/NOSPACE") {
        for f in out.iter_mut().filter(|f| {
            matches!(f.check.as_str(), "fragmentation" | "quota") && f.severity > Severity::Ok
        }) {
            f.remedy = "the alarm/NOSPACE remedy covers it".into();
        }
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// `found`, or one `ok` finding for `check` saying what passed.
fn or_passed(found: Vec<Finding>, check: &str, passed: impl Into<String>) -> Vec<Finding> {
    if found.is_empty() {
        vec![finding(Severity::Ok, check, None, passed.into(), "")]
    } else {
        found
    }
}

/// The worst severity among `findings` (Ok when none).
pub fn worst(findings: &[Finding]) -> Severity {
    findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Severity::Ok)
}

/// What the health gate refuses, as findings: the same reasons a defrag
/// would stop on.
pub fn gate(verdict: &GateVerdict, cluster: &str) -> Vec<Finding> {
    if verdict.passed() {
        return vec![finding(
            Severity::Ok,
            "gate",
            None,
            "the health gate passes: every voter answers, one leader, no lag".into(),
            "",
        )];
    }
    verdict
        .reasons
        .iter()
        .map(|r| {
            let (severity, remedy) = match r {
                GateReason::MemberUnreachable { .. } | GateReason::MemberNotProbed { .. } => (
                    Severity::Critical,
                    "bring the member back (its Pod or process, its disk, the network) before any maintenance".to_string(),
                ),
                GateReason::NoLeader { .. }
                | GateReason::LeaderDisagreement { .. }
                | GateReason::LeaderNotMember { .. } => (
                    Severity::Critical,
                    "the members do not agree on a leader: check connectivity between members and their logs".into(),
                ),
                GateReason::Alarm { .. } => (
                    Severity::Critical,
                    "see the alarm finding".into(),
                ),
                GateReason::MemberError { .. } => (
                    Severity::Critical,
                    "read the member's log for the error it reports".into(),
                ),
                GateReason::ApplyLag { .. } | GateReason::BehindLeader { .. } => (
                    Severity::Warning,
                    format!("wait for it to catch up (kubectl etcd status {cluster}); if it never does, check its disk"),
                ),
                GateReason::LearnerPromoting { .. } => {
                    (Severity::Warning, "wait for the promotion to finish".into())
                }
                GateReason::QuorumMargin { voters } => (
                    Severity::Warning,
                    format!("{voters} voter(s): losing one loses quorum; run 3 or 5 members"),
                ),
                // A sweep's own checks of one look (`gate::one_moment`,
                // `gate::still_as_looked`); a sweep looks again by itself.
                GateReason::SlowAnswer { .. } => (
                    Severity::Warning,
                    "check the member's disk and CPU: a sweep waits until every member answers promptly".into(),
                ),
                GateReason::TermDisagreement { .. } | GateReason::ChangedSinceLook { .. } => (
                    Severity::Warning,
                    format!("an election was under way: look again (kubectl etcd status {cluster})"),
                ),
            };
            finding(
                severity,
                &format!("gate/{}", r.code()),
                r.member(),
                r.to_string(),
                remedy.trim().to_string(),
            )
        })
        .collect()
}

/// NOSPACE and CORRUPT, per member. NOSPACE has one remedy, a single
/// command: `defrag --compact` compacts, defragments every member that
/// helps the cluster back under its quota whatever the rule
/// (`plan::defrag::recover_nospace`), and disarms the alarm where the
/// member is back under it.
pub fn alarms(snap: &ClusterSnapshot, cluster: &str) -> Vec<Finding> {
    let cluster = if cluster.is_empty() {
        String::new()
    } else {
        format!(" {cluster}")
    };
    snap.alarms
        .iter()
        .map(|a| {
            let member = snap.name_of(a.member_id);
            match &a.kind {
                AlarmKind::Nospace => finding(
                    Severity::Critical,
                    "alarm/NOSPACE",
                    Some(&member),
                    format!("NOSPACE is raised on {member}: the cluster refuses writes"),
                    format!("kubectl etcd defrag{cluster} --compact (compacts the history, defragments every member that helps, and disarms the alarm once the members are back under their quota)"),
                ),
                other => finding(
                    Severity::Critical,
                    &format!("alarm/{}", other.as_str()),
                    Some(&member),
                    format!("{} is raised on {member}: its data may differ from the other members'", other.as_str()),
                    "stop and compare the members' hashes (etcdctl endpoint hashkv) before anything else; never disarm it blind",
                ),
            }
        })
        .collect()
}

/// Members the defrag rule would defragment, with what would come back.
pub fn fragmentation(snap: &ClusterSnapshot, rule: &DefragRule, cluster: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &snap.members {
        let Some(s) = m.status() else { continue };
        let reclaim = s.db_size.saturating_sub(s.db_size_in_use);
        if rule.evaluate(s.db_size, s.db_size_in_use, m.quota_bytes) != RuleOutcome::Skip {
            out.push(finding(
                Severity::Warning,
                "fragmentation",
                Some(&m.name),
                format!(
                    "{}: {} of its {} file is free space (rule: {rule})",
                    m.name,
                    format_bytes(reclaim),
                    format_bytes(s.db_size)
                ),
                format!("kubectl etcd defrag {cluster}").trim().to_string(),
            ));
            if let Some(seconds) = predicted_outage(s.db_size_in_use, &Measured::default()) {
                out.push(finding(
                    Severity::Warning,
                    "defrag-outage",
                    Some(&m.name),
                    format!(
                        "{}: defragmenting {} in use takes about {seconds:.0}s, longer than etcd's {ETCD_REQUEST_TIMEOUT_SECONDS:.0}s request timeout: writes sent to {} fail meanwhile (`request timed out`, then `too many requests`)",
                        m.name,
                        format_bytes(s.db_size_in_use),
                        m.name
                    ),
                    "defragment when writes are light, shrink what is in use (compact history, delete unused keys), and let clients use every member (StopGRPCServiceOnDefrag moves health-checking clients away)",
                ));
            }
        }
    }
    if out.is_empty() {
        out.push(finding(
            Severity::Ok,
            "fragmentation",
            None,
            format!("no member needs a defrag (rule: {rule})"),
            "",
        ));
    }
    out
}

/// Size against quota: a member over its quota raises NOSPACE.
pub fn quota(snap: &ClusterSnapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &snap.members {
        let Some(s) = m.status() else { continue };
        if m.quota_bytes == 0 {
            continue;
        }
        let used = s.db_size as f64 / m.quota_bytes as f64;
        let in_use = s.db_size_in_use as f64 / m.quota_bytes as f64;
        let severity = if used >= 0.95 {
            Severity::Critical
        } else if used >= 0.80 {
            Severity::Warning
        } else {
            continue;
        };
        // Fragmentation is cured by a defrag; data is not.
        let remedy = if in_use < 0.70 {
            "defragment it (kubectl etcd defrag) before it reaches the quota"
        } else {
            "the data itself nears the quota: compact more history, delete data, or raise the quota (--quota-backend-bytes, spec.options.quotaBackendBytes)"
        };
        out.push(finding(
            severity,
            "quota",
            Some(&m.name),
            format!(
                "{}: {} is {:.0}% of its {} quota ({:.0}% in use)",
                m.name,
                format_bytes(s.db_size),
                used * 100.0,
                format_bytes(m.quota_bytes),
                in_use * 100.0
            ),
            remedy,
        ));
    }
    out
}

/// Members on different minor releases (an upgrade left half done).
pub fn versions(snap: &ClusterSnapshot) -> Vec<Finding> {
    let mut minors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in &snap.members {
        let Some(s) = m.status() else { continue };
        let minor: String = s.version.split('.').take(2).collect::<Vec<_>>().join(".");
        minors
            .entry(minor)
            .or_default()
            .push(format!("{} {}", m.name, s.version));
    }
    if minors.len() <= 1 {
        return vec![];
    }
    let all: Vec<String> = minors.values().flatten().cloned().collect();
    vec![finding(
        Severity::Warning,
        "version-skew",
        None,
        format!("members run different minor releases: {}", all.join(", ")),
        "finish the upgrade (or roll back) one member at a time; mixed minors are meant only for the upgrade itself",
    )]
}

/// Learners: promote the ones that have caught up.
pub fn learners(snap: &ClusterSnapshot, verdict: &GateVerdict) -> Vec<Finding> {
    let leader_applied = verdict
        .leader
        .and_then(|l| snap.member_by_id(l))
        .and_then(|m| m.status())
        .map(|s| s.raft_applied_index);
    snap.members
        .iter()
        .filter(|m| m.is_learner())
        .map(|m| {
            let caught_up = match (m.status(), leader_applied) {
                (Some(s), Some(l)) => l.saturating_sub(s.raft_applied_index) <= 1000,
                _ => false,
            };
            if caught_up {
                finding(
                    Severity::Warning,
                    "learner",
                    Some(&m.name),
                    format!(
                        "{} is a learner that has caught up, still not voting",
                        m.name
                    ),
                    format!("kubectl etcd member promote {}", m.name),
                )
            } else {
                finding(
                    Severity::Ok,
                    "learner",
                    Some(&m.name),
                    format!("{} is a learner still catching up", m.name),
                    "",
                )
            }
        })
        .collect()
}

/// A defrag writes a new file of about the in-use size beside the old one:
/// the volume must hold both.
pub fn defrag_space(snap: &ClusterSnapshot, spec: &ClusterSpecFacts) -> Vec<Finding> {
    let Some(volume) = spec.volume_bytes else {
        return vec![];
    };
    // The WAL shares the volume: at least its one preallocated 64 MiB
    // segment (up to five are kept).
    const OTHER: u64 = 64 << 20;
    let mut out = Vec::new();
    for m in &snap.members {
        let Some(s) = m.status() else { continue };
        let needed = s.db_size + s.db_size_in_use + OTHER;
        if needed > volume {
            let medium = if spec.memory_medium {
                "memory volume"
            } else {
                "volume"
            };
            out.push(finding(
                Severity::Critical,
                "defrag-space",
                Some(&m.name),
                format!(
                    "{}: a defrag needs about {} on its {} {medium} ({} file, {} in use, plus WAL), so it would fail for lack of space",
                    m.name,
                    format_bytes(needed),
                    format_bytes(volume),
                    format_bytes(s.db_size),
                    format_bytes(s.db_size_in_use)
                ),
                "grow spec.storage.size (a bigger volume for new members, then replace members one at a time) or compact first to lower the in-use size",
            ));
        }
    }
    out
}

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
            let up =
                humantime::format_duration(std::time::Duration::from_secs(m.uptime_seconds as u64));
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
const MIN_FSYNCS: u64 = 100;

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
                    "{kept} revisions are kept (current {current}, compacted up to {compacted}): history is not being compacted"
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
/// move away instead of waiting for the whole defrag.
pub fn stop_grpc_on_defrag(
    pod_args: &BTreeMap<String, Vec<String>>,
    snap: Option<&ClusterSnapshot>,
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
    let supports = |name: &str| {
        snap.and_then(|s| s.members.iter().find(|m| m.name == name))
            .and_then(|m| m.status())
            .is_none_or(|s: &MemberStatus| !s.version.starts_with("3.4"))
    };
    let missing: Vec<&str> = pod_args
        .iter()
        .filter(|(name, args)| !set(args) && supports(name))
        .map(|(name, _)| name.as_str())
        .collect();
    if missing.is_empty() {
        return vec![finding(
            Severity::Ok,
            "stop-grpc-on-defrag",
            None,
            "every member stops serving gRPC health while it defragments, so health-checking clients move away".into(),
            "",
        )];
    }
    vec![finding(
        Severity::Ok,
        "stop-grpc-on-defrag",
        None,
        format!(
            "{} do not set StopGRPCServiceOnDefrag: clients sending to a defragmenting member wait for the whole defrag",
            missing.join(", ")
        ),
        "consider --feature-gates=StopGRPCServiceOnDefrag=true (3.6) or --experimental-stop-grpc-service-on-defrag (3.5) for clients that health-check gRPC",
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
        let unlabelled: Vec<String> = t
            .placement
            .iter()
            .filter_map(|(m, node, zone)| match (node, zone) {
                (Some(n), None) => Some(format!("{n} (runs {m})")),
                _ => None,
            })
            .collect();
        if !unlabelled.is_empty() {
            problems.push(format!(
                "{}: nodes {} have no topology.kubernetes.io/zone label, so their endpoints carry no zone hint",
                t.value,
                unlabelled.join(", ")
            ));
        }
        let zones: std::collections::BTreeSet<&str> = t
            .placement
            .iter()
            .filter_map(|(_, _, z)| z.as_deref())
            .collect();
        if zones.len() == 1 && t.placement.len() > 1 {
            problems.push(format!(
                "{}: every member runs in zone {}, so clients in other zones get no same-zone member",
                t.value,
                zones.iter().next().copied().unwrap_or_default()
            ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::gate::{evaluate, GateOptions};
    use crate::snapshot::{Alarm, MemberSnapshot, Probe};

    const MI: u64 = 1024 * 1024;

    /// Members (name, id, size MiB, in use MiB, learner, version, applied).
    fn cluster(rows: &[(&str, u64, u64, u64, bool, &str, u64)]) -> ClusterSnapshot {
        ClusterSnapshot {
            members: rows
                .iter()
                .map(|&(name, id, size, used, learner, version, applied)| {
                    MemberSnapshot::listed_for_test(
                        name,
                        id,
                        learner,
                        Probe::Answered(MemberStatus {
                            member_id: id,
                            leader: 1,
                            db_size: size * MI,
                            db_size_in_use: used * MI,
                            raft_index: applied,
                            raft_applied_index: applied,
                            is_learner: learner,
                            version: version.into(),
                            ..Default::default()
                        }),
                    )
                })
                .collect(),
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn healthy() -> ClusterSnapshot {
        cluster(&[
            ("a", 1, 100, 90, false, "3.6.16", 500),
            ("b", 2, 100, 90, false, "3.6.16", 500),
            ("c", 3, 100, 90, false, "3.6.16", 500),
        ])
    }

    fn checks(findings: &[Finding]) -> Vec<(Severity, String, Option<String>)> {
        findings
            .iter()
            .map(|f| (f.severity, f.check.clone(), f.member.clone()))
            .collect()
    }

    #[test]
    fn a_healthy_cluster_is_all_ok() {
        let s = healthy();
        let v = evaluate(&s, &GateOptions::default());
        let facts = Facts {
            snapshot: Some(&s),
            verdict: Some(&v),
            ..Default::default()
        };
        let found = examine(&facts);
        assert_eq!(worst(&found), Severity::Ok);
        // Every check that ran says it passed; those whose facts were not
        // read (metrics, certificates, the EtcdCluster) say nothing.
        let ok = |c: &str| (Severity::Ok, c.to_string(), None);
        assert_eq!(
            checks(&found),
            [
                ok("gate"),
                ok("alarm"),
                ok("fragmentation"),
                ok("quota"),
                ok("version-skew"),
                ok("learner"),
            ]
        );
        assert_eq!(found[4].message, "every member runs etcd 3.6");
    }

    #[test]
    fn every_check_that_ran_and_passed_is_listed() {
        let s = healthy();
        let v = evaluate(&s, &GateOptions::default());
        let settled = MemberMetrics {
            leader_changes: 4,
            uptime_seconds: 600.0,
            wal_fsync_p99_seconds: Some(0.002),
            wal_fsyncs: 500,
            ..Default::default()
        };
        let calm = MemberMetrics {
            move_leader_requests: 3,
            ..settled
        };
        let facts = Facts {
            snapshot: Some(&s),
            verdict: Some(&v),
            revisions: Some((5_000, 4_000)),
            metrics: [("a".to_string(), calm)].into_iter().collect(),
            certs: vec![CertFact {
                what: "client certificate (--cert)".into(),
                not_after: 100 * 86_400,
            }],
            now: 0,
            spec: Some(ClusterSpecFacts {
                auto_compaction_retention: Some("1h".into()),
                volume_bytes: Some(8 << 30),
                ..Default::default()
            }),
            pod_args: [(
                "a".to_string(),
                vec!["--feature-gates=StopGRPCServiceOnDefrag=true".to_string()],
            )]
            .into_iter()
            .collect(),
            traffic: Some(TrafficFacts {
                value: "PreferSameNode".into(),
                placement: vec![("a".into(), Some("n1".into()), None)],
            }),
            ..Default::default()
        };
        let found = examine(&facts);
        assert_eq!(worst(&found), Severity::Ok, "{found:#?}");
        let names: Vec<&str> = found.iter().map(|f| f.check.as_str()).collect();
        assert_eq!(
            names,
            [
                "gate",
                "alarm",
                "fragmentation",
                "quota",
                "version-skew",
                "learner",
                "defrag-space",
                "leader-changes",
                "disk-latency",
                "compaction",
                "auto-compaction",
                "certificate",
                "stop-grpc-on-defrag",
                "traffic"
            ]
        );
        let message = |check: &str| {
            found
                .iter()
                .find(|f| f.check == check)
                .map(|f| f.message.clone())
                .unwrap_or_default()
        };
        assert_eq!(
            message("leader-changes"),
            "no member sees frequent elections (3 or more, over 2 per hour); 3 transfer(s) requested through MoveLeader not counted"
        );
        assert_eq!(
            message("compaction"),
            "1000 revisions are kept (current 5000, compacted up to 4000)"
        );
        assert_eq!(
            message("certificate"),
            "every certificate is valid for 30 days or more (the first to expire: the client certificate (--cert), in 100 days)"
        );
        assert!(found.iter().all(|f| f.remedy.is_empty()));
    }

    #[test]
    fn gate_reasons_become_findings_with_severities() {
        let mut s = healthy();
        s.members[2].probe = Probe::refused_for_test();
        if let Probe::Answered(st) = &mut s.members[1].probe {
            st.raft_index = 500 + 5000;
        }
        let v = evaluate(&s, &GateOptions::default());
        let found = gate(&v, "db");
        assert!(found.contains(&Finding {
            severity: Severity::Critical,
            check: "gate/MemberUnreachable".into(),
            member: Some("c".into()),
            message: v.reasons.iter().find(|r| r.code() == "MemberUnreachable").unwrap().to_string(),
            remedy: "bring the member back (its Pod or process, its disk, the network) before any maintenance".into(),
        }));
        let lag = found.iter().find(|f| f.check == "gate/ApplyLag").unwrap();
        assert_eq!(
            (lag.severity, lag.member.as_deref()),
            (Severity::Warning, Some("b"))
        );
        assert!(lag.remedy.contains("kubectl etcd status db"));
    }

    #[test]
    fn alarms_are_critical_with_their_own_remedy() {
        let mut s = healthy();
        s.alarms = vec![
            Alarm {
                member_id: 1,
                kind: AlarmKind::Nospace,
            },
            Alarm {
                member_id: 2,
                kind: AlarmKind::Corrupt,
            },
        ];
        let found = alarms(&s, "db -n prod");
        assert_eq!(
            checks(&found),
            [
                (Severity::Critical, "alarm/NOSPACE".into(), Some("a".into())),
                (Severity::Critical, "alarm/CORRUPT".into(), Some("b".into()))
            ]
        );
        // One command, naming the cluster, that also disarms.
        assert!(found[0]
            .remedy
            .starts_with("kubectl etcd defrag db -n prod --compact ("));
        assert!(!found[0].remedy.contains("alarm disarm"));
        assert!(found[1].remedy.contains("never disarm it blind"));
        assert!(alarms(&s, "")[0]
            .remedy
            .starts_with("kubectl etcd defrag --compact ("));
    }

    #[test]
    fn under_nospace_one_command_is_offered() {
        // A member over its quota and fragmented: without the alarm the
        // quota and fragmentation findings each offer a defrag; with it
        // they defer to the NOSPACE remedy.
        let mut s = cluster(&[("a", 1, 1900, 100, false, "3.6.16", 1)]);
        s.alarms = vec![Alarm {
            member_id: 1,
            kind: AlarmKind::Nospace,
        }];
        let verdict = crate::plan::gate::evaluate(&s, &Default::default());
        let found = examine(&Facts {
            snapshot: Some(&s),
            verdict: Some(&verdict),
            ..Default::default()
        });
        let commands: Vec<&str> = found
            .iter()
            .filter(|f| f.remedy.contains("kubectl etcd"))
            .map(|f| f.check.as_str())
            .collect();
        assert_eq!(commands, ["alarm/NOSPACE"], "{found:#?}");
        assert!(found
            .iter()
            .any(|f| f.check == "fragmentation" && f.remedy.contains("NOSPACE remedy")));
    }

    #[test]
    fn fragmentation_follows_the_defrag_rule() {
        let s = cluster(&[
            ("a", 1, 500, 100, false, "3.6.16", 1),
            ("b", 2, 300, 150, false, "3.6.16", 1),
        ]);
        let found = fragmentation(&s, &DefragRule::default(), "db -n prod");
        assert_eq!(
            checks(&found),
            [(Severity::Warning, "fragmentation".into(), Some("a".into()))]
        );
        assert_eq!(
            found[0].message,
            "a: 400 MiB of its 500 MiB file is free space (rule: reclaimable > 200 MiB)"
        );
        assert_eq!(found[0].remedy, "kubectl etcd defrag db -n prod");
        let all = DefragRule {
            all: true,
            ..Default::default()
        };
        assert_eq!(fragmentation(&s, &all, "").len(), 2);
    }

    #[test]
    fn a_defrag_longer_than_etcds_request_timeout_is_named() {
        // 1.2 GiB in use: about 15 s by the model, so writes to it fail.
        let s = cluster(&[
            ("a", 1, 2000, 1200, false, "3.6.16", 1),
            ("b", 2, 2000, 100, false, "3.6.16", 1),
        ]);
        let found = fragmentation(&s, &DefragRule::default(), "");
        assert_eq!(
            checks(&found),
            [
                (Severity::Warning, "fragmentation".into(), Some("a".into())),
                (Severity::Warning, "defrag-outage".into(), Some("a".into())),
                (Severity::Warning, "fragmentation".into(), Some("b".into())),
            ]
        );
        assert!(
            found[1]
                .message
                .starts_with("a: defragmenting 1.2 GiB in use takes about 15s, longer than etcd's 7s request timeout"),
            "{}",
            found[1].message
        );
        assert!(found[1].remedy.contains("StopGRPCServiceOnDefrag"));
    }

    #[test]
    fn quota_warns_at_80_and_is_critical_at_95_percent() {
        let mut s = cluster(&[
            ("a", 1, 70, 60, false, "3.6.16", 1),
            ("b", 2, 85, 30, false, "3.6.16", 1),
            ("c", 3, 97, 90, false, "3.6.16", 1),
        ]);
        for m in &mut s.members {
            m.quota_bytes = 100 * MI;
        }
        let found = quota(&s);
        assert_eq!(
            checks(&found),
            [
                (Severity::Warning, "quota".into(), Some("b".into())),
                (Severity::Critical, "quota".into(), Some("c".into()))
            ]
        );
        assert!(found[0].remedy.starts_with("defragment it"));
        assert!(found[1]
            .remedy
            .starts_with("the data itself nears the quota"));
        assert_eq!(
            found[1].message,
            "c: 97 MiB is 97% of its 100 MiB quota (90% in use)"
        );
    }

    #[test]
    fn version_skew_is_minor_releases_only() {
        let patch = cluster(&[
            ("a", 1, 1, 1, false, "3.5.20", 1),
            ("b", 2, 1, 1, false, "3.5.35", 1),
        ]);
        assert!(versions(&patch).is_empty());
        let minor = cluster(&[
            ("a", 1, 1, 1, false, "3.5.35", 1),
            ("b", 2, 1, 1, false, "3.6.16", 1),
        ]);
        let found = versions(&minor);
        assert_eq!(
            found[0].message,
            "members run different minor releases: a 3.5.35, b 3.6.16"
        );
    }

    #[test]
    fn a_caught_up_learner_should_be_promoted() {
        let s = cluster(&[
            ("a", 1, 1, 1, false, "3.6.16", 5000),
            ("b", 2, 1, 1, false, "3.6.16", 5000),
            ("c", 3, 1, 1, false, "3.6.16", 5000),
            ("ready", 4, 1, 1, true, "3.6.16", 4990),
            ("behind", 5, 1, 1, true, "3.6.16", 10),
        ]);
        let v = evaluate(&s, &GateOptions::default());
        let found = learners(&s, &v);
        assert_eq!(
            checks(&found),
            [
                (Severity::Warning, "learner".into(), Some("ready".into())),
                (Severity::Ok, "learner".into(), Some("behind".into()))
            ]
        );
        assert_eq!(found[0].remedy, "kubectl etcd member promote ready");
    }

    #[test]
    fn a_defrag_must_fit_on_the_volume() {
        let s = cluster(&[
            ("a", 1, 700, 300, false, "3.6.16", 1),
            ("b", 2, 600, 300, false, "3.6.16", 1),
        ]);
        let spec = ClusterSpecFacts {
            volume_bytes: Some(1024 * MI),
            ..Default::default()
        };
        let found = defrag_space(&s, &spec);
        assert_eq!(
            checks(&found),
            [(Severity::Critical, "defrag-space".into(), Some("a".into()))]
        );
        assert!(
            found[0].message.contains(
                "needs about 1.0 GiB on its 1.0 GiB volume (700 MiB file, 300 MiB in use"
            ),
            "{}",
            found[0].message
        );
        assert!(defrag_space(&s, &ClusterSpecFacts::default()).is_empty());
    }

    #[test]
    fn frequent_elections_and_slow_fsyncs() {
        let metrics: BTreeMap<String, MemberMetrics> = [
            (
                "calm".to_string(),
                MemberMetrics {
                    leader_changes: 1,
                    uptime_seconds: 60.0,
                    wal_fsync_p99_seconds: Some(0.002),
                    wal_fsyncs: 500,
                    ..Default::default()
                },
            ),
            (
                "restless".to_string(),
                MemberMetrics {
                    leader_changes: 6,
                    uptime_seconds: 1800.0,
                    wal_fsync_p99_seconds: Some(0.05),
                    wal_fsyncs: 500,
                    ..Default::default()
                },
            ),
            (
                "old".to_string(),
                MemberMetrics {
                    leader_changes: 5,
                    uptime_seconds: 30.0 * 86400.0,
                    wal_fsync_p99_seconds: Some(0.4),
                    wal_fsyncs: 500,
                    ..Default::default()
                },
            ),
            (
                "new".to_string(),
                MemberMetrics {
                    leader_changes: 1,
                    uptime_seconds: 5.0,
                    wal_fsync_p99_seconds: Some(0.4),
                    wal_fsyncs: 20,
                    ..Default::default()
                },
            ),
        ]
        .into_iter()
        .collect();
        let elections = leader_changes(&metrics);
        assert_eq!(
            checks(&elections),
            [(
                Severity::Warning,
                "leader-changes".into(),
                Some("restless".into())
            )]
        );
        assert_eq!(
            elections[0].message,
            "restless has seen 6 leader changes in 30m up (12.0 per hour)"
        );
        // Transfers someone asked for are no elections: with 4 of restless's
        // 6 changes carried out through MoveLeader (by any member), only 2
        // elections remain, too few to warn about.
        let mut asked = metrics.clone();
        if let Some(m) = asked.get_mut("calm") {
            m.move_leader_requests = 3;
        }
        if let Some(m) = asked.get_mut("old") {
            m.move_leader_requests = 1;
        }
        assert!(leader_changes(&asked).is_empty());
        // With 2 transfers asked for, 4 elections still warn, and say so.
        if let Some(m) = asked.get_mut("calm") {
            m.move_leader_requests = 1;
        }
        let split = leader_changes(&asked);
        assert_eq!(
            split[0].message,
            "restless has seen 6 leader changes in 30m up: 2 requested through MoveLeader, 4 elections (8.0 per hour)"
        );
        assert!(split[0].remedy.contains("Transfers requested through MoveLeader (kubectl etcd move-leader, kubectl etcd defrag's leader handling) are not counted"));
        let disks = disk_latency(&metrics);
        assert_eq!(
            checks(&disks),
            [
                (
                    Severity::Critical,
                    "disk-latency".into(),
                    Some("old".into())
                ),
                (
                    Severity::Warning,
                    "disk-latency".into(),
                    Some("restless".into())
                )
            ]
        );
    }

    #[test]
    fn compaction_off_lax_or_not_happening() {
        assert!(compaction(Some((2_000_000, 1_500_000)), None).is_empty());
        assert_eq!(
            compaction(Some((2_000_000, 0)), None)[0].check,
            "compaction"
        );
        let spec = |mode: Option<&str>, retention: Option<&str>| ClusterSpecFacts {
            auto_compaction_mode: mode.map(str::to_string),
            auto_compaction_retention: retention.map(str::to_string),
            ..Default::default()
        };
        for (mode, retention, want) in [
            (None, None, Some("off")),
            (None, Some("0"), Some("off")),
            (Some("periodic"), Some("1h"), None),
            (Some("periodic"), Some("5"), None),
            (Some("periodic"), Some("48h"), Some("keeps")),
            (None, Some("72"), Some("keeps")),
            (Some("revision"), Some("1000"), None),
            (Some("revision"), Some("5000000"), Some("keeps")),
        ] {
            let found = compaction(None, Some(&spec(mode, retention)));
            match want {
                None => assert!(found.is_empty(), "{mode:?} {retention:?}: {found:?}"),
                Some(word) => assert!(
                    found[0].message.contains(word),
                    "{mode:?} {retention:?}: {found:?}"
                ),
            }
        }
    }

    #[test]
    fn certificates_warn_at_30_days_and_are_critical_at_7() {
        let now = 1_000_000_000;
        let cert = |days: i64| CertFact {
            what: format!("cert+{days}"),
            not_after: now + days * 86_400 + 60,
        };
        let found = certificates(&[cert(90), cert(20), cert(3), cert(-2)], now);
        assert_eq!(
            found
                .iter()
                .map(|f| (f.severity, f.message.as_str()))
                .collect::<Vec<_>>(),
            [
                (Severity::Warning, "the cert+20 expires in 20 days"),
                (Severity::Critical, "the cert+3 expires in 3 day(s)"),
                (Severity::Critical, "the cert+-2 expired 1 day(s) ago"),
            ]
        );
    }

    #[test]
    fn stop_grpc_on_defrag_is_read_from_pod_args() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let mut pods = BTreeMap::new();
        pods.insert(
            "a".to_string(),
            args(&["--name=a", "--feature-gates=StopGRPCServiceOnDefrag=true"]),
        );
        pods.insert(
            "b".to_string(),
            args(&["--name=b", "--experimental-stop-grpc-service-on-defrag"]),
        );
        let found = stop_grpc_on_defrag(&pods, None);
        assert!(found[0].message.starts_with("every member"), "{found:?}");
        pods.insert("c".to_string(), args(&["--name=c"]));
        let found = stop_grpc_on_defrag(&pods, None);
        assert_eq!(found[0].message, "c do not set StopGRPCServiceOnDefrag: clients sending to a defragmenting member wait for the whole defrag");
        assert!(stop_grpc_on_defrag(&BTreeMap::new(), None).is_empty());
    }

    #[test]
    fn traffic_needs_zone_labels_and_spread() {
        let place = |rows: &[(&str, Option<&str>, Option<&str>)]| TrafficFacts {
            value: "PreferSameZone".into(),
            placement: rows
                .iter()
                .map(|(m, n, z)| (m.to_string(), n.map(str::to_string), z.map(str::to_string)))
                .collect(),
        };
        let spread = place(&[("a", Some("n1"), Some("z1")), ("b", Some("n2"), Some("z2"))]);
        assert!(traffic(&spread).is_empty());
        let one_zone = place(&[("a", Some("n1"), Some("z1")), ("b", Some("n2"), Some("z1"))]);
        assert_eq!(
            traffic(&one_zone)[0].message,
            "PreferSameZone: every member runs in zone z1, so clients in other zones get no same-zone member"
        );
        let unlabelled = place(&[
            ("a", Some("n1"), None),
            ("b", Some("n2"), Some("z2")),
            ("c", None, None),
        ]);
        let found: Vec<String> = traffic(&unlabelled)
            .into_iter()
            .map(|f| f.message)
            .collect();
        assert_eq!(
            found,
            [
                "c have no node yet".to_string(),
                "PreferSameZone: nodes n1 (runs a) have no topology.kubernetes.io/zone label, so their endpoints carry no zone hint".into(),
                "PreferSameZone: every member runs in zone z2, so clients in other zones get no same-zone member".into(),
            ]
        );
        let same_node = TrafficFacts {
            value: "PreferSameNode".into(),
            ..one_zone
        };
        assert!(traffic(&same_node).is_empty());
    }

    #[test]
    fn findings_are_listed_worst_first() {
        let mut s = healthy();
        s.alarms = vec![Alarm {
            member_id: 1,
            kind: AlarmKind::Nospace,
        }];
        let v = evaluate(&s, &GateOptions::default());
        let facts = Facts {
            snapshot: Some(&s),
            verdict: Some(&v),
            revisions: Some((3_000_000, 0)),
            ..Default::default()
        };
        let found = examine(&facts);
        let severities: Vec<Severity> = found.iter().map(|f| f.severity).collect();
        let mut sorted = severities.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(severities, sorted);
        assert_eq!(worst(&found), Severity::Critical);
    }
}
