//! Errors in words against real etcd (issue 20, item 7): a member killed
//! while it defragments is reported as a reset connection (the member
//! stopped or restarted), not as gRPC's `code: 'Unknown error', message:
//! "transport error"`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use support::*;

const MB: u64 = 1_000_000;

/// SIGKILL the member being defragmented, start it again: its row says
/// the connection was reset because the member stopped or restarted, and
/// the sweep waits for it and goes on.
#[tokio::test(flavor = "multi_thread")]
async fn a_member_killed_mid_defrag_is_reported_in_words() {
    let mut spec = ClusterSpec::new(3, Security::MutualTls);
    spec.log_level = "info";
    let mut cluster = start(spec).await;
    cluster.fragment(300 * MB, 0.5).await.unwrap();
    let mut argv = one_seed(&cluster);
    argv.extend(args(&[
        "defrag",
        "--all",
        "--yes",
        "--move-leader=never",
        "-o",
        "json",
    ]));
    let run = spawn_tool(&argv);
    // etcd's own record that the first Defragment reached a member.
    let reached = tokio::time::Instant::now();
    let victim = loop {
        if let Some(i) = (0..cluster.members.len()).find(|&i| cluster.defrag_started(i)) {
            break i;
        }
        assert!(
            reached.elapsed() < Duration::from_secs(120),
            "no member logged the start of its defragmentation"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    cluster.kill(victim).unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.restart(victim).unwrap();
    let done = run.finish().await;
    assert_eq!(done.code, 1, "{done:?}");
    let doc = done.json();
    let name = &cluster.members[victim].name;
    let row = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name.as_str())
        .unwrap_or_else(|| panic!("no row for {name}: {doc}"));
    assert_eq!(row["outcome"], "Failed", "{doc}");
    let detail = row["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("the connection was reset: the member stopped or restarted"),
        "{detail}"
    );
    assert!(!detail.contains("transport error"), "{detail}");
    // The sweep waited for it and went on with the others.
    let defragmented = doc["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "Defragmented")
        .count();
    assert_eq!(defragmented, 2, "{doc}");
}
