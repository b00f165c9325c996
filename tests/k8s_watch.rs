//! `defrag --watch` against the real kube-apiserver and real etcd: the
//! watcher drives EtcdDefrag objects as the operator's controller would
//! (contract §5). Defragment calls are counted from each member's own
//! `/metrics`, and status is read back from the API server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Stdio;
use std::time::Duration;

use kube::api::{Api, DynamicObject, ListParams};
use kube::Client;
use serde_json::{json, Value};
use support::k8s::*;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A running watcher, killed when dropped.
struct Watcher {
    _child: tokio::process::Child,
}

fn watch(kubeconfig: &std::path::Path, ns: &str) -> Watcher {
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
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher");
    Watcher { _child: child }
}

fn runs(client: &Client, ns: &str) -> Api<DynamicObject> {
    dynamic(client, ns, "EtcdDefrag", "etcddefrags")
}

async fn create_run(client: &Client, ns: &str, name: &str, cluster: &str, rule: Value) {
    create(
        &runs(client, ns),
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterRef": {"name": cluster}, "rule": rule},
        }),
    )
    .await;
}

/// The run's status once its phase is one of `phases` (at most 90 s).
async fn wait_phase(client: &Client, ns: &str, name: &str, phases: &[&str]) -> Value {
    let api = runs(client, ns);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let status = api.get(name).await.unwrap().data["status"].clone();
        if phases.iter().any(|p| status["phase"] == *p) {
            return status;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "EtcdDefrag {ns}/{name} never reached {phases:?}: {status}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// How many Defragments member `i` has done, from its own `/metrics`.
async fn defrag_count(etcd: &Cluster, i: usize) -> u64 {
    let host = etcd.host(i);
    let mut stream = tokio::net::TcpStream::connect((host.as_str(), 2379))
        .await
        .unwrap();
    stream
        .write_all(format!("GET /metrics HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    text.lines()
        .find(|l| l.starts_with("etcd_disk_backend_defrag_duration_seconds_count"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

fn condition(status: &Value) -> &Value {
    status["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "DefragChecked"))
        .unwrap_or_else(|| panic!("no DefragChecked condition: {status}"))
}

/// Warning events recorded against `name`.
async fn events(client: &Client, ns: &str, name: &str) -> Vec<(String, String)> {
    let api: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(client.clone(), ns);
    api.list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(name))
        .map(|e| (e.reason.unwrap_or_default(), e.message.unwrap_or_default()))
        .collect()
}

/// A run to Complete: one row per member with role, outcome and sizes, the
/// leader last, each member defragmented exactly once (its own metrics),
/// the finalize message; then an under-threshold run: Complete, `0/3`,
/// every row Skipped/BelowThreshold, no Defragment at all; then a run for a
/// cluster that does not exist fails with ClusterNotFound and its event.
#[tokio::test(flavor = "multi_thread")]
async fn runs_complete_skip_and_fail_as_the_operator_would() {
    let client = admin().await;
    let ns = "watch-runs";
    let kc = kubeconfig("watch-runs.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let _watcher = watch(&kc, ns);

    create_run(&client, ns, "all", "db", json!({"all": true})).await;
    let status = wait_phase(&client, ns, "all", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    assert!(status["startedAt"].is_string() && status["completedAt"].is_string());
    let c = condition(&status);
    assert_eq!(c["status"], "True", "{status}");
    assert_eq!(c["reason"], "Complete");
    assert_eq!(c["message"], "3/3 members defragmented");
    let rows = status["members"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{status}");
    for row in rows {
        assert_eq!(row["outcome"], "Defragmented", "{row}");
        assert!(row["dbSizeBefore"].as_u64().unwrap() > 0, "{row}");
        assert!(row["dbSizeAfter"].as_u64().unwrap() > 0, "{row}");
        assert!(row["finishedAt"].is_string(), "{row}");
        assert!(row.get("reason").is_none() || row["reason"] == "", "{row}");
    }
    let leaders: Vec<&Value> = rows.iter().filter(|r| r["role"] == "leader").collect();
    assert_eq!(leaders.len(), 1, "{status}");
    assert_eq!(
        rows.last().unwrap()["role"],
        "leader",
        "the leader goes last"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }

    create_run(&client, ns, "small", "db", json!({})).await;
    let status = wait_phase(&client, ns, "small", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(condition(&status)["message"], "0/3 members defragmented");
    let rows = status["members"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{status}");
    for row in rows {
        assert_eq!(row["outcome"], "Skipped", "{row}");
        assert_eq!(row["reason"], "BelowThreshold", "{row}");
    }
    for i in 0..3 {
        assert_eq!(
            defrag_count(&fx.etcd, i).await,
            1,
            "no second defrag of {i}"
        );
    }

    create_run(&client, ns, "nowhere", "missing", json!({})).await;
    let status = wait_phase(&client, ns, "nowhere", &["Failed"]).await;
    let c = condition(&status);
    assert_eq!(c["reason"], "ClusterNotFound", "{status}");
    assert_eq!(
        c["message"],
        format!("EtcdCluster \"missing\" not found in namespace \"{ns}\"")
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let seen = events(&client, ns, "nowhere").await;
        if seen.iter().any(|(r, _)| r == "ClusterNotFound") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no event: {seen:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Two runs for one cluster: the younger waits `Pending`/`Queued` while the
/// older acts, then runs; no member is ever defragmented by both at once
/// (each member shows exactly two Defragments in the end).
#[tokio::test(flavor = "multi_thread")]
async fn a_second_run_for_the_cluster_waits_its_turn() {
    let client = admin().await;
    let ns = "watch-queue";
    let kc = kubeconfig("watch-queue.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    create_run(&client, ns, "first", "db", json!({"all": true})).await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    create_run(&client, ns, "second", "db", json!({"all": true})).await;
    let _watcher = watch(&kc, ns);

    let queued = wait_phase(&client, ns, "second", &["Pending", "Complete"]).await;
    let first = wait_phase(&client, ns, "first", &["Complete", "Failed"]).await;
    assert_eq!(first["phase"], "Complete", "{first}");
    if queued["phase"] == "Pending" {
        let c = condition(&queued);
        assert_eq!(c["reason"], "Queued", "{queued}");
        assert_eq!(c["message"], "waiting for EtcdDefrag \"first\" to finish");
    }
    let second = wait_phase(&client, ns, "second", &["Complete", "Failed"]).await;
    assert_eq!(second["phase"], "Complete", "{second}");
    assert_eq!(second["defragmented"], 3);
    // The second started only after the first had completed.
    assert!(
        second["startedAt"].as_str().unwrap() >= first["completedAt"].as_str().unwrap(),
        "{first} {second}"
    );
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 2, "member {i}");
    }
}

/// A SIGSTOPped member defers the run (`ClusterNotHealthy`, one
/// `DefragDeferred` event, no Defragment anywhere); after SIGCONT the run
/// completes.
#[tokio::test(flavor = "multi_thread")]
async fn an_unhealthy_cluster_defers_the_run_until_it_recovers() {
    let client = admin().await;
    let ns = "watch-defer";
    let kc = kubeconfig("watch-defer.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    fx.etcd.pause(2).unwrap();
    let _watcher = watch(&kc, ns);
    create_run(&client, ns, "later", "db", json!({"all": true})).await;

    let status = wait_phase(&client, ns, "later", &["Pending"]).await;
    let c = condition(&status);
    assert_eq!(c["reason"], "ClusterNotHealthy", "{status}");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .starts_with("a defragmentation is due but the cluster is not fully healthy; deferring to protect quorum: "),
        "{status}"
    );
    // A second deferral pass (10 s) does not add an event.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let deferred: Vec<_> = events(&client, ns, "later")
        .await
        .into_iter()
        .filter(|(r, _)| r == "DefragDeferred")
        .collect();
    assert_eq!(deferred.len(), 1, "{deferred:?}");
    for i in 0..2 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 0, "member {i}");
    }

    fx.etcd.resume(2).unwrap();
    let status = wait_phase(&client, ns, "later", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3);
}
