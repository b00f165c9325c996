//! Probe budgets: whether the kubelet would restart a member in the middle
//! of its defragmentation, and so whether the sweep holds it back.
//!
//! What fails while a member defragments was measured on etcd 3.5, 3.6 and
//! 3.7 (docs/benchmarks.md, "A member's own probes while it defragments"):
//! its HTTP health endpoints (`/health`, `/livez`, `/readyz`, and
//! `/version` from 3.6) hang until the defrag ends, while `/metrics` and a
//! TCP connect to the client or the peer port never fail. A probe on any
//! other path is counted as one that hangs. Its gRPC health
//! service answers `NOT_SERVING` for the length of a defrag only with
//! `StopGRPCServiceOnDefrag` on (etcd's `v3rpc/health.go`). An exec probe
//! runs a command the tool cannot judge. A probe in charge
//! (`kubelet::PodProbes::in_charge`) that fails meanwhile has the container
//! restarted once the defrag lasts longer than its restart window
//! (`kubelet::Probe::restart_window`): the member then dies mid-defrag.

use std::fmt;

use serde::Serialize;

use super::defrag::{predict, Measured, MemberDecision, Plan, SkipReason, MODEL_SECONDS_PER_BYTE};
use crate::kubelet::{Handler, Probe, RestartWindow};
use crate::look::{ClusterLook, MemberLook};
use crate::quantity::format_bytes;

/// The flag that defragments a member its probe would restart anyway.
pub const ALLOW_FLAG: &str = "--allow-probe-restart";

/// Whether a probe fails while the member defragments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Exposure {
    /// It fails for the length of the defrag.
    Fails,
    /// A defrag does not touch it.
    Holds,
    /// The tool cannot tell; it is counted as failing.
    Unknown,
}

/// Whether `handler` fails while etcd defragments, and why. `grpc_stops`:
/// whether `StopGRPCServiceOnDefrag` is on for the member, when known.
/// Pure.
pub fn exposure(handler: &Handler, grpc_stops: Option<bool>) -> (Exposure, &'static str) {
    match handler {
        Handler::HttpGet { path, .. } if path.split('?').next() == Some("/metrics") => (
            Exposure::Holds,
            "etcd's /metrics answers while it defragments",
        ),
        Handler::HttpGet { .. } => (
            Exposure::Fails,
            "etcd's HTTP health endpoints (/health, /livez, /readyz, and /version from 3.6) hang until a defrag ends",
        ),
        Handler::TcpSocket { .. } => (
            Exposure::Holds,
            "a TCP connect is answered while etcd defragments",
        ),
        Handler::Grpc { .. } => match grpc_stops {
            Some(true) => (
                Exposure::Fails,
                "with StopGRPCServiceOnDefrag on, etcd's gRPC health service answers NOT_SERVING while it defragments",
            ),
            Some(false) => (
                Exposure::Holds,
                "with StopGRPCServiceOnDefrag off, etcd's gRPC health service keeps answering SERVING",
            ),
            None => (
                Exposure::Unknown,
                "etcd's gRPC health service answers NOT_SERVING while it defragments when StopGRPCServiceOnDefrag is on, which was not read",
            ),
        },
        Handler::Exec { .. } => (
            Exposure::Unknown,
            "the tool cannot tell what an exec probe asks; one that asks etcd (etcdctl endpoint health) hangs while it defragments",
        ),
    }
}

/// A member the kubelet would restart mid-defrag: its probe in charge
/// fails meanwhile, and the predicted defrag reaches the probe's earliest
/// restart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeRisk {
    pub member: String,
    pub probe: Probe,
    pub exposure: Exposure,
    /// Why the probe fails (or may fail) during a defrag.
    pub why: &'static str,
    pub window: RestartWindow,
    pub predicted_seconds: f64,
    /// `measured` (on this sweep's followers) or `model`.
    pub basis: &'static str,
    pub in_use: u64,
}

/// How a member's probe in charge fares against its predicted defrag.
#[derive(Debug, Clone, PartialEq)]
pub enum Budget {
    /// The probe does not fail while etcd defragments.
    Untouched { probe: Probe, why: &'static str },
    /// It fails, but the defrag is predicted to end before the earliest
    /// restart.
    Within(ProbeRisk),
    /// The kubelet would restart the member mid-defrag.
    Exceeded(ProbeRisk),
}

/// The budget of `member`'s probe in charge for a defrag of `in_use`
/// bytes; `None` when its probes are not known or it has none in charge.
/// Pure.
pub fn budget(member: &MemberLook, in_use: u64, measured: &Measured) -> Option<Budget> {
    let probe = member.probes.as_ref()?.in_charge()?.clone();
    let (exposure, why) = exposure(&probe.handler, None);
    if exposure == Exposure::Holds {
        return Some(Budget::Untouched { probe, why });
    }
    let (predicted, basis) = predict(in_use, measured);
    let risk = ProbeRisk {
        member: member.name.clone(),
        window: probe.restart_window(),
        probe,
        exposure,
        why,
        predicted_seconds: (predicted * 100.0).round() / 100.0,
        basis,
        in_use,
    };
    Some(if predicted >= risk.window.earliest_seconds {
        Budget::Exceeded(risk)
    } else {
        Budget::Within(risk)
    })
}

impl fmt::Display for ProbeRisk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fails = match self.exposure {
            Exposure::Fails => "fails",
            _ => "may fail",
        };
        write!(
            f,
            "member {}'s {} {fails} while it defragments, so the kubelet restarts it after {:.0}–{:.0}s of defrag, and its defrag is predicted at {:.1}s ({} in use, {}); {}",
            self.member,
            self.probe.describe(),
            self.window.earliest_seconds,
            self.window.latest_seconds,
            self.predicted_seconds,
            format_bytes(self.in_use),
            if self.basis == "measured" {
                "at the rate measured on this sweep's followers".to_string()
            } else {
                format!("at the model's {:.0}s per GB", MODEL_SECONDS_PER_BYTE * 1e9)
            },
            self.why
        )
    }
}

/// What to do about a probe that would restart its member mid-defrag.
pub fn remedy(risk: &ProbeRisk) -> String {
    format!(
        "give the probe more room: (failureThreshold − 1) × max(periodSeconds, timeoutSeconds) + timeoutSeconds must exceed the defrag (now {:.0}s against a predicted {:.0}s), or probe the peer port with tcpSocket as etcd-operator does; until then kubectl etcd defrag holds {} back unless given {ALLOW_FLAG}",
        risk.window.earliest_seconds, risk.predicted_seconds, risk.member
    )
}

/// Holds back every member the plan would defragment whose probe budget
/// its predicted defrag exceeds: `Skip(ProbeBudget)`, with the numbers and
/// the flag that overrides it in `held_back`. The sweep asks before every
/// step, so a prediction refined by the followers' measured defrags counts.
/// Pure.
pub fn hold_back(mut plan: Plan, look: &ClusterLook, measured: &Measured) -> Plan {
    for planned in &mut plan.members {
        if !matches!(planned.decision, MemberDecision::Defrag(_)) {
            continue;
        }
        let Some(member) = look.members.iter().find(|m| m.name == planned.name) else {
            continue;
        };
        if let Some(Budget::Exceeded(risk)) = budget(member, planned.in_use, measured) {
            planned.decision = MemberDecision::Skip(SkipReason::ProbeBudget);
            planned.held_back = Some(format!(
                "{risk}; held back: pass {ALLOW_FLAG} to defragment it anyway, or {}",
                remedy_short(&risk)
            ));
        }
    }
    plan.members.sort_by_key(|m| match m.decision {
        MemberDecision::Defrag(_) => 0,
        MemberDecision::Skip(_) => 1,
    });
    plan
}

fn remedy_short(risk: &ProbeRisk) -> String {
    format!(
        "give its probe a restart window over {:.0}s",
        risk.predicted_seconds.ceil()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::{PodProbes, ProbeKind};
    use crate::look::{MemberStatus, Probe as Answer};
    use crate::plan::defrag::{order_sweep, Role};
    use crate::plan::rule::DefragRule;
    use std::collections::BTreeSet;

    fn probe(handler: Handler, period: u32, timeout: u32, threshold: u32) -> Probe {
        Probe {
            kind: ProbeKind::Liveness,
            handler,
            period_seconds: period,
            timeout_seconds: timeout,
            failure_threshold: threshold,
        }
    }

    fn http() -> Handler {
        Handler::HttpGet {
            path: "/livez".into(),
            port: "2381".into(),
        }
    }

    /// A member with `in_use` bytes live (twice that on disk) and `probe`.
    fn member(
        name: &str,
        id: u64,
        leader: u64,
        in_use: u64,
        liveness: Option<Probe>,
    ) -> MemberLook {
        let mut m = MemberLook::listed_for_test(
            name,
            id,
            false,
            Answer::Answered(MemberStatus {
                member_id: id,
                leader,
                raft_term: 2,
                raft_index: 10,
                raft_applied_index: 10,
                db_size: in_use * 2,
                db_size_in_use: in_use,
                ..Default::default()
            }),
        );
        m.probes = Some(PodProbes {
            pod: name.into(),
            container: "etcd".into(),
            started: Some(true),
            liveness,
            startup: None,
        });
        m
    }

    const GB: u64 = 1_000_000_000;

    #[test]
    fn what_fails_while_etcd_defragments() {
        let grpc = Handler::Grpc {
            port: 2379,
            service: String::new(),
        };
        for (handler, gate, expected) in [
            (http(), None, Exposure::Fails),
            (
                Handler::HttpGet {
                    path: "/metrics".into(),
                    port: "2381".into(),
                },
                None,
                Exposure::Holds,
            ),
            (
                Handler::HttpGet {
                    path: "/version".into(),
                    port: "2379".into(),
                },
                None,
                Exposure::Fails,
            ),
            (
                Handler::TcpSocket {
                    port: "2380".into(),
                },
                None,
                Exposure::Holds,
            ),
            (grpc.clone(), Some(true), Exposure::Fails),
            (grpc.clone(), Some(false), Exposure::Holds),
            (grpc, None, Exposure::Unknown),
            (
                Handler::Exec {
                    command: vec!["etcdctl".into(), "endpoint".into(), "health".into()],
                },
                None,
                Exposure::Unknown,
            ),
        ] {
            assert_eq!(exposure(&handler, gate).0, expected, "{handler}");
        }
    }

    #[test]
    fn budgets_compare_the_predicted_defrag_with_the_earliest_restart() {
        let measured = Measured::default();
        // kubeadm's liveness probe restarts after 120 s at the earliest; the
        // model predicts 0.25 s + 12 s/GB.
        let kubeadm = || Some(probe(http(), 10, 15, 8));
        for (in_use, liveness, expected) in [
            (GB, kubeadm(), "within"),
            (9 * GB, kubeadm(), "within"),    // 108.25 s
            (10 * GB, kubeadm(), "exceeded"), // 120.25 s
            (GB / 10, Some(probe(http(), 1, 1, 1)), "exceeded"), // 1.45 s >= 1 s
            (GB / 20, Some(probe(http(), 1, 1, 1)), "within"), // 0.85 s
            (
                100 * GB,
                Some(probe(
                    Handler::TcpSocket {
                        port: "2380".into(),
                    },
                    10,
                    1,
                    3,
                )),
                "untouched",
            ),
            (GB, None, "none"),
        ] {
            let m = member("m1", 1, 1, in_use, liveness);
            let got = match budget(&m, in_use, &measured) {
                Some(Budget::Untouched { .. }) => "untouched",
                Some(Budget::Within(_)) => "within",
                Some(Budget::Exceeded(_)) => "exceeded",
                None => "none",
            };
            assert_eq!(got, expected, "{in_use} bytes");
        }
        // A member whose probes were not read (standalone mode): no budget.
        let mut m = member("m1", 1, 1, GB, kubeadm());
        m.probes = None;
        assert_eq!(budget(&m, GB, &measured), None);
    }

    #[test]
    fn the_measured_rate_replaces_the_model() {
        // Followers defragmented at 1 s per GB: 10 GB is then 10.25 s, far
        // within kubeadm's 120 s, where the model said 120.25 s.
        let mut measured = Measured::default();
        measured.add("f1", 2 * GB, std::time::Duration::from_millis(2250));
        let m = member("m1", 1, 1, 10 * GB, Some(probe(http(), 10, 15, 8)));
        let Some(Budget::Within(risk)) = budget(&m, 10 * GB, &measured) else {
            panic!("within expected")
        };
        assert_eq!((risk.basis, risk.predicted_seconds), ("measured", 10.25));
    }

    #[test]
    fn the_sweep_holds_back_only_the_members_over_budget() {
        let tight = || Some(probe(http(), 1, 1, 1));
        let look = ClusterLook {
            members: vec![
                member("m1", 1, 3, GB / 10, tight()),  // over: 1.45 s
                member("m2", 2, 3, GB / 100, tight()), // within: 0.37 s
                member("m3", 3, 3, GB / 10, tight()),  // the leader, over
            ],
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        };
        let rule = DefragRule {
            all: true,
            ..Default::default()
        };
        let plan = order_sweep(&look, Some(3), &rule, &[], &BTreeSet::new());
        let plan = hold_back(plan, &look, &Measured::default());
        let decided: Vec<(&str, MemberDecision)> = plan
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.decision))
            .collect();
        assert_eq!(decided[0].0, "m2");
        assert!(matches!(decided[0].1, MemberDecision::Defrag(_)));
        for (name, decision) in &decided[1..] {
            assert_eq!(
                *decision,
                MemberDecision::Skip(SkipReason::ProbeBudget),
                "{name}"
            );
        }
        let m1 = plan.members.iter().find(|m| m.name == "m1").unwrap();
        let why = m1.held_back.as_deref().unwrap();
        assert!(why.contains(ALLOW_FLAG), "{why}");
        assert!(
            why.contains(
                "liveness probe (GET /livez on port 2381, every 1s, timeout 1s, 1 failure)"
            ),
            "{why}"
        );
        assert!(why.contains("after 1–2s of defrag"), "{why}");
        assert!(
            why.contains("predicted at 1.4s") || why.contains("predicted at 1.5s"),
            "{why}"
        );
        assert_eq!(plan.next().map(|m| m.role), Some(Role::Follower));
        assert!(plan
            .members
            .iter()
            .all(|m| m.name != "m2" || m.held_back.is_none()));
    }
}
