//! Helpers shared by the `defrag --watch` tests: EtcdDefrag objects, their
//! status and events as the API server has them, and Defragment counts
//! from each etcd member's own `/metrics` (never from our logs).

use std::time::Duration;

use kube::api::{Api, DynamicObject, ListParams};
use kube::Client;
use serde_json::{json, Value};

use super::k8s::{create, dynamic};
use super::Cluster;

/// `kubectl-etcd --kubeconfig=KC --connect=direct -n NS defrag --watch
/// EXTRA…` with its output discarded, killed when dropped.
pub fn spawn_watcher(
    kubeconfig: &std::path::Path,
    ns: &str,
    extra: &[&str],
) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .arg(format!("--kubeconfig={}", kubeconfig.display()))
        .args(["--connect=direct", "-n", ns, "defrag", "--watch"])
        .args(extra)
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher")
}

/// The EtcdDefrags of `ns`.
pub fn runs(client: &Client, ns: &str) -> Api<DynamicObject> {
    dynamic(client, ns, "EtcdDefrag", "etcddefrags")
}

/// Creates EtcdDefrag `name` for `cluster` with `rule`.
pub async fn create_run(client: &Client, ns: &str, name: &str, cluster: &str, rule: Value) {
    create_spec(
        client,
        ns,
        name,
        json!({"clusterRef": {"name": cluster}, "rule": rule}),
    )
    .await;
}

/// Creates EtcdDefrag `name` with the whole `spec`.
pub async fn create_spec(client: &Client, ns: &str, name: &str, spec: Value) {
    create(
        &runs(client, ns),
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": name, "namespace": ns},
            "spec": spec,
        }),
    )
    .await;
}

/// The run's status once its phase is one of `phases` (at most 90 s).
pub async fn wait_phase(client: &Client, ns: &str, name: &str, phases: &[&str]) -> Value {
    let api = runs(client, ns);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let status = api.get(name).await.expect("get EtcdDefrag").data["status"].clone();
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

/// Every version of EtcdDefrag `name` the API server stores from now on,
/// through a watch begun before it exists: (phase, the note
/// `kubectl-etcd/defragmenting`, resourceVersion) each, up to the first
/// that has ended (Complete or Failed) and whatever follows within 2 s.
/// Polling could miss a version that lived a few milliseconds.
pub async fn every_version(
    client: &Client,
    ns: &str,
    name: &str,
) -> tokio::task::JoinHandle<Vec<(String, Option<String>, Option<String>)>> {
    use futures::StreamExt;
    use kube::api::{WatchEvent, WatchParams};
    let api = runs(client, ns);
    let from = api
        .list_metadata(&ListParams::default())
        .await
        .expect("list EtcdDefrags")
        .metadata
        .resource_version
        .expect("a list has a resourceVersion");
    let params = WatchParams::default()
        .fields(&format!("metadata.name={name}"))
        .timeout(290);
    let stream = api.watch(&params, &from).await.expect("watch EtcdDefrags");
    tokio::spawn(async move {
        let mut stream = Box::pin(stream);
        let mut seen = Vec::new();
        let mut until = tokio::time::Instant::now() + Duration::from_secs(240);
        while let Ok(Some(event)) = tokio::time::timeout_at(until, stream.next()).await {
            let object = match event.expect("a watch event") {
                WatchEvent::Added(o) | WatchEvent::Modified(o) => o,
                WatchEvent::Deleted(_) | WatchEvent::Bookmark(_) => continue,
                WatchEvent::Error(e) => panic!("the watch failed: {e:?}"),
            };
            let phase = object.data["status"]["phase"].as_str().unwrap_or("");
            let note = object
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("kubectl-etcd/defragmenting").cloned());
            if matches!(phase, "Complete" | "Failed") && seen.iter().all(|(p, _, _)| p != phase) {
                until = tokio::time::Instant::now() + Duration::from_secs(2);
            }
            seen.push((phase.to_string(), note, object.metadata.resource_version));
        }
        seen
    })
}

/// How many Defragments member `i` has done, from its own `/metrics`
/// (plaintext members).
pub async fn defrag_count(etcd: &Cluster, i: usize) -> u64 {
    defrags_at(&etcd.host(i), 2379).await
}

/// How many Defragments the member serving plain `/metrics` at
/// `host:port` has done, from its own count.
pub async fn defrags_at(host: &str, port: u16) -> u64 {
    super::metrics_at(&format!("{host}:{port}"))
        .await
        .lines()
        .find(|l| l.starts_with("etcd_disk_backend_defrag_duration_seconds_count"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

/// The run's `DefragChecked` condition.
pub fn condition(status: &Value) -> &Value {
    status["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "DefragChecked"))
        .unwrap_or_else(|| panic!("no DefragChecked condition: {status}"))
}

/// (reason, message) of the events recorded against `name`.
pub async fn events(client: &Client, ns: &str, name: &str) -> Vec<(String, String)> {
    let api: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(client.clone(), ns);
    api.list(&ListParams::default())
        .await
        .expect("list events")
        .items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(name))
        .map(|e| (e.reason.unwrap_or_default(), e.message.unwrap_or_default()))
        .collect()
}

/// The run's status once `done` holds for it (polled every 50 ms, at most
/// `limit`).
pub async fn wait_status(
    client: &Client,
    ns: &str,
    name: &str,
    limit: Duration,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let api = runs(client, ns);
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let status = api.get(name).await.expect("get EtcdDefrag").data["status"].clone();
        if done(&status) {
            return status;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "EtcdDefrag {ns}/{name}: never {what} within {limit:?}: {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many rows of the run have `outcome`.
pub fn rows_with(status: &Value, outcome: &str) -> usize {
    status["members"].as_array().map_or(0, |rows| {
        rows.iter().filter(|r| r["outcome"] == outcome).count()
    })
}

/// An RFC 3339 time from a status field.
pub fn timestamp(v: &Value) -> k8s_openapi::jiff::Timestamp {
    v.as_str()
        .unwrap_or_else(|| panic!("not a timestamp: {v}"))
        .parse()
        .unwrap_or_else(|e| panic!("not a timestamp: {v}: {e}"))
}

/// Waits (at most 30 s) until the Lease `kubectl-etcd-watch` in `ns` is
/// held by the watcher process `pid`; `Err` with the holder then, if not.
pub async fn wait_lease_holder(client: &Client, ns: &str, pid: u32) -> Result<(), String> {
    use k8s_openapi::api::coordination::v1::Lease;
    let leases: Api<Lease> = Api::namespaced(client.clone(), ns);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let holder = leases
            .get_opt("kubectl-etcd-watch")
            .await
            .unwrap()
            .and_then(|l| l.spec?.holder_identity)
            .unwrap_or_default();
        if holder.ends_with(&format!("-{pid}")) {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(holder);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
