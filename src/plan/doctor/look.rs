//! The checks over what the look at the members and the gate show of the cluster
//! itself: the gate's reasons, alarms, fragmentation, quota use, version
//! skew, learners, and whether a defrag fits on the members' volumes.

use std::collections::BTreeMap;

use super::{finding, ClusterSpecFacts, Finding, Severity};
use crate::defects::{Applies, Touches};
use crate::look::{AlarmKind, ClusterLook};
use crate::plan::defrag::{predicted_outage, Measured, ETCD_REQUEST_TIMEOUT_SECONDS};
use crate::plan::gate::{GateReason, GateVerdict};
use crate::plan::rule::{DefragRule, RuleOutcome};
use crate::plan::usage::{churn_finding, ChurnSample, KUBERNETES_COMPACTION};
use crate::quantity::format_bytes;

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
                GateReason::NotAMember { .. } => (
                    Severity::Critical,
                    "name only this cluster's members in the endpoints (kubectl-etcd members lists them)".to_string(),
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
                // A sweep's own checks of one look (`moment::one_moment`,
                // `moment::still_as_looked`); a sweep looks again by itself.
                GateReason::SlowAnswer { .. } | GateReason::LookAged { .. } => (
                    Severity::Warning,
                    "check the member's disk and CPU: a sweep waits until every member answers promptly".into(),
                ),
                GateReason::SnapshotInFlight { advice, .. } => (
                    Severity::Warning,
                    format!("wait until the member has caught up with the leader (kubectl etcd status {cluster}), then {advice}"),
                ),
                GateReason::TermDisagreement { .. } | GateReason::ChangedSinceLook { .. } => (
                    Severity::Warning,
                    format!("an election was under way: look again (kubectl etcd status {cluster})"),
                ),
                // The reason's own text says how to wait for the run or
                // remove it.
                GateReason::DefragRunActive { .. } => (
                    Severity::Warning,
                    "a sweep of this cluster would wait for the run to finish".into(),
                ),
                GateReason::PolicyTickDue { .. } => (
                    Severity::Warning,
                    "a sweep waits out the policy's tick, and suspends nothing".into(),
                ),
                GateReason::DefragRunsUnknown { .. } => (
                    Severity::Warning,
                    "grant list on etcddefrags (group etcd-operator.cozystack.io) in the cluster's namespace".into(),
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
pub fn alarms(look: &ClusterLook, cluster: &str) -> Vec<Finding> {
    let cluster = if cluster.is_empty() {
        String::new()
    } else {
        format!(" {cluster}")
    };
    look.alarms
        .iter()
        .map(|a| {
            let member = look.name_of(a.member_id);
            let learner = look
                .member_by_id(a.member_id)
                .filter(|m| m.is_learner());
            match &a.kind {
                // Issue 45: a learner holds it, which no defrag reaches.
                AlarmKind::Nospace if learner.is_some() => finding(
                    Severity::Critical,
                    "alarm/NOSPACE",
                    Some(&member),
                    format!("NOSPACE is raised on {member}, a learner: the cluster refuses writes"),
                    learner.map_or_else(String::new, |l| {
                        crate::plan::alarm::learner_way_out(look, l, &cluster)
                    }),
                ),
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
pub fn fragmentation(look: &ClusterLook, rule: &DefragRule, cluster: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &look.members {
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
        // Issue 45: only the members that answered were judged.
        let judged = look.members.iter().filter(|m| m.status().is_some()).count();
        let message = if judged == look.members.len() {
            format!("no member needs a defrag (rule: {rule})")
        } else {
            format!(
                "none of the {judged} of {} members that answered needs a defrag (rule: {rule}); the others were not judged",
                look.members.len()
            )
        };
        out.push(finding(Severity::Ok, "fragmentation", None, message, ""));
    }
    out
}

/// Whether the writes explain the free space the defrag rule found: the
/// busiest prefix in the sample, named with the remedy for its kind when a
/// compaction interval of its writes is at least a tenth of the largest
/// free space (see `plan::usage::churn_finding`). Nothing when no member
/// needs a defrag or nothing was written.
pub fn churn(
    look: &ClusterLook,
    rule: &DefragRule,
    sample: &ChurnSample,
    spec: Option<&ClusterSpecFacts>,
    cluster: &str,
) -> Vec<Finding> {
    let Some(free) = largest_free(look, rule) else {
        return Vec::new();
    };
    let interval = compaction_interval(spec);
    let named = if cluster.is_empty() {
        String::new()
    } else {
        format!(" {cluster}")
    };
    match churn_finding(sample, free, interval, &named) {
        Some((explains, message, remedy)) => vec![finding(
            if explains {
                Severity::Warning
            } else {
                Severity::Ok
            },
            "churn",
            None,
            message,
            if explains { remedy } else { String::new() },
        )],
        None => vec![finding(
            Severity::Ok,
            "churn",
            None,
            format!(
                "no write in {}: the free space is not being re-created",
                crate::quantity::format_duration_parts(sample.window)
            ),
            "",
        )],
    }
}

/// The largest free space among the members the defrag rule would
/// defragment; `None` when it would defragment none.
pub fn largest_free(look: &ClusterLook, rule: &DefragRule) -> Option<u64> {
    look.members
        .iter()
        .filter_map(|m| {
            let s = m.status()?;
            (rule.evaluate(s.db_size, s.db_size_in_use, m.quota_bytes) != RuleOutcome::Skip)
                .then(|| s.db_size.saturating_sub(s.db_size_in_use))
        })
        .max()
}

/// How often the history is compacted: the EtcdCluster's periodic
/// auto-compaction retention when set (etcd compacts every retention
/// period up to an hour), else the Kubernetes API server's 5 minutes.
fn compaction_interval(spec: Option<&ClusterSpecFacts>) -> std::time::Duration {
    spec.filter(|s| {
        s.auto_compaction_mode
            .as_deref()
            .is_none_or(|m| m == "periodic")
    })
    .and_then(|s| s.auto_compaction_retention.as_deref())
    .and_then(|r| {
        // A bare number is hours, as etcd reads it.
        r.parse::<u64>()
            .ok()
            .map(|h| std::time::Duration::from_secs(h.saturating_mul(3600)))
            .or_else(|| crate::quantity::parse_duration(r).ok())
    })
    .filter(|d| !d.is_zero())
    .map(|d| d.min(std::time::Duration::from_secs(3600)))
    .unwrap_or(KUBERNETES_COMPACTION)
}

/// Size against quota: a member over its quota raises NOSPACE.
pub fn quota(look: &ClusterLook) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in &look.members {
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
pub fn versions(look: &ClusterLook) -> Vec<Finding> {
    let mut minors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in &look.members {
        let Some(s) = m.status() else { continue };
        minors
            .entry(s.line())
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
pub fn learners(look: &ClusterLook, verdict: &GateVerdict) -> Vec<Finding> {
    let leader_applied = verdict
        .leader
        .and_then(|l| look.member_by_id(l))
        .and_then(|m| m.status())
        .map(|s| s.raft_applied_index);
    look.members
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

/// Room on each member's data volume for a defrag, by the sweep's own
/// rule (`plan::room`): a member whose volume lacks it is critical (the
/// sweep holds it back); members whose room is not known are left out
/// (the command lists them as not read). Learners are never defragmented.
pub fn defrag_space(look: &ClusterLook) -> Vec<Finding> {
    use crate::plan::room::{judge, short, Verdict, REMEDY};
    look.members
        .iter()
        .filter(|m| !m.is_learner())
        .filter_map(|m| {
            let s = m.status()?;
            match judge(s.db_size_in_use, m.room.as_ref()) {
                Verdict::Short { needed, room } => Some(finding(
                    Severity::Critical,
                    "defrag-space",
                    Some(&m.name),
                    format!(
                        "{}, so a defrag would fail for lack of space",
                        short(&m.name, s.db_size_in_use, needed, room)
                    ),
                    REMEDY,
                )),
                _ => None,
            }
        })
        .collect()
}

/// What `defrag-space` says when every member it could judge has room.
pub fn defrag_space_passed(look: &ClusterLook) -> Option<String> {
    use crate::plan::room::{judge, Verdict};
    let fits: Vec<String> = look
        .members
        .iter()
        .filter(|m| !m.is_learner())
        .filter_map(|m| {
            let s = m.status()?;
            match judge(s.db_size_in_use, m.room.as_ref()) {
                Verdict::Fits { needed, room } => Some(format!(
                    "{} has {} free for {}",
                    m.name,
                    format_bytes(room.free_bytes),
                    format_bytes(needed)
                )),
                _ => None,
            }
        })
        .collect();
    (!fits.is_empty()).then(|| format!("a defrag fits on the data volume: {}", fits.join("; ")))
}

/// What doctor knows of how the cluster is set up, for the defects that
/// bite only in some setups (`defects::Applies`). `None`: not known.
#[derive(Debug, Clone, Copy, Default)]
pub struct Setup<'a> {
    /// Authentication is on: the tool authenticated (etcd refuses a user
    /// when it is off).
    pub auth: Option<bool>,
    /// The members serve clients over TLS (the tool dialed them so).
    pub tls: Option<bool>,
    /// Member name → its Pod's etcd arguments (plugin mode).
    pub pod_args: Option<&'a BTreeMap<String, Vec<String>>>,
}

impl Setup<'_> {
    /// Whether `applies` holds for `member`.
    fn holds(&self, applies: Applies, member: &str) -> Option<bool> {
        match applies {
            Applies::Always => Some(true),
            Applies::WithAuth => self.auth,
            Applies::WithTls => self.tls,
            Applies::WithFlags(flags) => {
                let args = self.pod_args?.get(member)?;
                Some(flags.iter().all(|f| {
                    args.iter()
                        .any(|a| a == f || a.starts_with(&format!("{f}=")))
                }))
            }
        }
    }
}

/// What a setup condition is, in words.
fn condition(applies: Applies) -> String {
    match applies {
        Applies::Always => String::new(),
        Applies::WithAuth => "authentication is on".into(),
        Applies::WithTls => "the members serve clients over TLS".into(),
        Applies::WithFlags(flags) => format!("the member runs with {}", flags.join(" and ")),
    }
}

/// Known defects of the releases the members run (`defects`): one finding
/// per defect, naming every member it affects and the release to upgrade
/// to. Defects of defragmentation, data and promotion are warnings; a
/// security advisory is critical on the members its condition is known to
/// hold for, a warning where it cannot be told, and left out where it is
/// known not to hold; a defect in what members report, which the tool
/// reads around, is ok (said in `-o wide` and JSON).
pub fn known_defects(look: &ClusterLook, setup: &Setup<'_>) -> Vec<Finding> {
    use crate::defects::among;
    let mut out = Vec::new();
    for a in among(look.versions()) {
        let defect = a.hit.defect;
        let holds: Vec<(String, Option<bool>)> = a
            .names
            .iter()
            .zip(&a.members)
            .map(|(name, who)| (who.clone(), setup.holds(defect.applies, name)))
            .filter(|(_, h)| *h != Some(false))
            .collect();
        if holds.is_empty() {
            continue;
        }
        let members: Vec<String> = holds.iter().map(|(who, _)| who.clone()).collect();
        let known = holds.iter().any(|(_, h)| *h == Some(true));
        let runs = format!(
            "{} run{}",
            members.join(", "),
            if members.len() == 1 { "s" } else { "" }
        );
        let (severity, message) = match defect.touches {
            Touches::Security => {
                let severity = if known {
                    Severity::Critical
                } else {
                    Severity::Warning
                };
                let mut message = format!(
                    "{runs} a release with security advisory {}: {}",
                    defect.advisory, defect.summary
                );
                if !known {
                    message.push_str(&format!(
                        "; it applies only where {}, which this tool could not tell",
                        condition(defect.applies)
                    ));
                }
                (severity, message)
            }
            Touches::Reporting => (
                Severity::Ok,
                format!("{runs} a release with a known defect: {}", defect.summary),
            ),
            touches => {
                let what = match touches {
                    Touches::Defrag => "defragmentation",
                    Touches::Promotion => "learner promotion",
                    _ => "data",
                };
                (
                    Severity::Warning,
                    format!(
                        "{runs} a release with a known {what} defect: {}",
                        defect.summary
                    ),
                )
            }
        };
        let remedy = if severity == Severity::Ok {
            String::new()
        } else {
            a.hit.advice(a.release)
        };
        out.push(finding(
            severity,
            &format!("known-defect/{}", defect.code),
            None,
            message,
            remedy,
        ));
    }
    out
}

/// Members on a release line etcd no longer fixes (`defects::END_OF_LIFE`):
/// one warning per line naming them, with the way up.
pub fn end_of_life(look: &ClusterLook) -> Vec<Finding> {
    let mut by_line: Vec<(crate::defects::EndOfLife, Vec<String>)> = Vec::new();
    for m in &look.members {
        let Some(release) = m.status().and_then(|s| s.release()) else {
            continue;
        };
        let Some(eol) = crate::defects::end_of_life(release) else {
            continue;
        };
        let who = format!("{} ({release})", m.name);
        match by_line.iter_mut().find(|(e, _)| *e == eol) {
            Some((_, members)) => members.push(who),
            None => by_line.push((eol, vec![who])),
        }
    }
    by_line
        .into_iter()
        .map(|(eol, members)| {
            let (major, minor) = eol.last.line();
            finding(
                Severity::Warning,
                "end-of-life",
                None,
                format!(
                    "{} run{} etcd {major}.{minor}, which reached its end of life with {} ({}): no fixes come after it, security fixes included",
                    members.join(", "),
                    if members.len() == 1 { "s" } else { "" },
                    eol.last,
                    eol.date
                ),
                format!(
                    "upgrade to {major}.{next}, one minor release at a time (doctor's --upgrade-to {major}.{next} lists what stands in the way)",
                    next = minor + 1
                ),
            )
        })
        .collect()
}

/// Members whose Pod's probe would have the kubelet restart them in the
/// middle of a defrag (`plan::probes`), each with the numbers; when none
/// would, one `ok` finding that says how each member's probe fares. Empty
/// when no member's probes are known (standalone mode, or no Pods).
pub fn probe_budgets(look: &ClusterLook) -> Vec<Finding> {
    use crate::plan::probes::{budget, remedy, Budget};
    let mut over = Vec::new();
    let mut fine = Vec::new();
    for m in &look.members {
        let Some(status) = m.status() else { continue };
        match budget(m, status.db_size_in_use, &Measured::default()) {
            Some(Budget::Exceeded(risk)) => over.push(finding(
                Severity::Warning,
                "probe-budget",
                Some(&m.name),
                risk.to_string(),
                remedy(&risk),
            )),
            Some(Budget::Within(risk)) => fine.push(format!(
                "{}: {} restarts it after {:.0}s of defrag at the earliest, its defrag is predicted at {:.1}s",
                m.name,
                risk.probe.describe(),
                risk.window.earliest_seconds,
                risk.predicted_seconds
            )),
            Some(Budget::Untouched { probe, why }) => {
                fine.push(format!("{}: {} ({why})", m.name, probe.describe()))
            }
            None => {}
        }
    }
    if !over.is_empty() || fine.is_empty() {
        return over;
    }
    vec![finding(
        Severity::Ok,
        "probe-budget",
        None,
        format!(
            "no member's probe would have the kubelet restart it mid-defrag: {}",
            fine.join("; ")
        ),
        "",
    )]
}
