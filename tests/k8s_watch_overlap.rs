//! Issue 45, item 1: watchers of ours whose scopes overlap never act on
//! one cluster at once. Three `defrag --watch` processes, each the only one
//! on its own election Lease — `-A` from a kubeconfig context in `ops`,
//! `-A` from one in `tools`, `-n payments` — all see the one EtcdDefrag of
//! `payments/db`. Before the per-cluster Lease, each drove it: up to three
//! Defragments per member, two members at once in etcd's own logs. Judged
//! from the members' own `/metrics` and logs, and from the API server.
//!
//! Its own test binary: a `-A` watcher acts on every namespace of the API
//! server its process started, so no other test may share it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use kube::Client;
use serde_json::json;
use support::k8s::*;
use support::watch::{defrag_count, runs, wait_lease_holder};

/// A watcher with `global` flags and `scope` after `defrag --watch`, its
/// stderr in `log`.
fn watcher(kc: &Path, global: &[&str], scope: &[&str], log: &Path) -> tokio::process::Child {
    let file = std::fs::File::create(log).unwrap();
    tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .arg(format!("--kubeconfig={}", kc.display()))
        .arg("--connect=direct")
        .args(global)
        .args(["defrag", "--watch", "--lease-duration=3s"])
        .args(scope)
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(file)
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher")
}

/// Waits until the election Lease in `ns` is held by process `pid`.
async fn wait_elected(client: &Client, ns: &str, pid: u32, log: &Path) {
    if let Err(holder) = wait_lease_holder(client, ns, pid).await {
        panic!(
            "Lease {ns}/kubectl-etcd-watch never went to {pid}: held by {holder:?}; its log: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn watchers_whose_scopes_overlap_never_act_on_one_cluster_at_once() {
    let client = admin().await;
    let (payments, ops, tools) = ("payments", "ops", "tools");
    for ns in [payments, ops, tools] {
        namespace(&client, ns).await;
    }
    let kc = kubeconfig("overlap.yaml", &[payments, ops, tools]);
    let fx = fixture_logged(&client, payments, "db", Mode::Plain).await;
    // Each Defragment takes a moment: the others look while it runs.
    fx.etcd.fragment(120 * 1024 * 1024, 0.5).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let logs = [
        dir.path().join("all-from-ops.log"),
        dir.path().join("all-from-tools.log"),
        dir.path().join("payments.log"),
    ];
    let mut watchers = [
        watcher(&kc, &["--context", "ctx-ops"], &["-A"], &logs[0]),
        watcher(&kc, &["--context", "ctx-tools"], &["-A"], &logs[1]),
        watcher(&kc, &["-n", payments], &[], &logs[2]),
    ];
    // Three election Leases, three watchers acting: none stands by.
    for ((ns, w), log) in [ops, tools, payments].iter().zip(&watchers).zip(&logs) {
        wait_elected(&client, ns, w.id().unwrap(), log).await;
    }

    let runs_api = runs(&client, payments);
    create(
        &runs_api,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": "all", "namespace": payments},
            "spec": {"clusterRef": {"name": "db"}, "rule": {"all": true}},
        }),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    let status = loop {
        let status = runs_api.get("all").await.unwrap().data["status"].clone();
        if status["phase"] == "Complete" || status["phase"] == "Failed" {
            break status;
        }
        assert!(tokio::time::Instant::now() < deadline, "not done: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    // Later passes of the others must not start it again.
    tokio::time::sleep(Duration::from_secs(4)).await;

    // Each member once, by its own count; never two at once, by its log.
    let mut counts = Vec::new();
    for i in 0..3 {
        counts.push(defrag_count(&fx.etcd, i).await);
    }
    assert_eq!(counts, [1, 1, 1], "Defragments per member");
    let logged = fx.etcd.logged_defrags();
    assert_eq!(logged.len(), 3, "{logged:?}");
    for pair in logged.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "two members at once: {pair:?}"
        );
    }

    // The cluster's Lease was handed back, and the watchers that found it
    // held said by whom.
    let leases: Api<Lease> = Api::namespaced(client.clone(), payments);
    let lease = leases.get("kubectl-etcd-defrag-db").await.unwrap();
    let holder = lease.spec.and_then(|s| s.holder_identity);
    assert_eq!(holder, None, "the cluster's Lease is still held");
    for w in &mut watchers {
        assert!(w.try_wait().unwrap().is_none(), "a watcher exited");
        w.kill().await.unwrap();
    }
    let texts: Vec<String> = logs
        .iter()
        .map(|l| std::fs::read_to_string(l).unwrap())
        .collect();
    let waited = texts
        .iter()
        .filter(|t| t.contains("cluster payments/db is being acted on by"))
        .count();
    assert!(
        waited >= 1,
        "no watcher said it left the run to another: {texts:#?}"
    );
}
