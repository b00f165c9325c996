//! `compact` against real etcd 3.6 and 3.5 (standalone) and through an
//! EtcdCluster (plugin mode): the revision chosen from `--keep` or
//! `--revision`, checked against what etcd then refuses to read; nothing
//! to compact (exit 0, said so) and a revision in the future (exit 2),
//! nothing changed either way; dry run, consent, `--physical` sizes, and
//! the health gate.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

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
async fn keep_revision_refusals_and_dry_run_v3_7() {
    keep_revision_refusals_and_dry_run(EtcdVersion::V3_7).await;
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

    // Nothing to compact (what was asked to go is gone already): exit 0,
    // said so with the numbers; past the current revision: exit 2, the
    // flag named. Nothing changed either way.
    for (extra, code, words) in [
        (
            vec!["--revision".to_string(), (current - 10).to_string()],
            0,
            vec![format!(
                "Nothing to compact: already compacted at revision {}; every revision before --revision {} is gone already",
                current - 10,
                current - 10
            )],
        ),
        (
            vec!["--revision".to_string(), (current + 100).to_string()],
            2,
            vec![format!("current revision is {current}")],
        ),
        (
            vec!["--keep".to_string(), "1000".to_string()],
            0,
            vec![format!(
                "Nothing to compact: already compacted at revision {}; only the 10 revisions before the current one ({current}) are kept, within --keep 1000",
                current - 10
            )],
        ),
    ] {
        let mut a: Vec<&str> = extra.iter().map(String::as_str).collect();
        a.push("--yes");
        let run = tool(&compact(&cluster, &a), &[]).await;
        run.expect_code(code);
        let said = if code == 0 { &run.stdout } else { &run.stderr };
        for w in words {
            assert!(said.contains(&w), "{extra:?}: {w:?} in {said}");
        }
        assert_eq!(said.lines().count(), 1, "{said}");
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

/// `--keep-duration` against the etcd behind a real kube-apiserver: Lease
/// objects written through the API with renewTimes 10 h … 1 h ago date the
/// revisions, and the compaction lands on exactly the revision of the
/// update 5 h ago (its resourceVersion). A prefix without Leases, and a
/// plain etcd, are refused with exit 2.
#[tokio::test(flavor = "multi_thread")]
async fn keep_duration_dates_revisions_by_kubernetes_leases() {
    use k8s_openapi::api::coordination::v1::Lease;
    use kube::api::{Api, PostParams};

    let server = start_apiserver(kubectl_etcd_testbed::KubeRelease::default(), "").await;
    let client = server.admin_client(None).await.unwrap();
    namespace(&client, "clock").await;
    let leases: Api<Lease> = Api::namespaced(client.clone(), "clock");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let at = |hours_ago: i64| {
        let t = jiff::Timestamp::from_second(now - hours_ago * 3600).unwrap();
        serde_json::json!(t.strftime("%Y-%m-%dT%H:%M:%S.000000Z").to_string())
    };
    let mut lease: Lease = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "clock"},
        "spec": {"holderIdentity": "test", "leaseDurationSeconds": 40, "renewTime": at(10)},
    }))
    .unwrap();
    lease = leases.create(&PostParams::default(), &lease).await.unwrap();
    // revision_of[h]: the etcd revision of the update dated h hours ago.
    let mut revision_of = std::collections::BTreeMap::new();
    revision_of.insert(
        10,
        lease
            .metadata
            .resource_version
            .clone()
            .unwrap()
            .parse::<i64>()
            .unwrap(),
    );
    for hours_ago in (1..10).rev() {
        lease.spec.as_mut().unwrap().renew_time =
            Some(serde_json::from_value(at(hours_ago)).unwrap());
        lease = leases
            .replace("clock", &PostParams::default(), &lease)
            .await
            .unwrap();
        revision_of.insert(
            hours_ago,
            lease
                .metadata
                .resource_version
                .clone()
                .unwrap()
                .parse::<i64>()
                .unwrap(),
        );
    }
    let etcd = server.etcd();
    let compact_at = |extra: &[&str]| {
        let mut a = one_seed(etcd);
        a.extend(args(&[
            "compact",
            "--leases-prefix",
            "/registry/leases/clock/",
        ]));
        a.extend(args(extra));
        a
    };

    let run = tool(
        &compact_at(&["--keep-duration", "4h30m", "--dry-run", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["revision"], revision_of[&5], "{doc}");
    assert!(doc["writtenAt"].as_str().unwrap().ends_with('Z'), "{doc}");
    let run = tool(&compact_at(&["--keep-duration", "4h30m", "--yes"]), &[]).await;
    run.expect_code(0);
    assert!(
        run.stdout
            .contains(&format!("Revision {} was written at", revision_of[&5])),
        "{}",
        run.stdout
    );
    assert_eq!(compacted(etcd).await, revision_of[&5]);

    // Everything kept is younger than 6 h now: nothing to compact, which
    // is no error.
    let run = tool(&compact_at(&["--keep-duration", "6h", "--yes"]), &[]).await;
    run.expect_code(0);
    assert!(
        run.stdout.starts_with(&format!(
            "Nothing to compact: already compacted at revision {}; every revision kept since is younger than --keep-duration 6h",
            revision_of[&5]
        )),
        "{}",
        run.stdout
    );
    // No Lease under the prefix: nothing dates the revisions.
    let mut a = one_seed(etcd);
    a.extend(args(&[
        "compact",
        "--keep-duration",
        "1h",
        "--leases-prefix",
        "/nothing/",
        "--yes",
    ]));
    let run = tool(&a, &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("etcd records no time per revision, and no Lease under /nothing/"),
        "{}",
        run.stderr
    );
    assert_eq!(
        compacted(etcd).await,
        revision_of[&5],
        "refusals change nothing"
    );

    // A plain etcd (no Kubernetes): the default prefix holds nothing.
    let plain = start(ClusterSpec::new(1, Security::Plain)).await;
    let run = tool(&compact(&plain, &["--keep-duration", "1h", "--yes"]), &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("no Lease under /registry/leases/"),
        "{}",
        run.stderr
    );
}
