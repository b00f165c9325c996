//! `defrag --via-operator`: the EtcdDefrag it hands to the operator's
//! controller, what it says while that controller drives the run, and the
//! finished run as the `DefragReport` a direct sweep prints. Pure; the
//! command (`commands/via_operator.rs`) reads and writes the objects.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::ObjectMeta;

use super::phase::result_from_row;
use crate::k8s::crd::{
    DefragPhase, DefragRuleSpec, EtcdDefrag, EtcdDefragSpec, EtcdDefragStatus, MemberDefragStatus,
    NameRef,
};
use crate::plan::defrag::Role;
use crate::plan::rule::DefragRule;
use crate::quantity::{format_bytes, format_quantity};
use crate::report::{
    ClusterRef, DefragReport, MemberResult, OperatorRun, Outcome, StopReason, Stopped,
};

/// The label every run this tool hands over carries, so that `status`,
/// `doctor` and a person can tell them from a policy's runs.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "kubectl-etcd");

/// The rule as `spec.rule`: absent when it is the default (the operator's
/// defaults are ours: 200Mi free space, 32Mi least reclaim).
pub fn rule_spec(rule: &DefragRule) -> Option<DefragRuleSpec> {
    if *rule == DefragRule::default() {
        return None;
    }
    Some(DefragRuleSpec {
        all: rule.all.then_some(true),
        free_space_above: rule.free_space_above.map(format_quantity),
        quota_usage_above: rule.quota_usage_above.map(|p| format!("{p}%")),
        min_reclaim: rule.min_reclaim.map(format_quantity),
    })
}

/// The EtcdDefrag `--via-operator` creates for EtcdCluster
/// `namespace/cluster`. Its name is the API server's
/// (`<cluster>-defrag-<5 letters>`); the labels are the ones the
/// operator's policies put on their runs plus [`MANAGED_BY`].
pub fn new_run(namespace: &str, cluster: &str, rule: &DefragRule, ttl_seconds: i32) -> EtcdDefrag {
    let labels = BTreeMap::from([
        (
            crate::contract::CLUSTER_LABEL.to_string(),
            cluster.to_string(),
        ),
        (MANAGED_BY.0.to_string(), MANAGED_BY.1.to_string()),
    ]);
    EtcdDefrag {
        metadata: ObjectMeta {
            generate_name: Some(format!("{cluster}-defrag-")),
            namespace: Some(namespace.to_string()),
            labels: Some(labels),
            ..ObjectMeta::default()
        },
        spec: EtcdDefragSpec {
            cluster_ref: NameRef {
                name: cluster.to_string(),
            },
            rule: rule_spec(rule),
            ttl_seconds_after_finished: Some(ttl_seconds),
        },
        status: None,
    }
}

/// Whether anybody has taken the run up: any status at all was written.
pub fn claimed(run: &EtcdDefrag) -> bool {
    run.status
        .as_ref()
        .is_some_and(|s| s.phase.is_some() || !s.conditions.is_empty() || !s.members.is_empty())
}

/// Whether the run is over.
pub fn finished(run: &EtcdDefrag) -> bool {
    run.status
        .as_ref()
        .is_some_and(EtcdDefragStatus::is_terminal)
}

/// Whether no member has been touched yet: deleting the run now changes
/// nothing on the cluster.
pub fn not_started(run: &EtcdDefrag) -> bool {
    run.status
        .as_ref()
        .is_none_or(|s| s.started_at.is_none() && s.members.iter().all(|m| m.outcome == "Pending"))
}

/// What the command says as the run moves: the lines for the changes
/// between the status seen last and this one, and for events not seen
/// before.
#[derive(Debug, Default)]
pub struct Follow {
    last: Option<EtcdDefragStatus>,
    events: BTreeSet<(String, i32)>,
}

impl Follow {
    /// The lines for `status` (the run's status now), against the last one
    /// seen: the phase, the condition's reason and message, the order once
    /// the members are planned, and each member as it finishes.
    pub fn status_lines(&mut self, status: Option<&EtcdDefragStatus>) -> Vec<String> {
        let empty = EtcdDefragStatus::default();
        let now = status.unwrap_or(&empty);
        let before = self.last.as_ref().unwrap_or(&empty);
        let mut lines = Vec::new();
        let condition = |s: &EtcdDefragStatus| {
            s.conditions
                .first()
                .map(|c| (c.reason.clone(), c.message.clone()))
        };
        if now.phase != before.phase {
            if let Some(phase) = now.phase {
                lines.push(format!("phase {}", phase.as_str()));
            }
        }
        if condition(now) != condition(before) {
            if let Some((reason, message)) = condition(now) {
                lines.push(format!("{reason}: {message}"));
            }
        }
        if before.members.is_empty() && !now.members.is_empty() {
            let order: Vec<String> = now
                .members
                .iter()
                .map(|m| match m.role.as_str() {
                    "" => m.name.clone(),
                    role => format!("{} ({role})", m.name),
                })
                .collect();
            lines.push(format!("order: {}", order.join(" → ")));
        }
        for row in &now.members {
            let was = before.members.iter().find(|b| b.name == row.name);
            let done = row.outcome != "Pending" && !row.outcome.is_empty();
            if done && was.is_none_or(|w| w.outcome != row.outcome) {
                lines.push(member_line(row));
            }
        }
        self.last = status.cloned();
        lines
    }

    /// The lines for events about the run not seen before, oldest first:
    /// the operator's deferrals and failures as it records them.
    pub fn event_lines(&mut self, events: &[Event]) -> Vec<String> {
        let mut fresh: Vec<&Event> = events
            .iter()
            .filter(|e| {
                let key = (
                    e.metadata.name.clone().unwrap_or_default(),
                    e.count.unwrap_or(1),
                );
                self.events.insert(key)
            })
            .collect();
        fresh.sort_by_key(|e| {
            e.last_timestamp
                .as_ref()
                .or(e.first_timestamp.as_ref())
                .map(|t| t.0)
        });
        fresh
            .into_iter()
            .map(|e| {
                format!(
                    "event {} {}: {}",
                    e.type_.as_deref().unwrap_or("Normal"),
                    e.reason.as_deref().unwrap_or(""),
                    e.message.as_deref().unwrap_or("")
                )
            })
            .collect()
    }
}

/// One finished member, as a progress line.
fn member_line(row: &MemberDefragStatus) -> String {
    let role = match row.role.as_str() {
        "" => String::new(),
        role => format!(" ({role})"),
    };
    let reason = match row.reason.as_str() {
        "" => String::new(),
        reason => format!(" ({reason})"),
    };
    let sizes = match (row.db_size_before, row.db_size_after, row.reclaimed_bytes) {
        (Some(before), Some(after), reclaimed) => format!(
            ": {} → {}, {} reclaimed",
            format_bytes(u64::try_from(before).unwrap_or(0)),
            format_bytes(u64::try_from(after).unwrap_or(0)),
            format_bytes(reclaimed.and_then(|r| u64::try_from(r).ok()).unwrap_or(0))
        ),
        (Some(before), None, _) => {
            format!(": {}", format_bytes(u64::try_from(before).unwrap_or(0)))
        }
        _ => String::new(),
    };
    format!("{}{role}: {}{reason}{sizes}", row.name, row.outcome)
}

/// The run as a `defrag` report: one member per status row (those not
/// reached Pending), the rule handed over, and why it ended early when it
/// did — the operator's reason for a Failed run that is not a member's
/// failure, or `Interrupted` when the command stopped following a run that
/// goes on. `ids` maps member names to their ids (EtcdMember
/// `status.memberID`); in-use sizes and durations are not recorded by the
/// operator and stay unknown.
pub fn report(
    run: &EtcdDefrag,
    rule: DefragRule,
    cluster: ClusterRef,
    ids: &BTreeMap<String, String>,
    now: Timestamp,
) -> DefragReport {
    let status = run.status.clone().unwrap_or_default();
    let members: Vec<MemberResult> = status
        .members
        .iter()
        .map(|row| {
            let mut result = result_from_row(row).unwrap_or_else(|| pending(row));
            result.id = ids.get(&row.name).cloned().unwrap_or_default();
            result
        })
        .collect();
    let condition = status.conditions.first();
    let stopped = match status.phase {
        Some(DefragPhase::Failed) => match condition.map(|c| c.reason.as_str()) {
            Some("MemberFailed") | None => None,
            Some("DeadlineExceeded") => Some(StopReason::DeadlineExceeded),
            Some(reason) => Some(StopReason::RunFailed {
                reason: reason.to_string(),
                message: condition.map(|c| c.message.clone()).unwrap_or_default(),
            }),
        },
        Some(DefragPhase::Complete) => None,
        _ => Some(StopReason::Interrupted),
    };
    let began = status
        .started_at
        .as_ref()
        .map(|t| t.0)
        .or_else(|| run.metadata.creation_timestamp.as_ref().map(|t| t.0));
    let ended = status.completed_at.as_ref().map_or(now, |t| t.0);
    let wall_ms = began.map_or(0, |b| {
        u64::try_from(ended.duration_since(b).as_millis()).unwrap_or(0)
    });
    let leader_last = status.members.iter().any(|m| m.role == "leader");
    let mut notes = vec![format!(
        "run by the etcd-operator's defrag controller as EtcdDefrag {}/{}: its health gate, its order (followers first, the leader in place, last) and its 5-minute Defragment timeout",
        run.metadata.namespace.as_deref().unwrap_or(""),
        run.metadata.name.as_deref().unwrap_or("")
    )];
    if !leader_last && !status.members.is_empty() {
        notes.push("no member was the leader when the run was planned".into());
    }
    DefragReport {
        cluster: Some(cluster),
        dry_run: false,
        rule,
        members,
        leader: None,
        stopped: stopped.map(Stopped),
        refusal: Vec::new(),
        compacted_at: None,
        already_compacted: false,
        in_use_not_refreshed: None,
        wall_ms,
        defrag_ms: 0,
        alarms: Vec::new(),
        hash_check: None,
        notes,
        run: Some(OperatorRun {
            namespace: run.metadata.namespace.clone().unwrap_or_default(),
            name: run.metadata.name.clone().unwrap_or_default(),
            phase: status.phase_or_pending().as_str().to_string(),
            condition: condition.map(|c| format!("{}: {}", c.reason, c.message)),
        }),
    }
}

/// A member the run has not reached.
fn pending(row: &MemberDefragStatus) -> MemberResult {
    MemberResult {
        name: row.name.clone(),
        id: String::new(),
        role: if row.role == "leader" {
            Role::Leader
        } else {
            Role::Follower
        },
        outcome: Outcome::Pending,
        reason: None,
        detail: None,
        db_size_before: 0,
        db_size_in_use: 0,
        db_size_after: None,
        reclaimed_bytes: None,
        predicted_reclaim: 0,
        duration_ms: None,
        recovered_ms: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

    fn row(name: &str, role: &str, outcome: &str, reason: &str) -> MemberDefragStatus {
        MemberDefragStatus {
            name: name.into(),
            role: role.into(),
            outcome: outcome.into(),
            reason: reason.into(),
            ..Default::default()
        }
    }

    fn checked(reason: &str, message: &str) -> Condition {
        Condition {
            type_: "DefragChecked".into(),
            status: "False".into(),
            reason: reason.into(),
            message: message.into(),
            last_transition_time: Time(Timestamp::UNIX_EPOCH),
            observed_generation: None,
        }
    }

    #[test]
    fn the_run_carries_the_rule_as_the_crd_spells_it() {
        assert_eq!(rule_spec(&DefragRule::default()), None);
        let all = DefragRule {
            all: true,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(rule_spec(&all)).unwrap(),
            serde_json::json!({"all": true})
        );
        let quota = DefragRule {
            quota_usage_above: Some(80),
            min_reclaim: Some(16 << 20),
            free_space_above: Some(100 << 20),
            all: false,
        };
        assert_eq!(
            serde_json::to_value(rule_spec(&quota)).unwrap(),
            serde_json::json!({"freeSpaceAbove": "100Mi", "quotaUsageAbove": "80%", "minReclaim": "16Mi"})
        );
        let run = new_run("etcd", "main", &all, 3600);
        let value = serde_json::to_value(&run).unwrap();
        assert_eq!(value["metadata"]["generateName"], "main-defrag-");
        assert_eq!(
            value["metadata"]["labels"]["etcd-operator.cozystack.io/cluster"],
            "main"
        );
        assert_eq!(value["spec"]["clusterRef"]["name"], "main");
        assert_eq!(value["spec"]["ttlSecondsAfterFinished"], 3600);
        assert_eq!(value["kind"], "EtcdDefrag");
        assert!(value.get("status").is_none_or(serde_json::Value::is_null));
    }

    #[test]
    fn follow_says_each_change_once() {
        let mut follow = Follow::default();
        assert!(follow.status_lines(None).is_empty());
        let mut s = EtcdDefragStatus {
            phase: Some(DefragPhase::Pending),
            conditions: vec![checked("ClusterNotHealthy", "member m1 is unreachable")],
            ..Default::default()
        };
        assert_eq!(
            follow.status_lines(Some(&s)),
            [
                "phase Pending",
                "ClusterNotHealthy: member m1 is unreachable"
            ]
        );
        assert!(follow.status_lines(Some(&s)).is_empty(), "nothing new");
        s.phase = Some(DefragPhase::Running);
        s.conditions = vec![checked("Running", "defragmenting members")];
        s.members = vec![
            row("m1", "follower", "Pending", ""),
            row("m0", "leader", "Pending", ""),
        ];
        assert_eq!(
            follow.status_lines(Some(&s)),
            [
                "phase Running",
                "Running: defragmenting members",
                "order: m1 (follower) → m0 (leader)"
            ]
        );
        s.members[0] = MemberDefragStatus {
            db_size_before: Some(30 << 20),
            db_size_after: Some(10 << 20),
            reclaimed_bytes: Some(20 << 20),
            ..row("m1", "follower", "Defragmented", "")
        };
        assert_eq!(
            follow.status_lines(Some(&s)),
            ["m1 (follower): Defragmented: 30 MiB → 10 MiB, 20 MiB reclaimed"]
        );
        s.members[1] = MemberDefragStatus {
            db_size_before: Some(1 << 20),
            ..row("m0", "leader", "Skipped", "BelowThreshold")
        };
        assert_eq!(
            follow.status_lines(Some(&s)),
            ["m0 (leader): Skipped (BelowThreshold): 1.0 MiB"]
        );
    }

    #[test]
    fn events_are_said_once_each_time_they_recur() {
        let event = |name: &str, count: i32, reason: &str| Event {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            count: Some(count),
            reason: Some(reason.into()),
            type_: Some("Warning".into()),
            message: Some("deferring".into()),
            ..Default::default()
        };
        let mut follow = Follow::default();
        let lines = follow.event_lines(&[event("a", 1, "DefragDeferred")]);
        assert_eq!(lines, ["event Warning DefragDeferred: deferring"]);
        assert!(follow
            .event_lines(&[event("a", 1, "DefragDeferred")])
            .is_empty());
        assert_eq!(
            follow.event_lines(&[event("a", 2, "DefragDeferred")]).len(),
            1
        );
    }

    fn run_with(status: EtcdDefragStatus) -> EtcdDefrag {
        let mut run = new_run("etcd", "main", &DefragRule::default(), 60);
        run.metadata.name = Some("main-defrag-abcde".into());
        run.status = Some(status);
        run
    }

    fn report_of(status: EtcdDefragStatus) -> DefragReport {
        let ids = BTreeMap::from([("m1".to_string(), "00000000000000aa".to_string())]);
        report(
            &run_with(status),
            DefragRule::default(),
            ClusterRef::new("etcd", "main"),
            &ids,
            Timestamp::UNIX_EPOCH,
        )
    }

    #[test]
    fn a_finished_run_reports_like_a_direct_one() {
        let complete = report_of(EtcdDefragStatus {
            phase: Some(DefragPhase::Complete),
            members: vec![
                MemberDefragStatus {
                    db_size_before: Some(30 << 20),
                    db_size_after: Some(10 << 20),
                    reclaimed_bytes: Some(20 << 20),
                    ..row("m1", "follower", "Defragmented", "")
                },
                row("m0", "leader", "Skipped", "BelowThreshold"),
            ],
            ..Default::default()
        });
        assert!(complete.succeeded());
        assert_eq!(complete.defragmented(), 1);
        assert_eq!(complete.members[0].id, "00000000000000aa");
        assert_eq!(complete.members[0].reclaimed_bytes, Some(20 << 20));
        assert_eq!(complete.members[1].role, Role::Leader);
        assert_eq!(complete.run.as_ref().unwrap().name, "main-defrag-abcde");

        let member_failed = report_of(EtcdDefragStatus {
            phase: Some(DefragPhase::Failed),
            conditions: vec![checked("MemberFailed", "0/2 members defragmented")],
            members: vec![
                row("m1", "follower", "Failed", "RPCError"),
                row("m0", "leader", "Pending", ""),
            ],
            ..Default::default()
        });
        assert!(!member_failed.succeeded());
        assert_eq!(member_failed.stop_reason(), None);
        assert_eq!(member_failed.problems(), ["m1 failed (RPCError)"]);
        assert_eq!(member_failed.members[1].outcome, Outcome::Pending);

        let deadline = report_of(EtcdDefragStatus {
            phase: Some(DefragPhase::Failed),
            conditions: vec![checked("DeadlineExceeded", "did not complete within 30m0s")],
            ..Default::default()
        });
        assert_eq!(deadline.stop_reason(), Some(&StopReason::DeadlineExceeded));

        let gone = report_of(EtcdDefragStatus {
            phase: Some(DefragPhase::Failed),
            conditions: vec![checked("ClusterNotFound", "EtcdCluster \"main\" not found")],
            ..Default::default()
        });
        assert_eq!(gone.stop_reason().unwrap().code(), "RunFailed");
        assert!(
            gone.problems()[0].contains("ClusterNotFound"),
            "{:?}",
            gone.problems()
        );

        let going_on = report_of(EtcdDefragStatus {
            phase: Some(DefragPhase::Running),
            ..Default::default()
        });
        assert_eq!(going_on.stop_reason(), Some(&StopReason::Interrupted));
    }

    #[test]
    fn claimed_and_started_are_read_from_the_status() {
        let mut run = run_with(EtcdDefragStatus::default());
        run.status = None;
        assert!(!claimed(&run) && not_started(&run) && !finished(&run));
        run.status = Some(EtcdDefragStatus {
            phase: Some(DefragPhase::Pending),
            ..Default::default()
        });
        assert!(claimed(&run) && not_started(&run));
        run.status = Some(EtcdDefragStatus {
            phase: Some(DefragPhase::Running),
            members: vec![row("m1", "follower", "Defragmented", "")],
            ..Default::default()
        });
        assert!(!not_started(&run));
        run.status = Some(EtcdDefragStatus {
            phase: Some(DefragPhase::Complete),
            ..Default::default()
        });
        assert!(finished(&run));
    }
}
