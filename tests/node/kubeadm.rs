//! A control plane's own etcd (issue 42) on the test bed's real node, laid
//! out by the real kubeadm's own phases (`NodeSpec::kubeadm`: its
//! certificates and static Pod manifest, the kubelet running the Pod from
//! the bed's etcd image under kubeadm's name): found from the API alone
//! with no EtcdCluster in sight, and reached through the tool's agent Pod
//! on the node, through the real kubectl. Judged by what the servers
//! hold: etcd's own member list and log (read with the node's own
//! certificates, as only a test on the node may), and the API server's
//! Jobs and Pods after every command (no agent left behind, however the
//! command ended).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use support::operator::{fragment, Bed};
use support::{row, rows};

const AGENT: &str = "kubectl-etcd.io/agent-of";
const MEMBER: &str = "testbed-node";
const POD: &str = "etcd-testbed-node";

/// The agent Jobs and Pods the API server holds, by name.
async fn agents(bed: &Bed) -> Vec<String> {
    let params = ListParams::default().labels(AGENT);
    let jobs: Api<Job> = Api::namespaced(bed.client.clone(), "kube-system");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let mut out: Vec<String> = jobs
        .list(&params)
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|j| j.metadata.name.map(|n| format!("job/{n}")))
        .collect();
    out.extend(
        pods.list(&params)
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|p| p.metadata.name.map(|n| format!("pod/{n}"))),
    );
    out
}

async fn none_left(bed: &Bed, after: &str) {
    let left = agents(bed).await;
    assert!(left.is_empty(), "after {after}: {left:?}");
}

/// A client of the node's etcd with kubeadm's healthcheck-client
/// certificate, read from the node's folder.
async fn node_etcd(bed: &Bed) -> etcd_client::Client {
    use etcd_client::{Certificate, ConnectOptions, Identity, TlsOptions};
    let pki = bed
        .node
        .kubeadm_root
        .as_ref()
        .unwrap()
        .join("etc/kubernetes/pki/etcd");
    let read = |f: &str| std::fs::read(pki.join(f)).unwrap();
    let tls = TlsOptions::new()
        .ca_certificate(Certificate::from_pem(read("ca.crt")))
        .identity(Identity::from_pem(
            read("healthcheck-client.crt"),
            read("healthcheck-client.key"),
        ))
        .domain_name(MEMBER);
    let url = format!("https://{}:2379", kubectl_etcd_testbed::node::NODE_IP);
    etcd_client::Client::connect([url], Some(ConnectOptions::new().with_tls(tls)))
        .await
        .unwrap()
}

/// Waits until the kubelet reports kubeadm's etcd Pod ready.
async fn etcd_ready(bed: &Bed) {
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let ready = pods.get_opt(POD).await.unwrap().is_some_and(|p| {
            p.status
                .and_then(|s| s.conditions)
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        });
        if ready {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{POD} not ready in 120 s"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `kubectl create job NAME --from=cronjob/…` of deploy/kubeadm's CronJob,
/// waited for: whether it succeeded, and its Pod's log.
async fn cronjob_run(bed: &Bed, name: &str) -> (bool, String) {
    bed.kubectl(&[
        "create",
        "job",
        name,
        "--from=cronjob/kubectl-etcd-defrag-control-plane",
        "-n",
        "kube-system",
    ])
    .await
    .expect_code(0);
    let jobs: Api<Job> = Api::namespaced(bed.client.clone(), "kube-system");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    loop {
        let status = jobs.get(name).await.unwrap().status.unwrap_or_default();
        let done = status.succeeded.unwrap_or(0) > 0 || status.failed.unwrap_or(0) > 0;
        if done {
            let pod = pods
                .list(&ListParams::default().labels(&format!("job-name={name}")))
                .await
                .unwrap()
                .items
                .remove(0);
            let log = pods
                .logs(&pod.metadata.name.unwrap(), &LogParams::default())
                .await
                .unwrap();
            return (status.succeeded.unwrap_or(0) > 0, log);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "Job {name} did not finish: {status:?}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Waits until an agent Pod of the command runs.
async fn agent_running(bed: &Bed) {
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let running = pods
            .list(&ListParams::default().labels(AGENT))
            .await
            .unwrap()
            .items
            .iter()
            .any(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"));
        if running {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "no agent ran");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kubeadm_control_planes_etcd_is_reached_through_an_agent_on_its_node() {
    let mut bed = Bed::start_kubeadm("default").await;
    // The default --agent-image: this release's image, as deploy/ names it.
    let image = support::tool_image(&mut bed.node);
    assert_eq!(image, kubectl_etcd::cli::agent::DEFAULT_IMAGE);
    etcd_ready(&bed).await;
    let mut etcd = node_etcd(&bed).await;
    let listed = etcd.member_list().await.unwrap();
    let id = listed.members()[0].id();

    // No EtcdCluster in sight: `status` shows the control plane's etcd.
    let run = bed.etcd(&["status", "-o", "json"]).await;
    let doc = run.expect_code(0).json();
    assert_eq!(doc["cluster"]["namespace"], "kube-system", "{doc}");
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(rows(&doc).len(), 1, "{doc}");
    let member = row(&doc, MEMBER);
    assert_eq!(member["reachable"], true, "{doc}");
    assert_eq!(member["id"], format!("{id:016x}"), "{doc}");
    // The quota kubeadm's extraArgs gave the member, as the member says.
    assert_eq!(member["quota"]["bytes"], 268435456, "{doc}");
    none_left(&bed, "status -o json").await;

    // The table, named as plugin mode names it, and nothing of the frames.
    let run = bed
        .kubectl(&["etcd", "status", "etcd", "-n", "kube-system"])
        .await;
    let run = run.expect_code(0);
    assert!(run.stdout.contains(MEMBER), "{}", run.stdout);
    assert!(
        !run.stderr.contains(" o ") && !run.stdout.contains(" x 0"),
        "{run:?}"
    );
    none_left(&bed, "status").await;

    // doctor: every member answered (read by the agent, on the node).
    let run = bed.etcd(&["doctor", "-o", "json"]).await;
    let report: Value = run.json();
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    // The gate's only word is the one voter (no member unreachable).
    let gate: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"].as_str().unwrap().starts_with("gate/"))
        .filter(|f| f["check"] != "gate/QuorumMargin")
        .collect();
    assert!(gate.is_empty(), "{gate:?}\n{report}");
    none_left(&bed, "doctor").await;

    // What it cannot do is refused before anything is made.
    let run = bed.etcd(&["traffic", "show"]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("no client Service"), "{}", run.stderr);
    none_left(&bed, "traffic show").await;

    // A fragmented member: one member is the whole control plane, which
    // the gate refuses without consent; with it, the member's own log
    // records the defragmentation.
    fragment(etcd.clone(), 48 << 20, 8 << 20).await;
    // The plan says what the one member's defrag stops, for how long.
    let run = bed
        .etcd(&["defrag", "--dry-run", "--allow-quorum-loss", "-o", "json"])
        .await;
    let plan = run.expect_code(0).json();
    let notes = plan["notes"].to_string();
    assert!(
        notes.contains("only member") && notes.contains("s predicted"),
        "{plan}"
    );
    none_left(&bed, "defrag --dry-run").await;
    let run = bed.etcd(&["defrag", "--yes"]).await;
    run.expect_code(1);
    assert!(run.stderr.contains("--allow-quorum-loss"), "{}", run.stderr);
    none_left(&bed, "defrag refused").await;
    let run = bed
        .etcd(&["defrag", "--yes", "--allow-quorum-loss", "-o", "json"])
        .await;
    let report = run.expect_code(0).json();
    assert_eq!(report["cluster"]["name"], "etcd", "{report}");
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), "kube-system");
    let log = pods.logs(POD, &LogParams::default()).await.unwrap();
    let defrags = kubectl_etcd_testbed::cluster::defrags_in_logs(&[log]);
    assert_eq!(defrags.len(), 1, "etcd's own log: {defrags:?}\n{report}");
    none_left(&bed, "defrag").await;

    // deploy/kubeadm's CronJob, as committed: the gated sweep on the node,
    // its report in the log; a one-node control plane is refused without
    // the flag its comment names, and defragmented with it.
    let manifest =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubeadm/cronjob-defrag.yaml");
    bed.kubectl(&["apply", "-f", manifest.to_str().unwrap()])
        .await
        .expect_code(0);
    fragment(etcd.clone(), 48 << 20, 0).await;
    let (succeeded, log) = cronjob_run(&bed, "by-hand-1").await;
    assert!(!succeeded, "{log}");
    let last = log.lines().last().unwrap_or_default();
    assert!(last.contains("--allow-quorum-loss"), "{log}");
    bed.kubectl(&[
        "patch",
        "cronjob",
        "kubectl-etcd-defrag-control-plane",
        "-n",
        "kube-system",
        "--type=json",
        "-p",
        r#"[{"op":"add","path":"/spec/jobTemplate/spec/template/spec/containers/0/args/-","value":"--allow-quorum-loss"}]"#,
    ])
    .await
    .expect_code(0);
    let (succeeded, log) = cronjob_run(&bed, "by-hand-2").await;
    assert!(succeeded, "{log}");
    // The report (stdout) among the notes (stderr): from its first line.
    let start = log
        .find("{\n")
        .unwrap_or_else(|| panic!("no report: {log}"));
    let report: Value = serde_json::Deserializer::from_str(&log[start..])
        .into_iter::<Value>()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(report["members"][0]["outcome"], "Defragmented", "{report}");
    let log = pods.logs(POD, &LogParams::default()).await.unwrap();
    let defrags = kubectl_etcd_testbed::cluster::defrags_in_logs(&[log]);
    assert_eq!(defrags.len(), 2, "etcd's own log: {defrags:?}");

    // SIGTERM to the plugin mid-command: the agent's command is stopped
    // too, what it says is relayed, the plugin ends with 143 and leaves
    // no agent.
    // (doctor samples the writes for its window when a member needs a
    // defrag: fragmented again.)
    fragment(etcd.clone(), 48 << 20, 0).await;
    let child = bed.spawn_etcd(&["doctor", "--churn-window", "40s"]);
    agent_running(&bed).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    kill(Pid::from_raw(child.id().unwrap() as i32), Signal::SIGTERM).unwrap();
    let out = tokio::time::timeout(Duration::from_secs(90), child.wait_with_output())
        .await
        .expect("the plugin ended after SIGTERM")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("terminated (SIGTERM)"), "{stderr}");
    none_left(&bed, "SIGTERM").await;

    // The plugin killed outright (the user's connection gone): the agent
    // ends by itself, and the Job's TTL removes it and its Pod.
    let mut child = bed.spawn_etcd(&["doctor", "--churn-window", "5s"]);
    agent_running(&bed).await;
    child.start_kill().unwrap();
    let _ = child.wait().await;
    assert!(
        !agents(&bed).await.is_empty(),
        "the agent outlives a killed plugin"
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    while !agents(&bed).await.is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the agent's TTL did not remove it: {:?}",
            agents(&bed).await
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}
