//! `defrag --watch` against the real kube-apiserver and real etcd: the
//! watcher drives EtcdDefrag objects as the operator's controller would
//! (contract §5). Defragment calls are counted from each member's own
//! `/metrics`, and status is read back from the API server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::process::Stdio;
use std::time::Duration;

use kube::Client;
use serde_json::{json, Value};
use support::k8s::*;
use support::watch::*;
use support::*;

/// A running watcher, killed when dropped.
struct Watcher {
    child: tokio::process::Child,
    /// Where its stderr goes: its log, one JSON object a line.
    log: tempfile::NamedTempFile,
}

impl Watcher {
    /// SIGKILL: the watcher dies wherever it is, with no chance to write
    /// anything more (and is reaped).
    async fn kill(mut self) {
        self.child.kill().await.expect("SIGKILL the watcher");
    }
}

fn watch(kubeconfig: &std::path::Path, ns: &str) -> Watcher {
    let log = tempfile::NamedTempFile::new().expect("a file for the watcher's log");
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args([
            &format!("--kubeconfig={}", kubeconfig.display()),
            "--connect=direct",
            "-n",
            ns,
            "-v",
            "--log-format=json",
            "defrag",
            "--watch",
        ])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log.reopen().expect("the watcher's log"))
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher");
    Watcher { child, log }
}

impl Watcher {
    /// The lines of its log at `level` whose `reason` field is `reason`.
    fn logged(&self, level: &str, reason: &str) -> Vec<Value> {
        std::fs::read_to_string(self.log.path())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|l| l["level"] == level && l["reason"] == reason)
            .collect()
    }
}

/// A run to Complete: one row per member with role, outcome and sizes, the
/// leader last, each member defragmented exactly once (its own metrics),
/// the finalize message; then an under-threshold run: Complete, `0/3`,
/// every row Skipped/BelowThreshold, no Defragment at all; then a run for a
/// cluster that does not exist fails with ClusterNotFound and its event.
#[tokio::test(flavor = "multi_thread")]
async fn runs_complete_skip_and_fail_as_the_operator_would() {
    let client = admin().await;
    let ns = "watch-runs";
    let kc = kubeconfig("watch-runs.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let watcher = watch(&kc, ns);

    let versions = every_version(&client, ns, "all").await;
    create_run(&client, ns, "all", "db", json!({"all": true})).await;
    let status = wait_phase(&client, ns, "all", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert!(status["startedAt"].is_string() && status["completedAt"].is_string());
    let c = condition(&status);
    assert_eq!(c["status"], "True", "{status}");
    assert_eq!(c["reason"], "Complete");
    assert_eq!(c["message"], "3/3 members defragmented");
    let rows = status["members"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{status}");
    for row in rows {
        assert_eq!(row["outcome"], "Defragmented", "{row}");
        assert!(row["dbSizeBefore"].as_u64().unwrap() > 0, "{row}");
        assert!(row["dbSizeAfter"].as_u64().unwrap() > 0, "{row}");
        assert!(row["finishedAt"].is_string(), "{row}");
        assert!(row.get("reason").is_none() || row["reason"] == "", "{row}");
    }
    let leaders: Vec<&Value> = rows.iter().filter(|r| r["role"] == "leader").collect();
    assert_eq!(leaders.len(), 1, "{status}");
    assert_eq!(
        rows.last().unwrap()["role"],
        "leader",
        "the leader goes last"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }
    // Issue 45: the note left before each Defragment goes once the run has
    // ended (it read as a member in flight). It goes before the final
    // status, so that whoever sees the run ended (a `kubectl wait`, the
    // next test step) reads it as it stays: no version the server stored
    // is ended and still noted, and the ended one is the last.
    let seen = versions.await.unwrap();
    let ended = seen
        .iter()
        .position(|(phase, _, _)| phase == "Complete")
        .unwrap_or_else(|| panic!("no Complete version among {seen:?}"));
    assert!(
        seen[..ended].iter().any(|(_, note, _)| note.is_some()),
        "no version carried the note: {seen:?}"
    );
    assert_eq!(seen[ended].1, None, "ended and still noted: {seen:?}");
    assert_eq!(ended + 1, seen.len(), "written after it ended: {seen:?}");

    create_run(&client, ns, "small", "db", json!({})).await;
    let status = wait_phase(&client, ns, "small", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(condition(&status)["message"], "0/3 members defragmented");
    let rows = status["members"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{status}");
    for row in rows {
        assert_eq!(row["outcome"], "Skipped", "{row}");
        assert_eq!(row["reason"], "BelowThreshold", "{row}");
    }
    for i in 0..3 {
        assert_eq!(
            defrag_count(&fx.etcd, i).await,
            1,
            "no second defrag of {i}"
        );
    }

    create_run(&client, ns, "nowhere", "missing", json!({})).await;
    let status = wait_phase(&client, ns, "nowhere", &["Failed"]).await;
    let c = condition(&status);
    assert_eq!(c["reason"], "ClusterNotFound", "{status}");
    assert_eq!(
        c["message"],
        format!("EtcdCluster \"missing\" not found in namespace \"{ns}\"")
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let seen = events(&client, ns, "nowhere").await;
        if seen.iter().any(|(r, _)| r == "ClusterNotFound") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no event: {seen:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The watcher's own log says so too, at WARN, naming the run (issue
    // 46, item 9): an alert on the log needs no Event reader.
    let logged = watcher.logged("WARN", "ClusterNotFound");
    assert!(
        logged.iter().any(|l| l["run"] == format!("{ns}/nowhere")
            && l["message"]
                .as_str()
                .is_some_and(|m| m.contains("\"missing\" not found"))),
        "{logged:?}"
    );
}

/// Issue 45, item 3: a spec the CRD accepts but no rule can be built from
/// (`freeSpaceAbove: 100Ei`, past what a byte count holds; `minReclaim:
/// 1e400`) fails on its first pass — `Failed`, reason `InvalidSpec` naming
/// the field, an `InvalidSpec` event, no member touched — and the run
/// created after it, queued behind it, completes. Before, it sat `Running`
/// and retried for 45 minutes with every later run of its cluster queued.
#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_spec_fails_at_once_and_never_holds_the_queue() {
    let client = admin().await;
    let ns = "watch-invalid";
    let kc = kubeconfig("watch-invalid.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    // Both in place before the watcher starts: the invalid runs are the
    // oldest of the cluster, so the valid one is queued behind them.
    create_run(
        &client,
        ns,
        "huge",
        "db",
        json!({"freeSpaceAbove": "100Ei"}),
    )
    .await;
    create_run(
        &client,
        ns,
        "tiny",
        "db",
        json!({"quotaUsageAbove": "80%", "minReclaim": "1e400"}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    create_run(&client, ns, "after", "db", json!({"all": true})).await;
    let _watcher = watch(&kc, ns);

    for (name, field, value) in [
        ("huge", "freeSpaceAbove", "100Ei"),
        ("tiny", "minReclaim", "1e400"),
    ] {
        let status = wait_phase(&client, ns, name, &["Failed", "Complete"]).await;
        assert_eq!(status["phase"], "Failed", "{status}");
        let c = condition(&status);
        assert_eq!(c["reason"], "InvalidSpec", "{status}");
        let message = c["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("spec.rule.{field}")) && message.contains(value),
            "{message}"
        );
        assert!(
            status["members"].as_array().is_none_or(|m| m.is_empty()),
            "{status}"
        );
        assert!(status["startedAt"].is_null(), "never started: {status}");
        let said = wait_events(&client, ns, name, "InvalidSpec").await;
        assert_eq!(
            said,
            [message.to_string()],
            "one event, in the condition's words"
        );
    }
    let after = wait_phase(&client, ns, "after", &["Complete", "Failed"]).await;
    assert_eq!(after["phase"], "Complete", "{after}");
    assert_eq!(after["defragmented"], 3, "{after}");
    // (Each wait above gives up after 90 s: far inside the 45-minute
    // deadline the invalid runs used to hold the queue for.)
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }
}

/// Two runs for one cluster: the younger waits `Pending`/`Queued` while the
/// older acts, then runs; no member is ever defragmented by both at once
/// (each member shows exactly two Defragments in the end).
#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_for_the_cluster_waits_its_turn() {
    let client = admin().await;
    let ns = "watch-queue";
    let kc = kubeconfig("watch-queue.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    create_run(&client, ns, "first", "db", json!({"all": true})).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    create_run(&client, ns, "second", "db", json!({"all": true})).await;
    let _watcher = watch(&kc, ns);

    let queued = wait_phase(&client, ns, "second", &["Pending", "Complete"]).await;
    let first = wait_phase(&client, ns, "first", &["Complete", "Failed"]).await;
    assert_eq!(first["phase"], "Complete", "{first}");
    if queued["phase"] == "Pending" {
        let c = condition(&queued);
        assert_eq!(c["reason"], "Queued", "{queued}");
        assert_eq!(c["message"], "waiting for EtcdDefrag \"first\" to finish");
    }
    let second = wait_phase(&client, ns, "second", &["Complete", "Failed"]).await;
    assert_eq!(second["phase"], "Complete", "{second}");
    assert_eq!(second["defragmented"], 3);
    // The second started only after the first had completed.
    assert!(
        second["startedAt"].as_str().unwrap() >= first["completedAt"].as_str().unwrap(),
        "{first} {second}"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 2, "member {i}");
    }
}

/// A SIGSTOPped member defers the run (`ClusterNotHealthy`, one
/// `DefragDeferred` event, no Defragment anywhere); after SIGCONT the run
/// completes.
#[tokio::test(flavor = "multi_thread")]
async fn an_unhealthy_cluster_defers_the_run_until_it_recovers() {
    let client = admin().await;
    let ns = "watch-defer";
    let kc = kubeconfig("watch-defer.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.pause(2).unwrap();
    let _watcher = watch(&kc, ns);
    create_run(&client, ns, "later", "db", json!({"all": true})).await;

    let status = wait_phase(&client, ns, "later", &["Pending"]).await;
    let c = condition(&status);
    assert_eq!(c["reason"], "ClusterNotHealthy", "{status}");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .starts_with("a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: "),
        "{status}"
    );
    // A second deferral pass (10 s) does not add an event.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let deferred: Vec<_> = events(&client, ns, "later")
        .await
        .into_iter()
        .filter(|(r, _)| r == "DefragDeferred")
        .collect();
    assert_eq!(deferred.len(), 1, "{deferred:?}");
    for i in 0..2 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 0, "member {i}");
    }

    fx.etcd.resume(2).unwrap();
    let status = wait_phase(&client, ns, "later", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3);
}

/// The events of `reason` recorded against `name`, waiting (at most 10 s)
/// for at least one.
async fn wait_events(client: &Client, ns: &str, name: &str, reason: &str) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let seen = events(client, ns, name).await;
        let matching: Vec<String> = seen
            .iter()
            .filter(|(r, _)| r == reason)
            .map(|(_, m)| m.clone())
            .collect();
        if !matching.is_empty() {
            return matching;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {reason} event on {name}: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `spec.ttlSecondsAfterFinished: 2`: the run completes, then the object
/// is deleted — not before `completedAt + 2s` (less 1 s for the one-second
/// precision of `completedAt`), and within 10 s.
#[tokio::test(flavor = "multi_thread")]
async fn ttl_deletes_a_finished_run() {
    let client = admin().await;
    let ns = "watch-ttl";
    let kc = kubeconfig("watch-ttl.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let _watcher = watch(&kc, ns);
    create_spec(
        &client,
        ns,
        "brief",
        json!({"clusterRef": {"name": "db"}, "rule": {"all": true}, "ttlSecondsAfterFinished": 2}),
    )
    .await;
    let status = wait_status(
        &client,
        ns,
        "brief",
        Duration::from_secs(90),
        "finished",
        |s| s["phase"] == "Complete" || s["phase"] == "Failed",
    )
    .await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    let completed = timestamp(&status["completedAt"]);

    let api = runs(&client, ns);
    let limit = tokio::time::Instant::now() + Duration::from_secs(10);
    // When the last GET that still found the object was sent: the object
    // existed at least until then.
    let mut last_found: Option<jiff::Timestamp> = None;
    loop {
        let sent = jiff::Timestamp::now();
        if api.get_opt("brief").await.unwrap().is_none() {
            break;
        }
        last_found = Some(sent);
        assert!(
            tokio::time::Instant::now() < limit,
            "still there 10 s after Complete (completedAt {completed})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let earliest = completed + jiff::SignedDuration::from_secs(1);
    let last_found = last_found.expect("deleted before the test could see it after Complete");
    assert!(
        last_found >= earliest,
        "deleted too early: last seen at {last_found}, completedAt {completed}, TTL 2 s"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }
}

/// A deferred run (one member SIGSTOPped, so Pending without `startedAt`)
/// whose `startedAt` is set an hour back through `/status` fails with
/// `DeadlineExceeded` and the "did not complete" message (the deadline runs
/// from `startedAt`), records the event, and defragments nothing.
#[tokio::test(flavor = "multi_thread")]
async fn a_deadline_in_the_past_fails_the_run() {
    let client = admin().await;
    let ns = "watch-deadline";
    let kc = kubeconfig("watch-deadline.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.pause(2).unwrap();
    let _watcher = watch(&kc, ns);
    create_run(&client, ns, "late", "db", json!({"all": true})).await;

    let status = wait_status(
        &client,
        ns,
        "late",
        Duration::from_secs(60),
        "deferred",
        |s| {
            s["phase"] == "Pending"
                && s["conditions"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| c["reason"] == "ClusterNotHealthy"))
        },
    )
    .await;
    assert!(status.get("startedAt").is_none(), "{status}");

    let hour_ago = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second() - 3600)
        .unwrap()
        .to_string();
    patch_status(
        &runs(&client, ns),
        "late",
        json!({"status": {"startedAt": hour_ago}}),
    )
    .await;

    let status = wait_phase(&client, ns, "late", &["Failed", "Complete"]).await;
    assert_eq!(status["phase"], "Failed", "{status}");
    let c = condition(&status);
    assert_eq!(c["status"], "False", "{status}");
    assert_eq!(c["reason"], "DeadlineExceeded", "{status}");
    assert_eq!(
        c["message"], "defragmentation did not complete within 45m15s",
        "{status}"
    );
    assert_eq!(status["startedAt"], hour_ago.as_str(), "{status}");
    assert!(status["completedAt"].is_string(), "{status}");
    assert_eq!(rows_with(&status, "Defragmented"), 0, "{status}");
    let messages = wait_events(&client, ns, "late", "DeadlineExceeded").await;
    assert_eq!(
        messages,
        vec!["defragmentation did not complete within 45m15s".to_string()]
    );
    for i in 0..2 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 0, "member {i}");
    }
    fx.etcd.resume(2).unwrap();
    assert_eq!(defrag_count(&fx.etcd, 2).await, 0, "member 2");
    // Terminal phases are sticky, even once the cluster is healthy again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = runs(&client, ns).get("late").await.unwrap().data["status"].clone();
    assert_eq!(after["phase"], "Failed", "{after}");
}

/// A CORRUPT alarm (raised on a member through the Alarm RPC) keeps the
/// run deferred: Pending, `ClusterNotHealthy` naming CORRUPT, one
/// `DefragDeferred` event over two passes, no Defragment anywhere.
#[tokio::test(flavor = "multi_thread")]
async fn corrupt_defers_with_zero_defragments() {
    let client = admin().await;
    let ns = "watch-corrupt";
    let kc = kubeconfig("watch-corrupt.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    raise_alarm(&fx.etcd, 0, 1, etcd_client::AlarmType::Corrupt).await;
    let _watcher = watch(&kc, ns);
    create_run(&client, ns, "guarded", "db", json!({"all": true})).await;

    let status = wait_status(
        &client,
        ns,
        "guarded",
        Duration::from_secs(60),
        "deferred",
        |s| s["conditions"].as_array().is_some_and(|c| !c.is_empty()),
    )
    .await;
    assert_eq!(status["phase"], "Pending", "{status}");
    let c = condition(&status);
    assert_eq!(c["status"], "False", "{status}");
    assert_eq!(c["reason"], "ClusterNotHealthy", "{status}");
    let message = c["message"].as_str().unwrap().to_string();
    assert!(
        message.starts_with(
            "a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: "
        ) && message.contains("CORRUPT"),
        "{status}"
    );

    // At least one more pass (10 s requeue) changes nothing.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let status = runs(&client, ns).get("guarded").await.unwrap().data["status"].clone();
    assert_eq!(status["phase"], "Pending", "{status}");
    assert!(status.get("startedAt").is_none(), "{status}");
    assert_eq!(condition(&status)["message"], message.as_str(), "{status}");
    assert_eq!(rows_with(&status, "Defragmented"), 0, "{status}");
    let deferred = wait_events(&client, ns, "guarded", "DefragDeferred").await;
    assert_eq!(deferred, vec![message], "one event for one condition");
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 0, "member {i}");
    }
}

/// NOSPACE (raised through the Alarm RPC, so writes are refused) does not
/// hold the run back: it completes, the alarm is disarmed, writes work.
#[tokio::test(flavor = "multi_thread")]
async fn nospace_completes_and_is_disarmed() {
    let client = admin().await;
    let ns = "watch-nospace";
    let kc = kubeconfig("watch-nospace.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    raise_alarm(&fx.etcd, 0, 0, etcd_client::AlarmType::Nospace).await;
    let mut c = fx.etcd.client(0).await.unwrap();
    let refused = c.put("before", "x", None).await;
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("database space exceeded")),
        "a write under NOSPACE: {refused:?}"
    );
    let _watcher = watch(&kc, ns);
    create_run(&client, ns, "relief", "db", json!({"all": true})).await;

    let status = wait_phase(&client, ns, "relief", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert_eq!(
        condition(&status)["message"],
        "3/3 members defragmented",
        "{status}"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }
    let left = alarms_listed(&mut c).await;
    assert!(left.is_empty(), "alarms after the run: {left:?}");
    c.put("after", "x", None)
        .await
        .expect("a write after the disarm");
    let seen = events(&client, ns, "relief").await;
    assert!(
        !seen.iter().any(|(r, _)| r == "AlarmDisarmFailed"),
        "{seen:?}"
    );
}

/// The watcher SIGKILLed right after the first member's row was written,
/// then started again: the new one resumes the Running run and completes
/// it, and every member shows exactly one Defragment.
///
/// To kill "right after a member finished" and not while the next
/// Defragment is in flight (a Defragment sent before the kill still runs to
/// its end on the member, and nobody can know it did: a redo is then
/// unavoidable), the second planned member is SIGSTOPped while the first is
/// being defragmented: the watcher persists the first row, then stops in
/// front of the second member (its probe waits 5 s for the stopped member),
/// which is when it is killed, before it writes anything else.
#[tokio::test(flavor = "multi_thread")]
async fn a_restarted_watcher_resumes_without_redoing_a_member() {
    let client = admin().await;
    let ns = "watch-resume";
    let kc = kubeconfig("watch-resume.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    create_run(&client, ns, "once", "db", json!({"all": true})).await;
    let watcher = watch(&kc, ns);

    // The plan is written before the first Defragment is sent.
    let planned = wait_status(
        &client,
        ns,
        "once",
        Duration::from_secs(60),
        "planned",
        |s| s["members"].as_array().is_some_and(|r| r.len() == 3),
    )
    .await;
    assert_eq!(rows_with(&planned, "Pending"), 3, "{planned}");
    let second = planned["members"][1]["name"].as_str().unwrap().to_string();
    let second = fx.members.iter().position(|m| *m == second).unwrap();
    fx.etcd.pause(second).unwrap();

    let one = wait_status(
        &client,
        ns,
        "once",
        Duration::from_secs(60),
        "one member defragmented",
        |s| rows_with(s, "Defragmented") >= 1,
    )
    .await;
    watcher.kill().await;
    assert_eq!(rows_with(&one, "Defragmented"), 1, "{one}");
    assert_eq!(rows_with(&one, "Pending"), 2, "{one}");
    assert_eq!(one["phase"], "Running", "{one}");
    assert_eq!(one["defragmented"], 1, "{one}");
    let first = planned["members"][0]["name"].clone();
    assert_eq!(one["members"][0]["name"], first, "{one}");
    assert_eq!(one["members"][0]["outcome"], "Defragmented", "{one}");
    // Nothing more was written after the kill.
    let killed = runs(&client, ns).get("once").await.unwrap().data["status"].clone();
    assert_eq!(killed, one, "the status changed after the kill");

    fx.etcd.resume(second).unwrap();
    fx.etcd.wait_ready(Duration::from_secs(30)).await.unwrap();
    let _again = watch(&kc, ns);
    let status = wait_phase(&client, ns, "once", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert_eq!(rows_with(&status, "Defragmented"), 3, "{status}");
    assert_eq!(
        status["startedAt"], one["startedAt"],
        "startedAt is stamped once"
    );
    // The first row is history: the restarted watcher did not rewrite it.
    assert_eq!(status["members"][0], one["members"][0], "{status}");
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }
}

/// Another client edits the object's labels as fast as it can during a
/// sweep (each edit bumps the resourceVersion, so the watcher's status PUTs
/// conflict): the run completes, no outcome is lost and no member is
/// defragmented twice. "No outcome lost" is checked on every version of
/// the object (a watch): each member's row was persisted on its own, before
/// the next member — the versions show 1, then 2, then 3 Defragmented rows.
#[tokio::test(flavor = "multi_thread")]
async fn conflicting_writes_lose_no_outcome() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;

    let client = admin().await;
    let ns = "watch-conflict";
    let kc = kubeconfig("watch-conflict.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    create_run(&client, ns, "contested", "db", json!({"all": true})).await;

    let stop = Arc::new(AtomicBool::new(false));
    let edits = Arc::new(AtomicU64::new(0));
    let editor = {
        let api = runs(&client, ns);
        let stop = stop.clone();
        let edits = edits.clone();
        tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let patch = json!({"metadata": {"labels": {"edited": n.to_string()}}});
                api.patch(
                    "contested",
                    &kube::api::PatchParams::default(),
                    &kube::api::Patch::Merge(&patch),
                )
                .await
                .expect("edit the labels");
                edits.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    // Every version of the object, in order: how many rows were
    // Defragmented in each.
    let versions = Arc::new(std::sync::Mutex::new(Vec::<usize>::new()));
    let recorder = {
        use futures::StreamExt;
        use kube::runtime::{watcher, WatchStreamExt};
        let api = runs(&client, ns);
        let versions = versions.clone();
        tokio::spawn(async move {
            let config = watcher::Config::default().fields("metadata.name=contested");
            let mut stream = watcher(api, config).applied_objects().boxed();
            while let Some(object) = stream.next().await {
                let object = object.expect("watch the run");
                let done = rows_with(&object.data["status"], "Defragmented");
                versions.lock().unwrap().push(done);
            }
        })
    };
    let _watcher = watch(&kc, ns);
    let status = wait_phase(&client, ns, "contested", &["Complete", "Failed"]).await;
    stop.store(true, Ordering::Relaxed);
    editor.await.unwrap();
    // Let the last versions arrive.
    tokio::time::sleep(Duration::from_millis(500)).await;
    recorder.abort();

    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert_eq!(rows_with(&status, "Defragmented"), 3, "{status}");
    assert_eq!(
        condition(&status)["message"],
        "3/3 members defragmented",
        "{status}"
    );
    assert!(
        edits.load(Ordering::Relaxed) >= 20,
        "too few edits to force conflicts: {}",
        edits.load(Ordering::Relaxed)
    );
    let counts = {
        let mut counts = Vec::new();
        for i in 0..3 {
            counts.push(defrag_count(&fx.etcd, i).await);
        }
        counts
    };
    let versions = versions.lock().unwrap().clone();
    let mut progression = versions.clone();
    progression.dedup();
    assert_eq!(
        progression,
        vec![0, 1, 2, 3],
        "Defragmented rows per version (deduplicated; Defragments per member {counts:?}): each member's row persisted before the next member"
    );
    assert_eq!(counts, vec![1, 1, 1], "Defragments per member");
}
