//! A fleet sweep's report (`defrag -A`, `defrag -l SELECTOR`): one entry
//! per EtcdCluster holding the very `DefragReport` a single-cluster run
//! prints (or, when there is none, why), the outcome derived from it, and
//! totals. Built purely; the command only collects the entries.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Serialize;

use super::{ClusterRef, DefragReport, Outcome, StopReason};

/// How one cluster of a fleet sweep ended. The names are stable (JSON and
/// the table's OUTCOME column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FleetOutcome {
    /// Every planned member was defragmented, NOSPACE cleared where it
    /// could be, and the members agree.
    Completed,
    /// The rule planned no member (or `--dry-run`: would plan none), and
    /// nothing went wrong.
    NothingToDo,
    /// `--dry-run`: the gate passes and members would be defragmented.
    Planned,
    /// The health gate refused (`--dry-run`: would refuse now). Members
    /// already done before a refusal in mid-sweep stay done.
    Refused,
    /// The cluster could not be opened, or its run failed or stopped for a
    /// reason other than the gate or Ctrl-C.
    Failed,
    /// Ctrl-C stopped its run after the member in flight.
    Interrupted,
    /// Ctrl-C came before its turn: never contacted.
    NotStarted,
}

impl FleetOutcome {
    /// The outcome a cluster's report stands for. Pure.
    ///
    /// A dry run is `Refused` when the gate would refuse, else `Planned` or
    /// `NothingToDo` by whether any member is pending. A real run is
    /// decided by its stop reason first (the gate → `Refused`, Ctrl-C →
    /// `Interrupted`, anything else → `Failed`), then by whether it
    /// succeeded, then by whether it defragmented anything.
    pub fn of(report: &DefragReport) -> FleetOutcome {
        if report.dry_run {
            return if !report.refusal.is_empty() {
                FleetOutcome::Refused
            } else if report.members.iter().any(|m| m.outcome == Outcome::Pending) {
                FleetOutcome::Planned
            } else {
                FleetOutcome::NothingToDo
            };
        }
        match report.stop_reason() {
            Some(
                StopReason::GateRefused { .. } | StopReason::GateRefusedBeforeCompaction { .. },
            ) => FleetOutcome::Refused,
            Some(StopReason::Interrupted | StopReason::Abandoned { .. }) => {
                FleetOutcome::Interrupted
            }
            Some(_) => FleetOutcome::Failed,
            None if !report.succeeded() => FleetOutcome::Failed,
            None if report.defragmented() == 0 => FleetOutcome::NothingToDo,
            None => FleetOutcome::Completed,
        }
    }

    /// Whether this outcome makes the sweep exit 1.
    pub fn is_problem(self) -> bool {
        matches!(
            self,
            FleetOutcome::Refused
                | FleetOutcome::Failed
                | FleetOutcome::Interrupted
                | FleetOutcome::NotStarted
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FleetOutcome::Completed => "Completed",
            FleetOutcome::NothingToDo => "NothingToDo",
            FleetOutcome::Planned => "Planned",
            FleetOutcome::Refused => "Refused",
            FleetOutcome::Failed => "Failed",
            FleetOutcome::Interrupted => "Interrupted",
            FleetOutcome::NotStarted => "NotStarted",
        }
    }
}

/// One cluster of a fleet sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetCluster {
    pub cluster: ClusterRef,
    /// The kind of EtcdCluster (`cozystack`, `etcd-io`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<crate::reach::Kind>,
    pub outcome: FleetOutcome,
    /// One sentence on why it is not `Completed`/`Planned` (`null` then).
    pub why: Option<String>,
    /// The single-cluster report (the plan on a dry run); `null` when the
    /// cluster could not be opened or was never started.
    pub report: Option<DefragReport>,
    /// Why there is no report: the cluster could not be resolved or
    /// reached.
    pub error: Option<String>,
}

impl FleetCluster {
    /// The entry for a cluster that produced a report.
    pub fn from_report(cluster: ClusterRef, report: DefragReport) -> FleetCluster {
        let outcome = FleetOutcome::of(&report);
        FleetCluster {
            cluster,
            kind: None,
            outcome,
            why: why(outcome, &report),
            report: Some(report),
            error: None,
        }
    }

    /// The entry for a cluster that could not be opened or looked at.
    pub fn failed(cluster: ClusterRef, error: String) -> FleetCluster {
        FleetCluster {
            cluster,
            kind: None,
            outcome: FleetOutcome::Failed,
            why: Some(error.clone()),
            report: None,
            error: Some(error),
        }
    }

    /// The entry for a cluster a stop request kept from starting.
    pub fn not_started(cluster: ClusterRef) -> FleetCluster {
        FleetCluster {
            cluster,
            kind: None,
            outcome: FleetOutcome::NotStarted,
            why: Some("interrupted before its turn; not contacted".into()),
            report: None,
            error: None,
        }
    }

    /// This entry, saying which kind its cluster is.
    pub fn of_kind(self, kind: crate::reach::Kind) -> FleetCluster {
        FleetCluster {
            kind: Some(kind),
            ..self
        }
    }

    /// Members defragmented (0 without a report or on a dry run).
    pub fn defragmented(&self) -> usize {
        self.report.as_ref().map_or(0, DefragReport::defragmented)
    }

    /// Members the run set out to defragment: every member not skipped.
    pub fn planned(&self) -> usize {
        self.report.as_ref().map_or(0, |r| {
            r.members
                .iter()
                .filter(|m| m.outcome != Outcome::Skipped)
                .count()
        })
    }

    /// Bytes given back by the members defragmented.
    pub fn reclaimed(&self) -> u64 {
        self.report.as_ref().map_or(0, |r| {
            r.members.iter().filter_map(|m| m.reclaimed_bytes).sum()
        })
    }

    /// A dry run's predicted reclaim over its pending members.
    pub fn predicted_reclaim(&self) -> u64 {
        self.report.as_ref().filter(|r| r.dry_run).map_or(0, |r| {
            r.members
                .iter()
                .filter(|m| m.outcome == Outcome::Pending)
                .map(|m| m.predicted_reclaim)
                .sum()
        })
    }
}

/// The sentence for an outcome, from the report's own reasons.
fn why(outcome: FleetOutcome, report: &DefragReport) -> Option<String> {
    match outcome {
        FleetOutcome::Completed | FleetOutcome::Planned => None,
        FleetOutcome::NothingToDo => {
            let reasons: BTreeSet<&str> = report
                .members
                .iter()
                .filter_map(|m| m.reason.map(|r| r.as_str()))
                .collect();
            Some(format!(
                "no member to defragment ({} skipped: {})",
                report.members.len(),
                reasons.into_iter().collect::<Vec<_>>().join(", ")
            ))
        }
        FleetOutcome::Refused if report.dry_run => {
            let reasons: Vec<&str> = report.refusal.iter().map(|r| r.message.as_str()).collect();
            Some(format!(
                "the health gate would refuse now: {}",
                reasons.join("; ")
            ))
        }
        _ => {
            let problems = report.problems();
            (!problems.is_empty()).then(|| problems.join("; "))
        }
    }
}

/// The whole sweep: every cluster (sorted by namespace and name) and the
/// totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetReport {
    pub dry_run: bool,
    /// `--max-concurrent`: clusters swept at once.
    pub max_concurrent: usize,
    pub clusters: Vec<FleetCluster>,
    pub totals: FleetTotals,
    /// The contexts read when several were (`--context` more than once,
    /// `--all-contexts`); absent for one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<super::ContextRow>,
}

/// Counts over the sweep.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetTotals {
    pub clusters: usize,
    pub completed: usize,
    pub nothing_to_do: usize,
    pub planned: usize,
    pub refused: usize,
    pub failed: usize,
    pub interrupted: usize,
    pub not_started: usize,
    pub members_defragmented: usize,
    pub reclaimed_bytes: u64,
    /// On a dry run: what the pending members would give back.
    pub predicted_reclaim_bytes: u64,
    /// Wall time of the whole sweep (0 on a dry run).
    pub wall_ms: u64,
}

impl FleetReport {
    /// Sorts the entries and counts them. Pure.
    pub fn build(
        dry_run: bool,
        max_concurrent: usize,
        mut clusters: Vec<FleetCluster>,
        wall: Duration,
    ) -> FleetReport {
        clusters.sort_by(|a, b| {
            (&a.cluster.namespace, &a.cluster.name).cmp(&(&b.cluster.namespace, &b.cluster.name))
        });
        let count = |o: FleetOutcome| clusters.iter().filter(|c| c.outcome == o).count();
        let totals = FleetTotals {
            clusters: clusters.len(),
            completed: count(FleetOutcome::Completed),
            nothing_to_do: count(FleetOutcome::NothingToDo),
            planned: count(FleetOutcome::Planned),
            refused: count(FleetOutcome::Refused),
            failed: count(FleetOutcome::Failed),
            interrupted: count(FleetOutcome::Interrupted),
            not_started: count(FleetOutcome::NotStarted),
            members_defragmented: clusters.iter().map(FleetCluster::defragmented).sum(),
            reclaimed_bytes: clusters.iter().map(FleetCluster::reclaimed).sum(),
            predicted_reclaim_bytes: clusters.iter().map(FleetCluster::predicted_reclaim).sum(),
            wall_ms: if dry_run {
                0
            } else {
                u64::try_from(wall.as_millis()).unwrap_or(u64::MAX)
            },
        };
        FleetReport {
            dry_run,
            max_concurrent,
            clusters,
            totals,
            contexts: Vec::new(),
        }
    }

    /// This report over several contexts: the clusters in the contexts'
    /// order (each context's by namespace and name), and the contexts
    /// read. Pure.
    pub fn with_contexts(mut self, contexts: Vec<super::ContextRow>) -> FleetReport {
        let at = |c: &FleetCluster| {
            contexts
                .iter()
                .position(|r| Some(&r.name) == c.cluster.context.as_ref())
                .unwrap_or(0)
        };
        self.clusters.sort_by_key(at);
        self.contexts = contexts;
        self
    }

    /// The contexts that could not be reached: nothing in them was
    /// looked at, so they make the sweep exit 1 too.
    pub fn unreached(&self) -> impl Iterator<Item = &super::ContextRow> {
        super::ContextRow::unreached(&self.contexts)
    }

    /// The clusters that make the sweep exit 1.
    pub fn problems(&self) -> impl Iterator<Item = &FleetCluster> {
        self.clusters.iter().filter(|c| c.outcome.is_problem())
    }

    /// Whether a second Ctrl-C abandoned a member in flight somewhere.
    pub fn abandoned(&self) -> bool {
        self.clusters.iter().any(|c| {
            c.report
                .as_ref()
                .is_some_and(|r| matches!(r.stop_reason(), Some(StopReason::Abandoned { .. })))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::defrag::Role;
    use crate::plan::gate::ReasonView;
    use crate::plan::rule::DefragRule;
    use crate::report::{
        AlarmAction, AlarmResult, MemberReason, MemberResult, StopReason, Stopped,
    };

    fn member(name: &str, outcome: Outcome, reclaimed: Option<u64>) -> MemberResult {
        MemberResult {
            name: name.into(),
            id: "0000000000000001".into(),
            role: Role::Follower,
            outcome,
            reason: (outcome == Outcome::Skipped).then_some(MemberReason::BelowThreshold),
            detail: None,
            db_size_before: 100,
            db_size_in_use: 10,
            db_size_after: reclaimed.map(|r| 100 - r),
            reclaimed_bytes: reclaimed,
            predicted_reclaim: 90,
            duration_ms: None,
            recovered_ms: None,
        }
    }

    fn report(members: Vec<MemberResult>) -> DefragReport {
        DefragReport {
            cluster: None,
            dry_run: false,
            rule: DefragRule::default(),
            members,
            leader: None,
            stopped: None,
            refusal: Vec::new(),
            compacted_at: None,
            already_compacted: false,
            in_use_not_refreshed: None,
            wall_ms: 0,
            defrag_ms: 0,
            alarms: Vec::new(),
            hash_check: None,
            notes: Vec::new(),
            run: None,
        }
    }

    fn stopped(reason: StopReason) -> DefragReport {
        let mut r = report(vec![
            member("a", Outcome::Defragmented, Some(90)),
            member("b", Outcome::Pending, None),
        ]);
        r.stopped = Some(Stopped(reason));
        r
    }

    fn refusal() -> Vec<ReasonView> {
        vec![ReasonView {
            code: "MemberUnreachable",
            member: Some("b".into()),
            message: "member b is unreachable".into(),
        }]
    }

    fn at(ns: &str, name: &str) -> ClusterRef {
        ClusterRef::new(ns, name)
    }

    #[test]
    fn outcome_follows_the_stop_reason_then_success_then_work_done() {
        use FleetOutcome::*;
        let done = report(vec![
            member("a", Outcome::Defragmented, Some(90)),
            member("b", Outcome::Skipped, None),
        ]);
        assert_eq!(FleetOutcome::of(&done), Completed);
        let idle = report(vec![member("a", Outcome::Skipped, None)]);
        assert_eq!(FleetOutcome::of(&idle), NothingToDo);
        let refused = stopped(StopReason::GateRefused { reasons: vec![] });
        assert_eq!(FleetOutcome::of(&refused), Refused);
        let before = stopped(StopReason::GateRefusedBeforeCompaction { reasons: vec![] });
        assert_eq!(FleetOutcome::of(&before), Refused);
        assert_eq!(
            FleetOutcome::of(&stopped(StopReason::Interrupted)),
            Interrupted
        );
        let abandoned = stopped(StopReason::Abandoned { member: None });
        assert_eq!(FleetOutcome::of(&abandoned), Interrupted);
        let gone = stopped(StopReason::ClusterUnreachable { detail: "x".into() });
        assert_eq!(FleetOutcome::of(&gone), Failed);
        let failed = report(vec![member("a", Outcome::Failed, None)]);
        assert_eq!(FleetOutcome::of(&failed), Failed);
        // Nothing to defragment, but an alarm stayed raised: not a success.
        let mut kept = idle.clone();
        kept.alarms.push(AlarmAction {
            member: "a".into(),
            member_id: "1".into(),
            alarm: "NOSPACE".into(),
            result: AlarmResult::Kept,
            why: "over quota".into(),
            denied: false,
        });
        assert_eq!(FleetOutcome::of(&kept), Failed);
    }

    #[test]
    fn dry_run_outcome_is_the_gate_then_the_plan() {
        let mut plan = report(vec![
            member("a", Outcome::Pending, None),
            member("b", Outcome::Skipped, None),
        ]);
        plan.dry_run = true;
        assert_eq!(FleetOutcome::of(&plan), FleetOutcome::Planned);
        let mut refused = plan.clone();
        refused.refusal = refusal();
        assert_eq!(FleetOutcome::of(&refused), FleetOutcome::Refused);
        let entry = FleetCluster::from_report(at("ns", "c"), refused);
        assert_eq!(
            entry.why.as_deref(),
            Some("the health gate would refuse now: member b is unreachable")
        );
        let mut idle = report(vec![member("a", Outcome::Skipped, None)]);
        idle.dry_run = true;
        let entry = FleetCluster::from_report(at("ns", "c"), idle);
        assert_eq!(entry.outcome, FleetOutcome::NothingToDo);
        assert_eq!(
            entry.why.as_deref(),
            Some("no member to defragment (1 skipped: BelowThreshold)")
        );
    }

    #[test]
    fn why_names_the_problem_and_is_absent_on_success() {
        let done = FleetCluster::from_report(
            at("ns", "c"),
            report(vec![member("a", Outcome::Defragmented, Some(90))]),
        );
        assert_eq!(done.why, None);
        let refused = FleetCluster::from_report(
            at("ns", "c"),
            stopped(StopReason::GateRefused { reasons: vec![] }),
        );
        assert!(
            refused
                .why
                .as_deref()
                .is_some_and(|w| w.starts_with("stopped: the health gate refused")),
            "{refused:?}"
        );
        let failed = FleetCluster::from_report(
            at("ns", "c"),
            report(vec![{
                let mut m = member("a", Outcome::Failed, None);
                m.reason = Some(MemberReason::RpcError);
                m
            }]),
        );
        assert_eq!(failed.why.as_deref(), Some("a failed (RPCError)"));
        let unreachable = FleetCluster::failed(at("ns", "c"), "cannot resolve".into());
        assert_eq!(unreachable.why.as_deref(), Some("cannot resolve"));
        assert_eq!(unreachable.error.as_deref(), Some("cannot resolve"));
    }

    #[test]
    fn totals_count_outcomes_members_and_bytes_and_entries_are_sorted() {
        let clusters = vec![
            FleetCluster::from_report(
                at("b", "z"),
                report(vec![
                    member("a", Outcome::Defragmented, Some(90)),
                    member("b", Outcome::Defragmented, Some(80)),
                ]),
            ),
            FleetCluster::from_report(
                at("a", "y"),
                stopped(StopReason::GateRefused { reasons: vec![] }),
            ),
            FleetCluster::failed(at("a", "x"), "no".into()),
            FleetCluster::not_started(at("c", "w")),
        ];
        let fleet = FleetReport::build(false, 2, clusters, Duration::from_millis(1500));
        let names: Vec<&str> = fleet
            .clusters
            .iter()
            .map(|c| c.cluster.name.as_str())
            .collect();
        assert_eq!(names, ["x", "y", "z", "w"]);
        let t = &fleet.totals;
        assert_eq!(
            (t.clusters, t.completed, t.refused, t.failed, t.not_started),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(t.members_defragmented, 3);
        assert_eq!(t.reclaimed_bytes, 260);
        assert_eq!(t.wall_ms, 1500);
        let problems: Vec<&str> = fleet.problems().map(|c| c.cluster.name.as_str()).collect();
        assert_eq!(problems, ["x", "y", "w"]);
        assert!(!fleet.abandoned());
        let json = serde_json::to_value(&fleet).unwrap_or_default();
        assert_eq!(json["clusters"][1]["outcome"], "Refused");
        assert_eq!(json["clusters"][0]["report"], serde_json::Value::Null);
        assert_eq!(json["totals"]["membersDefragmented"], 3);
    }

    #[test]
    fn a_dry_run_totals_the_predicted_reclaim() {
        let mut plan = report(vec![
            member("a", Outcome::Pending, None),
            member("b", Outcome::Pending, None),
            member("c", Outcome::Skipped, None),
        ]);
        plan.dry_run = true;
        let entry = FleetCluster::from_report(at("ns", "c"), plan);
        assert_eq!((entry.planned(), entry.defragmented()), (2, 0));
        let fleet = FleetReport::build(true, 2, vec![entry], Duration::from_secs(3));
        assert_eq!(fleet.totals.predicted_reclaim_bytes, 180);
        assert_eq!(fleet.totals.wall_ms, 0);
        assert_eq!(fleet.totals.planned, 1);
    }
}
