//! More of `defrag --watch` against the real kube-apiserver and real etcd
//! (issue 10's test list): runs on two clusters proceed in parallel and an
//! unhealthy cluster does not delay a healthy one; leadership moved by a
//! third party mid-run; the active run deleted mid-defrag. Defragment calls
//! are counted from each member's own `/metrics`; where timing matters, the
//! members run at etcd's `info` log level so that their own logs say when
//! each defragmentation started and finished.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use kube::api::{DeleteParams, Patch, PatchParams};
use kubectl_etcd_testbed::LoggedDefrag;
use serde_json::{json, Value};
use support::k8s::*;
use support::watch::*;
use support::*;

/// A running watcher, killed when dropped. Its stderr (`-v`) goes to `log`.
struct Watcher {
    _child: tokio::process::Child,
    log: PathBuf,
}

impl Watcher {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Starts `kubectl etcd defrag --watch -n <ns>` with `extra` defrag flags.
fn watch(kubeconfig: &Path, ns: &str, extra: &[&str]) -> Watcher {
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{ns}-watcher.log"));
    let file = std::fs::File::create(&log).expect("watcher log file");
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args([
            &format!("--kubeconfig={}", kubeconfig.display()),
            "--connect=direct",
            "-n",
            ns,
            "-v",
            "defrag",
            "--watch",
        ])
        .args(extra)
        .env_remove("KUBECONFIG")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(file))
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher");
    Watcher { _child: child, log }
}

async fn defrag_counts(etcd: &Cluster) -> Vec<u64> {
    let mut counts = Vec::new();
    for i in 0..etcd.members.len() {
        counts.push(defrag_count(etcd, i).await);
    }
    counts
}

fn row_names(status: &Value) -> Vec<String> {
    status["members"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| r["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Now, in seconds since the Unix epoch (the clock etcd's logs use).
fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The defragmentations the members logged, with member names, for
/// failure messages.
fn describe(fx: &Fixture, logged: &[LoggedDefrag]) -> String {
    logged
        .iter()
        .map(|d| format!("{} {:.3}..{:.3}", fx.members[d.member], d.start, d.end))
        .collect::<Vec<_>>()
        .join(", ")
}

/// No two logged defragmentations overlap, on any members.
fn assert_never_two_at_once(fx: &Fixture, logged: &[LoggedDefrag]) {
    for pair in logged.windows(2) {
        assert!(
            pair[1].start >= pair[0].end,
            "two defragmentations at once ({} still at it when {} started): {}",
            fx.members[pair[0].member],
            fx.members[pair[1].member],
            describe(fx, logged)
        );
    }
}

/// When the watcher logged each `defragmenting <member>` step (just before
/// it sends the Defragment), in seconds since the epoch, with the member.
fn watcher_defrag_calls(log: &str, fx: &Fixture) -> Vec<(f64, String)> {
    let mut calls = Vec::new();
    for line in log.lines() {
        let Some(at) = line.find(" defragmenting ") else {
            continue;
        };
        let rest = &line[at + " defragmenting ".len()..];
        let Some(member) = fx.members.iter().find(|m| rest.starts_with(m.as_str())) else {
            continue;
        };
        let Some(stamp) = line.split_whitespace().next() else {
            continue;
        };
        let Ok(t) = stamp.parse::<jiff::Timestamp>() else {
            continue;
        };
        calls.push((t.as_millisecond() as f64 / 1000.0, member.clone()));
    }
    calls
}

/// Two EtcdClusters in one namespace, both fragmented; one member of A
/// SIGSTOPped. A's run defers (`ClusterNotHealthy`, no Defragment on A)
/// while B's run, created after A's deferral, starts at once and completes:
/// A does not delay B. B is created while A's next pass is probing (the
/// deferral's status write queues that pass at once, and its Status call to
/// the stopped member takes 5 s to time out), so one pass at a time would
/// start B at least 4 s late. After SIGCONT, A's run completes too. Every
/// member of each cluster shows exactly one Defragment in the end.
#[tokio::test(flavor = "multi_thread")]
async fn runs_on_two_clusters_proceed_in_parallel() {
    let client = admin().await;
    let ns = "watchmore-parallel";
    let kc = kubeconfig("watchmore-parallel.yaml", &[ns]);
    let a = fixture(&client, ns, "dba", Mode::Plain).await;
    let b = fixture(&client, ns, "dbb", Mode::Plain).await;
    let (fa, fb) = tokio::join!(
        a.etcd.fragment(200 * 1024 * 1024, 0.5),
        b.etcd.fragment(200 * 1024 * 1024, 0.5)
    );
    fa.unwrap();
    fb.unwrap();
    let stopped = (a.etcd.leader().await.unwrap() + 1) % 3;
    a.etcd.pause(stopped).unwrap();
    let _watcher = watch(&kc, ns, &[]);

    create_run(&client, ns, "on-a", "dba", json!({"all": true})).await;
    let deferred = wait_status(
        &client,
        ns,
        "on-a",
        Duration::from_secs(60),
        "deferred",
        |s| {
            s["conditions"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["reason"] == "ClusterNotHealthy"))
        },
    )
    .await;
    assert_eq!(deferred["phase"], "Pending", "{deferred}");

    create_run(&client, ns, "on-b", "dbb", json!({"all": true})).await;
    let done_b = wait_phase(&client, ns, "on-b", &["Complete", "Failed"]).await;
    assert_eq!(done_b["phase"], "Complete", "{done_b}");
    assert_eq!(done_b["defragmented"], 3, "{done_b}");
    assert_eq!(rows_with(&done_b, "Defragmented"), 3, "{done_b}");
    assert_eq!(
        done_b["members"].as_array().unwrap().last().unwrap()["role"],
        "leader",
        "{done_b}"
    );
    // B started at once, not after one of A's passes (each probe of A
    // waits 5 s for the stopped member): `startedAt` and the creation
    // time have one-second precision.
    let created = runs(&client, ns)
        .get("on-b")
        .await
        .unwrap()
        .metadata
        .creation_timestamp
        .unwrap()
        .0;
    let started = timestamp(&done_b["startedAt"]);
    assert!(
        started.duration_since(created) <= jiff::SignedDuration::from_secs(3),
        "B's run started {} after its creation",
        started.duration_since(created)
    );

    // Meanwhile A stayed deferred and untouched.
    let still = runs(&client, ns).get("on-a").await.unwrap().data["status"].clone();
    assert_eq!(still["phase"], "Pending", "{still}");
    assert_eq!(condition(&still)["reason"], "ClusterNotHealthy", "{still}");
    assert!(still.get("startedAt").is_none(), "{still}");
    assert_eq!(rows_with(&still, "Defragmented"), 0, "{still}");
    for i in (0..3).filter(|i| *i != stopped) {
        assert_eq!(defrag_count(&a.etcd, i).await, 0, "A member {i}");
    }
    assert_eq!(defrag_counts(&b.etcd).await, vec![1, 1, 1], "B's members");
    let deferrals: Vec<_> = events(&client, ns, "on-a")
        .await
        .into_iter()
        .filter(|(r, _)| r == "DefragDeferred")
        .collect();
    assert_eq!(deferrals.len(), 1, "{deferrals:?}");

    a.etcd.resume(stopped).unwrap();
    let done_a = wait_phase(&client, ns, "on-a", &["Complete", "Failed"]).await;
    assert_eq!(done_a["phase"], "Complete", "{done_a}");
    assert_eq!(done_a["defragmented"], 3, "{done_a}");
    assert_eq!(defrag_counts(&a.etcd).await, vec![1, 1, 1], "A's members");
    assert_eq!(defrag_counts(&b.etcd).await, vec![1, 1, 1], "B's members");
}

/// Leadership moved by a third party (MoveLeader sent to the leader) while
/// the first planned member is being defragmented, to the follower planned
/// second: the engine re-plans, so the old leader is defragmented as a
/// follower and the new leader goes last, as `leader` (rows keep their plan
/// order; a row's role is the member's role when it was defragmented, and
/// the order of execution shows in `finishedAt` and the members' logs);
/// each member exactly once (its own metrics), and the members' own logs
/// never show two defragmentations at once.
///
/// The move is made while the first member is being defragmented (seen in
/// its own log), not once its row is written: the next Defragment is sent
/// within milliseconds of that write, so moving leadership then would
/// usually hand it to a member already being defragmented as a follower.
/// `--move-leader never` keeps the new leader's turn an in-place defrag
/// (with `auto` the engine may hand leadership on once more, and the last
/// row would rightly say `follower`).
#[tokio::test(flavor = "multi_thread")]
async fn leadership_moved_mid_run_keeps_each_member_once_and_the_leader_last() {
    let client = admin().await;
    let ns = "watchmore-leader";
    let kc = kubeconfig("watchmore-leader.yaml", &[ns]);
    let fx = fixture_logged(&client, ns, "db", Mode::Plain).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    let ids = fx.etcd.member_ids().await.unwrap();
    let leader = fx.etcd.leader().await.unwrap();
    let _watcher = watch(&kc, ns, &["--move-leader", "never"]);
    create_run(&client, ns, "moved", "db", json!({"all": true})).await;

    let planned = wait_status(
        &client,
        ns,
        "moved",
        Duration::from_secs(60),
        "planned",
        |s| s["members"].as_array().is_some_and(|r| r.len() == 3),
    )
    .await;
    let index = |name: &str| fx.members.iter().position(|m| m == name).unwrap();
    let order: Vec<usize> = row_names(&planned).iter().map(|n| index(n)).collect();
    assert_eq!(order[2], leader, "the leader is planned last: {planned}");
    assert_eq!(planned["members"][2]["role"], "leader", "{planned}");
    let (first, second) = (order[0], order[1]);

    // The first member's Defragment is under way: move leadership from the
    // leader to the member planned second.
    let limit = tokio::time::Instant::now() + Duration::from_secs(60);
    while !fx.etcd.defrag_started(first) {
        assert!(
            tokio::time::Instant::now() < limit,
            "{} never started defragmenting",
            fx.members[first]
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut c = fx.etcd.client(leader).await.unwrap();
    c.move_leader(ids[second])
        .await
        .expect("move leadership to the member planned second");
    let moved_at = now_secs();

    let status = wait_phase(&client, ns, "moved", &["Complete", "Failed"]).await;
    let logged = fx.etcd.logged_defrags();
    // The premise: leadership had moved before the first member finished.
    let first_done = logged
        .iter()
        .find(|d| d.member == first)
        .unwrap_or_else(|| panic!("no defrag of the first member: {}", describe(&fx, &logged)));
    assert!(
        first_done.end > moved_at,
        "test set-up raced: leadership moved at {moved_at:.3}, after the first member had finished ({})",
        describe(&fx, &logged)
    );

    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert_eq!(rows_with(&status, "Defragmented"), 3, "{status}");
    // Rows stay in plan order; each row's role is the member's role when
    // it was defragmented: the old leader as a follower, the new leader as
    // `leader`, and it finished last.
    let rows = status["members"].as_array().unwrap();
    let row = |i: usize| {
        rows.iter()
            .find(|r| r["name"] == fx.members[i].as_str())
            .unwrap_or_else(|| panic!("no row for {}: {status}", fx.members[i]))
    };
    assert_eq!(row(first)["role"], "follower", "{status}");
    assert_eq!(row(leader)["role"], "follower", "the old leader: {status}");
    assert_eq!(row(second)["role"], "leader", "the new leader: {status}");
    assert_eq!(
        rows.iter().filter(|r| r["role"] == "leader").count(),
        1,
        "{status}"
    );
    let finished = |i: usize| timestamp(&row(i)["finishedAt"]);
    assert!(
        finished(second) >= finished(leader) && finished(leader) >= finished(first),
        "finishedAt: the new leader last: {status}"
    );
    assert_eq!(
        defrag_counts(&fx.etcd).await,
        vec![1, 1, 1],
        "Defragments per member"
    );
    assert_eq!(
        logged.iter().map(|d| d.member).collect::<Vec<_>>(),
        vec![first, leader, second],
        "the members' own logs: {}",
        describe(&fx, &logged)
    );
    assert_never_two_at_once(&fx, &logged);
}

/// Runs `first` and `second` (both `all`) for one cluster; once the member
/// `first` planned second has started defragmenting (its own log; `first`
/// has then written one Defragmented row), `first` is deleted, and
/// `second` is edited (a label) so that the watcher takes it up at once
/// rather than at its next 10-s requeue.
/// `second` must not send a Defragment while the member `first` was
/// defragmenting is still at it: in the members' own logs no two
/// defragmentations overlap, and every Defragment step of `second` (from
/// the watcher's log) comes after the in-flight one finished. `first`'s
/// engine stops after its member in flight (the leader, planned last,
/// shows only `second`'s Defragment) and `second` completes.
#[tokio::test(flavor = "multi_thread")]
async fn deleting_the_active_run_mid_defrag_holds_the_next_one_back() {
    let client = admin().await;
    let ns = "watchmore-delete";
    let kc = kubeconfig("watchmore-delete.yaml", &[ns]);
    let fx = fixture_logged(&client, ns, "db", Mode::Plain).await;
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    create_run(&client, ns, "first", "db", json!({"all": true})).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    create_run(&client, ns, "second", "db", json!({"all": true})).await;
    let watcher = watch(&kc, ns, &[]);

    let planned = wait_status(
        &client,
        ns,
        "first",
        Duration::from_secs(60),
        "planned",
        |s| s["members"].as_array().is_some_and(|r| r.len() == 3),
    )
    .await;
    let plan: Vec<usize> = row_names(&planned)
        .iter()
        .map(|n| fx.members.iter().position(|m| m == n).unwrap())
        .collect();
    assert_eq!(planned["members"][2]["role"], "leader", "{planned}");
    // The member planned second starts defragmenting (its own log) once
    // the first one's row is written: delete `first` then.
    let limit = tokio::time::Instant::now() + Duration::from_secs(60);
    while !fx.etcd.defrag_started(plan[1]) {
        assert!(
            tokio::time::Instant::now() < limit,
            "{} never started defragmenting",
            fx.members[plan[1]]
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let api = runs(&client, ns);
    let one = api.get("first").await.unwrap().data["status"].clone();
    api.delete("first", &DeleteParams::default()).await.unwrap();
    let deleted_at = now_secs();
    api.patch(
        "second",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"nudged": "yes"}}})),
    )
    .await
    .unwrap();
    assert_eq!(rows_with(&one, "Defragmented"), 1, "{one}");
    assert_eq!(one["members"][0]["outcome"], "Defragmented", "{one}");

    let done = wait_phase(&client, ns, "second", &["Complete", "Failed"]).await;
    assert!(api.get_opt("first").await.unwrap().is_none());
    assert_eq!(done["phase"], "Complete", "{done}");
    assert_eq!(done["defragmented"], 3, "{done}");
    assert_eq!(rows_with(&done, "Defragmented"), 3, "{done}");

    let logged = fx.etcd.logged_defrags();
    let counts = defrag_counts(&fx.etcd).await;
    let watcher_log = watcher.log();
    let context = format!(
        "deleted at {deleted_at:.3}; logged: {}; Defragments per member {counts:?}",
        describe(&fx, &logged)
    );
    for (i, count) in counts.iter().enumerate() {
        let seen = logged.iter().filter(|d| d.member == i).count() as u64;
        assert_eq!(*count, seen, "member {i}: metrics vs log; {context}");
    }
    // `first` defragmented its first two planned members (the second one
    // in flight at the delete) and stopped; then `second` did all three.
    assert_eq!(
        logged.iter().map(|d| d.member).take(2).collect::<Vec<_>>(),
        plan[..2].to_vec(),
        "{context}"
    );
    let busy = logged[1];
    assert!(
        busy.start <= deleted_at && deleted_at < busy.end,
        "test set-up raced: the delete did not land while {} was being defragmented; {context}",
        fx.members[busy.member]
    );
    let mut want = vec![1u64; 3];
    want[plan[0]] = 2;
    want[plan[1]] = 2;
    assert_eq!(
        counts, want,
        "`first` stops after its member in flight; `second` defragments all three; {context}"
    );
    assert_never_two_at_once(&fx, &logged);
    // `second`'s steps (the last three the watcher logged) all came after
    // the in-flight member had finished.
    let calls = watcher_defrag_calls(&watcher_log, &fx);
    assert_eq!(calls.len(), 5, "watcher log:\n{watcher_log}");
    for (t, member) in &calls[2..] {
        assert!(
            *t >= busy.end,
            "`second` started defragmenting {member} at {t:.3}, while {} was still being defragmented (until {:.3}) for the deleted run; {context}",
            fx.members[busy.member],
            busy.end
        );
    }
}
