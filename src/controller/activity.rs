//! A cluster's EtcdDefrag runs and EtcdDefragPolicies as `status` shows
//! them (`report::DefragActivity`) and `doctor` judges them: the run that
//! acts now, the last finished one, each policy's next tick. Pure.

use k8s_openapi::jiff::Timestamp;

use crate::k8s::crd::{EtcdDefrag, EtcdDefragPolicy, EtcdDefragStatus};
use crate::k8s::runs::driver;
use crate::plan::doctor::runs::{PolicyFact, RunFact};
use crate::plan::schedule::Schedule;
use crate::report::{ClusterRef, DefragActivity, PolicyNext, RunSummary};

/// The runs of EtcdCluster `cluster` in `runs`, oldest first
/// (`k8s::runs::runs_of`).
pub fn runs_of<'a>(runs: &'a [EtcdDefrag], cluster: &ClusterRef) -> Vec<&'a EtcdDefrag> {
    crate::k8s::runs::runs_of(runs, Some(&cluster.namespace), &cluster.name)
}

/// Whether an object read in `namespace` is in the cluster's: objects
/// built without one (tests) count as the cluster's.
fn in_namespace(namespace: Option<&str>, cluster: &ClusterRef) -> bool {
    namespace.is_none_or(|ns| ns == cluster.namespace)
}

/// The finished runs of the list `runs_of` gave, latest ending first.
pub fn finished_latest_first<'a>(runs: &[&'a EtcdDefrag]) -> Vec<&'a EtcdDefrag> {
    let mut done: Vec<&EtcdDefrag> = runs
        .iter()
        .copied()
        .filter(|r| r.status.as_ref().is_some_and(EtcdDefragStatus::is_terminal))
        .collect();
    done.sort_by_key(|r| {
        std::cmp::Reverse(
            r.status
                .as_ref()
                .and_then(|s| s.completed_at.as_ref())
                .map(|t| t.0)
                .or_else(|| r.metadata.creation_timestamp.as_ref().map(|t| t.0)),
        )
    });
    done
}

/// One run, summed up.
pub fn summary(run: &EtcdDefrag) -> RunSummary {
    let status = run.status.clone().unwrap_or_default();
    let time = |t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>| {
        t.map(|t| t.0.to_string())
    };
    RunSummary {
        name: run.metadata.name.clone().unwrap_or_default(),
        phase: status.phase_or_pending().as_str().to_string(),
        driver: driver(run),
        members: status.members.len(),
        done: status
            .members
            .iter()
            .filter(|m| m.outcome != "Pending" && !m.outcome.is_empty())
            .count(),
        defragmented: status
            .members
            .iter()
            .filter(|m| m.outcome == "Defragmented")
            .count(),
        reclaimed_bytes: status
            .members
            .iter()
            .filter_map(|m| m.reclaimed_bytes)
            .filter_map(|b| u64::try_from(b).ok())
            .sum(),
        created_at: time(run.metadata.creation_timestamp.as_ref()),
        started_at: time(status.started_at.as_ref()),
        completed_at: time(status.completed_at.as_ref()),
        condition: status
            .conditions
            .first()
            .map(|c| format!("{}: {}", c.reason, c.message)),
    }
}

/// A policy's next tick after `now`: none when suspended or when its
/// schedule does not parse (then `error` says why).
pub fn next_tick(policy: &EtcdDefragPolicy, now: Timestamp) -> PolicyNext {
    let suspended = policy.spec.suspend == Some(true);
    let parsed = Schedule::parse(&policy.spec.schedule);
    PolicyNext {
        name: policy.metadata.name.clone().unwrap_or_default(),
        schedule: policy.spec.schedule.clone(),
        suspended,
        next_tick: match (&parsed, suspended) {
            (Ok(schedule), false) => schedule.next_after(now).map(|t| t.to_string()),
            _ => None,
        },
        error: parsed.err().map(|e| e.to_string()),
    }
}

/// The runs of EtcdCluster `cluster` as doctor's checks see them, oldest
/// first.
pub fn run_facts(runs: &[EtcdDefrag], cluster: &ClusterRef) -> Vec<RunFact> {
    runs_of(runs, cluster)
        .into_iter()
        .map(|r| {
            let status = r.status.clone().unwrap_or_default();
            let condition = status.conditions.first();
            RunFact {
                name: r.metadata.name.clone().unwrap_or_default(),
                phase: status.phase_or_pending().as_str().to_string(),
                created: r
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .map_or(0, |t| t.0.as_second()),
                started: status.started_at.is_some(),
                reason: condition.map(|c| c.reason.clone()).unwrap_or_default(),
                message: condition.map(|c| c.message.clone()).unwrap_or_default(),
                defragmented: status
                    .members
                    .iter()
                    .filter(|m| m.outcome == "Defragmented")
                    .filter_map(|m| Some((m.name.clone(), m.finished_at.as_ref()?.0.as_second())))
                    .collect(),
            }
        })
        .collect()
}

/// The policies of EtcdCluster `cluster` as doctor's checks see them; a
/// policy whose rule does not read (a size that does not parse) is left
/// out: its runs say why.
pub fn policy_facts(policies: &[EtcdDefragPolicy], cluster: &ClusterRef) -> Vec<PolicyFact> {
    policies
        .iter()
        .filter(|p| in_namespace(p.metadata.namespace.as_deref(), cluster))
        .filter(|p| p.spec.cluster_ref.name == cluster.name)
        .filter_map(|p| {
            let rule = crate::settings::sweep_of_run(
                p.spec.rule.as_ref(),
                crate::plan::defrag::MoveLeader::Never,
                std::time::Duration::from_secs(1),
                false,
                crate::settings::run_gate(),
            )
            .ok()?
            .rule;
            Some(PolicyFact {
                name: p.metadata.name.clone().unwrap_or_default(),
                rule,
                suspended: p.spec.suspend == Some(true),
            })
        })
        .collect()
}

/// What `status` shows of EtcdCluster `cluster`'s runs and policies.
pub fn activity(
    runs: &[EtcdDefrag],
    policies: &[EtcdDefragPolicy],
    cluster: &ClusterRef,
    now: Timestamp,
) -> DefragActivity {
    let mine = runs_of(runs, cluster);
    let unfinished: Vec<&EtcdDefrag> = mine
        .iter()
        .copied()
        .filter(|r| !r.status.as_ref().is_some_and(EtcdDefragStatus::is_terminal))
        .collect();
    let mut policies: Vec<PolicyNext> = policies
        .iter()
        .filter(|p| in_namespace(p.metadata.namespace.as_deref(), cluster))
        .filter(|p| p.spec.cluster_ref.name == cluster.name)
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| next_tick(p, now))
        .collect();
    policies.sort_by(|a, b| a.name.cmp(&b.name));
    DefragActivity {
        active: unfinished.first().map(|r| summary(r)),
        queued: unfinished.len().saturating_sub(1),
        last_finished: finished_latest_first(&mine).first().map(|r| summary(r)),
        policies,
        error: None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::k8s::crd::{
        DefragPhase, EtcdDefragPolicySpec, EtcdDefragSpec, MemberDefragStatus, NameRef,
    };
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use kube::api::ObjectMeta;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn run(
        name: &str,
        cluster: &str,
        created: &str,
        status: Option<EtcdDefragStatus>,
    ) -> EtcdDefrag {
        EtcdDefrag {
            metadata: ObjectMeta {
                name: Some(name.into()),
                creation_timestamp: Some(Time(at(created))),
                ..Default::default()
            },
            spec: EtcdDefragSpec {
                cluster_ref: NameRef {
                    name: cluster.into(),
                },
                ..Default::default()
            },
            status,
        }
    }

    fn member(name: &str, outcome: &str, reclaimed: Option<i64>) -> MemberDefragStatus {
        MemberDefragStatus {
            name: name.into(),
            outcome: outcome.into(),
            reclaimed_bytes: reclaimed,
            ..Default::default()
        }
    }

    fn done(phase: DefragPhase, completed: &str) -> Option<EtcdDefragStatus> {
        Some(EtcdDefragStatus {
            phase: Some(phase),
            completed_at: Some(Time(at(completed))),
            members: vec![
                member("a", "Defragmented", Some(10 << 20)),
                member("b", "Defragmented", Some(5 << 20)),
                member("c", "Skipped", None),
            ],
            ..Default::default()
        })
    }

    fn policy(name: &str, schedule: &str, suspend: Option<bool>) -> EtcdDefragPolicy {
        EtcdDefragPolicy {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            spec: EtcdDefragPolicySpec {
                cluster_ref: NameRef {
                    name: "main".into(),
                },
                schedule: schedule.into(),
                suspend,
                ..Default::default()
            },
            status: None,
        }
    }

    #[test]
    fn the_oldest_unfinished_run_acts_and_the_latest_finished_is_last() {
        let runs = vec![
            run(
                "old-done",
                "main",
                "2026-12-01T00:00:00Z",
                done(DefragPhase::Complete, "2026-12-01T00:05:00Z"),
            ),
            run(
                "new-done",
                "main",
                "2026-12-02T00:00:00Z",
                done(DefragPhase::Failed, "2026-12-02T00:05:00Z"),
            ),
            run(
                "acting",
                "main",
                "2026-12-03T00:00:00Z",
                Some(EtcdDefragStatus {
                    phase: Some(DefragPhase::Running),
                    members: vec![
                        member("a", "Defragmented", Some(1 << 20)),
                        member("b", "Pending", None),
                    ],
                    ..Default::default()
                }),
            ),
            run("waiting", "main", "2026-12-03T00:01:00Z", None),
            run("elsewhere", "other", "2026-12-03T00:00:00Z", None),
        ];
        let policies = vec![
            policy("nightly", "0 2 * * *", None),
            policy("paused", "0 3 * * *", Some(true)),
            policy("broken", "every day", None),
        ];
        let main = ClusterRef::new("etcd", "main");
        let a = activity(&runs, &policies, &main, at("2026-12-05T03:00:00Z"));
        let active = a.active.unwrap();
        assert_eq!(
            (active.name.as_str(), active.phase.as_str()),
            ("acting", "Running")
        );
        assert_eq!(
            (active.done, active.members, active.defragmented),
            (1, 2, 1)
        );
        assert_eq!(active.driver, "not picked up by any processor yet");
        assert_eq!(a.queued, 1);
        let last = a.last_finished.unwrap();
        assert_eq!(
            (last.name.as_str(), last.phase.as_str()),
            ("new-done", "Failed")
        );
        assert_eq!(last.reclaimed_bytes, 15 << 20);
        assert_eq!(last.completed_at.as_deref(), Some("2026-12-02T00:05:00Z"));
        let names: Vec<&str> = a.policies.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["broken", "nightly", "paused"]);
        assert!(a.policies[0].error.is_some() && a.policies[0].next_tick.is_none());
        assert_eq!(
            a.policies[1].next_tick.as_deref(),
            Some("2026-12-06T02:00:00Z")
        );
        assert!(a.policies[2].suspended && a.policies[2].next_tick.is_none());

        let nothing = ClusterRef::new("etcd", "nothing");
        let quiet = activity(&runs, &[], &nothing, at("2026-12-05T03:00:00Z"));
        assert_eq!(quiet, DefragActivity::default());
        // The same names in another namespace are another cluster's.
        let mut elsewhere = runs.clone();
        for r in &mut elsewhere {
            r.metadata.namespace = Some("other-ns".into());
        }
        assert_eq!(
            activity(&elsewhere, &[], &main, at("2026-12-05T03:00:00Z")),
            DefragActivity::default()
        );
    }
}
