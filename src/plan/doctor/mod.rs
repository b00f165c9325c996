//! `doctor`: what needs attention in one cluster, how bad it is, and what to
//! do about it. Pure over `Facts` (the look at the members, the gate's verdict, and
//! what the command could read besides: members' `/metrics`, certificates,
//! the EtcdCluster's options, its Pods' arguments, the traffic setting);
//! every check is its own function with a table test.
//!
//! A fact the command could not read is `None` and its check says nothing:
//! doctor reports what it saw, and the command lists what it could not see.
//!
//! The checks are grouped by the facts they read: `look.rs` (the look at
//! the members and the gate), `metrics.rs` (members' `/metrics`) and
//! `setup.rs` (options, certificates, Pods, the client Service); this
//! module holds the findings and facts and runs the checks in report
//! order ([`examine`]).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::look::ClusterLook;
pub use crate::look::MemberMetrics;
use crate::plan::gate::GateVerdict;
use crate::plan::rule::DefragRule;

pub mod gauges;
mod look;
mod metrics;
pub mod runs;
mod setup;
pub mod upgrade;

pub use look::{
    alarms, churn, defrag_space, defrag_space_passed, end_of_life, fragmentation, gate,
    known_defects, largest_free, learners, probe_budgets, quota, versions, Setup,
};
use metrics::MIN_FSYNCS;
pub use metrics::{disk_latency, leader_changes, server_features, MAINTENANCE_GATES};
pub use setup::{certificates, compaction, history, stop_grpc_on_defrag, traffic};

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
    /// Acknowledged by its check id (`--acknowledge`): still shown, marked
    /// so, and no longer counted in the report's worst severity (so not
    /// for `--fail-on`) nor in the served check severity.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub acknowledged: bool,
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
        acknowledged: false,
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
    /// The spec asks for TLS and the operator made its Secret (named
    /// here), yet the members serve plain HTTP to clients.
    pub plaintext_beside_tls: Option<String>,
}

/// The client Service's trafficDistribution and the members' placement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrafficFacts {
    pub value: String,
    /// (member, its Pod's node, what is known of that node's
    /// `topology.kubernetes.io/zone`).
    pub placement: Vec<(String, Option<String>, Zone)>,
}

/// What is known of the zone of a member's node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Zone {
    /// No node (the Pod is missing or not scheduled), or nothing asked.
    Unknown,
    Labelled(String),
    /// The node exists and has no zone label.
    Unlabelled,
    /// The Pod names a node the API server does not have.
    NodeMissing,
    /// The node could not be read: nothing is said of its zone.
    Unread,
}

/// Everything the checks look at. `None`: could not be read.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    pub look: Option<&'a ClusterLook>,
    pub verdict: Option<&'a GateVerdict>,
    /// The cluster's current revision, and the one compacted up to (0:
    /// never compacted).
    pub revisions: Option<(i64, i64)>,
    pub metrics: BTreeMap<String, MemberMetrics>,
    /// Member name → its server feature gates, from its `/metrics`
    /// (etcd 3.6 and later).
    pub features: BTreeMap<String, BTreeMap<String, bool>>,
    pub certs: Vec<CertFact>,
    pub now: i64,
    pub spec: Option<ClusterSpecFacts>,
    /// What the EtcdCluster's status says of the cluster (plugin mode).
    pub operator: Option<crate::look::OperatorSays>,
    /// Member name → its Pod's etcd arguments (plugin mode).
    pub pod_args: BTreeMap<String, Vec<String>>,
    /// Member name → its Pod's etcd image (plugin mode).
    pub pod_images: BTreeMap<String, String>,
    /// The trafficDistribution in effect and where the members run (plugin
    /// mode, when a value is set).
    pub traffic: Option<TrafficFacts>,
    /// The rule a defrag would use (the defaults unless given).
    pub rule: DefragRule,
    /// The cluster as the remedies name it (`my-etcd -n prod`, or empty).
    pub cluster_args: String,
    /// The writes sampled while a member needed a defrag (`None`: not
    /// sampled).
    pub churn: Option<crate::plan::usage::ChurnSample>,
    /// Who else processes the cluster's EtcdDefrags and what their runs
    /// did (plugin mode).
    pub defrag: Option<runs::DefragFacts>,
    /// Authentication is on (`None`: not known).
    pub auth: Option<bool>,
    /// The members serve clients over TLS (`None`: not known).
    pub tls: Option<bool>,
    /// `--upgrade-to`: what stands in the way of this release is checked
    /// too (`plan::upgrade`).
    pub upgrade_to: Option<upgrade::UpgradeTarget>,
}

/// Every check, in the order the report lists them. A check that ran and
/// found nothing adds an `ok` finding saying what it looked at, so that
/// `-o wide` (and JSON) list every check that passed; a check whose facts
/// could not be read adds nothing (the command lists what it could not
/// read).
pub fn examine(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let (Some(look), Some(verdict)) = (facts.look, facts.verdict) {
        out.extend(look_checks(facts, look, verdict));
    }
    if !facts.metrics.is_empty() {
        out.extend(metrics_checks(facts));
    }
    out.extend(server_features(&facts.features));
    out.extend(compaction_checks(facts));
    out.extend(setup_checks(facts));
    if let (Some(to), Some(look), Some(verdict)) = (facts.upgrade_to, facts.look, facts.verdict) {
        out.extend(upgrade::check(
            to,
            &upgrade::UpgradeFacts {
                look,
                verdict,
                metrics: &facts.metrics,
                pod_args: (!facts.pod_args.is_empty()).then_some(&facts.pod_args),
                auth: facts.auth,
                operator: facts.operator.as_ref(),
                pod_images: &facts.pod_images,
                cluster_args: &facts.cluster_args,
            },
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

/// The checks over the look at the members and the gate's verdict.
fn look_checks(facts: &Facts<'_>, look: &ClusterLook, verdict: &GateVerdict) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(gate(verdict, &facts.cluster_args));
    if look.alarm_list_error.is_none() {
        out.extend(or_passed(
            alarms(look, &facts.cluster_args),
            "alarm",
            "no alarm is raised",
        ));
    } else {
        out.extend(alarms(look, &facts.cluster_args));
    }
    out.extend(fragmentation(look, &facts.rule, &facts.cluster_args));
    if let Some(sample) = &facts.churn {
        out.extend(churn(
            look,
            &facts.rule,
            sample,
            facts.spec.as_ref(),
            &facts.cluster_args,
        ));
    }
    out.extend(or_passed(
        quota(look),
        "quota",
        "every member's backend is under 80% of its quota",
    ));
    let minors: std::collections::BTreeSet<String> = look
        .members
        .iter()
        .filter_map(|m| m.status())
        .map(|s| s.line())
        .collect();
    if let Some(minor) = minors.first() {
        out.extend(or_passed(
            versions(look),
            "version-skew",
            format!("every member runs etcd {minor}"),
        ));
    }
    if look.members.iter().any(|m| m.status().is_some()) {
        let setup = Setup {
            auth: facts.auth,
            tls: facts.tls,
            pod_args: (!facts.pod_args.is_empty()).then_some(&facts.pod_args),
        };
        out.extend(end_of_life(look));
        out.extend(or_passed(
            known_defects(look, &setup),
            "known-defect",
            "no member runs a release with a known defect this tool checks for",
        ));
    }
    out.extend(probe_budgets(look));
    out.extend(or_passed(
        learners(look, verdict),
        "learner",
        "no learner is waiting to be promoted",
    ));
    let short = defrag_space(look);
    match defrag_space_passed(look) {
        Some(passed) if short.is_empty() => {
            out.push(finding(Severity::Ok, "defrag-space", None, passed, ""))
        }
        _ => out.extend(short),
    }
    out
}

/// The checks over the members' `/metrics`.
fn metrics_checks(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let requested: u64 = facts.metrics.values().map(|m| m.move_leader_requests).sum();
    // Issue 45: only the members whose /metrics were read were judged.
    let listed = facts.look.map_or(0, |s| s.members.len());
    let read = facts.metrics.len();
    let mut passed = if read >= listed {
        "no member sees frequent elections (3 or more, over 2 per hour)".to_string()
    } else {
        format!("none of the {read} of {listed} members whose /metrics were read sees frequent elections (3 or more, over 2 per hour); the others were not judged")
    };
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
    out
}

/// Compaction: what is kept, and how the cluster compacts itself.
fn compaction_checks(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let compacted = compaction(facts.revisions, facts.spec.as_ref());
    let has = |check: &str| compacted.iter().any(|f| f.check == check);
    let mut passed = Vec::new();
    if let (Some((current, compacted_at)), false) = (facts.revisions, has("compaction")) {
        passed.push(finding(
            Severity::Ok,
            "compaction",
            None,
            format!(
                "{} (current {current}, compacted up to {compacted_at})",
                crate::quantity::revisions_kept(current - compacted_at)
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
    out
}

/// The operator's word, history, certificates, the members' flags, other
/// processors' runs and the traffic setting.
fn setup_checks(facts: &Facts<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    if let (Some(says), Some(look)) = (&facts.operator, facts.look) {
        out.extend(or_passed(
            crate::plan::operator::disagreements(says, look)
                .into_iter()
                .map(|d| {
                    finding(
                        Severity::Warning,
                        "operator-status",
                        None,
                        d,
                        format!(
                            "the members' own answers are in this report; the operator acts on its view: read its conditions and log (kubectl describe etcdcluster {})",
                            facts.cluster_args
                        ),
                    )
                })
                .collect(),
            "operator-status",
            "the operator's EtcdCluster status agrees with the members".to_string(),
        ));
    }
    if let Some(look) = facts.look {
        out.extend(history(
            facts.revisions,
            &facts.metrics,
            look,
            &facts.cluster_args,
        ));
    }
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
    out.extend(stop_grpc_on_defrag(&facts.pod_args, facts.look));
    if let Some(secret) = facts
        .spec
        .as_ref()
        .and_then(|s| s.plaintext_beside_tls.as_ref())
    {
        out.push(finding(
            Severity::Critical,
            "plaintext-client",
            None,
            format!(
                "the cluster asks for TLS (its operator made Secret {secret}) but its members serve plain HTTP to clients: anyone on the cluster network can read and write the keyspace"
            ),
            "serve TLS: add https client URLs and the server certificate's flags to the EtcdCluster's spec.etcdOptions (the operator does not yet: etcd-io/etcd-operator issues 372, 373), and keep the members' client port off the cluster network until then".to_string(),
        ));
    }
    if let Some(d) = &facts.defrag {
        let quota = facts
            .look
            .and_then(|s| s.members.iter().map(|m| m.quota_bytes).max());
        out.extend(runs::checks(d, quota, &d.namespace, facts.now));
    }
    if let Some(t) = &facts.traffic {
        out.extend(or_passed(
            traffic(t),
            "traffic",
            format!("trafficDistribution {}: its prerequisites hold", t.value),
        ));
    }
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

/// Marks the findings whose check is among `ids` (`--acknowledge`)
/// acknowledged. Pure.
pub fn acknowledge(mut findings: Vec<Finding>, ids: &[String]) -> Vec<Finding> {
    for f in findings.iter_mut() {
        f.acknowledged = f.severity > Severity::Ok && ids.contains(&f.check);
    }
    findings
}

/// The ids of `ids` that no finding of `reports` carries: a typo, or a
/// finding gone (said once, so that an acknowledgement does not outlive
/// its reason unseen). Pure.
pub fn unmatched<'a>(ids: &'a [String], findings: &[&Finding]) -> Vec<&'a str> {
    ids.iter()
        .filter(|id| !findings.iter().any(|f| f.check == **id))
        .map(String::as_str)
        .collect()
}

/// The worst severity among `findings` (Ok when none), acknowledged ones
/// left out.
pub fn worst(findings: &[Finding]) -> Severity {
    findings
        .iter()
        .filter(|f| !f.acknowledged)
        .map(|f| f.severity)
        .max()
        .unwrap_or(Severity::Ok)
}

#[cfg(test)]
mod tests;
