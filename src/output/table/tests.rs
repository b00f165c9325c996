use super::*;
use crate::look::{Alarm, AlarmKind, ClusterLook, MemberLook, MemberStatus, Probe};
use crate::plan::gate::{evaluate, GateOptions};
use crate::reach::QuotaSource;
use crate::report::{DoctorReport, StatusReport};

fn member(id: u64, learner: bool, probe: Probe) -> MemberLook {
    MemberLook {
        quota_bytes: 1 << 30,
        quota_source: QuotaSource::Member,
        ..MemberLook::listed_for_test(&format!("etcd-{id}"), id, learner, probe)
    }
}

fn answered(id: u64, learner: bool) -> Probe {
    Probe::Answered(MemberStatus {
        member_id: id,
        version: "3.6.16".into(),
        db_size: 300 << 20,
        db_size_in_use: 100 << 20,
        db_size_quota: Some(1 << 30),
        leader: 1,
        raft_term: 4,
        raft_index: 77,
        raft_applied_index: 77,
        is_learner: learner,
        revision: 9,
        errors: vec![],
        ..MemberStatus::default()
    })
}

/// Leader 1, follower 2 unreachable, follower 3 with NOSPACE, learner 4.
fn report() -> StatusReport {
    let snapshot = ClusterLook {
        members: vec![
            member(1, false, answered(1, false)),
            member(2, false, Probe::refused_for_test()),
            member(3, false, answered(3, false)),
            member(4, true, answered(4, true)),
        ],
        member_list_known: true,
        alarms: vec![Alarm {
            member_id: 3,
            kind: AlarmKind::Nospace,
        }],
        alarm_list_error: None,
    };
    let verdict = evaluate(&snapshot, &GateOptions::default());
    StatusReport::build(None, &snapshot, &verdict)
}

#[test]
fn status_table_marks_leader_unreachable_learner_and_reasons() {
    let text = status(&report(), false);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("NAME "), "{text}");
    let line = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(name))
            .copied()
            .unwrap_or("")
    };
    assert!(line("etcd-1").contains("leader ★"), "{text}");
    assert!(
        line("etcd-1").contains("300 MiB") && line("etcd-1").contains("200 MiB"),
        "{text}"
    );
    assert!(
        line("etcd-1").contains("29.3% of 1.0 GiB (member)"),
        "{text}"
    );
    assert!(line("etcd-2").contains("unreachable"), "{text}");
    assert!(
        line("etcd-3").contains("NOSPACE") && line("etcd-3").contains("healthy"),
        "{text}"
    );
    assert!(line("etcd-4").contains("learner"), "{text}");
    assert!(
        text.contains("Health gate: maintenance would be refused:"),
        "{text}"
    );
    assert!(
        text.contains("member etcd-2 is unreachable: connection refused"),
        "{text}"
    );
    assert!(text.contains("[MemberUnreachable]"), "{text}");
    // NOSPACE: the verdict stays healthy, and a line says writes fail.
    assert!(
        text.contains("\nNOSPACE is raised (on etcd-3): the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor` for the remedy\n"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.ends_with(' ')), "trailing blanks");
    assert_eq!(text.matches('★').count(), 1);
}

#[test]
fn no_nospace_line_without_nospace_and_the_cluster_named_in_plugin_mode() {
    let mut r = report();
    r.cluster = Some(crate::report::ClusterRef::new("prod", "db"));
    assert_eq!(
        nospace_notice(&r).unwrap_or_default(),
        "NOSPACE is raised (on etcd-3): the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor db -n prod` for the remedy\n"
    );
    r.alarms.iter_mut().for_each(|a| a.alarm = "CORRUPT".into());
    assert_eq!(nospace_notice(&r), None);
    assert!(!status(&r, false).contains("NOSPACE is raised"));
}

#[test]
fn doctor_wide_lists_the_checks_that_passed_under_a_header() {
    use crate::plan::doctor::{Finding, Severity};
    let f = |severity, check: &str, message: &str, remedy: &str| Finding {
        severity,
        check: check.into(),
        member: None,
        message: message.into(),
        remedy: remedy.into(),
        acknowledged: false,
    };
    let report = DoctorReport {
        kind: None,
        cluster: None,
        worst: Severity::Warning,
        findings: vec![
            f(
                Severity::Warning,
                "fragmentation",
                "m1: 200 MiB free",
                "kubectl etcd defrag",
            ),
            f(Severity::Ok, "gate", "the health gate passes", ""),
            f(
                Severity::Ok,
                "quota",
                "every member's backend is under 80% of its quota",
                "",
            ),
        ],
        unread: vec![],
    };
    let lines = |l: &[&str]| l.iter().map(|l| format!("{l}\n")).collect::<String>();
    assert_eq!(
        doctor(&report, false),
        lines(&[
            "WARNING   fragmentation  m1: 200 MiB free",
            "                         → kubectl etcd defrag",
            "2 check(s) ok (-o wide lists them).",
        ])
    );
    assert_eq!(
        doctor(&report, true),
        lines(&[
            "SEVERITY  CHECK          FINDING",
            "WARNING   fragmentation  m1: 200 MiB free",
            "                         → kubectl etcd defrag",
            "Passed (2 checks):",
            "OK        gate           the health gate passes",
            "OK        quota          every member's backend is under 80% of its quota",
        ])
    );
    let healthy = DoctorReport {
        kind: None,
        worst: Severity::Ok,
        findings: report.findings[1..].to_vec(),
        ..report
    };
    assert_eq!(
        doctor(&healthy, true),
        lines(&[
            "Nothing needs attention.",
            "Passed (2 checks):",
            "SEVERITY  CHECK  FINDING",
            "OK        gate   the health gate passes",
            "OK        quota  every member's backend is under 80% of its quota",
        ])
    );
}

#[test]
fn wide_table_adds_raft_progress() {
    let text = status(&report(), true);
    assert!(text.lines().next().unwrap_or("").contains("RAFT TERM"));
    let leader = text.lines().find(|l| l.starts_with("etcd-1")).unwrap_or("");
    assert!(leader.contains(" 4 ") && leader.contains(" 77 "), "{text}");
}

#[test]
fn json_and_yaml_carry_the_documented_fields() {
    let r = report();
    let json = crate::output::render_data(&r, crate::output::OutputFormat::Json).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["leader"], "0000000000000001");
    assert_eq!(doc["gate"]["passed"], false);
    assert_eq!(doc["gate"]["reasons"][0]["code"], "MemberUnreachable");
    assert_eq!(doc["gate"]["reasons"][0]["member"], "etcd-2");
    assert!(
        doc.get("cluster").is_none(),
        "standalone reports have no cluster field"
    );
    let m1 = &doc["members"][0];
    for key in [
        "name",
        "endpoint",
        "id",
        "reachable",
        "error",
        "version",
        "dbSize",
        "dbSizeInUse",
        "reclaimable",
        "quota",
        "quotaUsedPercent",
        "isLeader",
        "isLearner",
        "raftTerm",
        "raftIndex",
        "raftAppliedIndex",
        "alarms",
        "verdict",
        "reasons",
    ] {
        assert!(m1.get(key).is_some(), "member field {key} missing: {m1}");
    }
    assert_eq!(m1["reclaimable"], 200u64 << 20);
    assert_eq!(m1["quota"]["source"], "member");
    assert_eq!(doc["members"][1]["reachable"], false);
    assert_eq!(doc["members"][1]["dbSize"], serde_json::Value::Null);
    assert_eq!(
        doc["alarms"][0],
        serde_json::json!({"member": "etcd-3", "memberId": "0000000000000003", "alarm": "NOSPACE"})
    );

    let yaml = crate::output::render_data(&r, crate::output::OutputFormat::Yaml).unwrap();
    let back: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(back, doc, "YAML and JSON carry the same document");
}

#[test]
fn usage_table_ranks_by_size_then_by_writes_and_names_the_next_step() {
    use crate::plan::backup::Role;
    use crate::plan::usage::{Layout, Tally};
    let mut t = Tally::new(Layout::new("", None));
    for i in 0..3 {
        t.live(format!("/registry/configmaps/a/c{i}").as_bytes(), 2050);
    }
    t.live(b"/registry/leases/n/l0", 300);
    for _ in 0..20 {
        t.write(b"/registry/leases/n/l0", 300, false);
    }
    let groups = t.rows(false, Some(std::time::Duration::from_secs(10)));
    let report = crate::report::UsageReport {
        cluster: None,
        source: "m1".into(),
        role: Some(Role::Follower),
        revision: 42,
        last_revision: None,
        prefix: String::new(),
        grouping: "kubernetes".into(),
        keys: 4,
        bytes: Some(3 * 2050 + 300),
        page_bytes: Some(t.page_bytes()),
        complete: false,
        read_seconds: 0.25,
        pages: 1,
        db_size_in_use: Some(16384),
        db_size: Some(65536),
        history_revisions: None,
        history_bytes: None,
        window_seconds: Some(10.0),
        writes: Some(20),
        groups,
        top: 1,
        next: Some("kubectl etcd usage --prefix /registry/configmaps/".into()),
    };
    let text = usage(&report);
    let expected = "Read 4 keys (6.3 KiB) from m1 (a follower) at revision 42 in 0.2s (1 page); STOPPED before the end: the figures cover only what was read.
In use: 16 KiB; the live keys fill about 12 KiB of pages (77%), the rest is history kept until the next compaction; the file is 64 KiB (48 KiB free: a defrag would return it).
Writes over 10s: 20 (2.0/s).

BY SIZE                 KEYS   BYTES     ON DISK   SHARE   WRITES/S   WRITTEN/S
/registry/configmaps/      3   6.0 KiB    12 KiB     97%        0.0         0 B
(1 more prefix: --top N shows more, -o json lists them all)

BY WRITES           WRITES/S   WRITTEN/S   KEYS WRITTEN   BUSIEST KEY
/registry/leases/        2.0       600 B              1   /registry/leases/n/l0 ×20

Narrow it down: kubectl etcd usage --prefix /registry/configmaps/
";
    assert_eq!(text, expected, "\n{text}");
}

/// Issue 38: the output format is chosen in one place (`output::render`):
/// a table for table and wide, the report's own serde form otherwise.
#[test]
fn one_renderer_chooses_the_format_for_every_report() {
    use crate::output::{render, OutputFormat, Render};
    use crate::report::{AlarmListReport, MoveLeaderReport};
    let moved = |dry_run, after: Option<&str>| MoveLeaderReport {
        cluster: None,
        dry_run,
        from: "m0".into(),
        to: "m1".into(),
        leader_after: after.map(str::to_string),
    };
    assert_eq!(
        render(&moved(true, None), OutputFormat::Table).unwrap(),
        "Would move leadership from m0 to m1.\n"
    );
    assert_eq!(
        render(&moved(false, Some("m1")), OutputFormat::Wide).unwrap(),
        "Leadership moved from m0 to m1; the leader is now m1.\n"
    );
    let json = render(&moved(false, None), OutputFormat::Json).unwrap();
    let read: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (read["from"].as_str(), read["dryRun"].as_bool()),
        (Some("m0"), Some(false)),
        "{json}"
    );
    let yaml = render(&moved(false, None), OutputFormat::Yaml).unwrap();
    assert!(yaml.contains("to: m1"), "{yaml}");
    let none = AlarmListReport {
        cluster: None,
        alarms: vec![],
    };
    assert_eq!(none.table(false), "No alarms.\n");
    // Wide is the report's to decide: status adds columns.
    let status = report();
    assert_ne!(status.table(true), status.table(false));
    assert_eq!(
        render(&status, OutputFormat::Wide).unwrap(),
        status.table(true)
    );
}
