//! Issue 20 items 4 and 5 against real etcd clusters.
//!
//! Item 4: SIGTERM (what Kubernetes sends a Pod it stops) and SIGHUP are a
//! graceful stop, as the first Ctrl-C is: the Defragment in flight is
//! finished, no further member is started, the partial report is printed in
//! the chosen format, one reason line names the signal, partial files are
//! removed, and the exit code is 128 + the signal's number. A second signal
//! abandons the member in flight. Judged by etcd's own logs (which members
//! defragmented, and that the defragmentation finished) and by what a
//! client reads back.
//!
//! Item 5: with a member frozen (SIGSTOP), `defrag --dry-run` and a refused
//! `defrag --yes` still list every member; the silent one with its name, id
//! and the reason `Unreachable`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::time::Duration;

use nix::sys::signal::Signal;
use support::*;

const MB: u64 = 1_000_000;

fn defrag_args(cluster: &Cluster, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(&[
        "-v",
        "defrag",
        "--yes",
        "--all",
        "--move-leader=never",
    ]));
    a.extend(args(extra));
    a
}

/// Sends `signal` to the running tool.
fn send(run: &Running, signal: Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(run.pid() as i32), signal)
        .unwrap_or_else(|e| panic!("{signal}: {e}"));
}

/// Waits until etcd itself has logged the start of a defragmentation (the
/// Defragment call reached a member, not only the tool's progress line);
/// returns that member's index.
async fn first_defrag_reached(cluster: &Cluster) -> usize {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(i) = (0..cluster.members.len()).find(|&i| cluster.defrag_started(i)) {
            return i;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no member logged the start of its defragmentation"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// How many defragmentations each member's log shows started.
fn started_defrags(cluster: &Cluster) -> usize {
    (0..cluster.members.len())
        .map(|i| {
            cluster
                .log(i)
                .lines()
                .filter(|l| {
                    serde_json::from_str::<serde_json::Value>(l)
                        .is_ok_and(|v| v["msg"] == "defragmenting")
                })
                .count()
        })
        .sum()
}

fn outcomes(doc: &serde_json::Value) -> Vec<String> {
    doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap().to_string())
        .collect()
}

/// SIGTERM mid-sweep, once etcd has started defragmenting the first
/// member: that member is finished (etcd logs the end of its
/// defragmentation), nothing else is started, the partial report is on
/// stdout as JSON, one stderr line names SIGTERM, exit 143.
async fn sigterm_stops_after_the_member_in_flight(version: EtcdVersion) {
    let cluster = fragmented(
        ClusterSpec::new(3, Security::Plain).version(version),
        400 * MB,
        0.5,
    )
    .await;
    let mut run = spawn_tool(&defrag_args(&cluster, &["-o", "json"]));
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    let first = first_defrag_reached(&cluster).await;
    send(&run, Signal::SIGTERM);
    let done = run.finish().await;
    assert_eq!(done.code, 143, "{done:?}");
    let doc = done.json();
    assert_eq!(doc["stopReason"], "Interrupted", "{doc}");
    let outcomes = outcomes(&doc);
    assert_eq!(outcomes.len(), 3, "{doc}");
    assert_eq!(
        outcomes.iter().filter(|o| *o == "Defragmented").count(),
        1,
        "{doc}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "Pending").count(),
        2,
        "{doc}"
    );
    let defragmented = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["outcome"] == "Defragmented")
        .unwrap();
    assert_eq!(
        defragmented["name"], cluster.members[first].name,
        "the member in flight is the one reported: {doc}"
    );
    let reasons: Vec<&str> = done
        .stderr
        .lines()
        .filter(|l| l.contains("terminated (SIGTERM): stopping after"))
        .collect();
    assert_eq!(reasons.len(), 1, "{}", done.stderr);
    // etcd's own record: one defragmentation started, and it finished.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let logged = cluster.logged_defrags();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].member, first);
    assert_eq!(started_defrags(&cluster), 1, "no other member was started");
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_sweep_stops_after_the_member_in_flight_v3_6() {
    sigterm_stops_after_the_member_in_flight(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_sweep_stops_after_the_member_in_flight_v3_7() {
    sigterm_stops_after_the_member_in_flight(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_sweep_stops_after_the_member_in_flight_v3_4() {
    sigterm_stops_after_the_member_in_flight(EtcdVersion::V3_4).await;
}

/// SIGHUP once (the terminal went away), with `-o yaml`: as SIGTERM, exit
/// 129, the partial report in YAML.
#[tokio::test(flavor = "multi_thread")]
async fn issue20_sighup_mid_sweep_exits_129_with_the_partial_report() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 400 * MB, 0.5).await;
    let mut run = spawn_tool(&defrag_args(&cluster, &["-o", "yaml"]));
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    first_defrag_reached(&cluster).await;
    send(&run, Signal::SIGHUP);
    let done = run.finish().await;
    assert_eq!(done.code, 129, "{done:?}");
    let doc: serde_json::Value = serde_yaml::from_str(&done.stdout)
        .unwrap_or_else(|e| panic!("stdout is not YAML ({e}): {done:?}"));
    assert_eq!(doc["stopReason"], "Interrupted", "{doc}");
    let outcomes = outcomes(&doc);
    assert_eq!(outcomes.len(), 3, "{doc}");
    assert_eq!(
        outcomes.iter().filter(|o| *o == "Defragmented").count(),
        1,
        "{doc}"
    );
    assert!(
        done.stderr.contains("hung up (SIGHUP): stopping after"),
        "{}",
        done.stderr
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(cluster.logged_defrags().len(), 1);
    assert_eq!(started_defrags(&cluster), 1);
}

/// A second SIGTERM while the member in flight is frozen mid-defrag: the
/// run stops waiting for it, prints what was done, exit 143.
#[tokio::test(flavor = "multi_thread")]
async fn issue20_a_second_sigterm_abandons_the_member_in_flight() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 200 * MB, 0.5).await;
    let mut run = spawn_tool(&defrag_args(&cluster, &["-o", "json"]));
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    let stuck = first_defrag_reached(&cluster).await;
    // Frozen mid-defragmentation: its RPC cannot return.
    cluster.pause(stuck).unwrap();
    send(&run, Signal::SIGTERM);
    run.wait_for("the first signal's reason line", |l| {
        l.contains("terminated (SIGTERM): stopping after")
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    send(&run, Signal::SIGTERM);
    let done = run.finish().await;
    cluster.resume(stuck).unwrap();
    assert_eq!(done.code, 143, "{done:?}");
    let doc = done.json();
    assert_eq!(doc["stopReason"], "Abandoned", "{doc}");
    let row = row(&doc, &cluster.members[stuck].name);
    assert_eq!(row["outcome"], "Failed", "{doc}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap_or("")
            .contains("may still be"),
        "{row}"
    );
    assert_eq!(
        outcomes(&doc).iter().filter(|o| *o == "Pending").count(),
        2,
        "{doc}"
    );
    assert!(
        done.stderr
            .contains("terminated again (SIGTERM): no longer waiting"),
        "{}",
        done.stderr
    );
    assert_eq!(started_defrags(&cluster), 1, "no other member was started");
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// SIGTERM mid-`snapshot save` (the member sending it frozen once the
/// stream has started, so the transfer is certainly in progress): no FILE,
/// no `.FILE.part-*`, exit 143, one line naming the signal.
async fn sigterm_mid_snapshot_leaves_no_file(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::Plain).version(version)).await;
    cluster.fragment(100 * MB, 1.0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.db");
    let leader = cluster.leader().await.unwrap();
    let follower = (0..3).find(|&i| i != leader).unwrap();
    let name = cluster.members[follower].name.clone();
    let mut a = one_seed(&cluster);
    a.extend(args(&["-v", "-o", "json", "snapshot", "save"]));
    a.push(file.display().to_string());
    a.extend(args(&["--member", &name]));
    let mut run = spawn_tool(&a);
    run.wait_for("the transfer starting", |l| l.contains("streaming"))
        .await;
    cluster.pause(follower).unwrap();
    send(&run, Signal::SIGTERM);
    let done = run.finish().await;
    cluster.resume(follower).unwrap();
    assert_eq!(done.code, 143, "{done:?}");
    assert!(done.stdout.is_empty(), "nothing was saved: {done:?}");
    let reasons: Vec<&str> = done
        .stderr
        .lines()
        .filter(|l| l.contains("terminated (SIGTERM): removing the partial snapshot"))
        .collect();
    assert_eq!(reasons.len(), 1, "{}", done.stderr);
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_snapshot_leaves_no_file_v3_6() {
    sigterm_mid_snapshot_leaves_no_file(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_snapshot_leaves_no_file_v3_7() {
    sigterm_mid_snapshot_leaves_no_file(EtcdVersion::V3_7).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_mid_snapshot_leaves_no_file_v3_4() {
    sigterm_mid_snapshot_leaves_no_file(EtcdVersion::V3_4).await;
}

/// How many compactions member `i` has logged as finished.
fn finished_compactions(cluster: &Cluster) -> usize {
    (0..cluster.members.len())
        .map(|i| {
            cluster
                .log(i)
                .lines()
                .filter(|l| l.contains("finished scheduled compaction"))
                .count()
        })
        .sum()
}

/// SIGTERM once etcd has compacted, while `compact` waits for the sizes
/// to settle (a follower frozen, so the wait cannot end by itself): the
/// compaction stands and is reported in JSON, exit 143.
#[tokio::test(flavor = "multi_thread")]
async fn issue20_sigterm_during_compact_reports_the_compaction() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 20 * MB, 0.5).await;
    let mut c = cluster.client(0).await.unwrap();
    for i in 0..200 {
        c.put(format!("k{}", i % 10), "v", None).await.unwrap();
    }
    let current = c
        .get("k0", None)
        .await
        .unwrap()
        .header()
        .unwrap()
        .revision();
    let before = finished_compactions(&cluster);
    let leader = cluster.leader().await.unwrap();
    // Not member 0: the tool's seed, through which it looks again.
    let follower = (1..3).find(|&i| i != leader).unwrap();
    let mut a = one_seed(&cluster);
    a.extend(args(&["-o", "json", "compact", "--keep", "1", "--yes"]));
    let run = spawn_tool(&a);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while finished_compactions(&cluster) == before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "etcd logged no compaction"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cluster.pause(follower).unwrap();
    send(&run, Signal::SIGTERM);
    let done = run.finish().await;
    cluster.resume(follower).unwrap();
    assert_eq!(done.code, 143, "{done:?}");
    let doc = done.json();
    // --keep 1: every revision before the current one goes.
    let revision = current - 1;
    assert_eq!(doc["revision"], revision, "{doc}");
    assert!(
        done.stderr.contains("terminated (SIGTERM): "),
        "{}",
        done.stderr
    );
    // etcd's own answer: the revision before is gone.
    let old = c
        .get(
            "k0",
            Some(etcd_client::GetOptions::new().with_revision(revision - 1)),
        )
        .await;
    assert!(
        old.as_ref()
            .is_err_and(|e| e.to_string().contains("compacted")),
        "{old:?}"
    );
}

/// Item 5: a member frozen (SIGSTOP) is still a row of the plan and of
/// the refused run's report, in JSON and in the table, with its name, id
/// and `Unreachable`; the gate's refusal is under the table; exit 1;
/// nothing is defragmented.
#[tokio::test(flavor = "multi_thread")]
async fn issue20_a_silent_member_is_a_row_of_the_plan_and_the_report() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 20 * MB, 0.5).await;
    let ids = cluster.member_ids().await.unwrap();
    let leader = cluster.leader().await.unwrap();
    // A follower, and not member 0: the tool's seed.
    let silent = (1..3).find(|&i| i != leader).unwrap();
    let name = cluster.members[silent].name.clone();
    let id = format!("{:016x}", ids[silent]);
    cluster.pause(silent).unwrap();

    let run_with = |extra: &[&str]| {
        let mut a = one_seed(&cluster);
        a.extend(args(&["defrag", "--all"]));
        a.extend(args(extra));
        a
    };
    for extra in [&["--dry-run"][..], &["--yes"][..]] {
        let json = tool(&run_with(&[extra, &["-o", "json"]].concat()), &[]).await;
        json.expect_code(1);
        let doc = json.json();
        let names: Vec<&str> = doc["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 3, "{extra:?}: {doc}");
        for m in &cluster.members {
            assert!(names.contains(&m.name.as_str()), "{extra:?}: {doc}");
        }
        let row = row(&doc, &name);
        assert_eq!(row["id"], id, "{row}");
        assert_eq!(row["outcome"], "Skipped", "{row}");
        assert_eq!(row["reason"], "Unreachable", "{row}");
        assert!(
            row["detail"]
                .as_str()
                .unwrap_or("")
                .contains("did not answer Status"),
            "{row}"
        );
        assert!(
            doc["refusal"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["member"] == name.as_str()),
            "{doc}"
        );

        let table = tool(&run_with(extra), &[]).await;
        table.expect_code(1);
        for m in &cluster.members {
            assert!(table.stdout.contains(&m.name), "{}", table.stdout);
        }
        let line = table
            .stdout
            .lines()
            .find(|l| l.contains(&name) && l.contains("Unreachable"))
            .unwrap_or_else(|| panic!("no Unreachable row for {name}:\n{}", table.stdout));
        assert!(line.contains("Skipped"), "{line}");
        assert!(
            table.stdout.contains(&format!("(member id {id})")),
            "{}",
            table.stdout
        );
        let refusal = if extra == ["--dry-run"] {
            "Health gate: the sweep would be refused now"
        } else {
            "health gate refused"
        };
        let at = table
            .stdout
            .find(refusal)
            .unwrap_or_else(|| panic!("no refusal under the table:\n{}", table.stdout));
        assert!(at > table.stdout.find(&name).unwrap(), "{}", table.stdout);
    }
    cluster.resume(silent).unwrap();
    assert!(
        cluster.logged_defrags().is_empty(),
        "nothing was defragmented"
    );
}
