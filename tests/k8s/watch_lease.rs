//! Exactly one active watcher: two `defrag --watch` processes on one Lease.
//! The holder acts; the other waits. A holder stopped past the lease
//! duration loses it, and after it resumes it neither writes nor
//! defragments; SIGTERM hands the Lease back at once and exits 0. A holder
//! killed mid-Defragment leaves word, and its member is not taken twice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use kube::api::{Api, DynamicObject};
use kube::{Client, ResourceExt};
use serde_json::json;
use support::k8s::*;
use support::watch::{defrag_count, spawn_watcher, wait_lease_holder};

fn watcher(kc: &std::path::Path, ns: &str) -> tokio::process::Child {
    spawn_watcher(kc, ns, &["--lease-duration=3s"])
}

fn signal(child: &tokio::process::Child, sig: nix::sys::signal::Signal) {
    let pid = nix::unistd::Pid::from_raw(child.id().unwrap() as i32);
    nix::sys::signal::kill(pid, sig).unwrap();
}

/// The Lease's holder, once it is held by the process `pid` (at most 30 s).
async fn wait_holder(client: &Client, ns: &str, pid: u32) {
    if let Err(holder) = wait_lease_holder(client, ns, pid).await {
        panic!("the Lease never went to {pid}: held by {holder:?}");
    }
}

async fn create_run(runs: &Api<DynamicObject>, ns: &str, name: &str) {
    create(
        runs,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterRef": {"name": "db"}, "rule": {"all": true}},
        }),
    )
    .await;
}

async fn wait_complete(runs: &Api<DynamicObject>, name: &str) -> DynamicObject {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let run = runs.get(name).await.unwrap();
        if run.data["status"]["phase"] == "Complete" {
            return run;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} never completed: {}",
            run.data["status"]
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn one_watcher_acts_and_a_stopped_holder_stays_fenced() {
    use nix::sys::signal::Signal;

    let client = admin().await;
    let ns = "watch-lease";
    let kc = kubeconfig("watch-lease.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");

    // Each Defragment takes a moment, so the holder can be frozen mid-run.
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    let mut a = watcher(&kc, ns);
    wait_holder(&client, ns, a.id().unwrap()).await;
    let mut b = watcher(&kc, ns);

    // The holder freezes mid-run, past the lease duration: the other takes
    // over and finishes the run from the rows already written. It freezes
    // 300 ms after its note on the second member, once that member's
    // Defragment has left it: from the last look at the Lease to the
    // request reaching etcd took 0.5-4 ms here (docs/cli.md, `defrag
    // --watch`), and a holder stopped inside that instant would send it on
    // resuming, since etcd's Defragment takes no fencing token.
    create_run(&runs, ns, "first").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let run = runs.get("first").await.unwrap();
        let rows = run.data["status"]["members"].as_array().cloned();
        let rows = rows.unwrap_or_default();
        let defragmented = |name: &str| {
            rows.iter()
                .any(|r| r["name"] == name && r["outcome"] == "Defragmented")
        };
        let noted = run
            .annotations()
            .get("kubectl-etcd/defragmenting")
            .and_then(|n| n.split(';').next().map(str::to_string));
        let done = rows
            .iter()
            .filter(|r| r["outcome"] == "Defragmented")
            .count();
        if done >= 1 && noted.as_deref().is_some_and(|m| !defragmented(m)) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no second note: {}",
            run.data["status"]
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    signal(&a, Signal::SIGSTOP);
    wait_holder(&client, ns, b.id().unwrap()).await;
    let done = wait_complete(&runs, "first").await;
    // The member in flight when the holder froze is `AlreadyReclaimed`:
    // its Defragment (about 1.5 s for 150 MiB in use) ran on.
    let status = &done.data["status"];
    let rows = status["members"].as_array().unwrap();
    let reclaimed = rows
        .iter()
        .filter(|r| r["outcome"] == "Skipped" && r["reason"] == "AlreadyReclaimed")
        .count();
    let defragmented = rows
        .iter()
        .filter(|r| r["outcome"] == "Defragmented")
        .count();
    assert!(reclaimed == 1 && defragmented == 2, "{status}");
    assert_eq!(status["defragmented"], defragmented, "{status}");
    let mut counts = Vec::new();
    for i in 0..3 {
        counts.push(defrag_count(&fx.etcd, i).await);
    }
    // Every member exactly once: the one in flight when the holder froze
    // has no row from it, but the note the holder left before sending its
    // Defragment, and nothing left to reclaim (issue 25).
    assert_eq!(counts, [1, 1, 1]);

    // The old holder resumes: its fence is closed, so it neither writes the
    // row of the member it had in flight nor defragments anything more.
    signal(&a, Signal::SIGCONT);
    tokio::time::sleep(Duration::from_secs(5)).await;
    let after = runs.get("first").await.unwrap();
    assert_eq!(
        after.metadata.resource_version, done.metadata.resource_version,
        "the fenced watcher wrote: {}",
        after.data["status"]
    );
    for (i, before) in counts.iter().enumerate() {
        assert_eq!(
            defrag_count(&fx.etcd, i).await,
            *before,
            "member {i} was defragmented after the old holder resumed"
        );
    }
    assert!(
        a.try_wait().unwrap().is_none(),
        "it waits to take the Lease back"
    );

    // SIGTERM: the holder hands the Lease back and exits 0; the other takes
    // over at once and does the next run.
    signal(&b, Signal::SIGTERM);
    let status = tokio::time::timeout(Duration::from_secs(30), b.wait())
        .await
        .expect("the watcher exits on SIGTERM")
        .unwrap();
    assert_eq!(status.code(), Some(0));
    wait_holder(&client, ns, a.id().unwrap()).await;
    create_run(&runs, ns, "second").await;
    wait_complete(&runs, "second").await;
    for (i, before) in counts.iter().enumerate() {
        assert_eq!(defrag_count(&fx.etcd, i).await, before + 1, "member {i}");
    }
    a.kill().await.unwrap();
}

/// Issue 25 (soak seed 25, watch round 27): the holder is SIGKILLed while
/// its Defragment runs, so the member's row is never written. The note it
/// left on the EtcdDefrag (read back from the API server) names the
/// member; the next holder finds it with nothing to reclaim and skips it
/// (`AlreadyReclaimed`): every member is defragmented exactly once, by
/// its own `/metrics`.
#[tokio::test(flavor = "multi_thread")]
async fn a_holder_killed_mid_defragment_leaves_word_and_no_member_is_taken_twice() {
    let client = admin().await;
    let ns = "watch-lease-kill";
    let kc = kubeconfig("watch-lease-kill.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    fx.etcd.fragment(300 * 1024 * 1024, 0.5).await.unwrap();
    let mut a = watcher(&kc, ns);
    wait_holder(&client, ns, a.id().unwrap()).await;
    create_run(&runs, ns, "first").await;

    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let note = loop {
        let run = runs.get("first").await.unwrap();
        if let Some(m) = run.annotations().get("kubectl-etcd/defragmenting") {
            break m.clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "no note: {run:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // `<member>; dbSizeBefore=<bytes>`: the member, and its file's size
    // right before the RPC (about 300 MiB written).
    let (member, size) = note
        .split_once("; dbSizeBefore=")
        .unwrap_or_else(|| panic!("the note has no size: {note:?}"));
    let member = member.to_string();
    let size: u64 = size.parse().unwrap();
    assert!(size > 200 << 20, "{note:?}");
    // The Defragment is sent right after the note; kill the holder while
    // it runs.
    tokio::time::sleep(Duration::from_millis(150)).await;
    a.kill().await.unwrap();
    let row_written = runs.get("first").await.unwrap().data["status"]["members"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["name"] == member.as_str() && r["outcome"] != "Pending");
    assert!(
        !row_written,
        "the holder wrote {member}'s row before it died"
    );

    // Writes after the defrag leave the member with free pages again (20 MB
    // written, all deleted, compacted): by its sizes alone it looks
    // fragmented (soak seed 28 round 101 took such a member twice); its
    // file, smaller than the note says it was, tells the Defragment ran.
    fx.etcd.fragment(20_000_000, 0.0).await.unwrap();

    let mut b = watcher(&kc, ns);
    let done = wait_complete(&runs, "first").await;
    let rows = done.data["status"]["members"].as_array().unwrap().clone();
    let row = rows.iter().find(|r| r["name"] == member.as_str()).unwrap();
    assert_eq!(row["outcome"], "Skipped", "{rows:?}");
    assert_eq!(row["reason"], "AlreadyReclaimed", "{rows:?}");
    let mut counts = Vec::new();
    for i in 0..3 {
        counts.push(defrag_count(&fx.etcd, i).await);
    }
    assert_eq!(counts, [1, 1, 1], "{rows:?}");
    b.kill().await.unwrap();
}

/// A holder stopped (SIGTERM) after it noted the member it was about to
/// defragment but before the Defragment left: it sends nothing, takes its
/// note back and exits 0; the next holder defragments that member rather
/// than reading the note as a Defragment that may have run. The members
/// hold nothing to reclaim, so a note left behind would have the member
/// skipped as `AlreadyReclaimed` and never defragmented (the node suite's
/// watcher Deployment, deleted at the start of a run, did exactly that).
/// The holder reaches the API server 1.6 s away, so the test, next to it,
/// sees the note some 800 ms before the holder hears it was stored.
#[tokio::test(flavor = "multi_thread")]
async fn a_holder_stopped_before_its_defragment_leaves_takes_its_note_back() {
    use kubectl_etcd_testbed::delay::Delay;
    use nix::sys::signal::Signal;

    let client = admin().await;
    let ns = "watch-lease-withheld";
    let kc = kubeconfig("watch-lease-withheld.yaml", &[ns]);
    let far = apiserver_proxy(Delay::rtt_ms(1600)).await;
    let kc_far = kubeconfig_via(
        &format!("https://{}", far.addr()),
        "watch-lease-withheld-far.yaml",
        &[ns],
    );
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    // Everything written is kept: nothing to reclaim on any member.
    fx.etcd.fragment(40 << 20, 1.0).await.unwrap();

    // A lease long enough for renewals 1.6 s away.
    let mut a = spawn_watcher(&kc_far, ns, &["--lease-duration=20s"]);
    wait_holder(&client, ns, a.id().unwrap()).await;
    create_run(&runs, ns, "first").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let member = loop {
        let run = runs.get("first").await.unwrap();
        if let Some(note) = run.annotations().get("kubectl-etcd/defragmenting") {
            break note.split(';').next().unwrap_or_default().to_string();
        }
        assert!(tokio::time::Instant::now() < deadline, "no note: {run:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    signal(&a, Signal::SIGTERM);
    let exit = tokio::time::timeout(Duration::from_secs(60), a.wait())
        .await
        .expect("the watcher exits on SIGTERM")
        .unwrap();
    assert_eq!(exit.code(), Some(0));

    // Nothing sent, by the members' own counts, and no note left.
    let mut counts = Vec::new();
    for i in 0..3 {
        counts.push(defrag_count(&fx.etcd, i).await);
    }
    assert_eq!(counts, [0, 0, 0], "{member} was noted");
    let run = runs.get("first").await.unwrap();
    assert!(
        !run.annotations().contains_key("kubectl-etcd/defragmenting"),
        "the note was left: {:?}",
        run.annotations()
    );

    // The next holder defragments every member, the noted one included.
    let mut b = watcher(&kc, ns);
    let done = wait_complete(&runs, "first").await;
    let rows = done.data["status"]["members"].as_array().unwrap().clone();
    for row in &rows {
        assert_eq!(row["outcome"], "Defragmented", "{rows:?}");
    }
    let mut counts = Vec::new();
    for i in 0..3 {
        counts.push(defrag_count(&fx.etcd, i).await);
    }
    assert_eq!(counts, [1, 1, 1], "{rows:?}");
    b.kill().await.unwrap();
}
