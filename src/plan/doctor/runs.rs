//! The checks over who defragments the cluster besides this tool: two
//! processors of EtcdDefrag installed at once, a policy whose rule can
//! never fire here, the last runs all failed or deferred, and a run that
//! has waited past the operator's deadline without starting.

use super::{finding, Finding, Severity};
use crate::plan::rule::{DefragRule, DEFAULT_FREE_SPACE_ABOVE, DEFAULT_MIN_RECLAIM};
use crate::quantity::format_bytes;

/// How long the operator lets a run wait before failing it
/// (`DeadlineExceeded`): past it, a run still waiting has no processor.
pub const RUN_DEADLINE_SECS: i64 = 30 * 60;

/// One EtcdDefrag of the cluster, as the checks need it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFact {
    pub name: String,
    /// `Pending`, `Running`, `Complete`, `Failed`.
    pub phase: String,
    /// Unix seconds.
    pub created: i64,
    /// Whether it has started (`status.startedAt`).
    pub started: bool,
    /// Its `DefragChecked` condition: reason and message (empty: none).
    pub reason: String,
    pub message: String,
    /// Its members that were defragmented, with when each finished (Unix
    /// seconds), as its rows say.
    pub defragmented: Vec<(String, i64)>,
}

impl RunFact {
    fn finished(&self) -> bool {
        matches!(self.phase.as_str(), "Complete" | "Failed")
    }

    /// Waiting because the operator found the cluster unhealthy.
    fn deferred(&self) -> bool {
        !self.finished() && self.reason == "ClusterNotHealthy"
    }
}

/// One EtcdDefragPolicy of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFact {
    pub name: String,
    pub rule: DefragRule,
    pub suspended: bool,
}

/// Who processes the cluster's EtcdDefrags, and what their runs did
/// (plugin mode).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DefragFacts {
    /// The cluster's namespace, for the printed commands.
    pub namespace: String,
    /// Grants that let another processor (the operator's controller) write
    /// EtcdDefrag status; `None`: RBAC could not be read.
    pub operator_grants: Option<Vec<String>>,
    /// `kubectl etcd defrag --watch` Deployments (`namespace/name`);
    /// `None`: Deployments could not be read.
    pub watchers: Option<Vec<String>>,
    pub policies: Vec<PolicyFact>,
    /// The cluster's runs, oldest first.
    pub runs: Vec<RunFact>,
}

/// Every check over `facts`; `quota` is the members' largest quota,
/// `namespace` the cluster's (for the printed commands).
pub fn checks(facts: &DefragFacts, quota: Option<u64>, namespace: &str, now: i64) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(two_processors(facts));
    if let Some(quota) = quota {
        out.extend(
            facts
                .policies
                .iter()
                .filter(|p| !p.suspended)
                .filter_map(|p| never_fires(p, quota, namespace)),
        );
    }
    out.extend(failing(&facts.runs, namespace));
    out.extend(overdue(&facts.runs, namespace, now));
    out
}

/// The operator's controller and a `--watch` Deployment both installed:
/// the watcher refuses to start or stands down, so it is dead weight at
/// best, and an older watcher without that check a second processor.
fn two_processors(facts: &DefragFacts) -> Option<Finding> {
    let grants = facts.operator_grants.as_ref()?;
    let watchers = facts.watchers.as_ref()?;
    let (grant, watcher) = (grants.first()?, watchers.first()?);
    let (ns, name) = watcher.split_once('/').unwrap_or(("", watcher));
    Some(finding(
        Severity::Warning,
        "defrag/processors",
        None,
        format!(
            "two EtcdDefrag processors are installed: the etcd-operator's own controller ({grant}) and the kubectl etcd defrag --watch Deployment {}; this release's watcher refuses to start (or stands down) beside the operator's, an older one would defragment beside it",
            watchers.join(", ")
        ),
        format!("let the operator process the runs and remove the watcher: kubectl delete deployment {name} -n {ns}"),
    ))
}

/// Why `rule` can never fire on members with `quota`, if it cannot: a
/// member's reclaimable space (size − in use) stays under its quota, and
/// its size does not pass 100% of it. Pure. Judged with the operator's
/// fixed defaults, not our quota-scaled ones: the policies it names are
/// run by the operator's controller wherever it is installed (our
/// watcher refuses to start beside it).
pub fn cannot_fire(rule: &DefragRule, quota: u64) -> Option<String> {
    if rule.all || quota == 0 {
        return None;
    }
    let free = rule.free_space_above.unwrap_or(DEFAULT_FREE_SPACE_ABOVE);
    if free < quota {
        return None;
    }
    let min = rule.min_reclaim.unwrap_or(DEFAULT_MIN_RECLAIM);
    let quota_arm = match rule.quota_usage_above {
        None => "no quotaUsageAbove".to_string(),
        Some(p) if p >= 100 => format!("quotaUsageAbove {p}%, which a size never passes"),
        Some(_) if min >= quota => format!(
            "minReclaim {} is not below the quota either",
            format_bytes(min)
        ),
        Some(_) => return None,
    };
    Some(format!(
        "freeSpaceAbove {} is not below the members' quota ({}), and a member's reclaimable space never exceeds its quota; {quota_arm}",
        format_bytes(free),
        format_bytes(quota)
    ))
}

fn never_fires(policy: &PolicyFact, quota: u64, namespace: &str) -> Option<Finding> {
    let why = cannot_fire(&policy.rule, quota)?;
    Some(finding(
        Severity::Warning,
        "defrag/policy-rule",
        None,
        format!(
            "EtcdDefragPolicy {} can never defragment a member of this cluster: {why}",
            policy.name
        ),
        format!(
            "lower its threshold below the quota, e.g. kubectl patch etcddefragpolicy {} -n {namespace} --type merge -p '{{\"spec\":{{\"rule\":{{\"freeSpaceAbove\":\"{}\"}}}}}}'",
            policy.name,
            crate::quantity::format_quantity((quota / 4).max(1))
        ),
    ))
}

/// The last three runs (finished, or waiting on an unhealthy cluster) all
/// failed or were deferred: whatever is due is not being done.
fn failing(runs: &[RunFact], namespace: &str) -> Option<Finding> {
    let judged: Vec<&RunFact> = runs
        .iter()
        .filter(|r| r.finished() || r.deferred())
        .collect();
    let last: Vec<&RunFact> = judged.iter().rev().take(3).rev().copied().collect();
    if last.len() < 3 || last.iter().any(|r| r.phase == "Complete") {
        return None;
    }
    let each: Vec<String> = last
        .iter()
        .map(|r| {
            let what = if r.deferred() { "deferred" } else { "Failed" };
            match r.reason.as_str() {
                "" => format!("{} {what}", r.name),
                reason => format!("{} {what} ({reason}: {})", r.name, r.message),
            }
        })
        .collect();
    let newest = last.last().map_or("", |r| r.name.as_str());
    Some(finding(
        Severity::Warning,
        "defrag/runs",
        None,
        format!(
            "the last three EtcdDefrag runs of this cluster failed or were deferred: {}",
            each.join("; ")
        ),
        format!(
            "the reasons are the operator's; its events say more: kubectl get events -n {namespace} --field-selector involvedObject.name={newest}"
        ),
    ))
}

/// Unfinished runs that have not started within the operator's deadline:
/// the operator fails such a run, so one still waiting has no processor.
fn overdue(runs: &[RunFact], namespace: &str, now: i64) -> Vec<Finding> {
    runs.iter()
        .filter(|r| !r.finished() && !r.started && now - r.created > RUN_DEADLINE_SECS)
        .map(|r| {
            finding(
                Severity::Warning,
                "defrag/run-overdue",
                None,
                format!(
                    "EtcdDefrag {} has waited {} min without starting; the operator fails a run that cannot start within 30 min, so no processor is acting on it",
                    r.name,
                    (now - r.created) / 60
                ),
                format!(
                    "check that the etcd-operator (v0.5.5 or later) runs; or withdraw the run: kubectl delete etcddefrag {} -n {namespace}",
                    r.name
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GI: u64 = 1 << 30;
    const MI: u64 = 1 << 20;

    fn rule(free: Option<u64>, pct: Option<u8>, min: Option<u64>) -> DefragRule {
        DefragRule {
            all: false,
            free_space_above: free,
            quota_usage_above: pct,
            min_reclaim: min,
        }
    }

    #[test]
    fn a_rule_that_can_never_fire_is_named_with_why() {
        for (r, quota, never) in [
            (DefragRule::default(), 2 * GI, false),
            (rule(Some(4 * GI), None, None), 2 * GI, true),
            (rule(Some(2 * GI), None, None), 2 * GI, true),
            (rule(Some(2 * GI - 1), None, None), 2 * GI, false),
            (rule(Some(4 * GI), Some(80), None), 2 * GI, false),
            (rule(Some(4 * GI), Some(100), None), 2 * GI, true),
            (rule(Some(4 * GI), Some(80), Some(3 * GI)), 2 * GI, true),
            (rule(None, None, None), 100 * MI, true),
            (rule(None, Some(90), None), 100 * MI, false),
            (
                DefragRule {
                    all: true,
                    ..Default::default()
                },
                MI,
                false,
            ),
        ] {
            assert_eq!(cannot_fire(&r, quota).is_some(), never, "{r:?} on {quota}");
        }
        let why = cannot_fire(&rule(Some(4 * GI), None, None), 2 * GI).unwrap();
        assert!(
            why.contains("freeSpaceAbove 4.0 GiB") && why.contains("2.0 GiB"),
            "{why}"
        );
        let facts = DefragFacts {
            policies: vec![
                PolicyFact {
                    name: "big".into(),
                    rule: rule(Some(4 * GI), None, None),
                    suspended: false,
                },
                PolicyFact {
                    name: "off".into(),
                    rule: rule(Some(4 * GI), None, None),
                    suspended: true,
                },
            ],
            ..Default::default()
        };
        let found = checks(&facts, Some(2 * GI), "prod", 0);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].check, "defrag/policy-rule");
        assert!(
            found[0].remedy.contains(
                "kubectl patch etcddefragpolicy big -n prod --type merge -p '{\"spec\":{\"rule\":{\"freeSpaceAbove\":\"512Mi\"}}}'"
            ),
            "{}",
            found[0].remedy
        );
        assert!(
            checks(&facts, None, "prod", 0).is_empty(),
            "no quota, no verdict"
        );
    }

    fn run(name: &str, phase: &str, reason: &str, created: i64, started: bool) -> RunFact {
        RunFact {
            name: name.into(),
            phase: phase.into(),
            created,
            started,
            reason: reason.into(),
            message: format!("{reason} said"),
            defragmented: Vec::new(),
        }
    }

    #[test]
    fn the_last_three_runs_failed_or_deferred() {
        let bad = vec![
            run("r1", "Complete", "Complete", 1, true),
            run("r2", "Failed", "MemberFailed", 2, true),
            run("r3", "Failed", "DeadlineExceeded", 3, true),
            run("r4", "Pending", "ClusterNotHealthy", 4, false),
            run("r5", "Pending", "Queued", 5, false),
        ];
        let found = checks(
            &DefragFacts {
                runs: bad.clone(),
                ..Default::default()
            },
            None,
            "prod",
            10,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].check, "defrag/runs");
        assert!(
            found[0].message.contains("r2 Failed (MemberFailed: MemberFailed said); r3 Failed (DeadlineExceeded: DeadlineExceeded said); r4 deferred (ClusterNotHealthy"),
            "{}",
            found[0].message
        );
        assert!(found[0].remedy.contains("involvedObject.name=r4"));
        // A success among the last three: nothing to say.
        let mut mixed = bad.clone();
        mixed[2].phase = "Complete".into();
        assert!(checks(
            &DefragFacts {
                runs: mixed,
                ..Default::default()
            },
            None,
            "prod",
            10
        )
        .is_empty());
        // Fewer than three judged: nothing to say.
        assert!(checks(
            &DefragFacts {
                runs: bad[3..].to_vec(),
                ..Default::default()
            },
            None,
            "prod",
            10
        )
        .is_empty());
    }

    #[test]
    fn a_run_waiting_past_the_deadline_has_no_processor() {
        let facts = DefragFacts {
            runs: vec![
                run("old", "Pending", "", 0, false),
                run("going", "Running", "Running", 0, true),
                run("young", "Pending", "", 2000, false),
            ],
            ..Default::default()
        };
        let found = checks(&facts, None, "prod", RUN_DEADLINE_SECS + 60);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].check, "defrag/run-overdue");
        assert!(found[0]
            .message
            .contains("EtcdDefrag old has waited 31 min"));
        assert!(found[0]
            .remedy
            .ends_with("kubectl delete etcddefrag old -n prod"));
    }

    #[test]
    fn two_processors_need_both_seen() {
        let both = DefragFacts {
            operator_grants: Some(vec!["ServiceAccount etcd-operator-system/etcd-operator-controller-manager may write EtcdDefrag status (ClusterRole x, bound by ClusterRoleBinding y)".into()]),
            watchers: Some(vec!["etcd/kubectl-etcd-watch".into()]),
            ..Default::default()
        };
        let found = checks(&both, None, "prod", 0);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].check, "defrag/processors");
        assert!(found[0]
            .remedy
            .ends_with("kubectl delete deployment kubectl-etcd-watch -n etcd"));
        for (grants, watchers) in [
            (None, Some(vec!["a/b".to_string()])),
            (Some(vec!["g".to_string()]), None),
            (Some(vec![]), Some(vec!["a/b".to_string()])),
            (Some(vec!["g".to_string()]), Some(vec![])),
        ] {
            let facts = DefragFacts {
                operator_grants: grants,
                watchers,
                ..Default::default()
            };
            assert!(checks(&facts, None, "prod", 0).is_empty());
        }
    }
}
