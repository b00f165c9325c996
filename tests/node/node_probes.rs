//! Probe budgets on the real node: a kubeadm-style etcd 3.7 member whose
//! liveness probe is an HTTP GET of `/livez` on its metrics port, run by
//! the real kubelet. `doctor` warns, `defrag` holds the member back (its
//! own log shows no defrag, its container never restarts); with
//! `--allow-probe-restart` the kubelet kills it mid-defrag, as predicted:
//! its previous container's log has the kubelet's SIGTERM within the
//! predicted window after the defrag's start (and before its end, if it
//! ended: etcd's graceful stop waits up to its 7 s request timeout for the
//! RPC in flight), the kubelet records the failed probe, and the container
//! restarted once.
//! The tool reaches the member through `kubectl port-forward`'s path (the
//! real kubelet), as from a laptop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Event, Pod};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ListParams, LogParams, PostParams};
use kubectl_etcd_testbed::node::{Node, NodeSpec, ETCD_REPOSITORY};
use kubectl_etcd_testbed::EtcdVersion;
use serde_json::{json, Value};

use support::k8s::{add_member, crd_files, create, dynamic, namespace, patch_status};
use support::*;

const NS: &str = "kubeadm";
const CLUSTER: &str = "cp";
const MEMBER: &str = "cp-etcd-0";

/// The member's container: restarts so far, and the last one's end.
async fn restarts(pods: &Api<Pod>) -> (i32, Option<Timestamp>) {
    let pod = pods.get(MEMBER).await.unwrap();
    let status = pod
        .status
        .and_then(|s| s.container_statuses)
        .and_then(|c| c.into_iter().next())
        .unwrap();
    let ended = status
        .last_state
        .and_then(|s| s.terminated)
        .and_then(|t| t.finished_at)
        .map(|t| t.0);
    (status.restart_count, ended)
}

/// When the log's first record with `msg` was written.
fn logged_at(log: &str, msg: &str) -> Option<Timestamp> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["msg"] == msg)
        .and_then(|v| v["ts"].as_str()?.parse().ok())
}

// The measured kill delay is printed (with --nocapture) for docs/testbed.md.
#[allow(clippy::disallowed_macros)]
#[tokio::test(flavor = "multi_thread")]
async fn the_kubelet_kills_a_member_mid_defrag_exactly_when_the_tool_holds_it_back() {
    let node = Node::start(NodeSpec {
        etcd_versions: vec![EtcdVersion::V3_7],
        crds: crd_files(),
        operator: None,
        etcd_io_operator: false,
        kubeadm: false,
        control_planes: 1,
    })
    .await
    .unwrap_or_else(|e| panic!("node: {e}"));
    let image = node
        .images
        .iter()
        .find(|i| i.starts_with(ETCD_REPOSITORY) && i.contains("3.7"))
        .unwrap()
        .clone();
    let client = node.api.admin_client(None).await.unwrap();
    namespace(&client, NS).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), NS);

    // kubeadm's layout: HTTP probes on the metrics port; tighter numbers
    // so that a defrag of a few seconds outlasts them (1-2 s).
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": MEMBER, "labels": {"component": "etcd"}},
        "spec": {
            "terminationGracePeriodSeconds": 10,
            // Survives a container restart, as kubeadm's hostPath does.
            "volumes": [{"name": "data", "emptyDir": {}}],
            "containers": [{
                "name": "etcd",
                "image": image,
                "imagePullPolicy": "Never",
                "command": [
                    "/usr/local/bin/etcd",
                    format!("--name={MEMBER}"),
                    "--data-dir=/var/lib/etcd/data",
                    "--listen-client-urls=http://0.0.0.0:2379",
                    "--advertise-client-urls=http://127.0.0.1:2379",
                    "--listen-metrics-urls=http://0.0.0.0:2381",
                    "--quota-backend-bytes=8589934592",
                    "--log-level=info",
                ],
                "volumeMounts": [{"name": "data", "mountPath": "/var/lib/etcd"}],
                "livenessProbe": {"httpGet": {"path": "/livez", "port": 2381},
                                  "initialDelaySeconds": 5, "periodSeconds": 1,
                                  "timeoutSeconds": 1, "failureThreshold": 1},
            }],
        },
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let ip = loop {
        let p = pods.get(MEMBER).await.unwrap();
        let status = p.status.unwrap_or_default();
        if status.phase.as_deref() == Some("Running") {
            if let Some(ip) = status.pod_ip {
                break ip;
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };

    // About 1 GB in use: etcd 3.7 defragmented 400 MB in 1.6 s here
    // (docs/benchmarks.md), and the model predicts ~13 s; the probe gives
    // up after 1-2 s.
    let mut etcd = loop {
        if let Ok(mut c) = etcd_client::Client::connect([format!("http://{ip}:2379")], None).await {
            if c.status().await.is_ok() {
                break c;
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let value = vec![b'x'; 1 << 20];
    for i in 0..1000 {
        etcd.put(format!("key-{i:04}"), value.clone(), None)
            .await
            .unwrap();
    }
    let id = etcd.status().await.unwrap().header().unwrap().member_id();

    // The EtcdCluster and EtcdMember a plugin-mode user would have.
    let clusters = dynamic(&client, NS, "EtcdCluster", "etcdclusters");
    create(
        &clusters,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdCluster",
            "metadata": {"name": CLUSTER, "namespace": NS},
            "spec": {"replicas": 1, "version": "3.7.3", "storage": {"size": "1Gi"}},
        }),
    )
    .await;
    patch_status(
        &clusters,
        CLUSTER,
        json!({"status": {"readyMembers": 1,
                          "selector": format!("etcd-operator.cozystack.io/cluster={CLUSTER}")}}),
    )
    .await;
    add_member(
        &dynamic(&client, NS, "EtcdMember", "etcdmembers"),
        NS,
        CLUSTER,
        MEMBER,
        json!({"memberID": format!("{id:016x}"), "podName": MEMBER, "isVoter": true}),
    )
    .await;

    let kc = format!("--kubeconfig={}", node.kubeconfig().unwrap().display());
    let tool_in = |extra: &[&str]| {
        let mut a = vec![kc.as_str(), "-n", NS];
        a.extend_from_slice(extra);
        args(&a)
    };

    // doctor warns, with the numbers.
    let doctor = tool(&tool_in(&["doctor", CLUSTER, "-o", "json"]), &[]).await;
    let doc = doctor.json();
    let warning = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "probe-budget")
        .unwrap_or_else(|| panic!("no probe-budget finding: {doc}"));
    assert_eq!(warning["severity"], "warning", "{doc}");
    let message = warning["message"].as_str().unwrap();
    assert!(
        message
            .contains("liveness probe (GET /livez on port 2381, every 1s, timeout 1s, 1 failure)")
            && message.contains("restarts it after 1–2s of defrag"),
        "{message}"
    );

    // defrag holds it back: nothing reaches the member.
    let held = tool(
        &tool_in(&[
            "defrag",
            CLUSTER,
            "--all",
            "--allow-quorum-loss",
            "-y",
            "-o",
            "json",
        ]),
        &[],
    )
    .await;
    held.expect_code(1);
    let report = held.json();
    assert_eq!(report["members"][0]["reason"], "ProbeBudget", "{report}");
    assert!(
        held.stderr.contains("--allow-probe-restart"),
        "{}",
        held.stderr
    );
    let log = pods.logs(MEMBER, &LogParams::default()).await.unwrap();
    assert!(
        logged_at(&log, "defragmenting").is_none(),
        "the member defragmented"
    );
    assert_eq!(restarts(&pods).await.0, 0);

    // Told otherwise, the tool defragments it, and the kubelet kills it in
    // the middle, within the window the tool predicted.
    let allowed = tool(
        &tool_in(&[
            "defrag",
            CLUSTER,
            "--all",
            "--allow-quorum-loss",
            "--allow-probe-restart",
            "-y",
            "-o",
            "json",
        ]),
        &[],
    )
    .await;
    // The kubelet reports a restart in the Pod's status on its own time,
    // which can come after the member is back and the tool has ended.
    let mut settled = restarts(&pods).await;
    for _ in 0..40 {
        if settled.0 > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        settled = restarts(&pods).await;
    }
    let (count, ended) = settled;
    assert_eq!(
        count, 1,
        "the kubelet did not restart the member (its status read for 20 s after the tool ended):\n{}",
        allowed.stderr
    );
    let previous = pods
        .logs(
            MEMBER,
            &LogParams {
                previous: true,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    // etcd's own records: the kubelet's SIGTERM came while it defragmented.
    // etcd then stops gracefully: its gRPC server waits for the Defragment
    // in flight for up to its request timeout (7 s) before it closes, so a
    // short defrag still ends, and a longer one is cut off.
    let started = logged_at(&previous, "defragmenting").expect("no defrag in the killed container");
    let signalled = logged_at(&previous, "received signal; shutting down")
        .unwrap_or_else(|| panic!("no SIGTERM in the killed container's log:\n{previous}"));
    let finished = logged_at(&previous, "finished defragmenting directory");
    let since = |t: Timestamp| t.duration_since(started).as_secs_f64();
    assert!(
        since(signalled) > 0.0 && finished.is_none_or(|f| signalled < f),
        "SIGTERM {:.2}s after the defrag started, which ended {:?}",
        since(signalled),
        finished.map(since)
    );
    let ended = ended.unwrap();
    eprintln!(
        "SIGTERM {:.2}s into the defrag (window 1–2s); defrag {}; container ended {:.1}s after the start",
        since(signalled),
        match finished {
            Some(f) => format!("finished {:.2}s after the start, during etcd's graceful stop", since(f)),
            None => "cut off".to_string(),
        },
        since(ended)
    );
    let events: Api<Event> = Api::namespaced(client.clone(), NS);
    let said: Vec<String> = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(MEMBER))
        .map(|e| {
            format!(
                "{}: {}",
                e.reason.unwrap_or_default(),
                e.message.unwrap_or_default()
            )
        })
        .collect();
    assert!(
        said.iter()
            .any(|e| e.starts_with("Unhealthy: Liveness probe failed")),
        "{said:#?}"
    );
    // The tool saw the member go and waited for it to come back.
    let report = allowed.json();
    // Whether its Defragment answered (etcd's graceful stop let it end) or
    // failed (cut off), the tool waited for the restarted member to answer
    // again before it reported.
    let row = &report["members"][0];
    assert!(
        row["outcome"] == "Defragmented" || row["reason"] == "RPCError",
        "{report}"
    );
    assert!(row["recoveredMs"].as_u64().is_some(), "{report}");
    // The member came back with its data: the defrag cut off left the
    // old file in place.
    let mut etcd = etcd_client::Client::connect([format!("http://{ip}:2379")], None)
        .await
        .unwrap();
    let kept = etcd
        .get(
            "key-",
            Some(
                etcd_client::GetOptions::new()
                    .with_prefix()
                    .with_count_only(),
            ),
        )
        .await
        .unwrap()
        .count();
    assert_eq!(kept, 1000, "keys after the restart");
    eprintln!(
        "the tool's row: {} {} ({}), back after {} ms",
        row["outcome"], row["reason"], row["detail"], row["recoveredMs"]
    );
}
