//! `compact` against real etcd 3.6 and 3.5 (standalone) and through an
//! EtcdCluster (plugin mode): the revision chosen from `--keep` or
//! `--revision`, checked against what etcd then refuses to read; refusals
//! of a revision already compacted, in the future, or out of reach, with
//! exit 2 and nothing changed; dry run, consent, `--physical` sizes, and
//! the health gate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::k8s::*;
use support::*;

/// Writes `n` revisions (one key, overwritten) and returns the revision
/// after them.
async fn write_revisions(cluster: &Cluster, n: usize) -> i64 {
    let mut c = cluster.client(0).await.unwrap();
    let mut revision = 0;
    for i in 0..n {
        let r = c.put("compact-test", format!("v{i}"), None).await.unwrap();
        revision = r.header().unwrap().revision();
    }
    revision
}

/// The compacted revision as etcd reports it (HashKV on member 0; -1,
/// never compacted, as 0).
async fn compacted(cluster: &Cluster) -> i64 {
    let mut c = cluster.client(0).await.unwrap();
    c.hash_kv(0).await.unwrap().compact_version().max(0)
}

/// Whether reading at `revision` is refused as compacted.
async fn readable(cluster: &Cluster, revision: i64) -> bool {
    let mut c = cluster.client(0).await.unwrap();
    c.get(
        "compact-test",
        Some(etcd_client::GetOptions::new().with_revision(revision)),
    )
    .await
    .is_ok()
}

fn compact(cluster: &Cluster, extra: &[&str]) -> Vec<String> {
    let mut a = one_seed(cluster);
    a.push("compact".into());
    a.extend(args(extra));
    a
}

#[tokio::test(flavor = "multi_thread")]
async fn keep_revision_refusals_and_dry_run_v3_6() {
    keep_revision_refusals_and_dry_run(EtcdVersion::V3_6).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn keep_revision_refusals_and_dry_run_v3_5() {
    keep_revision_refusals_and_dry_run(EtcdVersion::V3_5).await;
}

async fn keep_revision_refusals_and_dry_run(version: EtcdVersion) {
    let cluster = start(ClusterSpec::new(3, Security::MutualTls).version(version)).await;
    let current = write_revisions(&cluster, 60).await;
    assert_eq!(compacted(&cluster).await, 0);

    // A dry run says which revision and changes nothing.
    let run = tool(
        &compact(&cluster, &["--keep", "10", "--dry-run", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["dryRun"], true, "{doc}");
    assert_eq!(doc["revision"], current - 10, "{doc}");
    assert_eq!(doc["currentRevision"], current, "{doc}");
    assert_eq!(doc["compactedBefore"], 0, "{doc}");
    assert_eq!(compacted(&cluster).await, 0, "a dry run compacts nothing");

    // Not on a terminal and no --yes: refused before anything is read.
    let run = tool(&compact(&cluster, &["--keep", "10"]), &[]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);

    // --keep 10: everything before current-10 is gone, that one still reads.
    let run = tool(
        &compact(&cluster, &["--keep", "10", "--yes", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["revision"], current - 10, "{doc}");
    assert_eq!(doc["members"].as_array().unwrap().len(), 3, "{doc}");
    assert_eq!(compacted(&cluster).await, current - 10);
    assert!(!readable(&cluster, current - 11).await);
    assert!(readable(&cluster, current - 10).await);

    // Refusals: exit 2, the flag and the numbers named, nothing changed.
    for (extra, words) in [
        (
            vec!["--revision".to_string(), (current - 10).to_string()],
            vec![
                format!("--revision {}", current - 10),
                "already compacted".into(),
            ],
        ),
        (
            vec!["--revision".to_string(), (current + 100).to_string()],
            vec![format!("current revision is {current}")],
        ),
        (
            vec!["--keep".to_string(), "1000".to_string()],
            vec!["--keep 1000".into(), "nothing would be compacted".into()],
        ),
    ] {
        let mut a: Vec<&str> = extra.iter().map(String::as_str).collect();
        a.push("--yes");
        let run = tool(&compact(&cluster, &a), &[]).await;
        run.expect_code(2);
        for w in words {
            assert!(
                run.stderr.contains(&w),
                "{extra:?}: {w:?} in {}",
                run.stderr
            );
        }
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert_eq!(
            compacted(&cluster).await,
            current - 10,
            "{extra:?} changed nothing"
        );
    }

    // --revision, physical: in-use sizes after are reported for everyone.
    let target = current - 5;
    let run = tool(
        &compact(
            &cluster,
            &[
                "--revision",
                &target.to_string(),
                "--physical",
                "--yes",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["compactedBefore"], current - 10, "{doc}");
    assert_eq!(compacted(&cluster).await, target);
    for m in doc["members"].as_array().unwrap() {
        assert!(m["inUseAfter"].as_u64().unwrap() > 0, "{m}");
    }

    // The table a person reads says what happened and what to do next.
    let run = tool(&compact(&cluster, &["--keep", "0", "--yes"]), &[]).await;
    run.expect_code(0);
    assert!(
        run.stdout
            .contains(&format!("Compacted every revision before {current}")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("defrag"), "{}", run.stdout);
}

/// A cluster the gate refuses (a member stopped) is not compacted.
#[tokio::test(flavor = "multi_thread")]
async fn the_gate_refuses_a_degraded_cluster() {
    let cluster = start(ClusterSpec::new(3, Security::Plain)).await;
    write_revisions(&cluster, 20).await;
    // Stop a member that member 0 (the seed) is not.
    cluster.pause(2).unwrap();
    let run = tool(&compact(&cluster, &["--keep", "5", "--yes"]), &[]).await;
    cluster.resume(2).unwrap();
    run.expect_code(1);
    assert!(run.stderr.contains("health gate refused"), "{}", run.stderr);
    assert_eq!(compacted(&cluster).await, 0);
}

/// Plugin mode: the same command through an EtcdCluster.
#[tokio::test(flavor = "multi_thread")]
async fn plugin_mode_compacts_an_etcdcluster() {
    let client = admin().await;
    let fx = fixture(&client, "compact", "etcd", Mode::Mtls).await;
    let current = write_revisions(&fx.etcd, 30).await;
    let kc = kubeconfig("compact.yaml", &["compact"]);
    let run = tool(
        &[
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "compact".into(),
            "etcd".into(),
            "--keep".into(),
            "3".into(),
            "--yes".into(),
            "-o".into(),
            "json".into(),
        ],
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(doc["revision"], current - 3, "{doc}");
    assert_eq!(compacted(&fx.etcd).await, current - 3);
}
