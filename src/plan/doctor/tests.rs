use super::*;
use crate::look::{Alarm, AlarmKind, MemberLook, MemberStatus, Probe};
use crate::plan::gate::{evaluate, GateOptions};

const MI: u64 = 1024 * 1024;

/// Members (name, id, size MiB, in use MiB, learner, version, applied).
fn cluster(rows: &[(&str, u64, u64, u64, bool, &str, u64)]) -> ClusterLook {
    ClusterLook {
        members: rows
            .iter()
            .map(|&(name, id, size, used, learner, version, applied)| {
                MemberLook::listed_for_test(
                    name,
                    id,
                    learner,
                    Probe::Answered(MemberStatus {
                        member_id: id,
                        leader: 1,
                        db_size: size * MI,
                        db_size_in_use: used * MI,
                        raft_index: applied,
                        raft_applied_index: applied,
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

fn healthy() -> ClusterLook {
    cluster(&[
        ("a", 1, 100, 90, false, "3.6.16", 500),
        ("b", 2, 100, 90, false, "3.6.16", 500),
        ("c", 3, 100, 90, false, "3.6.16", 500),
    ])
}

fn checks(findings: &[Finding]) -> Vec<(Severity, String, Option<String>)> {
    findings
        .iter()
        .map(|f| (f.severity, f.check.clone(), f.member.clone()))
        .collect()
}

#[test]
fn a_healthy_cluster_is_all_ok() {
    let s = healthy();
    let v = evaluate(&s, &GateOptions::default());
    let facts = Facts {
        look: Some(&s),
        verdict: Some(&v),
        ..Default::default()
    };
    let found = examine(&facts);
    assert_eq!(worst(&found), Severity::Ok);
    // Every check that ran says it passed; those whose facts were not
    // read (metrics, certificates, the EtcdCluster) say nothing.
    let ok = |c: &str| (Severity::Ok, c.to_string(), None);
    assert_eq!(
        checks(&found),
        [
            ok("gate"),
            ok("alarm"),
            ok("fragmentation"),
            ok("quota"),
            ok("version-skew"),
            ok("known-defect"),
            ok("learner"),
        ]
    );
    assert_eq!(found[4].message, "every member runs etcd 3.6");
}

#[test]
fn every_check_that_ran_and_passed_is_listed() {
    let mut s = healthy();
    s.members[0].room = Some(crate::look::Room::Read(crate::look::DiskRoom {
        free_bytes: 8 << 30,
        capacity_bytes: Some(10 << 30),
        source: "the kubelet's statistics of volume data on node n1".into(),
    }));
    let v = evaluate(&s, &GateOptions::default());
    let settled = MemberMetrics {
        leader_changes: 4,
        uptime_seconds: 600.0,
        wal_fsync_p99_seconds: Some(0.002),
        wal_fsyncs: 500,
        ..Default::default()
    };
    let calm = MemberMetrics {
        move_leader_requests: 3,
        ..settled
    };
    let facts = Facts {
        look: Some(&s),
        verdict: Some(&v),
        revisions: Some((5_000, 4_000)),
        metrics: [("a".to_string(), calm)].into_iter().collect(),
        certs: vec![CertFact {
            what: "client certificate (--cert)".into(),
            not_after: 100 * 86_400,
        }],
        now: 0,
        spec: Some(ClusterSpecFacts {
            auto_compaction_retention: Some("1h".into()),
            ..Default::default()
        }),
        pod_args: [(
            "a".to_string(),
            vec!["--feature-gates=StopGRPCServiceOnDefrag=true".to_string()],
        )]
        .into_iter()
        .collect(),
        traffic: Some(TrafficFacts {
            value: "PreferSameNode".into(),
            placement: vec![("a".into(), Some("n1".into()), Zone::Unknown)],
        }),
        ..Default::default()
    };
    let found = examine(&facts);
    assert_eq!(worst(&found), Severity::Ok, "{found:#?}");
    let names: Vec<&str> = found.iter().map(|f| f.check.as_str()).collect();
    assert_eq!(
        names,
        [
            "gate",
            "alarm",
            "fragmentation",
            "quota",
            "version-skew",
            "known-defect",
            "learner",
            "defrag-space",
            "leader-changes",
            "disk-latency",
            "compaction",
            "auto-compaction",
            "certificate",
            "stop-grpc-on-defrag",
            "traffic"
        ]
    );
    let message = |check: &str| {
        found
            .iter()
            .find(|f| f.check == check)
            .map(|f| f.message.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        message("leader-changes"),
        "none of the 1 of 3 members whose /metrics were read sees frequent elections (3 or more, over 2 per hour); the others were not judged; 3 transfer(s) requested through MoveLeader not counted"
    );
    assert_eq!(
        message("compaction"),
        "1000 revisions are kept (current 5000, compacted up to 4000)"
    );
    assert_eq!(
        message("certificate"),
        "every certificate is valid for 30 days or more (the first to expire: the client certificate (--cert), in 100 days)"
    );
    assert!(found.iter().all(|f| f.remedy.is_empty()));
}

#[test]
fn gate_reasons_become_findings_with_severities() {
    let mut s = healthy();
    s.members[2].probe = Probe::refused_for_test();
    if let Probe::Answered(st) = &mut s.members[1].probe {
        st.raft_index = 500 + 5000;
    }
    let v = evaluate(&s, &GateOptions::default());
    let found = gate(&v, "db");
    assert!(found.contains(&Finding {
        severity: Severity::Critical,
        check: "gate/MemberUnreachable".into(),
        member: Some("c".into()),
        message: v.reasons.iter().find(|r| r.code() == "MemberUnreachable").unwrap().to_string(),
        remedy: "bring the member back (its Pod or process, its disk, the network) before any maintenance".into(),
        acknowledged: false,
    }));
    let lag = found.iter().find(|f| f.check == "gate/ApplyLag").unwrap();
    assert_eq!(
        (lag.severity, lag.member.as_deref()),
        (Severity::Warning, Some("b"))
    );
    assert!(lag.remedy.contains("kubectl etcd status db"));
}

#[test]
fn alarms_are_critical_with_their_own_remedy() {
    let mut s = healthy();
    s.alarms = vec![
        Alarm {
            member_id: 1,
            kind: AlarmKind::Nospace,
        },
        Alarm {
            member_id: 2,
            kind: AlarmKind::Corrupt,
        },
    ];
    let found = alarms(&s, "db -n prod");
    assert_eq!(
        checks(&found),
        [
            (Severity::Critical, "alarm/NOSPACE".into(), Some("a".into())),
            (Severity::Critical, "alarm/CORRUPT".into(), Some("b".into()))
        ]
    );
    // One command, naming the cluster, that also disarms.
    assert!(found[0]
        .remedy
        .starts_with("kubectl etcd defrag db -n prod --compact ("));
    assert!(!found[0].remedy.contains("alarm disarm"));
    assert!(found[1].remedy.contains("never disarm it blind"));
    assert!(alarms(&s, "")[0]
        .remedy
        .starts_with("kubectl etcd defrag --compact ("));
}

#[test]
fn under_nospace_one_command_is_offered() {
    // A member over its quota and fragmented: without the alarm the
    // quota and fragmentation findings each offer a defrag; with it
    // they defer to the NOSPACE remedy.
    let mut s = cluster(&[("a", 1, 1900, 100, false, "3.6.16", 1)]);
    s.alarms = vec![Alarm {
        member_id: 1,
        kind: AlarmKind::Nospace,
    }];
    let verdict = crate::plan::gate::evaluate(&s, &Default::default());
    let found = examine(&Facts {
        look: Some(&s),
        verdict: Some(&verdict),
        ..Default::default()
    });
    let commands: Vec<&str> = found
        .iter()
        .filter(|f| f.remedy.contains("kubectl etcd"))
        .map(|f| f.check.as_str())
        .collect();
    assert_eq!(commands, ["alarm/NOSPACE"], "{found:#?}");
    assert!(found
        .iter()
        .any(|f| f.check == "fragmentation" && f.remedy.contains("NOSPACE remedy")));
}

#[test]
fn fragmentation_follows_the_defrag_rule() {
    let s = cluster(&[
        ("a", 1, 500, 100, false, "3.6.16", 1),
        ("b", 2, 300, 150, false, "3.6.16", 1),
    ]);
    let found = fragmentation(&s, &DefragRule::default(), "db -n prod");
    assert_eq!(
        checks(&found),
        [(Severity::Warning, "fragmentation".into(), Some("a".into()))]
    );
    assert_eq!(
        found[0].message,
        "a: 400 MiB of its 500 MiB file is free space (rule: reclaimable > 10% of the quota (at most 200 MiB))"
    );
    assert_eq!(found[0].remedy, "kubectl etcd defrag db -n prod");
    let all = DefragRule {
        all: true,
        ..Default::default()
    };
    assert_eq!(fragmentation(&s, &all, "").len(), 2);
}

#[test]
fn a_defrag_longer_than_etcds_request_timeout_is_named() {
    // 1.2 GiB in use: about 15 s by the model, so writes to it fail.
    let s = cluster(&[
        ("a", 1, 2000, 1200, false, "3.6.16", 1),
        ("b", 2, 2000, 100, false, "3.6.16", 1),
    ]);
    let found = fragmentation(&s, &DefragRule::default(), "");
    assert_eq!(
        checks(&found),
        [
            (Severity::Warning, "fragmentation".into(), Some("a".into())),
            (Severity::Warning, "defrag-outage".into(), Some("a".into())),
            (Severity::Warning, "fragmentation".into(), Some("b".into())),
        ]
    );
    assert!(
        found[1]
            .message
            .starts_with("a: defragmenting 1.2 GiB in use takes about 15s, longer than etcd's 7s request timeout"),
        "{}",
        found[1].message
    );
    assert!(found[1].remedy.contains("StopGRPCServiceOnDefrag"));
}

#[test]
fn quota_warns_at_80_and_is_critical_at_95_percent() {
    let mut s = cluster(&[
        ("a", 1, 70, 60, false, "3.6.16", 1),
        ("b", 2, 85, 30, false, "3.6.16", 1),
        ("c", 3, 97, 90, false, "3.6.16", 1),
    ]);
    for m in &mut s.members {
        m.quota_bytes = 100 * MI;
    }
    let found = quota(&s);
    assert_eq!(
        checks(&found),
        [
            (Severity::Warning, "quota".into(), Some("b".into())),
            (Severity::Critical, "quota".into(), Some("c".into()))
        ]
    );
    assert!(found[0].remedy.starts_with("defragment it"));
    assert!(found[1]
        .remedy
        .starts_with("the data itself nears the quota"));
    assert_eq!(
        found[1].message,
        "c: 97 MiB is 97% of its 100 MiB quota (90% in use)"
    );
}

#[test]
fn version_skew_is_minor_releases_only() {
    let patch = cluster(&[
        ("a", 1, 1, 1, false, "3.5.20", 1),
        ("b", 2, 1, 1, false, "3.5.35", 1),
    ]);
    assert!(versions(&patch).is_empty());
    let minor = cluster(&[
        ("a", 1, 1, 1, false, "3.5.35", 1),
        ("b", 2, 1, 1, false, "3.6.16", 1),
    ]);
    let found = versions(&minor);
    assert_eq!(
        found[0].message,
        "members run different minor releases: a 3.5.35, b 3.6.16"
    );
}

#[test]
fn known_defects_name_each_affected_member_and_the_upgrade() {
    let mixed = cluster(&[
        ("a", 1, 1, 1, false, "3.4.23", 1),
        ("b", 2, 1, 1, false, "3.4.23", 1),
        ("c", 3, 1, 1, false, "3.4.38", 1),
    ]);
    let found = known_defects(&mixed, &Setup::default());
    let race = found
        .iter()
        .find(|f| f.check == "known-defect/apply-snapshot-during-defrag")
        .expect("3.4.23 has the race");
    assert_eq!(race.severity, Severity::Warning);
    assert!(
        race.message.starts_with(
            "a (3.4.23), b (3.4.23) run a release with a known defragmentation defect"
        ),
        "{}",
        race.message
    );
    assert!(!race.message.contains("c (3.4.38)"), "{}", race.message);
    assert_eq!(race.remedy, "upgrade to 3.4.38 or later (etcd PR 20659)");
    // 3.4.38 still lacks the MemberUpdate fix (no 3.4 has it).
    let update = found
        .iter()
        .find(|f| f.check == "known-defect/member-update-promotes-learner")
        .expect("every 3.4 has it");
    assert!(
        update
            .message
            .starts_with("a (3.4.23), b (3.4.23), c (3.4.38) run"),
        "{}",
        update.message
    );
    let fixed = cluster(&[
        ("a", 1, 1, 1, false, "3.6.16", 1),
        ("b", 2, 1, 1, false, "3.7.3", 1),
    ]);
    assert!(known_defects(&fixed, &Setup::default()).is_empty());
}

/// A security advisory is critical where its condition is known to hold,
/// a warning where it cannot be told, and absent where it does not hold.
#[test]
fn advisories_weigh_by_what_is_known_of_the_setup() {
    let s = cluster(&[
        ("a", 1, 1, 1, false, "3.6.5", 1),
        ("b", 2, 1, 1, false, "3.6.5", 1),
    ]);
    let severity = |setup: &Setup<'_>, code: &str| {
        known_defects(&s, setup)
            .iter()
            .find(|f| f.check == format!("known-defect/{code}"))
            .map(|f| (f.severity, f.message.clone(), f.remedy.clone()))
    };
    let auth_on = Setup {
        auth: Some(true),
        tls: Some(false),
        ..Setup::default()
    };
    let (sev, message, remedy) = severity(&auth_on, "auth-bypass-nested-txn").unwrap();
    assert_eq!(sev, Severity::Critical);
    assert!(
        message.starts_with("a (3.6.5), b (3.6.5) run a release with security advisory CVE-2026-33343: with authentication on, a user limited to some keys"),
        "{message}"
    );
    assert_eq!(remedy, "upgrade to 3.6.9 or later (CVE-2026-33343)");
    assert_eq!(severity(&auth_on, "tls-handshake-no-deadline"), None);
    let (sev, message, _) = severity(&Setup::default(), "auth-bypass-nested-txn").unwrap();
    assert_eq!(sev, Severity::Warning);
    assert!(
        message.ends_with(
            "; it applies only where authentication is on, which this tool could not tell"
        ),
        "{message}"
    );
    assert_eq!(
        severity(
            &Setup {
                auth: Some(false),
                ..Setup::default()
            },
            "auth-bypass-nested-txn"
        ),
        None
    );
    // The CRL bypass needs both flags on the member: b has them.
    let args: BTreeMap<String, Vec<String>> = [
        (
            "a".to_string(),
            vec!["--client-crl-file=/crl.pem".to_string()],
        ),
        (
            "b".to_string(),
            vec![
                "--listen-client-http-urls=https://0.0.0.0:2382".to_string(),
                "--client-crl-file=/crl.pem".to_string(),
            ],
        ),
    ]
    .into_iter()
    .collect();
    let with_args = Setup {
        pod_args: Some(&args),
        ..Setup::default()
    };
    let (sev, message, _) = severity(&with_args, "crl-not-enforced-on-grpc").unwrap();
    assert_eq!(sev, Severity::Critical);
    assert!(
        message.starts_with("b (3.6.5) runs a release with security advisory GHSA-3wh4-j44w-pg92"),
        "{message}"
    );
    // The quota that 3.6.5 reports as 0: the tool reads around it.
    let (sev, _, remedy) = severity(&Setup::default(), "status-reports-zero-quota").unwrap();
    assert_eq!((sev, remedy.as_str()), (Severity::Ok, ""));
}

#[test]
fn a_line_past_its_end_of_life_is_named_with_the_way_up() {
    let s = cluster(&[
        ("a", 1, 1, 1, false, "3.4.23", 1),
        ("b", 2, 1, 1, false, "3.4.45", 1),
        ("c", 3, 1, 1, false, "3.5.35", 1),
    ]);
    let found = end_of_life(&s);
    assert_eq!(
        checks(&found),
        [(Severity::Warning, "end-of-life".into(), None)]
    );
    assert_eq!(
        found[0].message,
        "a (3.4.23), b (3.4.45) run etcd 3.4, which reached its end of life with 3.4.45 (2026-06-01): no fixes come after it, security fixes included"
    );
    assert_eq!(
        found[0].remedy,
        "upgrade to 3.5, one minor release at a time (doctor's --upgrade-to 3.5 lists what stands in the way)"
    );
}

#[test]
fn a_caught_up_learner_should_be_promoted() {
    let s = cluster(&[
        ("a", 1, 1, 1, false, "3.6.16", 5000),
        ("b", 2, 1, 1, false, "3.6.16", 5000),
        ("c", 3, 1, 1, false, "3.6.16", 5000),
        ("ready", 4, 1, 1, true, "3.6.16", 4990),
        ("behind", 5, 1, 1, true, "3.6.16", 10),
    ]);
    let v = evaluate(&s, &GateOptions::default());
    let found = learners(&s, &v);
    assert_eq!(
        checks(&found),
        [
            (Severity::Warning, "learner".into(), Some("ready".into())),
            (Severity::Ok, "learner".into(), Some("behind".into()))
        ]
    );
    assert_eq!(found[0].remedy, "kubectl etcd member promote ready");
}

#[test]
fn a_defrag_must_fit_in_the_free_space_the_sweep_reads() {
    use crate::look::{DiskRoom, Room};
    let mut s = cluster(&[
        ("a", 1, 700, 300, false, "3.6.16", 1),
        ("b", 2, 600, 300, false, "3.6.16", 1),
        ("c", 3, 600, 300, false, "3.6.16", 1),
        ("d", 4, 600, 300, true, "3.6.16", 1),
    ]);
    let read = |free: u64| {
        Some(Room::Read(DiskRoom {
            free_bytes: free * MI,
            capacity_bytes: Some(1024 * MI),
            source: "the kubelet's statistics of volume data on node n1".into(),
        }))
    };
    s.members[0].room = read(300);
    s.members[1].room = read(400);
    s.members[2].room = Some(Room::Unknown {
        why: "no nodes/proxy".into(),
    });
    s.members[3].room = read(1);
    let found = defrag_space(&s);
    assert_eq!(
        checks(&found),
        [(Severity::Critical, "defrag-space".into(), Some("a".into()))]
    );
    assert!(
        found[0].message.contains(
            "a: a defrag needs about 364 MiB free (300 MiB in use, plus a 64 MiB WAL segment) and its data volume has 300 MiB free of 1.0 GiB"
        ),
        "{}",
        found[0].message
    );
    // b fits; c is not known (the command lists it as unread); d is a
    // learner, never defragmented.
    s.members[0].room = None;
    assert!(defrag_space(&s).is_empty());
    assert_eq!(
        defrag_space_passed(&s).as_deref(),
        Some("a defrag fits on the data volume: b has 400 MiB free for 364 MiB")
    );
}

#[test]
fn frequent_elections_and_slow_fsyncs() {
    let metrics: BTreeMap<String, MemberMetrics> = [
        (
            "calm".to_string(),
            MemberMetrics {
                leader_changes: 1,
                uptime_seconds: 60.0,
                wal_fsync_p99_seconds: Some(0.002),
                wal_fsyncs: 500,
                ..Default::default()
            },
        ),
        (
            "restless".to_string(),
            MemberMetrics {
                leader_changes: 6,
                uptime_seconds: 1800.0,
                wal_fsync_p99_seconds: Some(0.05),
                wal_fsyncs: 500,
                ..Default::default()
            },
        ),
        (
            "old".to_string(),
            MemberMetrics {
                leader_changes: 5,
                uptime_seconds: 30.0 * 86400.0,
                wal_fsync_p99_seconds: Some(0.4),
                wal_fsyncs: 500,
                ..Default::default()
            },
        ),
        (
            "new".to_string(),
            MemberMetrics {
                leader_changes: 1,
                uptime_seconds: 5.0,
                wal_fsync_p99_seconds: Some(0.4),
                wal_fsyncs: 20,
                ..Default::default()
            },
        ),
    ]
    .into_iter()
    .collect();
    let elections = leader_changes(&metrics);
    assert_eq!(
        checks(&elections),
        [(
            Severity::Warning,
            "leader-changes".into(),
            Some("restless".into())
        )]
    );
    assert_eq!(
        elections[0].message,
        "restless has seen 6 leader changes in 30m up (12.0 per hour)"
    );
    // Transfers someone asked for are no elections: with 4 of restless's
    // 6 changes carried out through MoveLeader (by any member), only 2
    // elections remain, too few to warn about.
    let mut asked = metrics.clone();
    if let Some(m) = asked.get_mut("calm") {
        m.move_leader_requests = 3;
    }
    if let Some(m) = asked.get_mut("old") {
        m.move_leader_requests = 1;
    }
    assert!(leader_changes(&asked).is_empty());
    // With 2 transfers asked for, 4 elections still warn, and say so.
    if let Some(m) = asked.get_mut("calm") {
        m.move_leader_requests = 1;
    }
    let split = leader_changes(&asked);
    assert_eq!(
        split[0].message,
        "restless has seen 6 leader changes in 30m up: 2 requested through MoveLeader, 4 elections (8.0 per hour)"
    );
    assert!(split[0].remedy.contains("Transfers requested through MoveLeader (kubectl etcd move-leader, kubectl etcd defrag's leader handling) are not counted"));
    let disks = disk_latency(&metrics);
    assert_eq!(
        checks(&disks),
        [
            (
                Severity::Critical,
                "disk-latency".into(),
                Some("old".into())
            ),
            (
                Severity::Warning,
                "disk-latency".into(),
                Some("restless".into())
            )
        ]
    );
}

#[test]
fn compaction_off_lax_or_not_happening() {
    assert!(compaction(Some((2_000_000, 1_500_000)), None).is_empty());
    assert_eq!(
        compaction(Some((2_000_000, 0)), None)[0].check,
        "compaction"
    );
    let spec = |mode: Option<&str>, retention: Option<&str>| ClusterSpecFacts {
        auto_compaction_mode: mode.map(str::to_string),
        auto_compaction_retention: retention.map(str::to_string),
        ..Default::default()
    };
    for (mode, retention, want) in [
        (None, None, Some("off")),
        (None, Some("0"), Some("off")),
        (Some("periodic"), Some("1h"), None),
        (Some("periodic"), Some("5"), None),
        (Some("periodic"), Some("48h"), Some("keeps")),
        (None, Some("72"), Some("keeps")),
        (Some("revision"), Some("1000"), None),
        (Some("revision"), Some("5000000"), Some("keeps")),
    ] {
        let found = compaction(None, Some(&spec(mode, retention)));
        match want {
            None => assert!(found.is_empty(), "{mode:?} {retention:?}: {found:?}"),
            Some(word) => assert!(
                found[0].message.contains(word),
                "{mode:?} {retention:?}: {found:?}"
            ),
        }
    }
}

#[test]
fn certificates_warn_at_30_days_and_are_critical_at_7() {
    let now = 1_000_000_000;
    let cert = |days: i64| CertFact {
        what: format!("cert+{days}"),
        not_after: now + days * 86_400 + 60,
    };
    let found = certificates(&[cert(90), cert(20), cert(3), cert(-2)], now);
    assert_eq!(
        found
            .iter()
            .map(|f| (f.severity, f.message.as_str()))
            .collect::<Vec<_>>(),
        [
            (Severity::Warning, "the cert+20 expires in 20 days"),
            (Severity::Critical, "the cert+3 expires in 3 day(s)"),
            (Severity::Critical, "the cert+-2 expired 1 day(s) ago"),
        ]
    );
}

#[test]
fn stop_grpc_on_defrag_is_read_from_pod_args() {
    let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let mut pods = BTreeMap::new();
    pods.insert(
        "a".to_string(),
        args(&["--name=a", "--feature-gates=StopGRPCServiceOnDefrag=true"]),
    );
    pods.insert(
        "b".to_string(),
        args(&["--name=b", "--experimental-stop-grpc-service-on-defrag"]),
    );
    let found = stop_grpc_on_defrag(&pods, None);
    assert_eq!(
        found[0].message,
        "a, b set StopGRPCServiceOnDefrag in their Pod arguments: they stop serving gRPC health while they defragment, so health-checking clients move away"
    );
    pods.insert("c".to_string(), args(&["--name=c"]));
    let found = stop_grpc_on_defrag(&pods, None);
    assert!(
        found[0].message.ends_with(
            "; c do not set it, and their release was not read, so whether they could is not known"
        ),
        "{found:?}"
    );
    assert!(stop_grpc_on_defrag(&BTreeMap::new(), None).is_empty());
}

/// Issue 45: on etcd 3.4 members, which have no such feature, doctor said
/// "every member stops serving gRPC health": an ok finding states only
/// what was verified, for the members it verified.
#[test]
fn stop_grpc_on_defrag_speaks_only_for_members_it_verified() {
    let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let pods = |rows: &[(&str, bool)]| -> BTreeMap<String, Vec<String>> {
        rows.iter()
            .map(|(name, on)| {
                let mut a = args(&[&format!("--name={name}")]);
                if *on {
                    a.push("--feature-gates=StopGRPCServiceOnDefrag=true".into());
                }
                (name.to_string(), a)
            })
            .collect()
    };
    let v34 = cluster(&[
        ("a", 1, 100, 90, false, "3.4.23", 500),
        ("b", 2, 100, 90, false, "3.4.23", 500),
        ("c", 3, 100, 90, false, "3.4.23", 500),
    ]);
    let mixed = cluster(&[
        ("a", 1, 100, 90, false, "3.4.23", 500),
        ("b", 2, 100, 90, false, "3.6.16", 500),
        ("c", 3, 100, 90, false, "3.6.16", 500),
    ]);
    type Case<'a> = (
        &'a str,
        BTreeMap<String, Vec<String>>,
        &'a ClusterLook,
        &'a str,
        &'a str,
    );
    let cases: Vec<Case> = vec![
        (
            "3.4, nothing set",
            pods(&[("a", false), ("b", false), ("c", false)]),
            &v34,
            "a (3.4.23), b (3.4.23), c (3.4.23) run etcd 3.4, which has no StopGRPCServiceOnDefrag: clients sending to it wait for the whole defrag",
            "upgrade",
        ),
        (
            "mixed",
            pods(&[("a", false), ("b", true), ("c", false)]),
            &mixed,
            "b set StopGRPCServiceOnDefrag in their Pod arguments: they stop serving gRPC health while they defragment, so health-checking clients move away; c do not set StopGRPCServiceOnDefrag: clients sending to a defragmenting member wait for the whole defrag; a (3.4.23) run etcd 3.4, which has no StopGRPCServiceOnDefrag: clients sending to it wait for the whole defrag",
            "upgrade",
        ),
        (
            "3.6, all set",
            pods(&[("b", true), ("c", true)]),
            &mixed,
            "b, c set StopGRPCServiceOnDefrag in their Pod arguments: they stop serving gRPC health while they defragment, so health-checking clients move away",
            "",
        ),
    ];
    for (name, pods, look, message, remedy) in cases {
        let found = stop_grpc_on_defrag(&pods, Some(look));
        assert_eq!(found.len(), 1, "{name}");
        assert_eq!(found[0].severity, Severity::Ok, "{name}");
        assert_eq!(found[0].message, message, "{name}");
        assert!(!found[0].message.contains("every member"), "{name}");
        assert!(
            found[0].remedy.contains(remedy),
            "{name}: {}",
            found[0].remedy
        );
    }
}

/// Issue 45: history as a share of the quota, and a compacted revision
/// that does not move, from the revisions and the members' `/metrics`.
#[test]
fn history_and_a_compaction_that_never_comes() {
    let mut s = cluster(&[
        ("a", 1, 40, 30, false, "3.4.23", 500),
        ("b", 2, 40, 20, false, "3.4.23", 500),
    ]);
    for m in &mut s.members {
        m.quota_bytes = 64 * MI;
    }
    let metrics = |keys: u64, compactions: u64, up: f64| -> BTreeMap<String, MemberMetrics> {
        ["a", "b"]
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    MemberMetrics {
                        keys: Some(keys),
                        compactions: Some(compactions),
                        uptime_seconds: up,
                        ..Default::default()
                    },
                )
            })
            .collect()
    };
    let names = |f: &[Finding]| f.iter().map(|f| f.check.clone()).collect::<Vec<_>>();
    // 20,000 revisions over 500 keys, 30 MiB of a 64 MiB quota in use on a:
    // history; nothing compacted in two hours: stalled.
    let found = history(
        Some((20_001, 1)),
        &metrics(500, 0, 7200.0),
        &s,
        "db -n prod",
    );
    assert_eq!(names(&found), ["history", "compaction-stalled"]);
    assert_eq!(
        found[0].message,
        "20000 revisions are kept since the last compaction (current 20001, compacted up to 1) against 500 live keys: most of what is in use is likely old versions (30 MiB on a, 47% of its 64 MiB quota)"
    );
    assert!(found[0].remedy.starts_with("compact the old revisions and give the space back: kubectl etcd defrag db -n prod --compact;"));
    assert!(found[1].message.starts_with("no member has compacted since it started (2h ago for the most recent), while 20000 revisions piled up"), "{}", found[1].message);
    // Standalone: the command has no cluster and no double space.
    let found = history(Some((20_001, 1)), &metrics(500, 0, 7200.0), &s, "");
    assert!(found[0].remedy.contains("kubectl etcd defrag --compact;"));
    type Case<'a> = (
        &'a str,
        Option<(i64, i64)>,
        BTreeMap<String, MemberMetrics>,
        Vec<&'a str>,
    );
    let cases: Vec<Case> = vec![
        (
            "fewer revisions than keys",
            Some((401, 1)),
            metrics(500, 0, 7200.0),
            vec![],
        ),
        (
            "compacted recently",
            Some((20_001, 19_800)),
            metrics(500, 3, 7200.0),
            vec![],
        ),
        (
            "something compacts",
            Some((20_001, 1)),
            metrics(500, 4, 7200.0),
            vec!["history"],
        ),
        (
            "up only 10 minutes",
            Some((20_001, 1)),
            metrics(500, 0, 600.0),
            vec!["history"],
        ),
        ("no revisions read", None, metrics(500, 0, 7200.0), vec![]),
        ("no metrics", Some((20_001, 1)), BTreeMap::new(), vec![]),
    ];
    for (name, revisions, m, want) in cases {
        assert_eq!(names(&history(revisions, &m, &s, "")), want, "{name}");
    }
    // Little in use against the quota: not history's doing.
    let mut roomy = s.clone();
    for m in &mut roomy.members {
        m.quota_bytes = 2048 * MI;
    }
    assert_eq!(
        names(&history(
            Some((20_001, 1)),
            &metrics(500, 4, 7200.0),
            &roomy,
            ""
        )),
        Vec::<String>::new()
    );
}

/// Issue 45: an ok finding speaks only for the members it judged.
#[test]
fn ok_findings_say_how_many_members_they_judged() {
    let mut s = cluster(&[
        ("a", 1, 100, 90, false, "3.6.16", 500),
        ("b", 2, 100, 90, false, "3.6.16", 500),
        ("c", 3, 100, 90, false, "3.6.16", 500),
    ]);
    s.members[2].probe = Probe::NotProbed("stopped".into());
    let found = fragmentation(&s, &DefragRule::default(), "");
    assert_eq!(
        found[0].message,
        "none of the 2 of 3 members that answered needs a defrag (rule: reclaimable > 10% of the quota (at most 200 MiB)); the others were not judged"
    );
    let v = evaluate(&s, &GateOptions::default());
    let metrics: BTreeMap<String, MemberMetrics> = [(
        "a".to_string(),
        MemberMetrics {
            uptime_seconds: 3600.0,
            ..Default::default()
        },
    )]
    .into_iter()
    .collect();
    let facts = Facts {
        look: Some(&s),
        verdict: Some(&v),
        metrics,
        ..Default::default()
    };
    let found = examine(&facts);
    let elections = found.iter().find(|f| f.check == "leader-changes").unwrap();
    assert!(
        elections.message.starts_with(
            "none of the 1 of 3 members whose /metrics were read sees frequent elections"
        ),
        "{}",
        elections.message
    );
}

#[test]
fn traffic_needs_zone_labels_and_spread() {
    let place = |rows: &[(&str, Option<&str>, Zone)]| TrafficFacts {
        value: "PreferSameZone".into(),
        placement: rows
            .iter()
            .map(|(m, n, z)| (m.to_string(), n.map(str::to_string), z.clone()))
            .collect(),
    };
    let z = |name: &str| Zone::Labelled(name.into());
    let spread = place(&[("a", Some("n1"), z("z1")), ("b", Some("n2"), z("z2"))]);
    assert!(traffic(&spread).is_empty());
    let one_zone = place(&[("a", Some("n1"), z("z1")), ("b", Some("n2"), z("z1"))]);
    assert_eq!(
        traffic(&one_zone)[0].message,
        "PreferSameZone: every member runs in zone z1, so clients in other zones get no same-zone member"
    );
    let unlabelled = place(&[
        ("a", Some("n1"), Zone::Unlabelled),
        ("b", Some("n2"), z("z2")),
        ("c", None, Zone::Unknown),
    ]);
    let found: Vec<String> = traffic(&unlabelled)
        .into_iter()
        .map(|f| f.message)
        .collect();
    // Not "every member runs in zone z2": a's zone is none and c's unknown.
    assert_eq!(
        found,
        [
            "c have no node yet".to_string(),
            "PreferSameZone: nodes n1 (runs a) have no topology.kubernetes.io/zone label, so their endpoints carry no zone hint".into(),
        ]
    );
    // Issue 45: Nodes that do not exist, or cannot be read, are not
    // "without a zone label"; unread ones are not judged at all (the
    // command lists them as unread).
    let missing = place(&[
        ("a", Some("n1"), Zone::NodeMissing),
        ("b", Some("n2"), Zone::Unread),
        ("c", Some("n3"), z("z1")),
    ]);
    let found: Vec<String> = traffic(&missing).into_iter().map(|f| f.message).collect();
    assert_eq!(
        found,
        ["PreferSameZone: nodes n1 (runs a) do not exist in the API server, so their endpoints carry no zone hint".to_string()]
    );
    let unread = place(&[
        ("a", Some("n1"), Zone::Unread),
        ("b", Some("n2"), Zone::Unread),
    ]);
    assert!(traffic(&unread).is_empty());
    let same_node = TrafficFacts {
        value: "PreferSameNode".into(),
        ..one_zone
    };
    assert!(traffic(&same_node).is_empty());
}

#[test]
fn findings_are_listed_worst_first() {
    let mut s = healthy();
    s.alarms = vec![Alarm {
        member_id: 1,
        kind: AlarmKind::Nospace,
    }];
    let v = evaluate(&s, &GateOptions::default());
    let facts = Facts {
        look: Some(&s),
        verdict: Some(&v),
        revisions: Some((3_000_000, 0)),
        ..Default::default()
    };
    let found = examine(&facts);
    let severities: Vec<Severity> = found.iter().map(|f| f.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(severities, sorted);
    assert_eq!(worst(&found), Severity::Critical);
}

#[test]
fn maintenance_feature_gates_say_how_they_change_maintenance() {
    let gates = |pairs: &[(&str, bool)]| -> BTreeMap<String, bool> {
        pairs.iter().map(|(g, on)| (g.to_string(), *on)).collect()
    };
    let mut features = BTreeMap::new();
    features.insert(
        "a".to_string(),
        gates(&[("StopGRPCServiceOnDefrag", true), ("AllAlpha", false)]),
    );
    features.insert(
        "b".to_string(),
        gates(&[("StopGRPCServiceOnDefrag", false)]),
    );
    let found = server_features(&features);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].check, "feature-gate/StopGRPCServiceOnDefrag");
    assert_eq!(found[0].severity, Severity::Ok);
    assert!(
        found[0].message.starts_with("StopGRPCServiceOnDefrag is on for a and off for b: with it on, a defragmenting member answers NOT_SERVING"),
        "{}",
        found[0].message
    );
    features.insert(
        "b".to_string(),
        gates(&[
            ("StopGRPCServiceOnDefrag", true),
            ("CompactHashCheck", false),
        ]),
    );
    let found = server_features(&features);
    let messages: Vec<&str> = found.iter().map(|f| f.message.as_str()).collect();
    assert!(
        messages[0].starts_with("StopGRPCServiceOnDefrag is on for every member (a, b)"),
        "{messages:?}"
    );
    assert!(
        messages[1].starts_with("CompactHashCheck is off for every member (b)"),
        "{messages:?}"
    );
    assert!(server_features(&BTreeMap::new()).is_empty());
}

#[test]
fn probe_budgets_warn_with_the_numbers_only_where_the_kubelet_would_restart() {
    use crate::kubelet::{Handler, PodProbes, Probe as KubeletProbe, ProbeKind};
    let probes = |handler: Handler, period, timeout, threshold| PodProbes {
        pod: "x".into(),
        container: "etcd".into(),
        started: Some(true),
        liveness: Some(KubeletProbe {
            kind: ProbeKind::Liveness,
            handler,
            period_seconds: period,
            timeout_seconds: timeout,
            failure_threshold: threshold,
        }),
        startup: None,
    };
    let livez = || Handler::HttpGet {
        path: "/livez".into(),
        port: "2381".into(),
    };
    // 90 MiB in use: the model predicts 0.25 s + 1.13 s.
    let mut s = healthy();
    assert!(probe_budgets(&s).is_empty(), "no probes known, no finding");
    s.members[0].probes = Some(probes(livez(), 1, 1, 1));
    s.members[1].probes = Some(probes(livez(), 10, 15, 8));
    s.members[2].probes = Some(probes(
        Handler::TcpSocket {
            port: "2380".into(),
        },
        10,
        1,
        3,
    ));
    let found = probe_budgets(&s);
    assert_eq!(
        checks(&found),
        [(Severity::Warning, "probe-budget".into(), Some("a".into()))]
    );
    let message = &found[0].message;
    for part in [
        "member a's liveness probe (GET /livez on port 2381, every 1s, timeout 1s, 1 failure) fails while it defragments, so the kubelet restarts it",
        "after 1–2s of defrag",
        "predicted at 1.4s (90 MiB in use, at the model's 12s per GB)",
    ] {
        assert!(message.contains(part), "{message}\nlacks: {part}");
    }
    assert!(found[0].remedy.contains("--allow-probe-restart"));

    s.members[0].probes = Some(probes(livez(), 10, 15, 8));
    let found = probe_budgets(&s);
    assert_eq!(
        checks(&found),
        [(Severity::Ok, "probe-budget".into(), None)]
    );
    assert!(
        found[0]
            .message
            .contains("after 120s of defrag at the earliest")
            && found[0]
                .message
                .contains("c: liveness probe (a TCP connect to port 2380"),
        "{}",
        found[0].message
    );
}

fn churn_sample(prefix: &str, bytes_per_second: f64) -> crate::plan::usage::ChurnSample {
    use crate::plan::usage::{Churn, ChurnSample, GroupUsage};
    ChurnSample {
        window: std::time::Duration::from_secs(5),
        busiest: vec![GroupUsage {
            prefix: prefix.into(),
            keys: 10,
            bytes: 0,
            page_bytes: 0,
            history_revisions: None,
            history_bytes: None,
            churn: Some(Churn {
                puts: 500,
                deletes: 0,
                writes_per_second: 100.0,
                bytes_per_second,
                keys_written: 500,
                hottest_key: format!("{prefix}ns/a"),
                hottest_writes: 1,
            }),
        }],
        total_writes: 500,
        total_bytes_per_second: bytes_per_second,
    }
}

#[test]
fn churn_names_the_busiest_prefix_only_when_its_writes_explain_the_free_space() {
    // a: 400 MiB free (the rule defragments it); b: below the rule.
    let s = cluster(&[
        ("a", 1, 500, 100, false, "3.6.16", 1),
        ("b", 2, 300, 150, false, "3.6.16", 1),
    ]);
    let rule = DefragRule::default();
    let spec = |mode: &str, retention: &str| ClusterSpecFacts {
        auto_compaction_mode: Some(mode.into()),
        auto_compaction_retention: Some(retention.into()),
        ..Default::default()
    };
    // (bytes/s written, the EtcdCluster's auto-compaction, severity, message starts)
    let cases: Vec<(f64, Option<ClusterSpecFacts>, Severity, &str)> = vec![
        // 200 KB/s × 5 min = 60 MB ≥ 40 MiB (a tenth of 400 MiB)
        (
            200_000.0,
            None,
            Severity::Warning,
            "/registry/events/ takes 100% of the writes",
        ),
        // 100 KB/s × 5 min = 30 MB < 40 MiB
        (
            100_000.0,
            None,
            Severity::Ok,
            "the writes do not explain the 400 MiB free",
        ),
        // compacted hourly ("1" is hours): 100 KB/s × 1 h = 360 MB
        (
            100_000.0,
            Some(spec("periodic", "1")),
            Severity::Warning,
            "/registry/events/ takes",
        ),
        // every 10 minutes: 60 MB
        (
            100_000.0,
            Some(spec("periodic", "10m")),
            Severity::Warning,
            "/registry/events/ takes",
        ),
        // revision mode says nothing of time: the API server's 5 minutes
        (
            100_000.0,
            Some(spec("revision", "1000")),
            Severity::Ok,
            "the writes do not explain",
        ),
    ];
    for (rate, spec, severity, starts) in cases {
        let found = churn(
            &s,
            &rule,
            &churn_sample("/registry/events/", rate),
            spec.as_ref(),
            "db -n prod",
        );
        assert_eq!(found.len(), 1, "{rate} {spec:?}");
        assert_eq!(
            found[0].severity, severity,
            "{rate} {spec:?}: {}",
            found[0].message
        );
        assert!(
            found[0].message.starts_with(starts),
            "{rate} {spec:?}: {}",
            found[0].message
        );
        if severity == Severity::Warning {
            assert!(
                found[0].remedy.contains("--event-ttl"),
                "{}",
                found[0].remedy
            );
        } else {
            assert_eq!(found[0].remedy, "");
        }
    }
    // No member needs a defrag: nothing sampled is said.
    let healthy = cluster(&[("a", 1, 100, 90, false, "3.6.16", 1)]);
    assert!(churn(&healthy, &rule, &churn_sample("/x/", 1e9), None, "").is_empty());
    // A sample without a write.
    let mut quiet = churn_sample("/x/", 0.0);
    quiet.busiest.clear();
    let found = churn(&s, &rule, &quiet, None, "");
    assert_eq!(found[0].severity, Severity::Ok);
    assert_eq!(
        found[0].message,
        "no write in 5s: the free space is not being re-created"
    );
}

#[test]
fn plain_http_beside_the_tls_secrets_is_critical() {
    let with = |secret: Option<&str>| {
        let facts = Facts {
            spec: Some(ClusterSpecFacts {
                plaintext_beside_tls: secret.map(str::to_string),
                ..Default::default()
            }),
            ..Default::default()
        };
        examine(&facts)
            .into_iter()
            .filter(|f| f.check == "plaintext-client")
            .collect::<Vec<_>>()
    };
    let found = with(Some("ns/db-client-tls"));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].severity, Severity::Critical);
    assert!(
        found[0].message.contains("Secret ns/db-client-tls"),
        "{found:?}"
    );
    assert!(
        found[0].message.contains("anyone on the cluster network"),
        "{found:?}"
    );
    assert!(found[0].remedy.contains("spec.etcdOptions"), "{found:?}");
    assert!(with(None).is_empty());
}

/// `--acknowledge`: the findings of a named check are marked, whatever
/// their member, and leave the worst severity; an ok finding is never
/// marked (nothing to accept); an id no finding carries is said back;
/// the served severity of an acknowledged check is its passing one.
#[test]
fn acknowledged_findings_stay_listed_and_leave_the_worst() {
    let f = |check: &str, severity, member: Option<&str>| {
        finding(severity, check, member, format!("{check} seen"), "do this")
    };
    let found = vec![
        f("known-defect/defrag-error-panics", Severity::Warning, None),
        f("fragmentation", Severity::Warning, Some("m1")),
        f("fragmentation", Severity::Warning, Some("m2")),
        f("quota", Severity::Ok, None),
    ];
    assert_eq!(worst(&found), Severity::Warning);
    let ids = vec![
        "known-defect/defrag-error-panics".to_string(),
        "quota".to_string(),
        "known-defect/typo".to_string(),
    ];
    let marked = acknowledge(found.clone(), &ids);
    assert_eq!(marked.len(), found.len());
    assert_eq!(
        marked.iter().map(|f| f.acknowledged).collect::<Vec<_>>(),
        [true, false, false, false]
    );
    assert_eq!(
        worst(&marked),
        Severity::Warning,
        "fragmentation is not acknowledged"
    );
    let all = acknowledge(
        found.clone(),
        &[
            "known-defect/defrag-error-panics".into(),
            "fragmentation".into(),
        ],
    );
    assert_eq!(worst(&all), Severity::Ok);
    assert!(all
        .iter()
        .all(|f| f.severity == found[0].severity || f.check == "quota"));
    let refs: Vec<&Finding> = marked.iter().collect();
    assert_eq!(unmatched(&ids, &refs), ["known-defect/typo"]);
    let empty = ClusterLook {
        members: vec![],
        member_list_known: true,
        alarms: vec![],
        alarm_list_error: None,
    };
    let verdict = evaluate(&empty, &GateOptions::default());
    let served = gauges::of(&empty, &verdict, &all, None, &[]);
    assert_eq!(served.checks.get("fragmentation"), Some(&Severity::Ok));
    assert_eq!(
        serde_json::to_value(&all[0]).unwrap()["acknowledged"],
        serde_json::json!(true)
    );
    assert!(serde_json::to_value(&found[0])
        .unwrap()
        .get("acknowledged")
        .is_none());
}
