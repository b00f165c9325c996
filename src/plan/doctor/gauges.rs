//! What `doctor --serve` shows of one examination as numbers: the members
//! (desired, answering, voting, learners, quorum margin, leader), their
//! sizes against the quota, the alarms, the gate's verdict, each check's
//! severity and each member's last defragmentation. Pure.
//!
//! Every label value comes from a bounded set: member names (a cluster's
//! own), gate reason codes and alarm kinds (etcd's two, any other folded
//! into `other`), and check ids through [`check_label`].

use std::collections::{BTreeMap, BTreeSet};

use super::runs::RunFact;
use super::{Finding, Severity};
use crate::look::{AlarmKind, ClusterLook};
use crate::plan::gate::GateVerdict;

/// One examined cluster, as gauges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterGauges {
    /// The members its cluster object asks for; `None` without one.
    pub desired: Option<u64>,
    /// Members whose Status answered.
    pub answering: u64,
    /// Voting members (MemberList's, else those looked at).
    pub voting: u64,
    pub learners: u64,
    /// Voters answering beyond a quorum: 0 means one more lost loses it;
    /// negative, quorum is lost.
    pub quorum_margin: i64,
    /// The leader every answering member agrees on.
    pub leader: Option<String>,
    pub gate_open: bool,
    /// The gate's reason codes, each once.
    pub gate_refusals: BTreeSet<&'static str>,
    /// (member, alarm): `NOSPACE`, `CORRUPT` or `other`.
    pub alarms: BTreeSet<(String, &'static str)>,
    pub members: Vec<MemberGauges>,
    /// The worst severity of each check ([`check_label`]).
    pub checks: BTreeMap<String, Severity>,
    /// When each member was last defragmented by a run (Unix seconds).
    pub last_defrag: BTreeMap<String, i64>,
}

/// One member, as gauges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberGauges {
    pub name: String,
    pub up: bool,
    pub leader: bool,
    pub learner: bool,
    /// Backend size and what of it is in use; `None` when it did not
    /// answer.
    pub db_size: Option<u64>,
    pub in_use: Option<u64>,
    /// The quota that applies to it (0: not known).
    pub quota: u64,
}

impl MemberGauges {
    /// What a defragmentation would give back.
    pub fn reclaimable(&self) -> Option<u64> {
        Some(self.db_size?.saturating_sub(self.in_use?))
    }

    /// The backend's share of its quota.
    pub fn quota_use(&self) -> Option<f64> {
        (self.quota > 0).then_some(self.db_size? as f64 / self.quota as f64)
    }
}

/// The gauges of a cluster that was looked at. `desired` is what its
/// cluster object asks for; `runs` its EtcdDefrags (plugin mode).
pub fn of(
    look: &ClusterLook,
    verdict: &GateVerdict,
    findings: &[Finding],
    desired: Option<u64>,
    runs: &[RunFact],
) -> ClusterGauges {
    let leader = verdict.leader;
    let members: Vec<MemberGauges> = look
        .members
        .iter()
        .map(|m| {
            let status = m.status();
            MemberGauges {
                name: m.name.clone(),
                up: status.is_some(),
                leader: leader.is_some() && m.id == leader,
                learner: m.listed.as_ref().is_some_and(|l| l.is_learner)
                    || status.is_some_and(|s| s.is_learner),
                db_size: status.map(|s| s.db_size),
                in_use: status.map(|s| s.db_size_in_use),
                quota: m.quota_bytes,
            }
        })
        .collect();
    let voters = members.iter().filter(|m| !m.learner);
    let voting = voters.clone().count() as u64;
    let voting_up = voters.filter(|m| m.up).count() as i64;
    let quorum = (voting / 2 + 1) as i64;
    let alarms = look
        .alarms
        .iter()
        .map(|a| (look.name_of(a.member_id), alarm_label(&a.kind)))
        .collect();
    ClusterGauges {
        desired,
        answering: members.iter().filter(|m| m.up).count() as u64,
        voting,
        learners: members.iter().filter(|m| m.learner).count() as u64,
        quorum_margin: voting_up - quorum,
        leader: leader.map(|id| look.name_of(id)),
        gate_open: verdict.passed(),
        gate_refusals: verdict.reasons.iter().map(|r| r.code()).collect(),
        alarms,
        members,
        checks: checks(findings),
        last_defrag: last_defrag(runs),
    }
}

/// The gauges of a cluster nothing answered for: its findings only.
pub fn unreached(findings: &[Finding], desired: Option<u64>) -> ClusterGauges {
    ClusterGauges {
        desired,
        checks: checks(findings),
        ..ClusterGauges::default()
    }
}

fn alarm_label(kind: &AlarmKind) -> &'static str {
    match kind {
        AlarmKind::Nospace => "NOSPACE",
        AlarmKind::Corrupt => "CORRUPT",
        AlarmKind::Other(_) => "other",
    }
}

/// The worst severity of each check, by label.
fn checks(findings: &[Finding]) -> BTreeMap<String, Severity> {
    let mut out: BTreeMap<String, Severity> = BTreeMap::new();
    for f in findings {
        let worst = out.entry(check_label(&f.check)).or_insert(Severity::Ok);
        // An acknowledged finding is served as its check passing: the
        // alerts on check severities stay quiet for what was accepted.
        if !f.acknowledged {
            *worst = (*worst).max(f.severity);
        }
    }
    out
}

/// The label of a check: its id (`fragmentation`, `gate/ApplyLag`,
/// `known-defect/<code>`), which the code's checks, gate reasons, defect
/// table, feature gates and upgrade checks bound; an alarm etcd may add
/// folds into `alarm/other`, and anything not shaped like an id into
/// `other`.
pub fn check_label(check: &str) -> String {
    let id_like = |s: &str| {
        !s.is_empty()
            && s.len() <= 48
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match check.split_once('/') {
        Some(("alarm", "NOSPACE" | "CORRUPT")) => check.to_string(),
        Some(("alarm", _)) => "alarm/other".to_string(),
        Some((family, rest)) if id_like(family) && id_like(rest) => check.to_string(),
        None if id_like(check) => check.to_string(),
        _ => "other".to_string(),
    }
}

/// When each member was last defragmented, over all runs.
fn last_defrag(runs: &[RunFact]) -> BTreeMap<String, i64> {
    let mut out: BTreeMap<String, i64> = BTreeMap::new();
    for (member, at) in runs.iter().flat_map(|r| &r.defragmented) {
        let last = out.entry(member.clone()).or_insert(*at);
        *last = (*last).max(*at);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::look::{Alarm, MemberLook, MemberStatus, Probe};
    use crate::plan::gate::GateReason;

    fn member(name: &str, id: u64, answered: Option<(u64, u64)>, learner: bool) -> MemberLook {
        let probe = match answered {
            Some((db_size, in_use)) => Probe::Answered(MemberStatus {
                member_id: id,
                db_size,
                db_size_in_use: in_use,
                leader: 1,
                is_learner: learner,
                ..MemberStatus::default()
            }),
            None => Probe::NotProbed("stopped".into()),
        };
        MemberLook {
            quota_bytes: 1000,
            ..MemberLook::listed_for_test(name, id, learner, probe)
        }
    }

    fn look(members: Vec<MemberLook>) -> ClusterLook {
        ClusterLook {
            members,
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn finding(check: &str, severity: Severity) -> Finding {
        Finding {
            severity,
            check: check.into(),
            member: None,
            message: String::new(),
            remedy: String::new(),
            acknowledged: false,
        }
    }

    #[test]
    fn members_quorum_leader_sizes_and_alarms() {
        let look = ClusterLook {
            alarms: vec![
                Alarm {
                    member_id: 1,
                    kind: AlarmKind::Nospace,
                },
                Alarm {
                    member_id: 3,
                    kind: AlarmKind::Other("WEIRD".into()),
                },
            ],
            ..look(vec![
                member("a", 1, Some((800, 200)), false),
                member("b", 2, None, false),
                member("c", 3, Some((500, 400)), false),
                member("l", 4, Some((100, 100)), true),
            ])
        };
        let verdict = GateVerdict {
            reasons: vec![GateReason::MemberUnreachable {
                member: "b".into(),
                cause: "no answer".into(),
            }],
            leader: Some(1),
        };
        let g = of(&look, &verdict, &[], Some(3), &[]);
        assert_eq!(g.desired, Some(3));
        assert_eq!((g.answering, g.voting, g.learners), (3, 3, 1));
        // Two of three voters answer; a quorum is two: no margin left.
        assert_eq!(g.quorum_margin, 0);
        assert_eq!(g.leader.as_deref(), Some("a"));
        assert!(!g.gate_open);
        assert_eq!(
            g.gate_refusals.iter().copied().collect::<Vec<_>>(),
            ["MemberUnreachable"]
        );
        assert_eq!(
            g.alarms.iter().cloned().collect::<Vec<_>>(),
            [("a".to_string(), "NOSPACE"), ("c".to_string(), "other")]
        );
        let a = &g.members[0];
        assert!(a.up && a.leader && !a.learner);
        assert_eq!(a.reclaimable(), Some(600));
        assert_eq!(a.quota_use(), Some(0.8));
        let b = &g.members[1];
        assert!(!b.up && !b.leader);
        assert_eq!((b.reclaimable(), b.quota_use()), (None, None));
        assert!(g.members[3].learner);
    }

    #[test]
    fn quorum_margin_goes_negative_when_quorum_is_lost() {
        let look = look(vec![
            member("a", 1, Some((1, 1)), false),
            member("b", 2, None, false),
            member("c", 3, None, false),
        ]);
        let g = of(&look, &GateVerdict::default(), &[], None, &[]);
        assert_eq!(g.quorum_margin, -1);
        assert_eq!(g.leader, None);
        assert!(g.gate_open, "the verdict is the caller's");
    }

    #[test]
    fn checks_keep_their_worst_severity_under_a_bounded_label() {
        let findings = [
            finding("fragmentation", Severity::Ok),
            finding("fragmentation", Severity::Warning),
            finding("gate/ApplyLag", Severity::Critical),
            finding("alarm/NOSPACE", Severity::Critical),
            finding("alarm/SOMETHING_NEW", Severity::Critical),
            finding("known-defect/v3.5-data-inconsistency", Severity::Warning),
            finding("with spaces", Severity::Warning),
            finding("a/b/c", Severity::Warning),
        ];
        let g = unreached(&findings, None);
        let labels: Vec<(&str, Severity)> =
            g.checks.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            labels,
            [
                ("alarm/NOSPACE", Severity::Critical),
                ("alarm/other", Severity::Critical),
                ("fragmentation", Severity::Warning),
                ("gate/ApplyLag", Severity::Critical),
                ("known-defect/v3.5-data-inconsistency", Severity::Warning),
                ("other", Severity::Warning),
            ]
        );
    }

    #[test]
    fn the_last_defrag_of_each_member_over_all_runs() {
        let run = |rows: &[(&str, i64)]| RunFact {
            name: "r".into(),
            phase: "Complete".into(),
            created: 0,
            started: true,
            reason: String::new(),
            message: String::new(),
            defragmented: rows.iter().map(|(m, t)| (m.to_string(), *t)).collect(),
        };
        let runs = [run(&[("a", 100), ("b", 110)]), run(&[("a", 300)])];
        let g = of(&look(vec![]), &GateVerdict::default(), &[], None, &runs);
        assert_eq!(
            g.last_defrag.into_iter().collect::<Vec<_>>(),
            [("a".to_string(), 300), ("b".to_string(), 110)]
        );
    }
}
