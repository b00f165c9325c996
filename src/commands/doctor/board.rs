//! `doctor --serve`'s board: the last examination of every cluster in
//! scope, and its exposition as Prometheus metrics (every name
//! `kubectl_etcd_*`, docs/cli.md#doctor---serve).
//!
//! The labels that locate a cluster are `etcdcluster_namespace`,
//! `etcdcluster` and `kind` (and `context` when several are read), never
//! `namespace` or `cluster`, which a scrape sets. Members add `member`;
//! the rest are bounded sets (`plan::doctor::gauges`). The exposition is
//! rendered from the board at each scrape, so a cluster no longer listed,
//! or a member gone from it, leaves no series behind.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::plan::doctor::gauges::ClusterGauges;
use crate::plan::doctor::Severity;

/// Where a cluster is: (context, namespace, name), as its labels say.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub context: Option<String>,
    pub namespace: String,
    pub name: String,
}

/// How an examination ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The members were looked at and every check ran that could.
    Examined,
    /// No member answered, or the cluster could not be opened.
    Unreachable,
    /// It took longer than `--examine-timeout`.
    TimedOut,
    /// Not examined from here: a control plane's etcd is examined on its
    /// nodes, and its keys never leave them.
    OnNode,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Examined => "examined",
            Outcome::Unreachable => "unreachable",
            Outcome::TimedOut => "timeout",
            Outcome::OnNode => "on-node",
        }
    }

    const ALL: [Outcome; 4] = [
        Outcome::Examined,
        Outcome::Unreachable,
        Outcome::TimedOut,
        Outcome::OnNode,
    ];
}

/// One cluster's last examination, and what its examinations counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub kind: &'static str,
    pub gauges: ClusterGauges,
    pub outcome: Outcome,
    /// When the last examination ended, and the last one that examined
    /// (Unix seconds).
    pub ended: f64,
    pub last_examined: Option<f64>,
    pub seconds: f64,
    /// Examinations by outcome.
    pub counts: BTreeMap<Outcome, u64>,
    /// Leader changes seen between examinations.
    pub leader_changes: u64,
    /// The last leader any examination saw, to tell a change from an
    /// election still going on.
    pub last_leader: Option<String>,
}

/// One examination's result, to post on the board.
#[derive(Debug, Clone)]
pub struct Examination {
    pub kind: &'static str,
    pub gauges: ClusterGauges,
    pub outcome: Outcome,
    pub ended: f64,
    pub seconds: f64,
    /// Why it was not examined, when it was not.
    pub why: Option<String>,
}

/// The clusters in scope and their last examinations.
#[derive(Default)]
pub struct Board {
    entries: Mutex<BTreeMap<Key, Entry>>,
    /// Every listed cluster has been examined once.
    ready: AtomicBool,
    version: &'static str,
}

impl Board {
    pub fn new(version: &'static str) -> Board {
        Board {
            version,
            ..Board::default()
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, BTreeMap<Key, Entry>> {
        match self.entries.lock() {
            Ok(e) => e,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Posts an examination. A leader other than the last one seen is a
    /// change; a cluster without a leader now keeps the last one it had,
    /// so an election is counted once, when the new leader shows.
    /// Returns how the examination before it ended (`None`: the first).
    pub fn post(&self, key: &Key, e: Examination) -> Option<Outcome> {
        let mut entries = self.entries();
        let before = entries.get(key).map(|entry| entry.outcome);
        let entry = entries.entry(key.clone()).or_insert_with(|| Entry {
            kind: e.kind,
            gauges: ClusterGauges::default(),
            outcome: e.outcome,
            ended: e.ended,
            last_examined: None,
            seconds: e.seconds,
            counts: BTreeMap::new(),
            leader_changes: 0,
            last_leader: None,
        });
        if let Some(now) = &e.gauges.leader {
            if entry.last_leader.as_ref().is_some_and(|was| was != now) {
                entry.leader_changes += 1;
            }
            entry.last_leader = Some(now.clone());
        }
        *entry.counts.entry(e.outcome).or_default() += 1;
        entry.kind = e.kind;
        entry.outcome = e.outcome;
        entry.ended = e.ended;
        entry.seconds = e.seconds;
        if e.outcome == Outcome::Examined {
            entry.last_examined = Some(e.ended);
        }
        entry.gauges = e.gauges;
        before
    }

    /// Keeps only the clusters listed now.
    pub fn keep(&self, listed: &[Key]) {
        self.entries().retain(|k, _| listed.contains(k));
    }

    pub fn set_ready(&self) {
        self.ready.store(true, Ordering::SeqCst);
    }

    /// The exposition at `now` (Unix seconds).
    pub fn render_at(&self, now: f64, openmetrics: bool) -> String {
        let entries = self.entries();
        render(&entries, self.version, now, openmetrics)
    }
}

impl crate::exposition::Exposition for Board {
    fn render(&self, openmetrics: bool) -> String {
        let now = jiff::Timestamp::now().as_millisecond() as f64 / 1000.0;
        self.render_at(now, openmetrics)
    }

    fn ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    fn not_ready(&self) -> &'static str {
        "not ready: the clusters in scope have not all been examined once yet, or stopping\n"
    }
}

/// A metric family being written: its samples follow its header.
struct Family<'a> {
    out: &'a mut String,
    openmetrics: bool,
}

impl Family<'_> {
    fn header(&mut self, name: &str, kind: &str, help: &str) {
        // OpenMetrics names a counter's family without `_total`.
        let family = match (self.openmetrics, kind) {
            (true, "counter") => name.trim_end_matches("_total"),
            _ => name,
        };
        let _ = writeln!(self.out, "# HELP {family} {help}");
        let _ = writeln!(self.out, "# TYPE {family} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.out.push_str(name);
        if !labels.is_empty() {
            self.out.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                let _ = write!(self.out, "{k}=\"{}\"", escape(v));
            }
            self.out.push('}');
        }
        let _ = writeln!(self.out, " {}", number(value));
    }
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A sample's value: whole numbers as integers, seconds to the
/// microsecond, ratios as they are.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else if value.abs() >= 1.0 {
        format!("{}", (value * 1e6).round() / 1e6)
    } else {
        format!("{value}")
    }
}

/// A cluster's labels.
fn cluster_labels<'a>(key: &'a Key, entry: &'a Entry) -> Vec<(&'static str, &'a str)> {
    let mut labels = Vec::with_capacity(4);
    if let Some(c) = &key.context {
        labels.push(("context", c.as_str()));
    }
    labels.push(("etcdcluster_namespace", key.namespace.as_str()));
    labels.push(("etcdcluster", key.name.as_str()));
    labels.push(("kind", entry.kind));
    labels
}

fn with<'a>(
    base: &[(&'static str, &'a str)],
    more: &[(&'static str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    base.iter().chain(more).copied().collect()
}

type ClusterValue = fn(&Entry, f64) -> Option<f64>;

/// The per-cluster gauges: (name, help, value).
const CLUSTER_GAUGES: [(&str, &str, ClusterValue); 11] = [
    (
        "kubectl_etcd_cluster_members_desired",
        "Members the cluster object asks for.",
        |e, _| e.gauges.desired.map(|d| d as f64),
    ),
    (
        "kubectl_etcd_cluster_members_answering",
        "Members whose Status answered at the last examination.",
        |e, _| examined(e).then_some(e.gauges.answering as f64),
    ),
    (
        "kubectl_etcd_cluster_members_voting",
        "Voting members.",
        |e, _| examined(e).then_some(e.gauges.voting as f64),
    ),
    (
        "kubectl_etcd_cluster_members_learners",
        "Learners.",
        |e, _| examined(e).then_some(e.gauges.learners as f64),
    ),
    (
        "kubectl_etcd_cluster_quorum_margin",
        "Voting members answering beyond a quorum: 0, one more lost loses quorum; below 0, lost.",
        |e, _| examined(e).then_some(e.gauges.quorum_margin as f64),
    ),
    (
        "kubectl_etcd_cluster_leader_present",
        "1 when every answering member agrees on a leader.",
        |e, _| examined(e).then_some(flag(e.gauges.leader.is_some())),
    ),
    (
        "kubectl_etcd_cluster_gate_open",
        "1 when the health gate would allow maintenance.",
        |e, _| examined(e).then_some(flag(e.gauges.gate_open)),
    ),
    (
        "kubectl_etcd_examination_up",
        "1 when the last examination reached the members; none for a control plane's etcd, examined on its nodes.",
        |e, _| (!listed_only(e)).then(|| flag(examined(e))),
    ),
    (
        "kubectl_etcd_examination_last_timestamp_seconds",
        "When the last examination of the cluster ended, whatever it found.",
        |e, _| Some(e.ended),
    ),
    (
        "kubectl_etcd_examination_age_seconds",
        "Seconds since the last examination of the cluster ended.",
        |e, now| Some((now - e.ended).max(0.0)),
    ),
    (
        "kubectl_etcd_examination_duration_seconds",
        "How long the last examination of the cluster took.",
        |e, _| Some(e.seconds),
    ),
];

fn examined(e: &Entry) -> bool {
    e.outcome == Outcome::Examined
}

/// A control plane's etcd, listed here and examined on its nodes (`doctor
/// --serve --serve-as` there): only its listing is served from here, so
/// that nothing contradicts what its nodes serve.
fn listed_only(e: &Entry) -> bool {
    e.outcome == Outcome::OnNode
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

type MemberValue = fn(&crate::plan::doctor::gauges::MemberGauges) -> Option<f64>;

/// The per-member gauges: (name, help, value).
const MEMBER_GAUGES: [(&str, &str, MemberValue); 8] = [
    (
        "kubectl_etcd_member_up",
        "1 when the member answered Status.",
        |m| Some(flag(m.up)),
    ),
    ("kubectl_etcd_member_leader", "1 for the leader.", |m| {
        Some(flag(m.leader))
    }),
    ("kubectl_etcd_member_learner", "1 for a learner.", |m| {
        Some(flag(m.learner))
    }),
    (
        "kubectl_etcd_member_db_size_bytes",
        "The member's backend file size.",
        |m| m.db_size.map(|v| v as f64),
    ),
    (
        "kubectl_etcd_member_db_in_use_bytes",
        "What of the backend file is in use.",
        |m| m.in_use.map(|v| v as f64),
    ),
    (
        "kubectl_etcd_member_db_reclaimable_bytes",
        "What a defragmentation would give back.",
        |m| m.reclaimable().map(|v| v as f64),
    ),
    (
        "kubectl_etcd_member_quota_bytes",
        "The backend quota that applies to the member.",
        |m| (m.quota > 0).then_some(m.quota as f64),
    ),
    (
        "kubectl_etcd_member_quota_use_ratio",
        "The backend file size over the quota.",
        |m| m.quota_use(),
    ),
];

fn render(entries: &BTreeMap<Key, Entry>, version: &str, now: f64, openmetrics: bool) -> String {
    let mut out = String::new();
    let mut f = Family {
        out: &mut out,
        openmetrics,
    };
    f.header(
        "kubectl_etcd_doctor_build_info",
        "gauge",
        "The version of kubectl-etcd serving these metrics.",
    );
    f.sample(
        "kubectl_etcd_doctor_build_info",
        &[("version", version)],
        1.0,
    );
    f.header(
        "kubectl_etcd_doctor_clusters",
        "gauge",
        "Clusters in scope.",
    );
    f.sample("kubectl_etcd_doctor_clusters", &[], entries.len() as f64);
    for (name, help, value) in CLUSTER_GAUGES {
        f.header(name, "gauge", help);
        for (key, entry) in entries {
            if let Some(v) = value(entry, now) {
                f.sample(name, &with(&cluster_labels(key, entry), &[]), v);
            }
        }
    }
    let name = "kubectl_etcd_examination_last_success_timestamp_seconds";
    f.header(
        name,
        "gauge",
        "When the last examination that reached the members ended.",
    );
    for (key, entry) in entries {
        if let Some(at) = entry.last_examined {
            f.sample(name, &with(&cluster_labels(key, entry), &[]), at);
        }
    }
    let name = "kubectl_etcd_examinations_total";
    f.header(
        name,
        "counter",
        "Examinations of the cluster, by how they ended.",
    );
    for (key, entry) in entries {
        let base = cluster_labels(key, entry);
        for outcome in Outcome::ALL {
            let n = entry.counts.get(&outcome).copied().unwrap_or(0);
            f.sample(
                name,
                &with(&base, &[("result", outcome.as_str())]),
                n as f64,
            );
        }
    }
    let name = "kubectl_etcd_cluster_leader_changes_observed_total";
    f.header(name, "counter", "Leader changes seen between examinations.");
    for (key, entry) in entries.iter().filter(|(_, e)| !listed_only(e)) {
        let labels = with(&cluster_labels(key, entry), &[]);
        f.sample(name, &labels, entry.leader_changes as f64);
    }
    render_findings(&mut f, entries);
    render_members(&mut f, entries);
    if openmetrics {
        out.push_str("# EOF\n");
    }
    out
}

/// Alarms, the gate's refusals and the checks' severities.
fn render_findings(f: &mut Family<'_>, entries: &BTreeMap<Key, Entry>) {
    let name = "kubectl_etcd_cluster_alarms";
    f.header(
        name,
        "gauge",
        "Members that raised the alarm (NOSPACE, CORRUPT, other).",
    );
    for (key, entry) in entries.iter().filter(|(_, e)| examined(e)) {
        let base = cluster_labels(key, entry);
        let mut counts: BTreeMap<&str, u64> = [("CORRUPT", 0), ("NOSPACE", 0)].into();
        for (_, alarm) in &entry.gauges.alarms {
            *counts.entry(alarm).or_default() += 1;
        }
        for (alarm, n) in counts {
            f.sample(name, &with(&base, &[("alarm", alarm)]), n as f64);
        }
    }
    let name = "kubectl_etcd_cluster_gate_refusal";
    f.header(
        name,
        "gauge",
        "1 for each reason the health gate refuses maintenance.",
    );
    for (key, entry) in entries.iter().filter(|(_, e)| examined(e)) {
        let base = cluster_labels(key, entry);
        for reason in &entry.gauges.gate_refusals {
            f.sample(name, &with(&base, &[("reason", reason)]), 1.0);
        }
    }
    let name = "kubectl_etcd_doctor_check_severity";
    f.header(
        name,
        "gauge",
        "The worst finding of each doctor check: 0 ok, 1 warning, 2 critical.",
    );
    for (key, entry) in entries.iter().filter(|(_, e)| !listed_only(e)) {
        let base = cluster_labels(key, entry);
        for (check, severity) in &entry.gauges.checks {
            let value = match severity {
                Severity::Ok => 0.0,
                Severity::Warning => 1.0,
                Severity::Critical => 2.0,
            };
            f.sample(name, &with(&base, &[("check", check)]), value);
        }
    }
}

fn render_members(f: &mut Family<'_>, entries: &BTreeMap<Key, Entry>) {
    for (name, help, value) in MEMBER_GAUGES {
        f.header(name, "gauge", help);
        for (key, entry) in entries {
            let base = cluster_labels(key, entry);
            for m in &entry.gauges.members {
                if let Some(v) = value(m) {
                    f.sample(name, &with(&base, &[("member", &m.name)]), v);
                }
            }
        }
    }
    let name = "kubectl_etcd_member_alarm";
    f.header(name, "gauge", "1 for each alarm a member raised.");
    for (key, entry) in entries.iter().filter(|(_, e)| examined(e)) {
        let base = cluster_labels(key, entry);
        for (member, alarm) in &entry.gauges.alarms {
            f.sample(
                name,
                &with(&base, &[("member", member), ("alarm", alarm)]),
                1.0,
            );
        }
    }
    let name = "kubectl_etcd_member_last_defrag_timestamp_seconds";
    f.header(
        name,
        "gauge",
        "When a run last defragmented the member, as its EtcdDefrag says.",
    );
    for (key, entry) in entries {
        let base = cluster_labels(key, entry);
        for (member, at) in &entry.gauges.last_defrag {
            f.sample(name, &with(&base, &[("member", member)]), *at as f64);
        }
    }
}

#[cfg(test)]
mod tests;
