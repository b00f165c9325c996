//! Issue 45, item 2: `member add` warns before the change when the new
//! member must take in a backend near its quota. The same writes leave
//! backends of different sizes from run to run (51 MiB in one CI run, 55
//! MiB in another: bbolt reuses freed pages only when no read is open on
//! them), so the test writes until every member's own Status reads past
//! 84% of the quota rather than a fixed amount that lands near the line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::*;

fn member(cluster: &Cluster, verb: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.push("member".into());
    a.extend(args(verb));
    a
}

/// Issue 45, item 2: `member add` says, before adding, when the new member
/// must take in a backend near its quota — and what to do first; done as
/// printed, the add no longer warns.
#[tokio::test(flavor = "multi_thread")]
async fn member_add_warns_when_the_new_member_would_replay_near_its_quota() {
    let mut cluster = start(
        ClusterSpec::new(3, Security::Plain)
            .version(EtcdVersion::V3_6)
            .quota(64 << 20),
    )
    .await;
    // Overwrites — history, which a compaction frees — until the smallest
    // backend is past 84% of the 64 MiB quota, in steps of about 2 MB so
    // no member passes its quota.
    let mut rounds = 0;
    while smallest_backend(&cluster).await * 100 < 84 * (64 << 20) {
        assert!(rounds < 200, "{rounds} rounds did not fill the backends");
        overwrite_history(&cluster, 100, 5).await;
        rounds += 5;
    }
    let new = cluster.plan_member("m3").unwrap();
    let peer = cluster.members[new].peer_url.clone();
    let add = member(
        &cluster,
        &["add", "m3", "--peer-urls", &peer, "--learner", "--dry-run"],
    );
    let run = tool(&add, &[]).await;
    run.expect_code(0);
    let mut status = one_seed(&cluster);
    status.extend(args(&["status"]));
    let sizes = tool(&status, &[]).await.stdout;
    assert!(
        run.stderr
            .contains("warning: the new member starts by receiving the leader's")
            && run.stderr.contains("of the 64 MiB quota"),
        "{}\n{sizes}",
        run.stderr
    );
    let commands = suggested(&run.stderr);
    assert_eq!(
        commands,
        ["kubectl etcd defrag --compact"],
        "{}",
        run.stderr
    );
    let env = cluster.env();
    let (code, screen) = tool_on_terminal(&words(&commands[0]), &env, &[("?", "y")]).await;
    assert_eq!(code, 0, "{screen}");
    let run = tool(&add, &[]).await;
    run.expect_code(0);
    assert!(!run.stderr.contains("warning:"), "{}", run.stderr);
}

async fn smallest_backend(cluster: &Cluster) -> i64 {
    let mut smallest = i64::MAX;
    for i in 0..3 {
        let s = cluster.client(i).await.unwrap().status().await.unwrap();
        smallest = smallest.min(s.db_size());
    }
    smallest
}
