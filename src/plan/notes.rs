//! What a defrag plan says about itself: how the servers it runs on change
//! it. Each note names the members it is about and what the sweep does (or
//! what their clients go through) because of their feature gates, their
//! release's known defects, their Pods' probes and their predicted defrag
//! times. The one-shot command prints them before it asks, and a dry run's
//! report carries them. Pure.

use std::collections::BTreeMap;

use super::defrag::{outage_notice, Measured, Plan};
use super::probes::{budget, Budget};
use crate::defects::{among, Touches, APPLY_SNAPSHOT_DURING_DEFRAG};
use crate::look::ClusterLook;
use crate::reach::{AgentFacts, ApiServerAt};

/// The gate whose state changes what clients go through.
pub const STOP_GRPC_ON_DEFRAG: &str = "StopGRPCServiceOnDefrag";

/// Member name → feature gate → on, as each member's `/metrics` reports
/// them (etcd 3.6 and later); members whose metrics were not read, or that
/// publish no gates, are absent.
pub type FeatureGates = BTreeMap<String, BTreeMap<String, bool>>;

/// The notes for `plan`, in a fixed order: clients during each defrag
/// (feature gates, then the write outage), known defects that touch
/// defragmentation, then probes that fail during a defrag but leave room.
pub fn notes(
    plan: &Plan,
    look: &ClusterLook,
    features: &FeatureGates,
    control_plane: Option<&AgentFacts>,
) -> Vec<String> {
    let planned: Vec<&str> = plan.to_defrag().map(|m| m.name.as_str()).collect();
    let mut out = Vec::new();
    if let Some(facts) = control_plane {
        out.extend(api_servers_beside(plan, look, facts));
    }
    out.extend(grpc_on_defrag(&planned, features));
    out.extend(outage_notice(plan, &Measured::default()));
    out.extend(defects(&planned, look));
    out.extend(probes_with_room(plan, look));
    out.extend(room_unknown(plan, look));
    out
}

/// A control plane's etcd (kubeadm's stacked layout): each kube-apiserver
/// talks to the member on its own node only, so while a member
/// defragments the API server beside it stalls, whatever its feature
/// gates; with one voter, the defrag stops the control plane's etcd and
/// its API server for as long as it takes. `facts` name each member's
/// node, and whether the user's own API server is one of them (its
/// requests then wait while that node's member defragments; the agent on
/// the node carries on without it).
fn api_servers_beside(plan: &Plan, look: &ClusterLook, facts: &AgentFacts) -> Vec<String> {
    let planned: Vec<&str> = plan.to_defrag().map(|m| m.name.as_str()).collect();
    if planned.is_empty() {
        return Vec::new();
    }
    let node_of = |member: &str| {
        facts
            .nodes
            .iter()
            .find(|(m, _)| m == member)
            .map(|(_, node)| node.as_str())
    };
    let named = |member: &str| match node_of(member) {
        Some(node) if node != member => format!("{member} (node {node})"),
        _ => member.to_string(),
    };
    let voters = look.members.iter().filter(|m| !m.is_learner()).count();
    let mut out = Vec::new();
    if let (1, Some(m)) = (voters, plan.to_defrag().next()) {
        let (seconds, _) = super::defrag::predict(m.in_use, &Measured::default());
        out.push(format!(
            "{} is this control plane's only member: while it defragments (about {} predicted) etcd and the API server on its node stop answering, and so does every kubectl, controller and kubelet that goes through it",
            named(&m.name),
            crate::quantity::format_duration(std::time::Duration::from_secs_f64(seconds.max(0.0)))
        ));
    } else {
        let order: Vec<String> = planned.iter().map(|m| named(m)).collect();
        out.push(format!(
            "a control plane's API server talks to the member on its own node only: while {} defragments, the kube-apiserver on its node stalls (requests through it wait or time out); the others serve, one member at a time",
            order.join(", then ")
        ));
    }
    match &facts.api_server {
        ApiServerAt::Node(node) => {
            let beside = planned.iter().find(|m| node_of(m) == Some(node.as_str()));
            if let Some(member) = beside {
                out.push(format!(
                    "this kubectl goes through the API server on node {node}: while {member} defragments its requests wait, and the agent on the node carries on; its report is shown once that API server answers again"
                ));
            }
        }
        ApiServerAt::Elsewhere(host) => out.push(format!(
            "this kubectl goes through {host}, which is none of these nodes: not directly through an API server that stalls (if it balances over them, requests that land on the stalled one wait)"
        )),
        ApiServerAt::Unknown => {}
    }
    out
}

/// The members to defragment whose free disk space was asked for and not
/// known (`plan::room`): grouped by why, so one refusal of the kubelet's
/// statistics is one line. Nothing when nobody could ask (standalone
/// mode: `doctor` says so).
fn room_unknown(plan: &Plan, look: &ClusterLook) -> Vec<String> {
    let mut by_why: Vec<(&str, Vec<&str>)> = Vec::new();
    for (member, why) in crate::plan::room::unknown(plan, look) {
        let Some(why) = why else { continue };
        match by_why.iter_mut().find(|(w, _)| *w == why) {
            Some((_, members)) => members.push(member),
            None => by_why.push((why, vec![member])),
        }
    }
    by_why
        .into_iter()
        .map(|(why, members)| {
            format!(
                "the free space on the data volume of {} is not known ({why}): a defrag that runs out of room fails, so it goes ahead unchecked",
                members.join(", ")
            )
        })
        .collect()
}

/// Whether a member of this release may publish feature gates in its
/// `/metrics` (`etcd_server_feature_enabled`, etcd 3.6 and later); a
/// version that cannot be read may.
pub fn publishes_feature_gates(version: &str) -> bool {
    crate::defects::Release::parse(version)
        .is_none_or(|r| r >= crate::defects::Release::new(3, 6, 0))
}

fn grpc_on_defrag(planned: &[&str], features: &FeatureGates) -> Vec<String> {
    let state = |on: bool| -> Vec<&str> {
        planned
            .iter()
            .copied()
            .filter(|m| {
                features
                    .get(*m)
                    .and_then(|g| g.get(STOP_GRPC_ON_DEFRAG))
                    .is_some_and(|v| *v == on)
            })
            .collect()
    };
    let (on, off) = (state(true), state(false));
    let mut out = Vec::new();
    if !on.is_empty() {
        out.push(format!(
            "{STOP_GRPC_ON_DEFRAG} is on for {}: while each defragments it answers NOT_SERVING to gRPC health checks, so clients that health-check (the kube-apiserver's etcd client does) move to another member, and a follower's defrag costs them a reconnect rather than a stall",
            on.join(", ")
        ));
    }
    if !off.is_empty() {
        out.push(format!(
            "{STOP_GRPC_ON_DEFRAG} is off for {}: clients connected to a member wait for its whole defrag (or fail after etcd's 7s request timeout); starting etcd with --feature-gates={STOP_GRPC_ON_DEFRAG}=true lets them move away",
            off.join(", ")
        ));
    }
    out
}

/// What the sweep does about each known defect touching defragmentation
/// that a planned member's release has.
fn defects(planned: &[&str], look: &ClusterLook) -> Vec<String> {
    among(look.versions().filter(|(name, _)| planned.contains(name)))
        .into_iter()
        .filter(|a| a.hit.defect.touches == Touches::Defrag)
        .map(|a| {
            let code = a.hit.defect.code;
            let does = match code {
                APPLY_SNAPSHOT_DURING_DEFRAG => {
                    "right before each of them the sweep asks the leader's raft progress and the member's snapshots in flight, and stops (SnapshotInFlight) if a snapshot could be on its way"
                }
                "defrag-error-panics" => {
                    "a Defragment that fails takes the member down; the sweep waits for it to answer again (up to 5 minutes) before it touches another"
                }
                "crash-during-defrag-revision" => {
                    "the sweep never defragments one whose probe would restart it mid-defrag, and compares the members' HashKV afterwards"
                }
                "defrag-unsets-backend-options" => {
                    "after its defrag a member runs without its backend options until it restarts"
                }
                _ => "see kubectl etcd doctor",
            };
            format!(
                "{} run{} a release where {}: {does}; {}",
                a.members.join(", "),
                if a.members.len() == 1 { "s" } else { "" },
                a.hit.defect.summary,
                a.hit.advice(a.release)
            )
        })
        .collect()
}

/// Planned members whose probe fails while they defragment, with how much
/// room it leaves (members with too little are held back, and their rows
/// say so).
fn probes_with_room(plan: &Plan, look: &ClusterLook) -> Vec<String> {
    plan.to_defrag()
        .filter_map(|p| {
            let member = look.members.iter().find(|m| m.name == p.name)?;
            match budget(member, p.in_use, &Measured::default())? {
                Budget::Within(risk) => Some(format!(
                    "{}'s {} fails while it defragments; the kubelet would restart it after {:.0}s of that at the earliest, and its defrag is predicted at {:.1}s",
                    p.name,
                    risk.probe.describe(),
                    risk.window.earliest_seconds,
                    risk.predicted_seconds
                )),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::{Handler, PodProbes, Probe as KubeletProbe, ProbeKind};
    use crate::look::{MemberLook, MemberStatus, Probe};
    use crate::plan::defrag::order_sweep;
    use crate::plan::rule::DefragRule;
    use std::collections::BTreeSet;

    const MI: u64 = 1024 * 1024;

    fn look(versions: &[(&str, &str, u64)]) -> ClusterLook {
        ClusterLook {
            members: versions
                .iter()
                .enumerate()
                .map(|(i, (name, version, in_use))| {
                    MemberLook::listed_for_test(
                        name,
                        i as u64 + 1,
                        false,
                        Probe::Answered(MemberStatus {
                            member_id: i as u64 + 1,
                            leader: 1,
                            raft_term: 2,
                            db_size: in_use * 2,
                            db_size_in_use: *in_use,
                            version: version.to_string(),
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

    fn plan_of(snap: &ClusterLook) -> Plan {
        let all = DefragRule {
            all: true,
            ..Default::default()
        };
        order_sweep(snap, Some(1), &all, &[], &BTreeSet::new())
    }

    #[test]
    fn feature_gates_are_read_from_3_6_on() {
        for (version, want) in [
            ("3.4.23", false),
            ("3.5.35", false),
            ("3.6.0", true),
            ("3.6.16", true),
            ("3.7.3", true),
            ("4.0.0", true),
            ("", true),
            ("dev", true),
        ] {
            assert_eq!(publishes_feature_gates(version), want, "{version:?}");
        }
    }

    fn gates(rows: &[(&str, bool)]) -> FeatureGates {
        rows.iter()
            .map(|(m, on)| {
                (
                    m.to_string(),
                    [(STOP_GRPC_ON_DEFRAG.to_string(), *on)].into(),
                )
            })
            .collect()
    }

    #[test]
    fn the_grpc_gate_says_what_clients_go_through_member_by_member() {
        let snap = look(&[("a", "3.6.16", MI), ("b", "3.6.16", MI), ("c", "3.7.3", MI)]);
        let plan = plan_of(&snap);
        let said = notes(&plan, &snap, &gates(&[("a", true), ("b", false)]), None);
        assert_eq!(said.len(), 2, "{said:#?}");
        assert!(
            said[0].starts_with("StopGRPCServiceOnDefrag is on for a:"),
            "{}",
            said[0]
        );
        assert!(said[0].contains("a reconnect rather than a stall"));
        assert!(
            said[1].starts_with("StopGRPCServiceOnDefrag is off for b:"),
            "{}",
            said[1]
        );
        assert!(said[1].contains("--feature-gates=StopGRPCServiceOnDefrag=true"));
        // c's gates were not read: nothing is said of it.
        assert!(said
            .iter()
            .all(|n| !n.contains("for c") && !n.contains(", c")));
        assert!(notes(&plan, &snap, &FeatureGates::new(), None).is_empty());
    }

    #[test]
    fn defects_that_touch_defragmentation_say_what_the_sweep_does() {
        let snap = look(&[
            ("a", "3.4.23", MI),
            ("b", "3.4.23", MI),
            ("c", "3.6.16", MI),
        ]);
        let said = notes(&plan_of(&snap), &snap, &FeatureGates::new(), None);
        let joined = said.join("\n");
        assert!(
            joined.contains("a (3.4.23), b (3.4.23) run a release where a snapshot from the leader applied while the member defragments can corrupt its data: right before each of them the sweep asks the leader's raft progress")
                && joined.contains("upgrade to 3.4.38 or later (etcd PR 20659)"),
            "{joined}"
        );
        assert!(
            joined.contains("takes the member down; the sweep waits"),
            "{joined}"
        );
        // Fixed in 3.4.19: not said of 3.4.23.
        assert!(!joined.contains("backend options"), "{joined}");
        assert!(!joined.contains("c run"), "{joined}");
        // A fixed release: nothing.
        let fixed = look(&[("a", "3.6.16", MI)]);
        assert!(notes(&plan_of(&fixed), &fixed, &FeatureGates::new(), None).is_empty());
    }

    #[test]
    fn a_probe_that_fails_during_a_defrag_but_leaves_room_is_noted() {
        let mut snap = look(&[("a", "3.6.16", MI), ("b", "3.6.16", MI)]);
        snap.members[1].probes = Some(PodProbes {
            pod: "b".into(),
            container: "etcd".into(),
            started: Some(true),
            liveness: Some(KubeletProbe {
                kind: ProbeKind::Liveness,
                handler: Handler::HttpGet {
                    path: "/livez".into(),
                    port: "2381".into(),
                },
                period_seconds: 10,
                timeout_seconds: 15,
                failure_threshold: 8,
            }),
            startup: None,
        });
        let said = notes(&plan_of(&snap), &snap, &FeatureGates::new(), None);
        assert_eq!(
            said,
            ["b's liveness probe (GET /livez on port 2381, every 10s, timeout 15s, 8 failures) fails while it defragments; the kubelet would restart it after 120s of that at the earliest, and its defrag is predicted at 0.3s"]
        );
    }

    #[test]
    fn a_control_plane_plan_names_the_api_server_that_stalls() {
        let three = look(&[
            ("a", "3.6.16", MI),
            ("b", "3.6.16", MI),
            ("c", "3.6.16", MI),
        ]);
        let said = notes(
            &plan_of(&three),
            &three,
            &FeatureGates::new(),
            Some(&AgentFacts::default()),
        );
        let line = said
            .iter()
            .find(|n| n.contains("kube-apiserver on its node stalls"))
            .unwrap_or_else(|| panic!("{said:?}"));
        // Followers first, the leader (a) last, as the plan goes.
        assert!(line.contains("b, then c, then a"), "{line}");
        // Not a control plane: not said.
        let said = notes(&plan_of(&three), &three, &FeatureGates::new(), None);
        assert!(
            !said.iter().any(|n| n.contains("kube-apiserver")),
            "{said:?}"
        );

        let one = look(&[("a", "3.7.3", 600 * MI)]);
        let said = notes(
            &plan_of(&one),
            &one,
            &FeatureGates::new(),
            Some(&AgentFacts::default()),
        );
        let line = said
            .iter()
            .find(|n| n.contains("only member"))
            .unwrap_or_else(|| panic!("{said:?}"));
        let (seconds, _) =
            crate::plan::defrag::predict(600 * MI, &crate::plan::defrag::Measured::default());
        assert!(
            line.contains(&format!(
                "about {} predicted",
                crate::quantity::format_duration(std::time::Duration::from_secs_f64(seconds))
            )),
            "{line}"
        );
        assert!(
            line.contains("API server on its node stop answering"),
            "{line}"
        );

        // Where this kubectl's API server is, when known.
        let facts = |api_server| AgentFacts {
            nodes: vec![
                ("a".into(), "cp-a".into()),
                ("b".into(), "cp-b".into()),
                ("c".into(), "cp-c".into()),
            ],
            probes: vec![],
            api_server,
        };
        let on_b = facts(ApiServerAt::Node("cp-b".into()));
        let said = notes(&plan_of(&three), &three, &FeatureGates::new(), Some(&on_b));
        assert!(
            said[0].contains("b (node cp-b), then c (node cp-c), then a (node cp-a)"),
            "{said:?}"
        );
        assert!(
            said[1].starts_with("this kubectl goes through the API server on node cp-b: while b defragments its requests wait"),
            "{said:?}"
        );
        let away = facts(ApiServerAt::Elsewhere("lb.example".into()));
        let said = notes(&plan_of(&three), &three, &FeatureGates::new(), Some(&away));
        assert!(
            said[1]
                .starts_with("this kubectl goes through lb.example, which is none of these nodes"),
            "{said:?}"
        );
        let unknown = facts(ApiServerAt::Unknown);
        let said = notes(
            &plan_of(&three),
            &three,
            &FeatureGates::new(),
            Some(&unknown),
        );
        assert!(!said.iter().any(|n| n.contains("this kubectl")), "{said:?}");

        // Nothing planned: nothing said.
        let none = notes(
            &Plan { members: vec![] },
            &one,
            &FeatureGates::new(),
            Some(&AgentFacts::default()),
        );
        assert!(!none.iter().any(|n| n.contains("API server")), "{none:?}");
    }
}
