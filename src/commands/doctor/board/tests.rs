#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::plan::doctor::gauges::MemberGauges;

fn key(name: &str) -> Key {
    Key {
        context: None,
        namespace: "prod".into(),
        name: name.into(),
    }
}

fn member(name: &str, up: bool, leader: bool) -> MemberGauges {
    MemberGauges {
        name: name.into(),
        up,
        leader,
        learner: false,
        db_size: up.then_some(800),
        in_use: up.then_some(200),
        quota: 1000,
    }
}

fn examined(leader: Option<&str>, ended: f64) -> Examination {
    Examination {
        kind: "cozystack",
        gauges: ClusterGauges {
            desired: Some(3),
            answering: 2,
            voting: 3,
            quorum_margin: 0,
            leader: leader.map(str::to_string),
            gate_refusals: ["MemberUnreachable"].into(),
            alarms: [("a".to_string(), "NOSPACE")].into(),
            members: vec![member("a", true, true), member("b", false, false)],
            checks: [("alarm/NOSPACE".to_string(), Severity::Critical)].into(),
            last_defrag: [("a".to_string(), 1_700_000_000)].into(),
            ..ClusterGauges::default()
        },
        outcome: Outcome::Examined,
        ended,
        seconds: 1.25,
        why: None,
    }
}

fn lines<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
        .collect()
}

const DB: &str = "etcdcluster_namespace=\"prod\",etcdcluster=\"db\",kind=\"cozystack\"";

#[test]
fn an_examined_cluster_shows_its_members_findings_and_examination() {
    let board = Board::new("1.2.3");
    board.post(&key("db"), examined(Some("a"), 1000.0));
    let text = board.render_at(1030.0, false);
    let want = [
        format!("kubectl_etcd_cluster_members_desired{{{DB}}} 3"),
        format!("kubectl_etcd_cluster_members_answering{{{DB}}} 2"),
        format!("kubectl_etcd_cluster_quorum_margin{{{DB}}} 0"),
        format!("kubectl_etcd_cluster_leader_present{{{DB}}} 1"),
        format!("kubectl_etcd_cluster_gate_open{{{DB}}} 0"),
        format!("kubectl_etcd_cluster_gate_refusal{{{DB},reason=\"MemberUnreachable\"}} 1"),
        format!("kubectl_etcd_cluster_alarms{{{DB},alarm=\"CORRUPT\"}} 0"),
        format!("kubectl_etcd_cluster_alarms{{{DB},alarm=\"NOSPACE\"}} 1"),
        format!("kubectl_etcd_doctor_check_severity{{{DB},check=\"alarm/NOSPACE\"}} 2"),
        format!("kubectl_etcd_examination_up{{{DB}}} 1"),
        format!("kubectl_etcd_examination_age_seconds{{{DB}}} 30"),
        format!("kubectl_etcd_examination_duration_seconds{{{DB}}} 1.25"),
        format!("kubectl_etcd_examination_last_success_timestamp_seconds{{{DB}}} 1000"),
        format!("kubectl_etcd_examinations_total{{{DB},result=\"examined\"}} 1"),
        format!("kubectl_etcd_examinations_total{{{DB},result=\"timeout\"}} 0"),
        format!("kubectl_etcd_member_up{{{DB},member=\"a\"}} 1"),
        format!("kubectl_etcd_member_up{{{DB},member=\"b\"}} 0"),
        format!("kubectl_etcd_member_db_reclaimable_bytes{{{DB},member=\"a\"}} 600"),
        format!("kubectl_etcd_member_quota_use_ratio{{{DB},member=\"a\"}} 0.8"),
        format!("kubectl_etcd_member_alarm{{{DB},member=\"a\",alarm=\"NOSPACE\"}} 1"),
        format!(
            "kubectl_etcd_member_last_defrag_timestamp_seconds{{{DB},member=\"a\"}} 1700000000"
        ),
        "kubectl_etcd_doctor_build_info{version=\"1.2.3\"} 1".to_string(),
        "kubectl_etcd_doctor_clusters 1".to_string(),
    ];
    for line in &want {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }
    // A member that did not answer has no sizes.
    assert!(lines(&text, "kubectl_etcd_member_db_size_bytes")
        .iter()
        .all(|l| !l.contains("member=\"b\"")));
    assert!(text.contains("# TYPE kubectl_etcd_examinations_total counter\n"));
    assert!(!text.contains("# EOF"));
}

#[test]
fn openmetrics_names_counter_families_without_total_and_ends_with_eof() {
    let board = Board::new("1.2.3");
    board.post(&key("db"), examined(Some("a"), 1000.0));
    let text = board.render_at(1000.0, true);
    assert!(
        text.contains("# TYPE kubectl_etcd_examinations counter\n"),
        "{text}"
    );
    assert!(text.contains("# TYPE kubectl_etcd_cluster_leader_changes_observed counter\n"));
    assert!(text.ends_with("# EOF\n"));
}

#[test]
fn an_unreached_cluster_keeps_its_findings_and_loses_its_members() {
    let board = Board::new("v");
    board.post(&key("db"), examined(Some("a"), 1000.0));
    let unreached = Examination {
        gauges: ClusterGauges {
            desired: Some(3),
            checks: [("reachable".to_string(), Severity::Critical)].into(),
            ..ClusterGauges::default()
        },
        outcome: Outcome::Unreachable,
        ended: 1060.0,
        seconds: 10.0,
        ..examined(None, 0.0)
    };
    board.post(&key("db"), unreached);
    let text = board.render_at(1060.0, false);
    assert_eq!(
        lines(&text, "kubectl_etcd_examination_up"),
        [format!("kubectl_etcd_examination_up{{{DB}}} 0")]
    );
    // Still the last time it was reached.
    assert_eq!(
        lines(
            &text,
            "kubectl_etcd_examination_last_success_timestamp_seconds"
        ),
        [format!(
            "kubectl_etcd_examination_last_success_timestamp_seconds{{{DB}}} 1000"
        )]
    );
    assert!(text.contains(&format!(
        "kubectl_etcd_doctor_check_severity{{{DB},check=\"reachable\"}} 2"
    )));
    for gone in [
        "kubectl_etcd_member_up",
        "kubectl_etcd_cluster_quorum_margin",
        "kubectl_etcd_cluster_alarms",
        "kubectl_etcd_cluster_leader_present",
    ] {
        assert_eq!(lines(&text, gone), Vec::<&str>::new(), "{gone}");
    }
    assert!(text.contains(&format!(
        "kubectl_etcd_examinations_total{{{DB},result=\"unreachable\"}} 1"
    )));
}

/// A control plane's etcd listed by `doctor -A` is examined on its nodes
/// (`--serve-as`): what lists it serves no `examination_up` of its own,
/// which would sit beside the node's under the same labels as a failure.
#[test]
fn a_control_plane_listed_here_serves_no_examination_up() {
    let board = Board::new("v");
    let on_node = Examination {
        kind: "control-plane",
        gauges: ClusterGauges {
            checks: [("reachable".to_string(), Severity::Warning)].into(),
            ..ClusterGauges::default()
        },
        outcome: Outcome::OnNode,
        ended: 1000.0,
        seconds: 0.01,
        why: None,
    };
    let cp = Key {
        context: None,
        namespace: "kube-system".into(),
        name: "etcd".into(),
    };
    board.post(&cp, on_node);
    let text = board.render_at(1001.0, false);
    let labels =
        "etcdcluster_namespace=\"kube-system\",etcdcluster=\"etcd\",kind=\"control-plane\"";
    // Only when it was listed, and how often: nothing its nodes' own
    // examination serves.
    let served: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains("kube-system"))
        .map(|l| l.split('{').next().unwrap_or(l))
        .collect();
    assert_eq!(
        served,
        [
            "kubectl_etcd_examination_last_timestamp_seconds",
            "kubectl_etcd_examination_age_seconds",
            "kubectl_etcd_examination_duration_seconds",
            "kubectl_etcd_examinations_total",
            "kubectl_etcd_examinations_total",
            "kubectl_etcd_examinations_total",
            "kubectl_etcd_examinations_total",
        ],
        "{text}"
    );
    assert_eq!(
        lines(&text, "kubectl_etcd_examination_last_timestamp_seconds"),
        [format!(
            "kubectl_etcd_examination_last_timestamp_seconds{{{labels}}} 1000"
        )]
    );
    assert!(text.contains(&format!(
        "kubectl_etcd_examinations_total{{{labels},result=\"on-node\"}} 1"
    )));
}

#[test]
fn a_leader_change_is_counted_once_across_an_election() {
    let board = Board::new("v");
    let k = key("db");
    for (leader, t) in [
        (Some("a"), 1.0),
        (Some("a"), 2.0),
        (None, 3.0),
        (Some("b"), 4.0),
    ] {
        board.post(&k, examined(leader, t));
    }
    let text = board.render_at(5.0, false);
    assert_eq!(
        lines(&text, "kubectl_etcd_cluster_leader_changes_observed_total"),
        [format!(
            "kubectl_etcd_cluster_leader_changes_observed_total{{{DB}}} 1"
        )]
    );
}

#[test]
fn clusters_no_longer_listed_leave_no_series_and_labels_are_escaped() {
    let board = Board::new("v");
    board.post(&key("db"), examined(Some("a"), 1.0));
    let odd = Key {
        context: Some("ctx \"x\"".into()),
        ..key("other")
    };
    board.post(&odd, examined(Some("a"), 1.0));
    let text = board.render_at(1.0, false);
    assert!(text.contains(
        "context=\"ctx \\\"x\\\"\",etcdcluster_namespace=\"prod\",etcdcluster=\"other\""
    ));
    board.keep(std::slice::from_ref(&odd));
    let text = board.render_at(1.0, false);
    assert!(!text.contains("etcdcluster=\"db\""), "{text}");
    assert!(text.contains("kubectl_etcd_doctor_clusters 1\n"));
}
