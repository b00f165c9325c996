//! The defrag sweep against real 3-member etcd clusters (3.6, and 3.5 and
//! 3.4 where the version matters), fragmented by writing, deleting and
//! compacting. Assertions are on etcd's own state: sizes from Status,
//! leadership from Status, and the defragmentation records etcd writes to
//! its own log (start and finish timestamps).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use kubectl_etcd_testbed::delay::Delay;
use support::*;

const MB: u64 = 1_000_000;

/// Every defragmentation etcd logged, in start order.
fn defrags(cluster: &Cluster) -> Vec<kubectl_etcd_testbed::LoggedDefrag> {
    cluster.logged_defrags()
}

async fn sizes(cluster: &Cluster) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for i in 0..cluster.members.len() {
        let s = cluster.client(i).await.unwrap().status().await.unwrap();
        out.push((s.db_size(), s.raft_used_db_size()));
    }
    out
}

/// [`sizes`] once they stop changing: a write just made (an alarm, a
/// compaction) reaches each member's backend on its own batch commit.
async fn settled_sizes(cluster: &Cluster) -> Vec<(i64, i64)> {
    let mut last = sizes(cluster).await;
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let now = sizes(cluster).await;
        if now == last {
            return now;
        }
        last = now;
    }
    panic!("member sizes kept changing: {last:?}");
}

/// One write after [`Cluster::fragment`], so that the current revision is
/// no longer the compacted one. Tests of the sweep itself on 3.4 use it:
/// the compacted-at-current-revision case (3.4 refuses HashKV at a compacted
/// revision) is what the `issue9_*` tests cover.
async fn write_after_compaction(cluster: &Cluster) {
    let mut c = cluster.client(0).await.unwrap();
    c.put("after-compaction", "x", None).await.unwrap();
}

/// How many HashKV calls each member answered, by its own count.
async fn hashkv_counts(cluster: &Cluster) -> Vec<u64> {
    let mut n = Vec::new();
    for i in 0..cluster.members.len() {
        n.push(metric(cluster, i, HASHKV_OK).await as u64);
    }
    n
}

fn defrag_args(cluster: &Cluster, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.extend(args(&["-v", "defrag", "--yes", "-o", "json"]));
    a.extend(args(extra));
    a
}

/// Every member over the threshold is defragmented and shrinks; followers
/// go before the leader, never two at once.
#[tokio::test(flavor = "multi_thread")]
async fn sweep_defragments_followers_first_then_the_leader() {
    let cluster = fragmented(ClusterSpec::new(3, Security::MutualTls), 300 * MB, 0.1).await;
    sweep_followers_first(&cluster, 200, &["--move-leader=never"]).await;
}

/// The same on etcd 3.4 (smaller: 100 MB written, a 50Mi threshold).
#[tokio::test(flavor = "multi_thread")]
async fn sweep_defragments_followers_first_then_the_leader_v3_4() {
    let cluster = fragmented(
        ClusterSpec::new(3, Security::MutualTls).version(EtcdVersion::V3_4),
        100 * MB,
        0.1,
    )
    .await;
    write_after_compaction(&cluster).await;
    sweep_followers_first(
        &cluster,
        60,
        &["--move-leader=never", "--free-space-above=50Mi"],
    )
    .await;
}

/// Runs the sweep with `extra` on a cluster with more than `free_mib` MiB
/// to reclaim on every member, and checks the order, the sizes and the
/// hash check.
async fn sweep_followers_first(cluster: &Cluster, free_mib: i64, extra: &[&str]) {
    let before = sizes(cluster).await;
    let leader = cluster.leader().await.unwrap();
    for (size, used) in &before {
        assert!(
            size - used > free_mib * 1024 * 1024,
            "not fragmented enough: {before:?}"
        );
    }
    let run = tool(&defrag_args(cluster, extra), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    let after = sizes(cluster).await;
    for (i, ((b, _), (a, _))) in before.iter().zip(after.iter()).enumerate() {
        assert!(a * 2 < *b, "member {i} did not shrink: {b} -> {a}");
    }
    let logged = defrags(cluster);
    assert_eq!(logged.len(), 3, "{logged:?}");
    assert_eq!(
        logged[2].member, leader,
        "the leader must be last: {logged:?}"
    );
    for w in logged.windows(2) {
        assert!(
            w[0].end <= w[1].start,
            "two members defragmented at once: {logged:?}"
        );
    }
    let members = doc["members"].as_array().unwrap();
    assert!(
        members.iter().all(|m| m["outcome"] == "Defragmented"),
        "{doc}"
    );
    assert_eq!(members[2]["role"], "leader");
    assert_eq!(doc["hashCheck"]["agree"], true, "{doc}");
}

fn leader_name(doc: &serde_json::Value) -> String {
    doc["leader"]["member"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Below the threshold every member is skipped with `BelowThreshold` and
/// nothing is defragmented; `--all` defragments every member (3.6, 3.5 and
/// 3.4).
#[tokio::test(flavor = "multi_thread")]
async fn below_threshold_is_skipped_and_all_defragments_all() {
    for version in [
        EtcdVersion::V3_7,
        EtcdVersion::V3_6,
        EtcdVersion::V3_5,
        EtcdVersion::V3_4,
    ] {
        // A proxy without delay in front of each member counts the
        // connections the tool opens.
        let mut spec = ClusterSpec::new(3, Security::Plain)
            .version(version)
            .delay(Delay::default());
        spec.log_level = "info";
        let cluster = start(spec).await;
        let hashed_before = hashkv_counts(&cluster).await;
        let mut status = one_seed(&cluster);
        status.extend(args(&["status", "-o", "json"]));
        tool(&status, &[]).await.expect_code(0);
        let looked: Vec<u64> = cluster.traffic().iter().map(|c| c.connections).collect();
        let doc = tool(&defrag_args(&cluster, &[]), &[])
            .await
            .expect_code(0)
            .json();
        for m in doc["members"].as_array().unwrap() {
            assert_eq!(m["outcome"], "Skipped", "{doc}");
            assert_eq!(m["reason"], "BelowThreshold", "{doc}");
        }
        assert!(defrags(&cluster).is_empty(), "nothing may be defragmented");
        // Nothing due, nothing touched (issue 26): no member hashed its key
        // space (its own count), no hash check reported, and no connection
        // beyond what `status` opens (no feature gates read).
        assert_eq!(hashkv_counts(&cluster).await, hashed_before, "{version:?}");
        assert!(doc["hashCheck"].is_null(), "{doc}");
        let connections: Vec<u64> = cluster.traffic().iter().map(|c| c.connections).collect();
        let doubled: Vec<u64> = looked.iter().map(|n| n * 2).collect();
        assert_eq!(
            connections, doubled,
            "{version:?}: status opened {looked:?}"
        );
        if version != EtcdVersion::V3_4 {
            // The gRPC connection, and on 3.5 the `/metrics` read of the
            // quota its Status does not carry.
            let one_look = if version == EtcdVersion::V3_5 { 2 } else { 1 };
            assert_eq!(looked, [one_look; 3], "{version:?}");
        }

        let leader = cluster.leader().await.unwrap();
        let doc = tool(&defrag_args(&cluster, &["--all"]), &[])
            .await
            .expect_code(0)
            .json();
        // A sweep that changed the members hashes each once, one at a time.
        let hashed: Vec<u64> = hashkv_counts(&cluster)
            .await
            .iter()
            .zip(&hashed_before)
            .map(|(after, before)| after - before)
            .collect();
        assert_eq!(hashed, [1, 1, 1], "{version:?}: {doc}");
        assert_eq!(doc["hashCheck"]["agree"], true, "{doc}");
        // This run's connections per member: its gRPC one (the look, the
        // Defragment, the waits and the hash all share it) and one
        // `/metrics` read (3.6 and later: the feature gates of a member to
        // defragment; 3.4 and 3.5: the quota, and no gates, which they do
        // not publish).
        // (etcd 3.4 also reads, before each member, the leader's
        // `/debug/vars` and the member's `/metrics`: `SnapshotInFlight`.)
        if version != EtcdVersion::V3_4 {
            let this_run: Vec<u64> = cluster
                .traffic()
                .iter()
                .zip(&connections)
                .map(|(c, before)| c.connections - before)
                .collect();
            assert_eq!(this_run, [2; 3], "{version:?}");
        }
        let logged = defrags(&cluster);
        assert_eq!(logged.len(), 3, "{version:?}: {logged:?}");
        assert_eq!(logged[2].member, leader, "{logged:?}");
        for w in logged.windows(2) {
            assert!(w[0].end <= w[1].start, "overlap: {logged:?}");
        }
        assert!(
            doc["members"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["outcome"] == "Defragmented"),
            "{doc}"
        );
    }
}

/// `--move-leader always`: the original leader is no longer leader when it
/// is defragmented. `never`: it is defragmented last, as leader. `auto`
/// decides by the prediction against `--move-leader-above`, on both sides.
#[tokio::test(flavor = "multi_thread")]
async fn move_leader_always_never_and_auto() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 300 * MB, 0.1).await;
    let ids = cluster.member_ids().await.unwrap();
    let name_of = |i: usize| cluster.members[i].name.clone();

    // always
    let original = cluster.leader().await.unwrap();
    let doc = tool(
        &defrag_args(&cluster, &["--all", "--move-leader=always"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    let now = cluster.leader().await.unwrap();
    assert_ne!(now, original, "leadership must have moved");
    assert_eq!(
        doc["leader"]["transferredTo"],
        name_of(now).as_str(),
        "{doc}"
    );
    assert_eq!(leader_name(&doc), name_of(original));
    let logged = defrags(&cluster);
    assert_eq!(logged.len(), 3);
    assert_eq!(
        logged[2].member, original,
        "the old leader goes last, as a follower: {logged:?}"
    );
    assert_eq!(
        logged[0].member, now,
        "leadership goes to the follower defragmented longest ago: {logged:?}"
    );
    let row = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name_of(original).as_str())
        .unwrap()
        .clone();
    assert_eq!(
        row["role"], "follower",
        "it was a follower when defragmented: {row}"
    );
    let _ = ids;

    // never
    let leader = cluster.leader().await.unwrap();
    let doc = tool(
        &defrag_args(&cluster, &["--all", "--move-leader=never"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(
        cluster.leader().await.unwrap(),
        leader,
        "leadership must stay"
    );
    assert!(doc["leader"]["transferredTo"].is_null(), "{doc}");
    let logged = defrags(&cluster);
    assert_eq!(logged.last().unwrap().member, leader);
    assert_eq!(doc["members"][2]["role"], "leader");

    // auto, prediction under the threshold: in place.
    let leader = cluster.leader().await.unwrap();
    let doc = tool(
        &defrag_args(
            &cluster,
            &["--all", "--move-leader=auto", "--move-leader-above=1m"],
        ),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(doc["leader"]["transfer"], false, "{doc}");
    assert_eq!(cluster.leader().await.unwrap(), leader);

    // auto, prediction over the threshold: transfer.
    let doc = tool(
        &defrag_args(
            &cluster,
            &["--all", "--move-leader=auto", "--move-leader-above=1ms"],
        ),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(doc["leader"]["transfer"], true, "{doc}");
    assert_ne!(cluster.leader().await.unwrap(), leader);
    assert!(
        doc["leader"]["why"]
            .as_str()
            .unwrap()
            .contains("exceeds --move-leader-above"),
        "{doc}"
    );
}

/// `--move-leader always` on etcd 3.4: leadership moves before the leader
/// is defragmented, and the old leader goes last, as a follower.
#[tokio::test(flavor = "multi_thread")]
async fn move_leader_always_v3_4() {
    let cluster = fragmented(
        ClusterSpec::new(3, Security::Plain).version(EtcdVersion::V3_4),
        100 * MB,
        0.1,
    )
    .await;
    write_after_compaction(&cluster).await;
    let original = cluster.leader().await.unwrap();
    let original_name = cluster.members[original].name.clone();
    let doc = tool(
        &defrag_args(&cluster, &["--all", "--move-leader=always"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    let now = cluster.leader().await.unwrap();
    assert_ne!(now, original, "leadership must have moved");
    assert_eq!(
        doc["leader"]["transferredTo"],
        cluster.members[now].name.as_str(),
        "{doc}"
    );
    assert_eq!(leader_name(&doc), original_name);
    let logged = defrags(&cluster);
    assert_eq!(logged.len(), 3, "{logged:?}");
    assert_eq!(
        logged[2].member, original,
        "the old leader goes last, as a follower: {logged:?}"
    );
    assert_eq!(
        logged[0].member, now,
        "leadership goes to the follower defragmented longest ago: {logged:?}"
    );
    for w in logged.windows(2) {
        assert!(w[0].end <= w[1].start, "overlap: {logged:?}");
    }
    let row = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == original_name.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["role"], "follower", "{row}");
    assert!(
        doc["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["outcome"] == "Defragmented"),
        "{doc}"
    );
}

/// Writes 2000 keys and deletes them, on a 3-member 3.4 cluster that logs
/// its defragmentations.
async fn v3_4_with_deleted_keys() -> Cluster {
    let mut spec = ClusterSpec::new(3, Security::Plain).version(EtcdVersion::V3_4);
    spec.log_level = "info";
    let cluster = start(spec).await;
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'x'; 1000];
    for batch in 0..20 {
        let ops: Vec<etcd_client::TxnOp> = (0..100)
            .map(|i| etcd_client::TxnOp::put(format!("k/{batch:02}/{i:03}"), value.clone(), None))
            .collect();
        c.txn(etcd_client::Txn::new().and_then(ops)).await.unwrap();
    }
    c.delete("k/", Some(etcd_client::DeleteOptions::new().with_prefix()))
        .await
        .unwrap();
    cluster
}

/// The post-sweep hash check must not fail a good run: present, and either
/// agreeing or reported as not possible.
fn assert_hash_check_not_a_failure(doc: &serde_json::Value) {
    let h = &doc["hashCheck"];
    assert!(h.is_object(), "hashCheck missing: {doc}");
    let agree = h["agree"] == true;
    let not_possible = h["agree"].is_null() && h["verdict"] == "notPossible";
    assert!(
        agree || not_possible,
        "hashCheck neither agrees nor says the check was not possible: {h}"
    );
}

/// Issue 9: compacted (physically) at the current revision, with no write
/// after, a 3.4 cluster is defragmented and the run succeeds. etcd 3.4
/// refuses HashKV at a revision at or below its compaction point (3.5 and
/// later refuse only below it), so the post-sweep hash check must not turn
/// this good run into exit 1.
#[tokio::test(flavor = "multi_thread")]
async fn issue9_etcd34_compact_then_defrag_succeeds() {
    let cluster = v3_4_with_deleted_keys().await;
    let mut c = cluster.client(0).await.unwrap();
    let revision = c
        .get("k/", None)
        .await
        .unwrap()
        .header()
        .unwrap()
        .revision();
    c.compact(
        revision,
        Some(etcd_client::CompactionOptions::new().with_physical()),
    )
    .await
    .unwrap();
    // No write follows: every member's current revision stays the
    // compacted one.
    let mut a = one_seed(&cluster);
    a.extend(args(&["defrag", "--all", "--yes", "-o", "json"]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    let doc = run.json();
    let members = doc["members"].as_array().unwrap();
    assert_eq!(members.len(), 3, "{doc}");
    assert!(
        members.iter().all(|m| m["outcome"] == "Defragmented"),
        "{doc}"
    );
    assert_hash_check_not_a_failure(&doc);
    assert_eq!(defrags(&cluster).len(), 3, "{:?}", defrags(&cluster));
}

/// Issue 9 through `--compact`: the tool compacts at the current revision
/// itself, then defragments every member of a 3.4 cluster; exit 0.
#[tokio::test(flavor = "multi_thread")]
async fn issue9_etcd34_compact_flag_defrag_succeeds() {
    let cluster = v3_4_with_deleted_keys().await;
    let mut a = one_seed(&cluster);
    a.extend(args(&[
        "defrag",
        "--all",
        "--compact",
        "--yes",
        "-o",
        "json",
    ]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    let doc = run.json();
    assert!(doc["compactedAt"].as_i64().unwrap_or(0) > 0, "{doc}");
    assert!(
        doc["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["outcome"] == "Defragmented"),
        "{doc}"
    );
    assert_hash_check_not_a_failure(&doc);
    assert_eq!(defrags(&cluster).len(), 3, "{:?}", defrags(&cluster));
}

/// Issue 45, item 7: with a member unreachable, the interactive sweep
/// refuses at the gate before asking anything (it asked "Defragment 2
/// member(s)?" and refused only after a yes); with `--wait-healthy` it
/// says it will wait, and asks. etcd's logs: no member defragmented.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_gate_is_said_before_the_question() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 20 * MB, 0.5).await;
    // A follower other than the seed (member 0), which must answer.
    let leader = cluster.leader().await.unwrap();
    let stopped = (1..3).find(|i| *i != leader).unwrap();
    cluster.pause(stopped).unwrap();
    let mut a = one_seed(&cluster);
    a.extend(args(&[
        "--dial-timeout=1s",
        "--command-timeout=2s",
        "defrag",
        "--all",
    ]));
    let (code, screen) = tool_on_terminal(&a, &[], &[]).await;
    assert_eq!(code, 1, "{screen}");
    assert!(
        !screen.contains("one at a time?"),
        "a question was asked:\n{screen}"
    );
    assert!(
        screen.contains("the health gate refuses now, so nothing was asked and nothing changed")
            && screen.contains(&format!(
                "member {} is unreachable",
                cluster.members[stopped].name
            ))
            && screen.contains("--wait-healthy"),
        "{screen}"
    );
    // With --wait-healthy: said, then asked (answered no).
    a.push("--wait-healthy=5s".into());
    let (code, screen) = tool_on_terminal(&a, &[], &[("one at a time?", "n")]).await;
    assert_eq!(code, 1, "{screen}");
    let said = screen
        .find("the sweep waits up to 5.0s for it to pass")
        .unwrap_or_else(|| panic!("{screen}"));
    let asked = screen
        .find("one at a time?")
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(said < asked, "{screen}");
    assert!(
        screen.contains("not confirmed; nothing changed"),
        "{screen}"
    );
    cluster.resume(stopped).unwrap();
    assert!(defrags(&cluster).is_empty(), "{:?}", defrags(&cluster));
}

/// Issue 45, item 6, on etcd 3.4.23 (the trial's): history only, so no
/// member passes `--free-space-above 5Mi` before a compaction. With
/// `--compact --dry-run` the plan said every member `Skipped
/// BelowThreshold` and the real run defragmented all three; and with
/// `--compact` the release's known-defect notes vanished. Now each member
/// is `Pending`, "decided after the compaction", and the notes print on
/// every run, dry or not, with `--compact` or without.
#[tokio::test(flavor = "multi_thread")]
async fn compact_plans_say_what_is_decided_after_the_compaction() {
    let mut spec = ClusterSpec::new(3, Security::Plain).version(EtcdVersion::V3_4);
    spec.log_level = "info";
    let cluster = start(spec).await;
    overwrite_history(&cluster, 50, 100).await;
    let defect =
        "can corrupt its data: right before each of them the sweep asks the leader's raft progress";
    let run = |extra: &[&str]| {
        let mut a = one_seed(&cluster);
        a.extend(args(&["defrag", "--free-space-above", "5Mi", "-o", "json"]));
        a.extend(args(extra));
        a
    };
    // Without --compact: below the rule, said so.
    let plain = tool(&run(&["--dry-run"]), &[]).await.expect_code(0).json();
    for m in plain["members"].as_array().unwrap() {
        assert_eq!(m["reason"], "BelowThreshold", "{plain}");
    }
    // With it: decided after the compaction, and the notes are there.
    let plan = tool(&run(&["--compact", "--dry-run"]), &[])
        .await
        .expect_code(0)
        .json();
    for m in plan["members"].as_array().unwrap() {
        assert_eq!(m["outcome"], "Pending", "{plan}");
        assert!(
            m.get("reason").is_none_or(|r| r.is_null() || r == ""),
            "{plan}"
        );
        assert_eq!(
            m["detail"], "decided after the compaction: the rule is applied to the sizes after it",
            "{plan}"
        );
    }
    assert!(plan["notes"].to_string().contains(defect), "{plan}");
    assert!(
        cluster.logged_defrags().is_empty(),
        "a dry run defragmented"
    );
    // The real run: the notes again, every member taken after the
    // compaction, one at a time by etcd's logs.
    let done = tool(&run(&["--compact", "--yes"]), &[]).await;
    done.expect_code(0);
    let doc = done.json();
    assert!(doc["notes"].to_string().contains(defect), "{doc}");
    assert!(done.stderr.contains(defect), "{}", done.stderr);
    for m in doc["members"].as_array().unwrap() {
        assert_eq!(m["outcome"], "Defragmented", "{doc}");
    }
    let logged = cluster.logged_defrags();
    assert_eq!(logged.len(), 3, "{logged:?}");
    for pair in logged.windows(2) {
        assert!(pair[0].end <= pair[1].start, "{pair:?}");
    }
}

/// A member SIGSTOPped mid-sweep (the leader, stopped while the first
/// follower is being defragmented): nothing else is defragmented while it is
/// out and the run ends with exit 1 naming it; with `--wait-healthy` the
/// sweep waits and finishes after SIGCONT.
#[tokio::test(flavor = "multi_thread")]
async fn stopped_member_mid_sweep_stops_or_waits() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 300 * MB, 0.1).await;
    let leader = cluster.leader().await.unwrap();
    let leader_name = cluster.members[leader].name.clone();
    let timeouts = ["--dial-timeout=1s", "--command-timeout=2s"];

    let mut a = defrag_args(&cluster, &["--move-leader=never"]);
    a.extend(args(&timeouts));
    let mut run = spawn_tool(&a);
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    cluster.pause(leader).unwrap();
    let done = run.finish().await;
    cluster.resume(leader).unwrap();
    assert_eq!(done.code, 1, "{done:?}");
    assert!(
        done.stderr
            .contains(&format!("member {leader_name} is unreachable")),
        "{}",
        done.stderr
    );
    let logged = defrags(&cluster);
    assert!(
        logged.iter().all(|d| d.member != leader),
        "the stopped member was defragmented: {logged:?}"
    );
    assert!(!logged.is_empty() && logged.len() <= 2, "{logged:?}");
    let doc = done.json();
    assert!(
        doc["stopped"]
            .as_str()
            .unwrap()
            .contains("health gate refused"),
        "{doc}"
    );
    cluster.wait_ready(Duration::from_secs(20)).await.unwrap();

    // Again on a fresh cluster, waiting this time: the sweep finishes once
    // the member is back.
    drop(cluster);
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 300 * MB, 0.1).await;
    let leader = cluster.leader().await.unwrap();
    let before = defrags(&cluster).len();
    let mut a = defrag_args(&cluster, &["--move-leader=never", "--wait-healthy=90s"]);
    a.extend(args(&timeouts));
    let mut run = spawn_tool(&a);
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    cluster.pause(leader).unwrap();
    run.wait_for("a refusal while it is stopped", |l| {
        l.contains("retrying in")
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let during = defrags(&cluster).len() - before;
    cluster.resume(leader).unwrap();
    let done = run.finish().await;
    assert_eq!(done.code, 0, "{done:?}");
    let logged = defrags(&cluster);
    let this_run = &logged[before..];
    assert_eq!(this_run.len(), 3, "{this_run:?}");
    assert!(during <= 2);
    for w in this_run.windows(2) {
        assert!(w[0].end <= w[1].start, "overlap: {this_run:?}");
    }
}

/// A `--timeout` shorter than the defragmentation: the RPC times out but
/// the member goes on defragmenting, and the next member is not touched
/// until it answers again.
#[tokio::test(flavor = "multi_thread")]
async fn timeout_shorter_than_defrag_waits_for_the_member() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 300 * MB, 0.2).await;
    let run = tool(
        &defrag_args(&cluster, &["--timeout=50ms", "--move-leader=never"]),
        &[],
    )
    .await;
    run.expect_code(1);
    let doc = run.json();
    let logged = defrags(&cluster);
    assert_eq!(
        logged.len(),
        3,
        "every member still defragmented, one at a time: {logged:?}"
    );
    for w in logged.windows(2) {
        assert!(
            w[0].end <= w[1].start,
            "the next member was touched too early: {logged:?}"
        );
    }
    for m in doc["members"].as_array().unwrap() {
        assert_eq!(m["outcome"], "Failed", "{m}");
        assert_eq!(m["reason"], "RPCError", "{m}");
        assert!(
            m["detail"].as_str().unwrap().contains("answered again"),
            "{m}"
        );
    }
}

/// Leadership moved by someone else during the sweep: the plan adapts and
/// whoever leads is still defragmented last.
#[tokio::test(flavor = "multi_thread")]
async fn leadership_moved_mid_sweep_keeps_the_leader_last() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 400 * MB, 0.5).await;
    let leader = cluster.leader().await.unwrap();
    let ids = cluster.member_ids().await.unwrap();
    let mut run = spawn_tool(&defrag_args(&cluster, &["--all", "--move-leader=never"]));
    let line = run
        .wait_for("the first defragmentation", |l| {
            l.contains("defragmenting ")
        })
        .await;
    let first = cluster
        .members
        .iter()
        .position(|m| line.contains(&format!("defragmenting {} ", m.name)))
        .unwrap();
    // Hand leadership to the follower that has not been defragmented yet.
    let other = (0..3).find(|&i| i != first && i != leader).unwrap();
    let mut c = cluster.client(leader).await.unwrap();
    c.move_leader(ids[other]).await.unwrap();
    let done = run.finish().await;
    done.expect_code(0);
    assert_eq!(cluster.leader().await.unwrap(), other);
    let logged = defrags(&cluster);
    assert_eq!(logged.len(), 3, "{logged:?}");
    assert_eq!(
        logged[2].member, other,
        "the new leader must be last: {logged:?}"
    );
    assert_eq!(
        logged[1].member, leader,
        "the old leader, now a follower, before it: {logged:?}"
    );
}

/// NOSPACE raised for real with a small quota: `alarm disarm` is refused
/// while the member is over quota; the sweep defragments, disarms it, and
/// writes work again.
#[tokio::test(flavor = "multi_thread")]
async fn nospace_is_disarmed_after_the_sweep_and_writes_work_again() {
    let mut spec = ClusterSpec::new(3, Security::Plain).quota(16 * 1024 * 1024);
    spec.log_level = "info";
    let cluster = start(spec).await;
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'v'; 512 * 1024];
    let mut raised = false;
    for i in 0..200 {
        if let Err(e) = c.put(format!("big/{i:04}"), value.clone(), None).await {
            assert!(e.to_string().contains("database space exceeded"), "{e}");
            raised = true;
            break;
        }
    }
    assert!(raised, "NOSPACE was never raised");
    assert!(alarms(&cluster)
        .await
        .iter()
        .any(|(_, a)| *a == etcd_client::AlarmType::Nospace));
    let deleted = c
        .delete(
            "big/",
            Some(etcd_client::DeleteOptions::new().with_prefix()),
        )
        .await
        .unwrap();
    c.compact(
        deleted.header().unwrap().revision(),
        Some(etcd_client::CompactionOptions::new().with_physical()),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;

    // Disarm first: refused, the member is still over its quota.
    let mut a = one_seed(&cluster);
    a.extend(args(&["alarm", "disarm", "--yes"]));
    let run = tool(&a, &[]).await;
    run.expect_code(1);
    assert!(
        run.stderr.contains("still over its quota"),
        "{}",
        run.stderr
    );
    assert!(
        !alarms(&cluster).await.is_empty(),
        "the alarm must still be raised"
    );

    // The sweep.
    let run = tool(
        &defrag_args(&cluster, &["--quota-usage-above=80%", "--min-reclaim=1Mi"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert!(
        doc["alarms"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["result"] == "disarmed"),
        "{doc}"
    );
    assert!(alarms(&cluster).await.is_empty(), "NOSPACE must be gone");
    assert_eq!(defrags(&cluster).len(), 3);
    c.put("after", "works", None)
        .await
        .expect("a write succeeds after the sweep");
}

/// CORRUPT raised through the Alarm RPC: the sweep refuses and changes
/// nothing; `alarm disarm` keeps it without --force, and --force needs the
/// typed confirmation.
#[tokio::test(flavor = "multi_thread")]
async fn corrupt_refuses_the_sweep_and_needs_force_with_confirmation() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 300 * MB, 0.1).await;
    raise_alarm(&cluster, 0, 1, etcd_client::AlarmType::Corrupt).await;
    let before = settled_sizes(&cluster).await;

    let run = tool(&defrag_args(&cluster, &[]), &[]).await;
    run.expect_code(1);
    assert!(run.stderr.contains("CORRUPT"), "{}", run.stderr);
    assert_eq!(sizes(&cluster).await, before, "nothing may change");
    assert!(defrags(&cluster).is_empty());

    let base = one_seed(&cluster);
    let disarm = |extra: &[&str]| {
        let mut a = base.clone();
        a.extend(args(&["alarm", "disarm", "--yes"]));
        a.extend(args(extra));
        a
    };
    let run = tool(&disarm(&[]), &[]).await;
    run.expect_code(1);
    assert!(run.stderr.contains("CORRUPT on m1"), "{}", run.stderr);
    let run = tool(&disarm(&["--force"]), &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("--confirm-corrupt m1"),
        "{}",
        run.stderr
    );
    let run = tool(&disarm(&["--force", "--confirm-corrupt=m0"]), &[]).await;
    run.expect_code(2);
    assert_eq!(alarms(&cluster).await.len(), 1, "still raised");
    tool(&disarm(&["--force", "--confirm-corrupt=m1"]), &[])
        .await
        .expect_code(0);
    assert!(alarms(&cluster).await.is_empty());
}

/// A 1-member cluster is refused without consent; with it, it is
/// defragmented. A dry run changes nothing.
#[tokio::test(flavor = "multi_thread")]
async fn single_member_needs_consent_and_dry_run_changes_nothing() {
    let cluster = fragmented(ClusterSpec::new(1, Security::Plain), 300 * MB, 0.1).await;
    let before = settled_sizes(&cluster).await;
    let run = tool(&defrag_args(&cluster, &["--dry-run"]), &[]).await;
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["dryRun"], true);
    assert_eq!(doc["refusal"][0]["code"], "QuorumMargin", "{doc}");
    assert_eq!(sizes(&cluster).await, before);

    let run = tool(&defrag_args(&cluster, &[]), &[]).await;
    run.expect_code(1);
    assert!(run.stderr.contains("--allow-quorum-loss"), "{}", run.stderr);
    assert!(defrags(&cluster).is_empty());
    assert_eq!(sizes(&cluster).await, before);

    let run = tool(
        &defrag_args(&cluster, &["--allow-quorum-loss", "--dry-run"]),
        &[],
    )
    .await;
    run.expect_code(0);
    assert_eq!(run.json()["members"][0]["outcome"], "Pending");
    assert!(
        defrags(&cluster).is_empty(),
        "a dry run defragments nothing"
    );
    assert_eq!(sizes(&cluster).await, before);

    tool(&defrag_args(&cluster, &["--allow-quorum-loss"]), &[])
        .await
        .expect_code(0);
    assert_eq!(defrags(&cluster).len(), 1);
    assert!(sizes(&cluster).await[0].0 * 2 < before[0].0);
}

/// Invalid rule input is refused before anything is contacted (the
/// endpoint is a closed port: contacting it would say "connection refused").
#[tokio::test(flavor = "multi_thread")]
async fn invalid_rule_input_exits_2_without_contact() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--quota-usage-above=80%",
                "--free-space-above=200Mi",
                "--min-reclaim=300Mi",
            ],
            "--min-reclaim must not exceed --free-space-above",
        ),
        (
            &["--all", "--free-space-above=1Mi"],
            "--all cannot be combined",
        ),
        (&["--quota-usage-above=0%"], "--quota-usage-above"),
        (&["--quota-usage-above=101%"], "--quota-usage-above"),
        (&["--quota-usage-above=80"], "--quota-usage-above"),
        (&["--free-space-above=-1Mi"], "must not be negative"),
        (
            &["--min-reclaim=lots", "--quota-usage-above=80%"],
            "--min-reclaim",
        ),
        (
            &["--min-reclaim=1Mi"],
            "only meaningful with --quota-usage-above",
        ),
        (
            &["--free-space-above=0"],
            "--free-space-above must be greater than 0",
        ),
        (&["--timeout=soon"], "--timeout"),
    ];
    for (extra, want) in cases {
        let mut a = args(&["--endpoints=http://127.0.0.1:1", "defrag", "--yes"]);
        a.extend(args(extra));
        let run = tool(&a, &[]).await;
        assert_eq!(run.code, 2, "{extra:?}: {run:?}");
        assert!(
            run.stderr.contains(want),
            "{extra:?}: {:?} lacks {want:?}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("connection refused"),
            "{extra:?} contacted etcd"
        );
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
    // State changes without a terminal need --yes.
    let run = tool(&args(&["--endpoints=http://127.0.0.1:1", "defrag"]), &[]).await;
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("without --yes"), "{}", run.stderr);
}

/// Ctrl-C (SIGINT) mid-sweep: the member being defragmented is finished,
/// nothing else is started, the partial report is printed, exit 1.
#[tokio::test(flavor = "multi_thread")]
async fn interrupt_stops_after_the_in_flight_member() {
    let cluster = fragmented(ClusterSpec::new(3, Security::Plain), 400 * MB, 0.5).await;
    let mut run = spawn_tool(&defrag_args(&cluster, &["--all", "--move-leader=never"]));
    run.wait_for("the first defragmentation", |l| {
        l.contains("defragmenting ")
    })
    .await;
    // The progress line comes just before the Defragment call is sent, and
    // a stop seen in between sends nothing: wait for etcd's own record that
    // the call reached a member.
    let reached = tokio::time::Instant::now();
    while !(0..cluster.members.len()).any(|i| cluster.defrag_started(i)) {
        assert!(
            reached.elapsed() < Duration::from_secs(10),
            "no member logged the start of its defragmentation"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    run.interrupt();
    let done = run.finish().await;
    assert_eq!(done.code, 1, "{done:?}");
    let doc = done.json();
    assert_eq!(doc["stopped"], "interrupted", "{doc}");
    let outcomes: Vec<&str> = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes.iter().filter(|o| **o == "Defragmented").count(),
        1,
        "{doc}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| **o == "Pending").count(),
        2,
        "{doc}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        defrags(&cluster).len(),
        1,
        "only the in-flight member was defragmented"
    );
}

/// `--member` narrows the sweep; `--compact` compacts first and waits for
/// the in-use sizes to settle, so the defragmentation reclaims everything.
#[tokio::test(flavor = "multi_thread")]
async fn member_selection_and_compaction() {
    let mut spec = ClusterSpec::new(3, Security::Plain);
    spec.log_level = "info";
    let cluster = start(spec).await;
    // Write and delete without compacting: history keeps the space in use.
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'x'; 3800];
    for batch in 0..60 {
        let ops: Vec<etcd_client::TxnOp> = (0..128)
            .map(|i| etcd_client::TxnOp::put(format!("h/{batch:03}/{i:03}"), value.clone(), None))
            .collect();
        c.txn(etcd_client::Txn::new().and_then(ops)).await.unwrap();
    }
    c.delete("h/", Some(etcd_client::DeleteOptions::new().with_prefix()))
        .await
        .unwrap();
    let before = sizes(&cluster).await;
    assert!(
        before.iter().all(|(s, u)| s - u < 8 * 1024 * 1024),
        "history still in use: {before:?}"
    );

    let target = cluster.members[0].name.clone();
    let doc = tool(
        &defrag_args(&cluster, &["--all", "--member", &target, "--compact"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert!(doc["compactedAt"].as_i64().unwrap() > 0, "{doc}");
    let logged = defrags(&cluster);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].member, 0);
    let after = sizes(&cluster).await;
    assert!(
        after[0].0 * 4 < before[0].0,
        "compaction + defrag must shrink it: {before:?} -> {after:?}"
    );
    for m in doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] != target.as_str())
    {
        assert_eq!(m["reason"], "NotSelected", "{m}");
    }
    let mut a = one_seed(&cluster);
    a.extend(args(&["defrag", "--yes", "--member", "nope"]));
    let run = tool(&a, &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("--member nope: no such member (members: m0, m1, m2)"),
        "{}",
        run.stderr
    );

    // Issue 45: nothing written since, so the current revision is compacted
    // already (etcd answers "required revision has been compacted"): the
    // report says so instead of "Compacted every revision before N".
    let compacted = doc["compactedAt"].as_i64().unwrap();
    let mut a = one_seed(&cluster);
    a.extend(args(&[
        "defrag",
        "--yes",
        "--all",
        "--member",
        &target,
        "--compact",
    ]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    assert!(
        run.stdout.contains(&format!(
            "Nothing to compact: every revision before {compacted} was compacted already"
        )) && !run.stdout.contains("Compacted every revision"),
        "{}",
        run.stdout
    );
}

/// `move-leader` hands leadership to the named voter, or to the most
/// caught-up one; `alarm list` names members.
#[tokio::test(flavor = "multi_thread")]
async fn move_leader_command_and_alarm_list() {
    move_leader_command(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn move_leader_command_and_alarm_list_v3_7() {
    move_leader_command(EtcdVersion::V3_7).await;
}

/// The same against etcd 3.4.
#[tokio::test(flavor = "multi_thread")]
async fn move_leader_command_and_alarm_list_v3_4() {
    move_leader_command(EtcdVersion::V3_4).await;
}

async fn move_leader_command(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::MutualTls).version(version)).await;
    let leader = cluster.leader().await.unwrap();
    let to = (leader + 1) % 3;
    let mut a = one_seed(&cluster);
    a.extend(args(&[
        "move-leader",
        "--yes",
        "--to",
        &cluster.members[to].name,
        "-o",
        "json",
    ]));
    let doc = tool(&a, &[]).await.expect_code(0).json();
    assert_eq!(cluster.leader().await.unwrap(), to);
    assert_eq!(doc["leaderAfter"], cluster.members[to].name.as_str());

    let mut a = one_seed(&cluster);
    a.extend(args(&["move-leader", "--yes"]));
    tool(&a, &[]).await.expect_code(0);
    assert_ne!(cluster.leader().await.unwrap(), to);

    let mut a = one_seed(&cluster);
    a.extend(args(&["move-leader", "--yes", "--to", "nope"]));
    tool(&a, &[]).await.expect_code(2);

    let ids = cluster.member_ids().await.unwrap();
    raise_alarm(&cluster, 0, 2, etcd_client::AlarmType::Nospace).await;
    let mut a = one_seed(&cluster);
    a.extend(args(&["alarm", "list", "-o", "json"]));
    let doc = tool(&a, &[]).await.expect_code(0).json();
    assert_eq!(
        doc["alarms"],
        serde_json::json!([{"member": "m2", "memberId": format!("{:016x}", ids[2]), "alarm": "NOSPACE"}])
    );
    let mut a = one_seed(&cluster);
    a.extend(args(&["alarm", "list"]));
    let run = tool(&a, &[]).await;
    assert!(
        run.stdout.contains("NOSPACE") && run.stdout.contains("m2"),
        "{}",
        run.stdout
    );
}
