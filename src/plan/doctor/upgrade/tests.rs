use super::*;
use crate::look::{Alarm, AlarmKind, MemberLook, MemberStatus, Probe};
use crate::plan::gate::{evaluate, GateOptions};

/// Members (name, version, learner).
fn cluster(rows: &[(&str, &str, bool)]) -> ClusterLook {
    ClusterLook {
        members: rows
            .iter()
            .enumerate()
            .map(|(i, &(name, version, learner))| {
                let id = i as u64 + 1;
                MemberLook::listed_for_test(
                    name,
                    id,
                    learner,
                    Probe::Answered(MemberStatus {
                        member_id: id,
                        leader: 1,
                        raft_term: 2,
                        raft_index: 10,
                        raft_applied_index: 10,
                        is_learner: learner,
                        version: version.into(),
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

fn to(text: &str) -> UpgradeTarget {
    UpgradeTarget::parse(text).unwrap()
}

struct Case {
    look: ClusterLook,
    metrics: BTreeMap<String, MemberMetrics>,
    args: Option<BTreeMap<String, Vec<String>>>,
    auth: Option<bool>,
    images: BTreeMap<String, String>,
}

impl Case {
    fn new(rows: &[(&str, &str, bool)]) -> Case {
        Case {
            look: cluster(rows),
            metrics: BTreeMap::new(),
            args: None,
            auth: None,
            images: BTreeMap::new(),
        }
    }

    fn run(&self, target: &str) -> Vec<(Severity, String, String)> {
        // Clusters of one or two members here: their quorum margin is
        // beside the point.
        let gate = GateOptions {
            allow_quorum_loss: true,
            ..GateOptions::default()
        };
        let verdict = evaluate(&self.look, &gate);
        let facts = UpgradeFacts {
            look: &self.look,
            verdict: &verdict,
            metrics: &self.metrics,
            pod_args: self.args.as_ref(),
            auth: self.auth,
            operator: None,
            pod_images: &self.images,
            cluster_args: "db -n prod",
        };
        check(to(target), &facts)
            .into_iter()
            .map(|f| (f.severity, f.check, f.message))
            .collect()
    }
}

fn checks(found: &[(Severity, String, String)]) -> Vec<(Severity, &str)> {
    found.iter().map(|(s, c, _)| (*s, c.as_str())).collect()
}

#[test]
fn targets_parse_as_a_line_or_a_release() {
    for (text, want) in [
        ("3.6", Some((3, 6, None))),
        ("v3.7", Some((3, 7, None))),
        ("3.6.16", Some((3, 6, Some(16)))),
        ("3", None),
        ("4.0", None),
        ("3.6.x", None),
        ("3.6.1.2", None),
        ("", None),
    ] {
        assert_eq!(
            UpgradeTarget::parse(text).map(|t| (t.major, t.minor, t.patch)),
            want,
            "{text}"
        );
    }
}

#[test]
fn floors_and_the_one_minor_rule() {
    // Below the 3.6 floor: every 3.5 member under 3.5.32 is named.
    let c = Case::new(&[
        ("a", "3.5.23", false),
        ("b", "3.5.23", false),
        ("c", "3.5.32", false),
    ]);
    let found = c.run("3.6");
    assert_eq!(
        checks(&found),
        [
            (Severity::Critical, "upgrade/patch-floor"),
            (Severity::Warning, "upgrade/mixed-versions"),
            (Severity::Warning, "upgrade/flags")
        ]
    );
    assert!(
        found[0].2.starts_with("a (3.5.23), b (3.5.23) run below 3.5.32, the least etcd supports upgrading to 3.6 from"),
        "{}",
        found[0].2
    );
    // Two minors at once.
    let c = Case::new(&[("a", "3.5.35", false)]);
    assert_eq!(
        checks(&c.run("3.7"))[0],
        (Severity::Critical, "upgrade/skips-a-minor")
    );
    // Down is not up; the same release is nothing to do.
    let c = Case::new(&[("a", "3.7.3", false)]);
    assert_eq!(
        checks(&c.run("3.6"))[0],
        (Severity::Critical, "upgrade/downgrade")
    );
    assert_eq!(
        checks(&c.run("3.7.1"))[0],
        (Severity::Critical, "upgrade/downgrade")
    );
    assert_eq!(checks(&c.run("3.7")), [(Severity::Ok, "upgrade/ready")]);
    // At the 3.7 floor, with the flags known and clean: ready.
    let mut c = Case::new(&[("a", "3.6.11", false), ("b", "3.6.11", false)]);
    c.args = Some(
        [("a", "--name=a"), ("b", "--name=b")]
            .iter()
            .map(|(m, a)| (m.to_string(), vec![a.to_string()]))
            .collect(),
    );
    assert_eq!(checks(&c.run("3.7")), [(Severity::Ok, "upgrade/ready")]);
    // 3.6.10 is below it.
    let c = Case::new(&[("a", "3.6.10", false)]);
    assert_eq!(
        checks(&c.run("3.7.3"))[0],
        (Severity::Critical, "upgrade/patch-floor")
    );
}

#[test]
fn removed_flags_block_the_step_that_drops_them() {
    let mut c = Case::new(&[("a", "3.6.16", false), ("b", "3.6.16", false)]);
    c.args = Some(
        [
            (
                "a",
                vec![
                    "etcd",
                    "--experimental-compact-hash-check-enabled=true",
                    "--experimental-initial-corrupt-check",
                    "--experimental-enable-v2v3-not-a-flag",
                ],
            ),
            ("b", vec!["etcd", "--compact-hash-check-time=1m"]),
        ]
        .into_iter()
        .map(|(m, a)| (m.to_string(), a.into_iter().map(String::from).collect()))
        .collect(),
    );
    let found = c.run("3.7");
    assert_eq!(checks(&found), [(Severity::Critical, "upgrade/flags")]);
    assert_eq!(
        found[0].2,
        "a is started with --experimental-compact-hash-check-enabled (now --feature-gates=CompactHashCheck=true), --experimental-initial-corrupt-check (now --feature-gates=InitialCorruptCheck=true), which etcd 3.7 no longer accepts: it would not start"
    );
    // To 3.6 they are still accepted (with a warning from etcd itself).
    assert_eq!(checks(&c.run("3.6.16")), [(Severity::Ok, "upgrade/ready")]);
    // 3.5 → 3.6 drops the v2 flags.
    let mut c = Case::new(&[("a", "3.5.35", false)]);
    c.args = Some(
        [("a".to_string(), vec!["--enable-v2=true".to_string()])]
            .into_iter()
            .collect(),
    );
    let found = c.run("3.6");
    assert_eq!(checks(&found), [(Severity::Critical, "upgrade/flags")]);
    assert!(
        found[0].2.starts_with("a is started with --enable-v2,"),
        "{}",
        found[0].2
    );
}

#[test]
fn an_unfinished_upgrade_or_downgrade_blocks_the_next() {
    // Mixed minors, and the cluster version behind.
    let mut c = Case::new(&[("a", "3.5.35", false), ("b", "3.6.16", false)]);
    let found = c.run("3.6");
    assert_eq!(
        checks(&found),
        [
            (Severity::Critical, "upgrade/mixed-versions"),
            (Severity::Warning, "upgrade/flags")
        ]
    );
    let mut c2 = Case::new(&[("a", "3.6.16", false), ("b", "3.6.16", false)]);
    c2.metrics.insert(
        "a".into(),
        MemberMetrics {
            cluster_version: Some((3, 5)),
            ..Default::default()
        },
    );
    c2.args = Some(BTreeMap::new());
    let found = c2.run("3.7");
    assert_eq!(
        checks(&found),
        [(Severity::Critical, "upgrade/cluster-version")]
    );
    assert!(found[0]
        .2
        .starts_with("the cluster version is 3.5 while every member runs 3.6"));
    // A storage version behind, and a downgrade enabled.
    for m in &mut c.look.members {
        if let Probe::Answered(s) = &mut m.probe {
            s.version = "3.6.16".into();
            s.storage_version = Some("3.5.0".into());
            s.downgrading_to = Some("3.5.0".into());
        }
    }
    c.args = Some(BTreeMap::new());
    let found = c.run("3.7");
    assert_eq!(
        checks(&found),
        [
            (Severity::Critical, "upgrade/downgrade-in-progress"),
            (Severity::Critical, "upgrade/downgrade-in-progress"),
            (Severity::Ok, "upgrade/storage-version"),
            (Severity::Ok, "upgrade/storage-version"),
        ]
    );
}

#[test]
fn auth_health_alarms_and_learners() {
    // 3.4 → 3.5 with auth on: critical; not known: a warning; off: nothing.
    let mut c = Case::new(&[("a", "3.4.23", false), ("b", "3.4.23", false)]);
    c.auth = Some(true);
    assert_eq!(
        checks(&c.run("3.5")),
        [(Severity::Critical, "upgrade/auth-wal-format")]
    );
    c.auth = None;
    assert_eq!(
        checks(&c.run("3.5")),
        [(Severity::Warning, "upgrade/auth-wal-format")]
    );
    c.auth = Some(false);
    assert_eq!(checks(&c.run("3.5")), [(Severity::Ok, "upgrade/ready")]);
    // An alarm and a learner.
    let mut c = Case::new(&[
        ("a", "3.6.16", false),
        ("b", "3.6.16", false),
        ("l", "3.6.16", true),
    ]);
    c.args = Some(BTreeMap::new());
    c.look.alarms.push(Alarm {
        member_id: 2,
        kind: AlarmKind::Nospace,
    });
    let found = c.run("3.7");
    let got = checks(&found);
    assert!(
        got.contains(&(Severity::Critical, "upgrade/alarm")),
        "{got:?}"
    );
    assert!(
        got.contains(&(Severity::Warning, "upgrade/learner")),
        "{got:?}"
    );
    // A member that does not answer: the gate refuses.
    let mut c = Case::new(&[
        ("a", "3.6.16", false),
        ("b", "3.6.16", false),
        ("c", "3.6.16", false),
    ]);
    c.args = Some(BTreeMap::new());
    c.look.members[2].probe = Probe::refused_for_test();
    assert!(checks(&c.run("3.7")).contains(&(Severity::Critical, "upgrade/health")));
}

#[test]
fn a_pod_whose_image_names_another_release_is_a_change_halfway() {
    let mut c = Case::new(&[("a", "3.6.16", false), ("b", "3.6.16", false)]);
    c.args = Some(BTreeMap::new());
    c.images = [
        ("a", "localhost/etcd:v3.7.3"),
        ("b", "registry.k8s.io/etcd:3.6.16-0"),
    ]
    .iter()
    .map(|(m, i)| (m.to_string(), i.to_string()))
    .collect();
    let found = c.run("3.7");
    assert_eq!(checks(&found), [(Severity::Warning, "upgrade/pod-image")]);
    assert!(
        found[0].2.starts_with(
            "a's Pod has image localhost/etcd:v3.7.3 (3.7.3) while the member runs 3.6.16"
        ),
        "{}",
        found[0].2
    );
    for (image, want) in [
        ("quay.io/coreos/etcd:v3.5.35", Some(Release::new(3, 5, 35))),
        ("localhost:5000/etcd", None),
        ("etcd:latest", None),
        ("etcd@sha256:abc", None),
    ] {
        assert_eq!(image_release(image), want, "{image}");
    }
}
