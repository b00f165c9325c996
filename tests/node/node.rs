//! The real node of the test bed (issue 22, first part): a kubelet over
//! containerd and runc runs etcd from an image built here, never pulled;
//! `kubectl logs` and `kubectl port-forward` go through the real kubelet;
//! Pods reach it through a Service (kube-proxy) and by name (the cluster
//! DNS: the Service's name, and the Pod's under a headless Service); and
//! stopping the node leaves nothing behind: no network namespace,
//! cgroup, mount, `/run` entry or process of it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Pod, Service};
use kube::api::{Api, PostParams};
use kubectl_etcd_testbed::node::{Node, NodeSpec, ETCD_REPOSITORY};
use kubectl_etcd_testbed::EtcdVersion;

async fn wait_for_phase(pods: &Api<Pod>, name: &str, phases: &[&str]) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    loop {
        let pod = pods.get(name).await.unwrap();
        let phase = pod
            .status
            .as_ref()
            .and_then(|s| s.phase.clone())
            .unwrap_or_default();
        if phases.contains(&phase.as_str()) {
            return phase;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "pod {name} still {phase:?}: {:?}",
            pod.status
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

fn pod(name: &str, image: &str, labels: &str, command: &[&str], restart: &str) -> Pod {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": labels}},
        "spec": {
            "hostname": name,
            "subdomain": "etcd-peers",
            "restartPolicy": restart,
            "containers": [{
                "name": "main",
                "image": image,
                "imagePullPolicy": "Never",
                "command": command,
            }],
        },
    }))
    .unwrap()
}

fn kubectl(node: &Node) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(kubectl_etcd_testbed::bins::kubectl().unwrap());
    c.env("KUBECONFIG", node.kubeconfig().unwrap())
        .kill_on_drop(true);
    c
}

#[tokio::test(flavor = "multi_thread")]
async fn a_real_node_runs_etcd_from_a_local_image_and_leaves_nothing_behind() {
    let had_containerd_run = std::path::Path::new("/run/containerd").exists();
    let node = Node::start(NodeSpec {
        etcd_versions: vec![EtcdVersion::V3_6],
        crds: Vec::new(),
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
        .find(|i| i.starts_with(ETCD_REPOSITORY))
        .unwrap()
        .clone();
    let client = node.api.admin_client(None).await.unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let services: Api<Service> = Api::namespaced(client.clone(), "default");

    pods.create(
        &PostParams::default(),
        &pod(
            "etcd-0",
            &image,
            "etcd",
            &[
                "/usr/local/bin/etcd",
                "--name=etcd-0",
                "--data-dir=/tmp/data",
                "--listen-client-urls=http://0.0.0.0:2379",
                "--advertise-client-urls=http://127.0.0.1:2379",
            ],
            "Always",
        ),
    )
    .await
    .unwrap();
    wait_for_phase(&pods, "etcd-0", &["Running"]).await;

    // kubectl port-forward through the real kubelet: write a key.
    let (forward, port) =
        support::operator::port_forward(&node.kubeconfig().unwrap(), "default", "pod/etcd-0", 2379)
            .await;
    let mut etcd = etcd_client::Client::connect([format!("http://127.0.0.1:{port}")], None)
        .await
        .unwrap();
    etcd.put("written-through", "port-forward", None)
        .await
        .unwrap();
    let status = etcd.status().await.unwrap();
    assert!(status.version().starts_with("3.6."), "{}", status.version());
    drop(forward);

    // Services (kube-proxy's rules in the node) and names (the cluster
    // DNS) from other Pods: the ClusterIP Service by its short name, and
    // the member by its Pod name under a headless Service, the way the
    // operator's members find their peers.
    for svc in [
        serde_json::json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "etcd"},
            "spec": {"selector": {"app": "etcd"}, "ports": [{"port": 2379}]},
        }),
        serde_json::json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "etcd-peers"},
            "spec": {"clusterIP": "None", "selector": {"app": "etcd"}, "ports": [{"port": 2379}]},
        }),
    ] {
        let svc: Service = serde_json::from_value(svc).unwrap();
        services.create(&PostParams::default(), &svc).await.unwrap();
    }
    let cluster_ip = services
        .get("etcd")
        .await
        .unwrap()
        .spec
        .unwrap()
        .cluster_ip
        .unwrap();
    assert!(cluster_ip.starts_with("198.19.0."), "{cluster_ip}");
    for (reader, endpoint) in [
        ("by-service-name", "http://etcd:2379"),
        (
            "by-pod-name",
            "http://etcd-0.etcd-peers.default.svc.cluster.local:2379",
        ),
    ] {
        pods.create(
            &PostParams::default(),
            &pod(
                reader,
                &image,
                "reader",
                &[
                    "/usr/local/bin/etcdctl",
                    &format!("--endpoints={endpoint}"),
                    "--command-timeout=20s",
                    "--dial-timeout=20s",
                    "get",
                    "written-through",
                    "--print-value-only",
                ],
                "Never",
            ),
        )
        .await
        .unwrap();
        let phase = wait_for_phase(&pods, reader, &["Succeeded", "Failed"]).await;
        let logs = kubectl(&node)
            .args(["logs", reader])
            .output()
            .await
            .unwrap();
        let logs = String::from_utf8_lossy(&logs.stdout).into_owned();
        assert_eq!(phase, "Succeeded", "{reader}: {logs}");
        assert_eq!(logs.trim(), "port-forward", "{reader}");
    }

    // etcd's own log, read through the kubelet.
    let own = kubectl(&node)
        .args(["logs", "etcd-0"])
        .output()
        .await
        .unwrap();
    assert!(
        String::from_utf8_lossy(&own.stdout).contains("serving client traffic"),
        "{}",
        String::from_utf8_lossy(&own.stderr)
    );

    // Stopping leaves nothing behind.
    let pids = node.pids();
    let netns = node.netns().to_string();
    let cgroup = node.cgroup().to_string();
    let dir = node.dir().to_path_buf();
    assert!(pids.len() >= 8, "{pids:?}");
    drop(node);
    for pid in &pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .map(|(_, r)| r.trim_start().chars().next());
        assert!(
            matches!(state, None | Some(Some('Z'))),
            "process {pid} outlived the node: {stat}"
        );
    }
    assert!(!std::path::Path::new(&format!("/run/netns/{netns}")).exists());
    let leftover_netns: Vec<String> = std::fs::read_dir("/run/netns")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("cni-") || n.starts_with("kubectl-etcd-node-"))
                .collect()
        })
        .unwrap_or_default();
    assert!(leftover_netns.is_empty(), "{leftover_netns:?}");
    for h in std::fs::read_dir("/sys/fs/cgroup").unwrap().flatten() {
        assert!(!h.path().join(&cgroup).exists(), "{}", h.path().display());
    }
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(&dir.display().to_string()),
        "a mount of the node is left: {mounts}"
    );
    assert!(!dir.exists());
    assert_eq!(
        std::path::Path::new("/run/containerd").exists(),
        had_containerd_run,
        "containerd wrote to this machine's /run"
    );
}
