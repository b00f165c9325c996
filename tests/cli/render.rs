//! Snapshot tests of what users read: the `status`, `defrag`, `alarm` and
//! `traffic` tables (and the defrag report's JSON), rendered from reports
//! built by hand with fixed sizes, ids and durations.
//!
//! Accept new or changed snapshots with `INSTA_UPDATE=always cargo test
//! --test cli -- render::` (or `cargo insta review`), then read every
//! `.snap` file (in `tests/cli/snapshots/`):
//! it is exactly what a user sees.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use kubectl_etcd::contract::{FieldOwner, TrafficValue, ANNOTATION, FIELD_MANAGER};
use kubectl_etcd::etcd::{FailureCause, RpcError};
use kubectl_etcd::exec::{preview, RunInput, SweepOptions};
use kubectl_etcd::look::{
    Alarm, AlarmKind, ClusterLook, ListedMember, MemberLook, MemberStatus, Probe, StatusError,
};
use kubectl_etcd::output::OutputFormat;
use kubectl_etcd::output::{render_data, table};
use kubectl_etcd::plan::alarm::disarm_decisions;
use kubectl_etcd::plan::defrag::{choose_leader_handling, Measured, MoveLeader, Role};
use kubectl_etcd::plan::gate::{evaluate, GateOptions};
use kubectl_etcd::plan::rule::DefragRule;
use kubectl_etcd::plan::traffic::{deprecated_on, expected_support, Assessment, ServiceAction};
use kubectl_etcd::reach::{Dial, Endpoint, QuotaSource, Scheme};
use kubectl_etcd::report::{
    AlarmAction, AlarmResult, AlarmRow, Change, ClusterRef, ClusterStatus, ContextRow,
    DefragReport, HashCheck, HashVerdict, LeaderReport, MemberHash, MemberReason, MemberResult,
    MultiStatusReport, Outcome, ServerSupport, StatusReport, StopReason, Stopped, TrafficReport,
    ValueSupport,
};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Fixed member ids (hex as etcd generates them).
const ID0: u64 = 0x8e9e_05c5_2164_694d;
const ID1: u64 = 0x91bc_3c39_8fb3_c146;
const ID2: u64 = 0xfd42_2379_fda5_0e48;
const ID3: u64 = 0x3a57_9339_72cb_5131;

/// Renders must be tidy: no trailing blanks, exactly one final newline
/// (insta's comparison forgives trailing whitespace at the end, this does
/// not).
fn tidy(text: String) -> String {
    for line in text.lines() {
        assert_eq!(line, line.trim_end(), "trailing blanks in:\n{text}");
    }
    assert!(text.ends_with('\n'), "no final newline:\n{text}");
    assert!(!text.ends_with("\n\n"), "blank line at the end:\n{text}");
    text
}

fn cluster(namespace: &str, name: &str) -> ClusterRef {
    ClusterRef::new(namespace, name)
}

fn dial(url: &str) -> Dial {
    Dial::new(Endpoint::parse(url, Scheme::Https).unwrap())
}

fn endpoint_of(n: usize) -> String {
    format!("https://10.244.{}.1{n}:2379", n + 1)
}

/// A member's Status answer.
struct Answer {
    id: u64,
    leader: u64,
    version: &'static str,
    db_size: u64,
    in_use: u64,
    reported_quota: Option<u64>,
    raft_index: u64,
    applied: u64,
    learner: bool,
    errors: Vec<StatusError>,
}

impl Answer {
    fn new(id: u64, leader: u64, version: &'static str, db_size: u64, in_use: u64) -> Answer {
        Answer {
            id,
            leader,
            version,
            db_size,
            in_use,
            reported_quota: None,
            raft_index: 120_412,
            applied: 120_412,
            learner: false,
            errors: vec![],
        }
    }

    fn probe(self) -> Probe {
        Probe::Answered(MemberStatus {
            member_id: self.id,
            version: self.version.into(),
            db_size: self.db_size,
            db_size_in_use: self.in_use,
            db_size_quota: self.reported_quota,
            leader: self.leader,
            raft_term: 7,
            raft_index: self.raft_index,
            raft_applied_index: self.applied,
            is_learner: self.learner,
            revision: 98_311,
            errors: self.errors,
            storage_version: None,
            downgrading_to: None,
        })
    }
}

/// A member MemberList lists as `etcd-<n>`, dialed at its pod IP.
fn member(n: usize, id: u64, learner: bool, probe: Probe, quota: (u64, QuotaSource)) -> MemberLook {
    let name = format!("etcd-{n}");
    MemberLook {
        name: name.clone(),
        id: Some(id),
        dial: Some(dial(&endpoint_of(n))),
        listed: Some(ListedMember {
            id,
            name,
            peer_urls: vec![format!("https://10.244.{}.1{n}:2380", n + 1)],
            client_urls: vec![endpoint_of(n)],
            is_learner: learner,
        }),
        probe,
        quota_bytes: quota.0,
        quota_source: quota.1,
        answered_in: None,
        snapshot_watch: None,
        probes: None,
        room: None,
    }
}

fn timed_out(n: usize, op: &'static str, after: Duration) -> RpcError {
    RpcError {
        endpoint: endpoint_of(n),
        op,
        cause: FailureCause::Timeout { after },
    }
}

fn snapshot(members: Vec<MemberLook>, alarms: Vec<Alarm>) -> ClusterLook {
    ClusterLook {
        members,
        member_list_known: true,
        alarms,
        alarm_list_error: None,
    }
}

fn status_report(cluster: Option<ClusterRef>, snap: &ClusterLook) -> StatusReport {
    let verdict = evaluate(snap, &GateOptions::default());
    StatusReport::build(cluster, snap, &verdict)
}

// ---------------------------------------------------------------- status

/// etcd 3.6 (reports its quota, 8 GiB), leader etcd-1, all healthy.
fn healthy_snapshot() -> ClusterLook {
    let quota = (8 * GIB, QuotaSource::Member);
    let answer = |id, db, in_use| {
        let mut a = Answer::new(id, ID1, "3.6.4", db, in_use);
        a.reported_quota = Some(8 * GIB);
        a.probe()
    };
    snapshot(
        vec![
            member(0, ID0, false, answer(ID0, 512 * MIB, 180 * MIB), quota),
            member(1, ID1, false, answer(ID1, 498 * MIB, 181 * MIB), quota),
            member(2, ID2, false, answer(ID2, 64 * MIB, 60 * MIB), quota),
        ],
        vec![],
    )
}

/// etcd 3.5 (no quota in Status; the EtcdCluster says 2 GiB): leader
/// etcd-0; etcd-1 does not answer; etcd-2 raised NOSPACE and lags in
/// applying; etcd-3 is a learner.
fn troubled_snapshot() -> ClusterLook {
    let quota = (2 * GIB, QuotaSource::Cluster);
    let nospace = Alarm {
        member_id: ID2,
        kind: AlarmKind::Nospace,
    };
    let leader = Answer::new(ID0, ID0, "3.5.21", 1434 * MIB, 420 * MIB);
    let mut full = Answer::new(ID2, ID0, "3.5.21", 2045 * MIB, 610 * MIB);
    full.raft_index = 120_000;
    full.applied = 118_500;
    full.errors = vec![StatusError::Alarm(nospace.clone())];
    let mut learner = Answer::new(ID3, ID0, "3.5.21", 800 * MIB, 400 * MIB);
    learner.learner = true;
    snapshot(
        vec![
            member(0, ID0, false, leader.probe(), quota),
            member(
                1,
                ID1,
                false,
                Probe::Failed(timed_out(1, "Status", Duration::from_secs(5))),
                quota,
            ),
            member(2, ID2, false, full.probe(), quota),
            member(3, ID3, true, learner.probe(), quota),
        ],
        vec![nospace],
    )
}

#[test]
fn status_healthy() {
    let report = status_report(None, &healthy_snapshot());
    assert!(report.gate.passed);
    insta::assert_snapshot!("status_healthy", tidy(table::status(&report, false)));
}

#[test]
fn status_healthy_wide() {
    let report = status_report(None, &healthy_snapshot());
    insta::assert_snapshot!("status_healthy_wide", tidy(table::status(&report, true)));
}

#[test]
fn status_unreachable_nospace_learner() {
    let report = status_report(None, &troubled_snapshot());
    assert!(!report.gate.passed);
    insta::assert_snapshot!(
        "status_unreachable_nospace_learner",
        tidy(table::status(&report, false))
    );
}

#[test]
fn status_unreachable_nospace_learner_wide() {
    let report = status_report(None, &troubled_snapshot());
    insta::assert_snapshot!(
        "status_unreachable_nospace_learner_wide",
        tidy(table::status(&report, true))
    );
}

fn multi_status_report() -> MultiStatusReport {
    MultiStatusReport {
        clusters: vec![
            ClusterStatus {
                kind: None,
                cluster: cluster("dev", "broken"),
                error: Some(
                    "EtcdCluster dev/broken has no running members (no EtcdMember carries its label); nothing to connect to"
                        .into(),
                ),
                status: None,
            },
            ClusterStatus {
                kind: Some(kubectl_etcd::reach::Kind::EtcdIo),
                cluster: cluster("prod", "etcd"),
                error: None,
                status: Some(with_activity(status_report(
                    Some(cluster("prod", "etcd")),
                    &healthy_snapshot(),
                ))),
            },
            ClusterStatus {
                kind: Some(kubectl_etcd::reach::Kind::Cozystack),
                cluster: cluster("staging", "etcd"),
                error: None,
                status: Some(status_report(
                    Some(cluster("staging", "etcd")),
                    &troubled_snapshot(),
                )),
            },
        ],
        contexts: vec![],
    }
}

/// A cluster the operator is defragmenting under a policy's run, with one
/// run queued behind it, a failed run before, and two policies.
fn with_activity(mut report: StatusReport) -> StatusReport {
    use kubectl_etcd::report::{DefragActivity, PolicyNext, RunSummary};
    report.defrag = Some(DefragActivity {
        active: Some(RunSummary {
            name: "nightly-1764900000".into(),
            phase: "Running".into(),
            driver: "driven by the etcd-operator's defrag controller".into(),
            members: 3,
            done: 1,
            defragmented: 1,
            reclaimed_bytes: 120 << 20,
            created_at: Some("2026-12-05T02:00:00Z".into()),
            started_at: Some("2026-12-05T02:00:01Z".into()),
            completed_at: None,
            condition: Some("Running: defragmenting members".into()),
        }),
        queued: 1,
        last_finished: Some(RunSummary {
            name: "nightly-1764813600".into(),
            phase: "Failed".into(),
            driver: "driven by the etcd-operator's defrag controller".into(),
            members: 3,
            done: 3,
            defragmented: 2,
            reclaimed_bytes: 300 << 20,
            created_at: Some("2026-12-04T02:00:00Z".into()),
            started_at: Some("2026-12-04T02:00:01Z".into()),
            completed_at: Some("2026-12-04T02:03:12Z".into()),
            condition: Some("MemberFailed: 2/3 members defragmented".into()),
        }),
        policies: vec![
            PolicyNext {
                name: "nightly".into(),
                schedule: "0 2 * * *".into(),
                suspended: false,
                next_tick: Some("2026-12-06T02:00:00Z".into()),
                error: None,
            },
            PolicyNext {
                name: "weekly".into(),
                schedule: "@weekly".into(),
                suspended: true,
                next_tick: None,
                error: None,
            },
        ],
        error: None,
    });
    report
}

#[test]
fn status_with_defrag_runs_and_policies() {
    let report = with_activity(status_report(None, &healthy_snapshot()));
    insta::assert_snapshot!(
        "status_with_defrag_runs",
        tidy(table::status(&report, false))
    );
    let json = render_data(&report, OutputFormat::Json).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["defrag"]["active"]["done"], 1, "{doc}");
    assert_eq!(doc["defrag"]["queued"], 1);
    assert_eq!(doc["defrag"]["lastFinished"]["phase"], "Failed");
    assert_eq!(
        doc["defrag"]["policies"][0]["nextTick"],
        "2026-12-06T02:00:00Z"
    );
    // Standalone (no API server): no defrag field at all.
    let plain = render_data(
        &status_report(None, &healthy_snapshot()),
        OutputFormat::Json,
    )
    .unwrap();
    assert!(!plain.contains("\"defrag\""), "{plain}");
}

#[test]
fn status_all_namespaces_with_an_error_row() {
    insta::assert_snapshot!(
        "status_all_namespaces",
        tidy(table::multi_status(&multi_status_report(), false))
    );
}

#[test]
fn status_all_namespaces_wide() {
    insta::assert_snapshot!(
        "status_all_namespaces_wide",
        tidy(table::multi_status(&multi_status_report(), true))
    );
}

/// Clusters of one kind: no KIND column, and every row's cells under
/// their own headers.
#[test]
fn status_all_namespaces_of_one_kind() {
    let mut report = multi_status_report();
    for c in &mut report.clusters {
        c.kind = Some(kubectl_etcd::reach::Kind::Cozystack);
    }
    let text = tidy(table::multi_status(&report, false));
    let header = text.lines().next().unwrap_or_default();
    assert!(!header.contains("KIND"), "{text}");
    // The RUN column's value sits under RUN, the member under NAME.
    let run_at = header.find("RUN").unwrap();
    let name_at = header.find(" NAME").unwrap() + 1;
    let row = text.lines().nth(2).unwrap();
    assert_eq!(&row[run_at..run_at + 7], "Running", "{text}");
    assert_eq!(&row[name_at..name_at + 6], "etcd-0", "{text}");
}

fn contexts() -> Vec<ContextRow> {
    vec![
        ContextRow {
            name: "east".into(),
            server: Some("https://10.0.0.1:6443".into()),
            clusters: Some(2),
            error: None,
        },
        ContextRow {
            name: "west".into(),
            server: Some("https://10.0.0.2:6443".into()),
            clusters: None,
            error: Some(
                "cannot list EtcdClusters on https://10.0.0.2:6443: connection refused".into(),
            ),
        },
        ContextRow {
            name: "north".into(),
            server: Some("https://10.0.0.3:6443".into()),
            clusters: Some(1),
            error: None,
        },
    ]
}

/// `status -A` over several contexts: a CONTEXT column, each context's
/// clusters in the order the contexts were given, the one not reached a
/// row of its own where its clusters would be, and the lines under the
/// table naming the context.
#[test]
fn status_all_namespaces_over_contexts() {
    let mut report = multi_status_report();
    let names = ["east", "east", "north"];
    for (c, name) in report.clusters.iter_mut().zip(names) {
        c.cluster.context = Some(name.into());
        // As a run opens it: the cluster's own report names its context.
        if let Some(status) = &mut c.status {
            status.cluster = Some(c.cluster.clone());
        }
    }
    report.contexts = contexts();
    let text = tidy(table::multi_status(&report, false));
    insta::assert_snapshot!("status_all_namespaces_over_contexts", text);
    let json: serde_json::Value =
        serde_json::from_str(&render_data(&report, OutputFormat::Json).unwrap()).unwrap();
    assert_eq!(json["clusters"][2]["cluster"]["context"], "north");
    assert_eq!(json["contexts"][1]["name"], "west");
    assert_eq!(json["contexts"][1]["clusters"], serde_json::Value::Null);
    assert_eq!(json["contexts"][2]["clusters"], 1);
    // One context: neither the column nor the field.
    let one = tidy(table::multi_status(&multi_status_report(), false));
    assert!(!one.contains("CONTEXT"), "{one}");
    let json = render_data(&multi_status_report(), OutputFormat::Json).unwrap();
    assert!(!json.contains("\"context"), "{json}");
}

// ---------------------------------------------------------------- defrag

fn result(
    name: &str,
    id: u64,
    role: Role,
    outcome: Outcome,
    reason: Option<MemberReason>,
    before: u64,
    in_use: u64,
) -> MemberResult {
    MemberResult {
        name: name.into(),
        id: format!("{id:016x}"),
        role,
        outcome,
        reason,
        detail: None,
        db_size_before: before,
        db_size_in_use: in_use,
        db_size_after: None,
        reclaimed_bytes: None,
        predicted_reclaim: before - in_use,
        duration_ms: None,
        recovered_ms: None,
    }
}

fn defragmented(mut m: MemberResult, after: u64, ms: u64, recovered_ms: u64) -> MemberResult {
    m.db_size_after = Some(after);
    m.reclaimed_bytes = Some(m.db_size_before - after);
    m.duration_ms = Some(ms);
    m.recovered_ms = Some(recovered_ms);
    m
}

/// A finished run: two followers defragmented, leadership moved off
/// etcd-1 before its turn, etcd-3 below the threshold, NOSPACE on etcd-2
/// disarmed, the members agree.
fn defrag_done() -> DefragReport {
    let etcd2 = defragmented(
        result(
            "etcd-2",
            ID2,
            Role::Follower,
            Outcome::Defragmented,
            None,
            2040 * MIB,
            610 * MIB,
        ),
        612 * MIB,
        6100,
        1400,
    );
    let etcd0 = defragmented(
        result(
            "etcd-0",
            ID0,
            Role::Follower,
            Outcome::Defragmented,
            None,
            1434 * MIB,
            420 * MIB,
        ),
        421 * MIB,
        4300,
        900,
    );
    let etcd1 = defragmented(
        result(
            "etcd-1",
            ID1,
            Role::Leader,
            Outcome::Defragmented,
            None,
            1331 * MIB,
            419 * MIB,
        ),
        420 * MIB,
        4200,
        700,
    );
    let etcd3 = result(
        "etcd-3",
        ID3,
        Role::Follower,
        Outcome::Skipped,
        Some(MemberReason::BelowThreshold),
        520 * MIB,
        410 * MIB,
    );
    let mut measured = Measured::default();
    measured.add("etcd-1", 610 * MIB, Duration::from_millis(6100));
    measured.add("etcd-2", 420 * MIB, Duration::from_millis(4300));
    let choice = choose_leader_handling(
        MoveLeader::Auto {
            above: Duration::from_secs(2),
        },
        419 * MIB,
        &measured,
    );
    assert!(choice.transfer);
    let hash = |member: &str| MemberHash {
        member: member.into(),
        hash: Some(0x5f3a_9c21),
        compact_revision: Some(97_800),
        error: None,
    };
    DefragReport {
        cluster: Some(cluster("prod", "etcd")),
        dry_run: false,
        rule: DefragRule::default(),
        members: vec![etcd2, etcd0, etcd1, etcd3],
        leader: Some(LeaderReport {
            member: "etcd-1".into(),
            choice,
            transferred_to: Some("etcd-0".into()),
            transfer_ms: Some(180),
            transfer_error: None,
        }),
        stopped: None,
        refusal: vec![],
        compacted_at: None,
        already_compacted: false,
        in_use_not_refreshed: None,
        wall_ms: 19_400,
        defrag_ms: 14_600,
        alarms: vec![AlarmAction {
            member: "etcd-2".into(),
            member_id: format!("{ID2:016x}"),
            alarm: "NOSPACE".into(),
            result: AlarmResult::Disarmed,
            why: "back under its quota (612 MiB of 2.0 GiB)".into(),
            denied: false,
        }],
        notes: Vec::new(),
        run: None,
        hash_check: Some(HashCheck {
            revision: 98_311,
            agree: Some(true),
            verdict: HashVerdict::Agree,
            note: None,
            members: vec![
                hash("etcd-0"),
                hash("etcd-1"),
                hash("etcd-2"),
                hash("etcd-3"),
            ],
        }),
    }
}

/// A run that stopped: etcd-0 done, etcd-2's Defragment timed out and the
/// member never came back, the leader not reached, etcd-3 skipped, and the
/// agreement could not be checked.
fn defrag_stopped() -> DefragReport {
    let etcd0 = defragmented(
        result(
            "etcd-0",
            ID0,
            Role::Follower,
            Outcome::Defragmented,
            None,
            1434 * MIB,
            420 * MIB,
        ),
        421 * MIB,
        4300,
        900,
    );
    let mut etcd2 = result(
        "etcd-2",
        ID2,
        Role::Follower,
        Outcome::Failed,
        Some(MemberReason::RpcError),
        2040 * MIB,
        610 * MIB,
    );
    etcd2.duration_ms = Some(60_000);
    etcd2.detail = Some(timed_out(2, "Defragment", Duration::from_secs(60)).to_string());
    let etcd1 = result(
        "etcd-1",
        ID1,
        Role::Leader,
        Outcome::Pending,
        None,
        1331 * MIB,
        419 * MIB,
    );
    let etcd3 = result(
        "etcd-3",
        ID3,
        Role::Follower,
        Outcome::Skipped,
        Some(MemberReason::BelowThreshold),
        520 * MIB,
        410 * MIB,
    );
    let answered = |member: &str| MemberHash {
        member: member.into(),
        hash: Some(0x5f3a_9c21),
        compact_revision: Some(97_800),
        error: None,
    };
    DefragReport {
        cluster: Some(cluster("prod", "etcd")),
        dry_run: false,
        rule: DefragRule::default(),
        members: vec![etcd0, etcd2, etcd1, etcd3],
        leader: None,
        stopped: Some(Stopped(StopReason::MemberDidNotReturn {
            member: "etcd-2".into(),
            limit: Duration::from_secs(300),
            why: FailureCause::Refused.to_string(),
        })),
        refusal: vec![],
        compacted_at: None,
        already_compacted: false,
        in_use_not_refreshed: None,
        wall_ms: 365_200,
        defrag_ms: 64_300,
        alarms: vec![],
        notes: Vec::new(),
        run: None,
        hash_check: Some(HashCheck {
            revision: 0,
            agree: None,
            verdict: HashVerdict::NotPossible,
            note: Some("not every member answered HashKV".into()),
            members: vec![
                answered("etcd-0"),
                answered("etcd-1"),
                MemberHash {
                    member: "etcd-2".into(),
                    hash: None,
                    compact_revision: None,
                    error: Some(
                        RpcError {
                            endpoint: endpoint_of(2),
                            op: "HashKV",
                            cause: FailureCause::Refused,
                        }
                        .to_string(),
                    ),
                },
                answered("etcd-3"),
            ],
        }),
    }
}

/// `defrag --dry-run` on a cluster where etcd-3 does not answer: the
/// preview, as the command builds it.
fn defrag_dry_run() -> DefragReport {
    let quota = (2 * GIB, QuotaSource::Cluster);
    let answer = |id, db, in_use| Answer::new(id, ID0, "3.5.21", db, in_use).probe();
    let mut learner = Answer::new(ID1, ID0, "3.5.21", 900 * MIB, 300 * MIB);
    learner.learner = true;
    const ID4: u64 = 0x6c1b_0d0f_7f1d_2a99;
    let snap = snapshot(
        vec![
            member(0, ID0, false, answer(ID0, 1126 * MIB, 300 * MIB), quota),
            member(1, ID1, true, learner.probe(), quota),
            member(2, ID2, false, answer(ID2, 900 * MIB, 250 * MIB), quota),
            member(
                3,
                ID3,
                false,
                Probe::Failed(timed_out(3, "Status", Duration::from_secs(5))),
                quota,
            ),
            member(4, ID4, false, answer(ID4, 260 * MIB, 200 * MIB), quota),
        ],
        vec![],
    );
    let verdict = evaluate(&snap, &GateOptions::default());
    assert!(!verdict.passed());
    let input = RunInput {
        options: SweepOptions {
            rule: DefragRule::default(),
            selection: vec![],
            move_leader: MoveLeader::Auto {
                above: Duration::from_secs(2),
            },
            member_timeout: Duration::from_secs(60),
            wait_healthy: None,
            gate: GateOptions::default(),
            compact: false,
            recover_nospace: true,
            allow_probe_restart: false,
        },
        finished: vec![],
        cluster: None,
        interrupted: None,
        others: None,
        rooms: None,
        control_plane: None,
    };
    preview(&snap, &verdict, &input).unwrap()
}

#[test]
fn defrag_after_a_run() {
    let report = defrag_done();
    assert!(report.succeeded());
    insta::assert_snapshot!("defrag_done", tidy(table::defrag(&report)));
}

/// Issue 45: a revision compacted already is said so, never as one this
/// run compacted.
#[test]
fn defrag_after_a_compaction_or_none() {
    let mut report = defrag_done();
    report.compacted_at = Some(100);
    let text = table::defrag(&report);
    assert!(
        text.contains("Compacted every revision before 100 first\n"),
        "{text}"
    );
    report.already_compacted = true;
    let text = table::defrag(&report);
    assert!(
        text.contains("Nothing to compact: every revision before 100 was compacted already\n")
            && !text.contains("Compacted every revision"),
        "{text}"
    );
}

#[test]
fn defrag_after_a_run_json() {
    let json = render_data(&defrag_done(), OutputFormat::Json).unwrap();
    insta::assert_snapshot!("defrag_done_json", json);
}

#[test]
fn defrag_dry_run_table() {
    insta::assert_snapshot!("defrag_dry_run", tidy(table::defrag(&defrag_dry_run())));
}

#[test]
fn defrag_dry_run_json() {
    let json = render_data(&defrag_dry_run(), OutputFormat::Json).unwrap();
    insta::assert_snapshot!("defrag_dry_run_json", json);
}

#[test]
fn defrag_stopped_table() {
    let report = defrag_stopped();
    assert!(!report.succeeded());
    insta::assert_snapshot!("defrag_stopped", tidy(table::defrag(&report)));
}

#[test]
fn defrag_stopped_json() {
    let json = render_data(&defrag_stopped(), OutputFormat::Json).unwrap();
    insta::assert_snapshot!("defrag_stopped_json", json);
}

#[test]
fn defrag_interrupted_table() {
    let mut report = defrag_stopped();
    report.stopped = Some(Stopped(StopReason::Interrupted));
    report.members[1] = result(
        "etcd-2",
        ID2,
        Role::Follower,
        Outcome::Pending,
        None,
        2040 * MIB,
        610 * MIB,
    );
    report.hash_check = None;
    insta::assert_snapshot!("defrag_interrupted", tidy(table::defrag(&report)));
}

/// `defrag -A` over several contexts: each cluster in its context's place
/// (the contexts' order, not the names'), the context not reached a row
/// saying so, and the totals counting it.
#[test]
fn fleet_over_contexts() {
    use kubectl_etcd::report::{FleetCluster, FleetReport};
    let kind = kubectl_etcd::reach::Kind::Cozystack;
    let in_context = |namespace: &str, name: &str, context: &str| {
        cluster(namespace, name).in_context(Some(context.into()))
    };
    let clusters = vec![
        FleetCluster::from_report(in_context("prod", "etcd", "north"), defrag_done()).of_kind(kind),
        FleetCluster::from_report(in_context("prod", "etcd", "east"), defrag_done()).of_kind(kind),
        FleetCluster::failed(
            in_context("dev", "broken", "east"),
            "no running members".into(),
        )
        .of_kind(kind),
    ];
    let report =
        FleetReport::build(false, 2, clusters, Duration::from_secs(42)).with_contexts(contexts());
    let text = tidy(table::fleet(&report, false));
    insta::assert_snapshot!("fleet_over_contexts", text);
    let names: Vec<(Option<&str>, &str)> = report
        .clusters
        .iter()
        .map(|c| (c.cluster.context.as_deref(), c.cluster.namespace.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            (Some("east"), "dev"),
            (Some("east"), "prod"),
            (Some("north"), "prod")
        ]
    );
    assert_eq!(
        report
            .unreached()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["west"]
    );
    let json: serde_json::Value =
        serde_json::from_str(&render_data(&report, OutputFormat::Json).unwrap()).unwrap();
    assert_eq!(json["clusters"][0]["cluster"]["context"], "east");
    assert_eq!(
        json["contexts"][1]["error"]
            .as_str()
            .map(|e| e.contains("connection refused")),
        Some(true)
    );
}

/// `doctor -A` over several contexts: each cluster's findings headed by
/// its context, and a context not reached a critical section of its own
/// with the command that checks it.
#[test]
fn doctor_over_contexts() {
    use kubectl_etcd::plan::doctor::{Finding, Severity};
    use kubectl_etcd::report::{DoctorReport, FleetDoctorReport};
    let report = |context: &str, name: &str| DoctorReport {
        cluster: Some(cluster("prod", name).in_context(Some(context.into()))),
        kind: Some(kubectl_etcd::reach::Kind::EtcdIo),
        worst: Severity::Warning,
        findings: vec![Finding {
            severity: Severity::Warning,
            check: "fragmentation".into(),
            member: Some("etcd-0".into()),
            message: "etcd-0 is 60% free space".into(),
            remedy: "kubectl etcd defrag etcd -n prod".into(),
            acknowledged: false,
        }],
        unread: vec![],
    };
    let fleet = FleetDoctorReport {
        clusters: vec![report("east", "etcd"), report("north", "etcd")],
        contexts: contexts(),
    };
    let text = tidy(kubectl_etcd::output::Render::table(&fleet, false));
    insta::assert_snapshot!("doctor_over_contexts", text);
}

// ---------------------------------------------------------------- alarms

/// The alarm tables as `commands::alarm` renders them.
fn alarm_table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    if rows.is_empty() {
        "No alarms.\n".to_string()
    } else {
        table::rows(header, rows.into_iter())
    }
}

fn alarm_list(snap: &ClusterLook) -> String {
    alarm_table(
        &["ALARM", "MEMBER", "MEMBER ID"],
        AlarmRow::all(snap)
            .into_iter()
            .map(|a| vec![a.alarm, a.member, a.member_id])
            .collect(),
    )
}

fn alarm_disarm(actions: &[AlarmAction]) -> String {
    alarm_table(
        &["ALARM", "MEMBER", "RESULT", "WHY"],
        actions
            .iter()
            .map(|a| {
                vec![
                    a.alarm.clone(),
                    a.member.clone(),
                    a.result.as_str().to_string(),
                    a.why.clone(),
                ]
            })
            .collect(),
    )
}

/// NOSPACE on etcd-0 (back under quota after a defrag) and on etcd-2
/// (still full), CORRUPT on etcd-1.
fn alarmed_snapshot() -> ClusterLook {
    let quota = (2 * GIB, QuotaSource::Cluster);
    let answer = |id, db, in_use| Answer::new(id, ID0, "3.5.21", db, in_use).probe();
    snapshot(
        vec![
            member(0, ID0, false, answer(ID0, 421 * MIB, 420 * MIB), quota),
            member(1, ID1, false, answer(ID1, 1331 * MIB, 419 * MIB), quota),
            member(2, ID2, false, answer(ID2, 2045 * MIB, 610 * MIB), quota),
        ],
        vec![
            Alarm {
                member_id: ID0,
                kind: AlarmKind::Nospace,
            },
            Alarm {
                member_id: ID1,
                kind: AlarmKind::Corrupt,
            },
            Alarm {
                member_id: ID2,
                kind: AlarmKind::Nospace,
            },
        ],
    )
}

#[test]
fn alarm_list_one() {
    let mut snap = troubled_snapshot();
    assert_eq!(snap.alarms.len(), 1);
    insta::assert_snapshot!("alarm_list_one", tidy(alarm_list(&snap)));
    snap.alarms.clear();
    assert_eq!(alarm_list(&snap), "No alarms.\n");
}

#[test]
fn alarm_list_none() {
    insta::assert_snapshot!("alarm_list_none", tidy(alarm_list(&healthy_snapshot())));
}

#[test]
fn alarm_disarm_disarmed_and_kept() {
    let actions: Vec<AlarmAction> = disarm_decisions(&alarmed_snapshot(), &[], false, None)
        .into_iter()
        .map(|d| AlarmAction {
            member: d.member,
            member_id: d.member_id,
            alarm: d.alarm,
            result: if d.disarm {
                AlarmResult::Disarmed
            } else {
                AlarmResult::Kept
            },
            why: d.why,
            denied: false,
        })
        .collect();
    insta::assert_snapshot!("alarm_disarm", tidy(alarm_disarm(&actions)));
}

#[test]
fn alarm_disarm_dry_run() {
    let actions: Vec<AlarmAction> = disarm_decisions(&alarmed_snapshot(), &[], false, None)
        .into_iter()
        .map(|d| AlarmAction {
            member: d.member,
            member_id: d.member_id,
            alarm: d.alarm,
            result: if d.disarm {
                AlarmResult::WouldDisarm
            } else {
                AlarmResult::Kept
            },
            why: d.why,
            denied: false,
        })
        .collect();
    insta::assert_snapshot!("alarm_disarm_dry_run", tidy(alarm_disarm(&actions)));
}

#[test]
fn alarm_disarm_none() {
    insta::assert_snapshot!("alarm_disarm_none", tidy(alarm_disarm(&[])));
}

// ---------------------------------------------------------------- traffic

fn server(version: &str, minor: u32) -> ServerSupport {
    ServerSupport {
        version: version.into(),
        values: TrafficValue::ALL
            .iter()
            .map(|v| ValueSupport {
                value: *v,
                since: format!("1.{}", v.since_minor()),
                supported: expected_support(*v, Some((1, minor))),
                deprecated: deprecated_on(*v, Some((1, minor)))
                    .map(|(since, instead)| format!("1.{since}: use {instead}")),
            })
            .collect(),
    }
}

fn ours() -> FieldOwner {
    FieldOwner {
        manager: FIELD_MANAGER.into(),
        operation: "Apply".into(),
        time: Some("2026-11-30T18:02:11Z".into()),
    }
}

#[test]
fn traffic_show() {
    let report = TrafficReport {
        cluster: cluster("prod", "db"),
        service: "db-client".into(),
        value: Some("PreferClose".into()),
        owners: vec![ours()],
        owned_by_field_manager: true,
        field_manager: FIELD_MANAGER,
        annotation: Some("PreferClose".into()),
        state: Assessment::of(Some("PreferClose"), Some("PreferClose"), true),
        server: server("v1.33.2", 33),
        change: None,
    };
    assert_eq!(report.state, Assessment::InStep);
    insta::assert_snapshot!("traffic_show", tidy(table::traffic(&report)));
}

#[test]
fn traffic_show_hand_set() {
    let owners = vec![FieldOwner {
        manager: "kubectl-edit".into(),
        operation: "Update".into(),
        time: None,
    }];
    let report = TrafficReport {
        cluster: cluster("prod", "db"),
        service: "db-client".into(),
        value: Some("PreferClose".into()),
        owners,
        owned_by_field_manager: false,
        field_manager: FIELD_MANAGER,
        annotation: None,
        state: Assessment::of(None, Some("PreferClose"), false),
        server: server("v1.34.4-gke.1", 34),
        change: None,
    };
    assert_eq!(report.state, Assessment::HandSet);
    insta::assert_snapshot!("traffic_show_hand_set", tidy(table::traffic(&report)));
}

/// `traffic set PreferSameZone --dry-run` over a hand-set PreferClose:
/// the notes as `commands::traffic::set` writes them, then the state the
/// server's dry run answered.
#[test]
fn traffic_set_dry_run() {
    let (ns, svc, cl) = ("prod", "db-client", "db");
    let wanted = TrafficValue::PreferSameZone;
    let would = "would be ";
    let mut change = Change::planned(
        true,
        None,
        Some("PreferClose".into()),
        ServiceAction::Apply(wanted),
    );
    change.notes.push(format!(
        "EtcdCluster {ns}/{cl}: annotation {ANNOTATION} {would}set to {wanted} (was absent)"
    ));
    change.notes.push(format!(
        "Service {ns}/{svc}: trafficDistribution {would}applied as {wanted} by {FIELD_MANAGER} (was PreferClose, not held by that manager)"
    ));
    let report = TrafficReport {
        cluster: cluster(ns, cl),
        service: svc.into(),
        value: Some(wanted.as_str().into()),
        owners: vec![FieldOwner {
            time: None,
            ..ours()
        }],
        owned_by_field_manager: true,
        field_manager: FIELD_MANAGER,
        annotation: Some(wanted.as_str().into()),
        state: Assessment::of(Some(wanted.as_str()), Some(wanted.as_str()), true),
        server: server("v1.34.4", 34),
        change: Some(change),
    };
    insta::assert_snapshot!("traffic_set_dry_run", tidy(table::traffic(&report)));
    insta::assert_snapshot!(
        "traffic_set_dry_run_json",
        render_data(&report, OutputFormat::Json).unwrap()
    );
}

/// `defrag --via-operator`'s report: the run the operator drove, as the
/// same table a direct sweep prints (no in-use or durations: the operator
/// does not record them).
#[test]
fn defrag_via_operator() {
    let run: kubectl_etcd::k8s::crd::EtcdDefrag = serde_json::from_value(serde_json::json!({
        "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
        "kind": "EtcdDefrag",
        "metadata": {"name": "etcd-defrag-x7k2p", "namespace": "prod", "creationTimestamp": "2026-12-05T02:00:00Z"},
        "spec": {"clusterRef": {"name": "etcd"}, "rule": {"all": true}, "ttlSecondsAfterFinished": 86400},
        "status": {
            "phase": "Failed", "startedAt": "2026-12-05T02:00:01Z", "completedAt": "2026-12-05T02:05:09Z", "defragmented": 1,
            "conditions": [{"type": "DefragChecked", "status": "False", "reason": "MemberFailed",
                            "message": "1/3 members defragmented", "lastTransitionTime": "2026-12-05T02:05:09Z"}],
            "members": [
                {"name": "etcd-0", "role": "follower", "outcome": "Defragmented", "dbSizeBefore": 536870912,
                 "dbSizeAfter": 188743680, "reclaimedBytes": 348127232, "finishedAt": "2026-12-05T02:00:04Z"},
                {"name": "etcd-2", "role": "follower", "outcome": "Failed", "reason": "RPCError",
                 "dbSizeBefore": 67108864, "finishedAt": "2026-12-05T02:05:09Z"},
                {"name": "etcd-1", "role": "leader", "outcome": "Pending"},
            ],
        },
    }))
    .unwrap();
    let ids = std::collections::BTreeMap::from([
        ("etcd-0".to_string(), format!("{ID0:016x}")),
        ("etcd-1".to_string(), format!("{ID1:016x}")),
        ("etcd-2".to_string(), format!("{ID2:016x}")),
    ]);
    let report = kubectl_etcd::controller::handover::report(
        &run,
        DefragRule {
            all: true,
            ..Default::default()
        },
        cluster("prod", "etcd"),
        &ids,
        "2026-12-05T03:00:00Z".parse().unwrap(),
    );
    assert!(!report.succeeded());
    insta::assert_snapshot!("defrag_via_operator", tidy(table::defrag(&report)));
}
