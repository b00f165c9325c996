//! The etcd project's own operator (`operator.etcd.io`, issue 41) on the
//! test bed's real node, beside the cozystack operator: a cluster created
//! with `kubectl apply` as its samples show, then `status`, `doctor`, a
//! fragmented `defrag` and `snapshot save` through the real kubectl, judged
//! by etcd's own logs and state. A differential check fails when what the
//! operator published differs from what the fast suite's fixture of it
//! (`support::k8s::etcdio_fixture`) publishes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Pod, Service};
use kube::api::{Api, DynamicObject, ListParams};
use kubectl_etcd_testbed::cluster::defrags_in_logs;
use kubectl_etcd_testbed::operator::Operator;
use serde_json::{json, Value};
use support::k8s::{etcdio_clusters, etcdio_pod};
use support::operator::*;
use support::{row, rows};

const NS: &str = "etcd-io";
const NAME: &str = "sample";

/// Waits until the operator says every one of `size` members is ready and
/// lists them; returns the EtcdCluster.
async fn wait_ready(api: &Api<DynamicObject>, size: usize) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(420);
    loop {
        let cluster = serde_json::to_value(api.get(NAME).await.unwrap()).unwrap();
        let status = &cluster["status"];
        let ready = status["readyReplicas"].as_u64() == Some(size as u64)
            && status["members"].as_array().map(Vec::len) == Some(size)
            && status["members"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["isHealthy"] == true);
        if ready {
            return cluster;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the etcd project's operator did not make {size} ready members: {cluster}"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// The fields the tool reads of a member Pod, from `pod`'s JSON.
fn read_fields(pod: &Value) -> Value {
    let c = &pod["spec"]["containers"][0];
    json!({
        "labels": {"app": pod["metadata"]["labels"]["app"], "controller": pod["metadata"]["labels"]["controller"]},
        "hostname": pod["spec"]["hostname"],
        "subdomain": pod["spec"]["subdomain"],
        "container": c["name"],
        "image": c["image"],
        "command": c["command"],
        "args": c["args"],
        "envFrom": c["envFrom"],
        "mounts": c["volumeMounts"].as_array().unwrap().iter()
            .filter(|m| m["name"] == "etcd-data").cloned().collect::<Vec<_>>(),
        "volume": pod["spec"]["volumes"].as_array().unwrap().iter()
            .find(|v| v["name"] == "etcd-data")
            .map(|v| v["persistentVolumeClaim"]["claimName"].clone()),
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn the_etcd_projects_operator_runs_a_cluster_the_tool_maintains() {
    let bed = Bed::start_beside_etcd_io(NS, Operator::Inert).await;
    let api = etcdio_clusters(&bed.client, NS);
    let options = ["--quota-backend-bytes=268435456"];
    // As its samples show, with storage and the node's etcd images.
    bed.apply(vec![json!({
        "apiVersion": "operator.etcd.io/v1alpha1",
        "kind": "EtcdCluster",
        "metadata": {"name": NAME, "namespace": NS},
        "spec": {"version": "v3.6.16", "size": 3,
                 "storageSpec": {"volumeSizeRequest": "1Gi"},
                 "etcdOptions": options},
    })])
    .await;
    let cluster = wait_ready(&api, 3).await;
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);
    let members = bed
        .pods_labelled(&format!("app={NAME},controller={NAME}"))
        .await;
    assert_eq!(members, ["sample-0", "sample-1", "sample-2"]);

    // What it published is what the fast suite's fixture publishes.
    let options: Vec<Value> = options.iter().map(|o| json!(o)).collect();
    for m in &members {
        let real = serde_json::to_value(pods.get(m).await.unwrap()).unwrap();
        let fixture = etcdio_pod(NAME, m, "v3.6.16", &options);
        assert_eq!(
            read_fields(&real),
            read_fields(&fixture),
            "the operator's Pod {m} differs from the fixture's"
        );
    }
    let etcd = bed.plain_client_at(&members).await;
    let ids: Vec<u64> = {
        let mut etcd = etcd.clone();
        etcd.member_list()
            .await
            .unwrap()
            .members()
            .iter()
            .map(|m| m.id())
            .collect()
    };
    for m in cluster["status"]["members"].as_array().unwrap() {
        let keys: Vec<&str> = m.as_object().unwrap().keys().map(String::as_str).collect();
        for key in ["name", "id", "version", "isHealthy"] {
            assert!(keys.contains(&key), "{key} missing from {m}");
        }
        let id = u64::from_str_radix(m["id"].as_str().unwrap(), 16).unwrap();
        assert!(ids.contains(&id), "{m}: not one of etcd's IDs {ids:x?}");
        assert_eq!(m["id"], format!("{id:x}"), "the fixture's %x form");
    }
    let services: Api<Service> = Api::namespaced(bed.client.clone(), NS);
    let names: Vec<String> = services
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .collect();
    assert_eq!(names, [NAME], "one headless Service, no client Service");

    // status through the real kubectl: every member, reachable, the
    // leader etcd names.
    let doc = bed
        .etcd(&["status", NAME, "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    for m in &members {
        assert_eq!(row(&doc, m)["reachable"], true, "{doc}");
        assert_eq!(row(&doc, m)["quota"]["bytes"], 268435456, "{doc}");
    }

    // doctor: nothing critical on a healthy plain cluster with no TLS asked.
    let run = bed.etcd(&["doctor", NAME, "-o", "json"]).await;
    let report = run.json();
    let critical: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "critical")
        .collect();
    assert!(critical.is_empty(), "doctor: {critical:?}\n{report}");

    // A fragmented cluster: defrag takes each member once, never two at
    // once, per the members' own logs.
    fragment(etcd, 96 << 20, 16 << 20).await;
    bed.etcd(&["defrag", NAME, "--yes", "-o", "json"])
        .await
        .expect_code(0);
    let logs = bed.logs(&members).await;
    one_each_never_together(&members, &logs);
    assert_eq!(defrags_in_logs(&logs).len(), 3);

    // snapshot save: a file etcd wrote, with the keys kept.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sample.db");
    bed.etcd(&["snapshot", "save", file.to_str().unwrap(), NAME])
        .await
        .expect_code(0);
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size > 16 << 20, "{size} bytes: the kept keys are missing");
}
