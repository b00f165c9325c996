//! The 3 a.m. page (issue 20, items 1 and 2) on real etcd 3.6 and 3.4:
//! NOSPACE recovered with the one command `doctor` prints, run exactly as
//! printed on a terminal; the quota read from the member itself (never the
//! 2 GiB default on 3.4); and in-use sizes after a compaction that are
//! true, not the figures an idle member keeps until its next write.
//! Judged by etcd: its alarm list, a write, each member's own log of its
//! defrags, and each member's Status after a write of our own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use support::*;

/// A quota well under the rule's default 200Mi free-space threshold, and
/// not a round binary figure, so an assumed quota cannot pass for it.
const QUOTA: u64 = 48_000_000;

/// Overwrites 8 keys with 512 KiB values until etcd refuses with NOSPACE:
/// the history (not the live keys) fills the quota, as it does in a
/// cluster nobody compacts.
async fn fill_until_nospace(cluster: &Cluster) {
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'v'; 512 * 1024];
    for i in 0..400 {
        if let Err(e) = c.put(format!("hist/{}", i % 8), value.clone(), None).await {
            assert!(e.to_string().contains("database space exceeded"), "{e}");
            return;
        }
    }
    panic!("NOSPACE was never raised");
}

async fn nospace_raised(cluster: &Cluster) -> bool {
    alarms(cluster)
        .await
        .iter()
        .any(|(_, kind)| *kind == etcd_client::AlarmType::Nospace)
}

async fn nospace_recovery_as_printed(version: EtcdVersion) {
    let mut spec = ClusterSpec::new(3, Security::MutualTls)
        .version(version)
        .quota(QUOTA);
    spec.log_level = "info";
    let cluster = start(spec).await;
    fill_until_nospace(&cluster).await;
    assert!(nospace_raised(&cluster).await);
    let env = cluster.env();

    // The quota is the members' own figure: Status on 3.6, /metrics on
    // 3.4 (whose Status has none); never the 2 GiB default.
    let run = tool(&args(&["status", "-o", "json"]), &env).await;
    let doc = run.json();
    for m in rows(&doc) {
        assert_eq!(m["quota"]["bytes"], QUOTA, "{version:?}: {m}");
        let source = if version == EtcdVersion::V3_4 {
            "metrics"
        } else {
            "member"
        };
        assert_eq!(m["quota"]["source"], source, "{version:?}: {m}");
    }

    // doctor names NOSPACE and offers exactly one command.
    let run = tool(&args(&["doctor", "-o", "json"]), &env).await;
    let doc = run.json();
    let findings = doc["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["check"] == "alarm/NOSPACE"),
        "{doc}"
    );
    let remedies: String = findings
        .iter()
        .map(|f| format!("{}\n", f["remedy"].as_str().unwrap_or("")))
        .collect();
    let commands = suggested(&remedies);
    assert_eq!(commands.len(), 1, "{version:?}: {commands:?}\n{doc}");
    let command = &commands[0];

    // Run it exactly as printed, on a terminal, answering its question.
    let (code, screen) = tool_on_terminal(&words(command), &env, &[("?", "y")]).await;
    assert_eq!(code, 0, "{version:?}: `{command}`:\n{screen}");
    assert!(
        suggested(&screen).is_empty(),
        "{version:?}: the run suggests another command:\n{screen}"
    );

    // etcd's word: the alarm is gone, a write lands, and every member
    // logged its own defrag, one at a time.
    assert!(!nospace_raised(&cluster).await, "{version:?}:\n{screen}");
    let mut c = cluster.client(1).await.unwrap();
    c.put("after-recovery", "works", None)
        .await
        .unwrap_or_else(|e| panic!("{version:?}: a write after the recovery: {e}\n{screen}"));
    let defrags = cluster.logged_defrags();
    let mut members: Vec<usize> = defrags.iter().map(|d| d.member).collect();
    members.sort_unstable();
    assert_eq!(members, [0, 1, 2], "{version:?}: {defrags:?}\n{screen}");
    for pair in defrags.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "{version:?}: two members at once: {defrags:?}"
        );
    }
}

/// Item 1 on etcd 3.6.
#[tokio::test(flavor = "multi_thread")]
async fn nospace_recovery_works_as_printed() {
    nospace_recovery_as_printed(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn nospace_recovery_works_as_printed_v3_7() {
    nospace_recovery_as_printed(EtcdVersion::V3_7).await;
}

/// Item 1 on etcd 3.4, whose Status carries no quota.
#[tokio::test(flavor = "multi_thread")]
async fn nospace_recovery_works_as_printed_v3_4() {
    nospace_recovery_as_printed(EtcdVersion::V3_4).await;
}

/// Writes `mib` MiB in 1 MiB values under `old/` and deletes them, without
/// compacting: the history holds them, so every member's in-use size does
/// too until a compaction. The cluster is then left idle. Returns the
/// revision of the delete (compacting there frees them).
async fn history_without_compaction(cluster: &Cluster, mib: usize) -> i64 {
    let mut c = cluster.client(0).await.unwrap();
    let value = vec![b'h'; 1024 * 1024];
    for i in 0..mib {
        c.put(format!("old/{i:04}"), value.clone(), None)
            .await
            .unwrap();
    }
    let deleted = c
        .delete(
            "old/",
            Some(etcd_client::DeleteOptions::new().with_prefix()),
        )
        .await
        .unwrap();
    // Let every member apply and commit it.
    tokio::time::sleep(Duration::from_secs(1)).await;
    deleted.header().unwrap().revision()
}

/// Each member's in-use size as etcd reports it once it has committed
/// something after everything before: one put of our own, then a settle.
async fn true_in_use(cluster: &Cluster) -> Vec<i64> {
    let mut c = cluster.client(0).await.unwrap();
    c.put("refresh", "x", None).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut out = Vec::new();
    for i in 0..cluster.members.len() {
        let s = cluster.client(i).await.unwrap().status().await.unwrap();
        out.push(s.raft_used_db_size());
    }
    out
}

async fn sizes_after_compaction(version: EtcdVersion) {
    const MIB: i64 = 1024 * 1024;
    let mut spec = ClusterSpec::new(3, Security::Plain).version(version);
    spec.log_level = "info";

    // `compact`: IN USE AFTER is what the members hold once refreshed.
    let cluster = start(spec.clone()).await;
    let revision = history_without_compaction(&cluster, 64).await;
    let mut a = one_seed(&cluster);
    a.extend(args(&["compact", "--yes", "-o", "json"]));
    a.push(format!("--revision={revision}"));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    let doc = run.json();
    let truth = true_in_use(&cluster).await;
    let members = doc["members"].as_array().unwrap();
    assert_eq!(members.len(), 3, "{doc}");
    for m in members {
        let before = m["inUseBefore"].as_i64().unwrap();
        let after = m["inUseAfter"]
            .as_i64()
            .unwrap_or_else(|| panic!("{version:?}: no in-use after: {doc}"));
        assert!(
            before - after > 50 * MIB,
            "{version:?}: {} still shows the size from before: {m}",
            m["name"]
        );
        let i: usize = m["name"].as_str().unwrap()[1..].parse().unwrap();
        assert!(
            (after - truth[i]).abs() < 2 * MIB,
            "{version:?}: {} reported {after}, etcd shows {} after a write",
            m["name"],
            truth[i]
        );
    }
    assert!(doc.get("inUseNotRefreshed").is_none(), "{doc}");
    drop(cluster);

    // `defrag --compact`: every member holds the space the compaction
    // freed, so the default rule (reclaimable > 200Mi) selects every
    // member, not just the leader.
    let cluster = start(spec).await;
    history_without_compaction(&cluster, 240).await;
    let mut a = one_seed(&cluster);
    a.extend(args(&["defrag", "--compact", "--yes", "-o", "json"]));
    let run = tool(&a, &[]).await;
    run.expect_code(0);
    let doc = run.json();
    let defrags = cluster.logged_defrags();
    assert_eq!(
        defrags.len(),
        3,
        "{version:?}: etcd logged {defrags:?}; the tool said {doc}"
    );
    for m in doc["members"].as_array().unwrap() {
        assert_eq!(m["outcome"], "Defragmented", "{version:?}: {doc}");
    }
}

/// Item 2 on etcd 3.6.
#[tokio::test(flavor = "multi_thread")]
async fn sizes_after_a_compaction_are_true() {
    sizes_after_compaction(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sizes_after_a_compaction_are_true_v3_7() {
    sizes_after_compaction(EtcdVersion::V3_7).await;
}

/// Item 2 on etcd 3.4.
#[tokio::test(flavor = "multi_thread")]
async fn sizes_after_a_compaction_are_true_v3_4() {
    sizes_after_compaction(EtcdVersion::V3_4).await;
}
