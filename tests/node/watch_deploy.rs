//! The watcher of `deploy/watch/` where users run it (issue 22): a
//! Deployment of two replicas on the test bed's real node, from the image
//! the project's `Containerfile` makes, the manifests applied as committed
//! (token, CA and namespace mounted by the kubelet; its probes are what the
//! kubelet calls). It drives an EtcdDefrag created with `kubectl apply` on
//! a cluster the real etcd-operator runs; when the acting Pod is deleted
//! mid-run the other replica takes the Lease and finishes the run; a
//! rollout completes while a run goes on. Every member is defragmented
//! exactly once per run — each member's own `/metrics` count — and never
//! two at once (their logs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams};
use kubectl_etcd_testbed::cluster::defrags_in_logs;
use serde_json::{json, Value};
use support::k8s::manifest;
use support::operator::*;
use support::watch::{defrags_at, runs};

const NS: &str = "etcd";
const DEPLOYMENT: &str = "kubectl-etcd-watch";

/// Each member's Defragment count from its own `/metrics` (the operator
/// starts members with plain metrics on 2381).
async fn counts(ips: &[String]) -> Vec<u64> {
    let mut out = Vec::new();
    for ip in ips {
        out.push(defrags_at(ip, 2381).await);
    }
    out
}

/// Waits until the Deployment has `ready` ready replicas, all of the
/// current template.
async fn wait_rolled_out(deployments: &Api<Deployment>, ready: i32, limit: Duration) {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let d = deployments.get(DEPLOYMENT).await.unwrap();
        let generation = d.metadata.generation;
        let status = d.status.unwrap_or_default();
        if status.observed_generation == generation
            && status.ready_replicas == Some(ready)
            && status.updated_replicas == Some(ready)
            && status.replicas == Some(ready)
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the Deployment is not rolled out with {ready} ready replicas: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The Pod whose name starts the Lease's holder identity.
async fn holder(bed: &Bed) -> String {
    let leases: Api<Lease> = Api::namespaced(bed.client.clone(), NS);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let identity = leases
            .get_opt(DEPLOYMENT)
            .await
            .unwrap()
            .and_then(|l| l.spec)
            .and_then(|s| s.holder_identity);
        let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);
        if let Some(identity) = identity {
            let list = pods
                .list(
                    &kube::api::ListParams::default().labels("app.kubernetes.io/name=kubectl-etcd"),
                )
                .await
                .unwrap();
            if let Some(p) = list.items.iter().find_map(|p| {
                let name = p.metadata.name.clone()?;
                identity.starts_with(&name).then_some(name)
            }) {
                return p;
            }
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no watcher Pod holds the Lease"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// `kubectl apply` of EtcdDefrag `name` for cluster `etcd`, every member.
async fn start_run(bed: &Bed, name: &str) {
    bed.apply(vec![json!({
        "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
        "kind": "EtcdDefrag",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"clusterRef": {"name": "etcd"}, "rule": {"all": true}},
    })])
    .await;
}

/// The run's status once it has finished (at most `limit`).
async fn finished(bed: &Bed, name: &str, limit: Duration) -> Value {
    let api = runs(&bed.client, NS);
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let status = api.get(name).await.unwrap().data["status"].clone();
        if ["Complete", "Failed"].iter().any(|p| status["phase"] == *p) {
            return status;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "EtcdDefrag {name} did not finish: {status}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

/// Asserts run `name` is Complete with every member Defragmented, and
/// that each member's own count went up by exactly one.
fn complete_once_each(name: &str, status: &Value, before: &[u64], after: &[u64]) {
    assert_eq!(status["phase"], "Complete", "{name}: {status}");
    let rows = status["members"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 3, "{name}: {status}");
    for row in &rows {
        assert_eq!(row["outcome"], "Defragmented", "{name}: {status}");
    }
    let deltas: Vec<u64> = before.iter().zip(after).map(|(b, a)| a - b).collect();
    assert_eq!(deltas, [1, 1, 1], "{name}: Defragments per member");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_deployment_completes_runs_across_a_deleted_pod_and_a_rollout() {
    // The watcher's niche: an operator that ships the EtcdDefrag type
    // without its controller.
    let mut bed = Bed::start_with(NS, Operator::Inert).await;
    let image = support::tool_image(&mut bed.node);
    bed.create_cluster("etcd", 3, "4Gi", Value::Null).await;
    bed.wait_ready("etcd", 3).await;
    let members = bed.members("etcd").await;
    let ips = bed.pod_ips(&members).await;
    // Enough in use that one member's defragmentation lasts seconds.
    fragment(bed.plain_client("etcd").await, 0, 512 << 20).await;

    let mut docs = Vec::new();
    for doc in manifest("deploy/watch") {
        if doc["kind"] == "Deployment" {
            let containers = &doc["spec"]["template"]["spec"]["containers"];
            assert_eq!(
                containers[0]["image"],
                image.as_str(),
                "the image the manifest runs"
            );
        }
        docs.push(doc);
    }
    bed.apply(docs).await;
    // Both replicas Ready by the kubelet's own probes: the one holding
    // the Lease and the one standing by.
    let deployments: Api<Deployment> = Api::namespaced(bed.client.clone(), NS);
    wait_rolled_out(&deployments, 2, Duration::from_secs(90)).await;
    let first_holder = holder(&bed).await;

    // 1. A run created with kubectl apply goes to Complete.
    let before = counts(&ips).await;
    start_run(&bed, "first").await;
    let status = finished(&bed, "first", Duration::from_secs(120)).await;
    complete_once_each("first", &status, &before, &counts(&ips).await);

    // 2. The acting Pod deleted while a member defragments: it finishes
    // that member and hands the Lease back; the other replica resumes the
    // run; every member is still done exactly once.
    let before = counts(&ips).await;
    let mark = bed.defrag_mark(&members).await;
    start_run(&bed, "second").await;
    bed.wait_for_a_defrag(&members, &mark).await;
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);
    pods.delete(&first_holder, &DeleteParams::default())
        .await
        .unwrap();
    let status = finished(&bed, "second", Duration::from_secs(180)).await;
    complete_once_each("second", &status, &before, &counts(&ips).await);
    let second_holder = holder(&bed).await;
    assert_ne!(second_holder, first_holder, "the Lease changed hands");

    // 3. A rollout while a run goes on: it completes (the standby counts
    // as ready, or the rollout would wait for ever), and the run still
    // defragments each member once.
    let before = counts(&ips).await;
    let mark = bed.defrag_mark(&members).await;
    start_run(&bed, "third").await;
    bed.wait_for_a_defrag(&members, &mark).await;
    bed.kubectl(&[
        "rollout",
        "restart",
        &format!("deployment/{DEPLOYMENT}"),
        "-n",
        NS,
    ])
    .await
    .expect_code(0);
    let status = finished(&bed, "third", Duration::from_secs(240)).await;
    complete_once_each("third", &status, &before, &counts(&ips).await);
    wait_rolled_out(&deployments, 2, Duration::from_secs(240)).await;

    // Never two members at once, over all three runs (each member's log).
    let defrags = defrags_in_logs(&bed.logs(&members).await);
    assert_eq!(defrags.len(), 9, "{defrags:?}");
    never_together(&defrags);
}
