//! The real node with the real etcd-operator, for the suites that run
//! the tool where users run it (`tests/node/operator.rs`,
//! `tests/node/cronjob.rs`, …): one node per test, one at a time in a
//! process (`Node::start` waits for the previous one to stop).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DynamicObject, ListParams, LogParams};
use kube::Client;
use kubectl_etcd_testbed::cluster::{defrags_in_logs, LoggedDefrag};
use kubectl_etcd_testbed::node::{Node, NodeSpec};
pub use kubectl_etcd_testbed::operator::Operator;
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;

use super::k8s::{crd_files, create, dynamic, namespace};
use super::plugin::{kubectl, kubectl_bin, plugin_path, Completer, PluginPath};
use super::Run;

/// The etcd release of the clusters the tests create.
pub const VERSION: &str = "3.6.16";

/// The node with the operator, and kubectl with the plugin on its PATH.
pub struct Bed {
    pub node: Node,
    pub client: Client,
    pub kubeconfig: PathBuf,
    pub path: PluginPath,
    /// The namespace of the clusters (`-n` of every `kubectl etcd`).
    pub ns: String,
}

impl Bed {
    /// Starts the node with the operator that ships its own EtcdDefrag
    /// controller (the one users now run), with the CRDs of its own chart,
    /// and creates `ns`.
    pub async fn start(ns: &str) -> Bed {
        Bed::start_with(ns, Operator::WithDefrag).await
    }

    /// Starts the node with the operator `which`, and creates `ns`. The
    /// CRDs are those of its own chart; the one without the controller
    /// ships no EtcdDefragPolicy, so the published one is added for it.
    pub async fn start_with(ns: &str, which: Operator) -> Bed {
        Bed::start_node(ns, which, false).await
    }

    /// [`Bed::start_with`] the cozystack operator `which` and, beside it,
    /// the etcd project's own operator (`operator.etcd.io`).
    pub async fn start_beside_etcd_io(ns: &str, which: Operator) -> Bed {
        Bed::start_node(ns, which, true).await
    }

    /// A kubeadm control plane of `control_planes` nodes
    /// ([`NodeSpec::kubeadm`]) with no operator: its etcd is kubeadm's
    /// static Pods. `-n` of every `kubectl etcd` is `ns`.
    pub async fn start_kubeadm(ns: &str, control_planes: usize) -> Bed {
        Bed::start_spec(
            ns,
            NodeSpec {
                etcd_versions: Vec::new(),
                crds: Vec::new(),
                operator: None,
                etcd_io_operator: false,
                kubeadm: true,
                control_planes,
            },
        )
        .await
    }

    /// The first kubeadm node's etcd PKI folder, on this machine (as only
    /// a test on the node may read it).
    pub fn kubeadm_pki(&self) -> std::path::PathBuf {
        self.node
            .kubeadm_root
            .as_ref()
            .expect("a kubeadm bed")
            .join("etc/kubernetes/pki/etcd")
    }

    /// The first kubeadm node's member's client URL.
    pub fn kubeadm_url(&self) -> String {
        format!("https://{}:2379", kubectl_etcd_testbed::node::NODE_IP)
    }

    /// A client of the first kubeadm node's member, with kubeadm's
    /// healthcheck-client certificate from [`Bed::kubeadm_pki`].
    pub async fn kubeadm_etcd(&self) -> etcd_client::Client {
        use etcd_client::{Certificate, ConnectOptions, Identity, TlsOptions};
        let pki = self.kubeadm_pki();
        let read = |f: &str| std::fs::read(pki.join(f)).unwrap();
        let tls = TlsOptions::new()
            .ca_certificate(Certificate::from_pem(read("ca.crt")))
            .identity(Identity::from_pem(
                read("healthcheck-client.crt"),
                read("healthcheck-client.key"),
            ))
            .domain_name(kubectl_etcd_testbed::node::NODE_NAME);
        etcd_client::Client::connect(
            [self.kubeadm_url()],
            Some(ConnectOptions::new().with_tls(tls)),
        )
        .await
        .unwrap()
    }

    async fn start_node(ns: &str, which: Operator, etcd_io_operator: bool) -> Bed {
        let crds = match which {
            Operator::WithDefrag => Vec::new(),
            Operator::Inert => crd_files(),
        };
        let spec = NodeSpec {
            etcd_versions: vec![kubectl_etcd_testbed::EtcdVersion::V3_6],
            crds,
            operator: Some(which),
            etcd_io_operator,
            kubeadm: false,
            control_planes: 1,
        };
        Bed::start_spec(ns, spec).await
    }

    async fn start_spec(ns: &str, spec: NodeSpec) -> Bed {
        let node = Node::start(spec)
            .await
            .unwrap_or_else(|e| panic!("node: {e}"));
        let client = node.api.admin_client(None).await.unwrap();
        let kubeconfig = node.kubeconfig().unwrap();
        namespace(&client, ns).await;
        Bed {
            node,
            client,
            kubeconfig,
            path: plugin_path(&format!("operator-{ns}"), Completer::Symlink),
            ns: ns.to_string(),
        }
    }

    /// `kubectl etcd ARGS… -n NS` through the real kubectl.
    pub async fn etcd(&self, args: &[&str]) -> Run {
        let mut all = vec!["etcd"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-n", &self.ns]);
        let kc = self.kubeconfig.display().to_string();
        kubectl(&self.path, &all, &[("KUBECONFIG", kc.as_str())]).await
    }

    /// `kubectl etcd ARGS… -n NS` through the real kubectl, started: the
    /// process (kubectl runs the plugin in its place), killed on drop.
    pub fn spawn_etcd(&self, args: &[&str]) -> tokio::process::Child {
        let kc = self.kubeconfig.display().to_string();
        tokio::process::Command::new(kubectl_bin())
            .env_clear()
            .env("PATH", &self.path.path)
            .env("HOME", std::env::temp_dir())
            .env("NO_COLOR", "1")
            .env("KUBECONFIG", kc)
            .arg("etcd")
            .args(args)
            .args(["-n", &self.ns])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn kubectl")
    }

    /// `kubectl port-forward TARGET :PORT` in the namespace: the process
    /// (killed on drop) and the local port.
    pub async fn forward(&self, target: &str, port: u16) -> (tokio::process::Child, u16) {
        port_forward(&self.kubeconfig, &self.ns, target, port).await
    }

    /// `kubectl ARGS…` through the real kubectl, on this node.
    pub async fn kubectl(&self, args: &[&str]) -> Run {
        let kc = self.kubeconfig.display().to_string();
        kubectl(&self.path, args, &[("KUBECONFIG", kc.as_str())]).await
    }

    pub fn clusters(&self) -> Api<DynamicObject> {
        dynamic(&self.client, &self.ns, "EtcdCluster", "etcdclusters")
    }

    /// The member Pods of `cluster`, by name.
    pub async fn members(&self, cluster: &str) -> Vec<String> {
        self.pods_labelled(&format!("etcd-operator.cozystack.io/cluster={cluster}"))
            .await
    }

    /// The Pods labelled `selector`, by name.
    pub async fn pods_labelled(&self, selector: &str) -> Vec<String> {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
        let mut names: Vec<String> = pods
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|p| p.metadata.name)
            .collect();
        names.sort();
        names
    }

    /// Each member's own log (its container's, as the kubelet serves it).
    pub async fn logs(&self, members: &[String]) -> Vec<String> {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
        let mut out = Vec::new();
        for m in members {
            out.push(pods.logs(m, &LogParams::default()).await.unwrap());
        }
        out
    }

    /// Waits until Deployment `ns/name` has its one replica ready (at
    /// most 120 s): the Deployments of `deploy/` applied as committed.
    pub async fn wait_deployment_ready(&self, ns: &str, name: &str) {
        use k8s_openapi::api::apps::v1::Deployment;
        let deployments: Api<Deployment> = Api::namespaced(self.client.clone(), ns);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        while deployments
            .get(name)
            .await
            .unwrap()
            .status
            .and_then(|s| s.ready_replicas)
            != Some(1)
        {
            assert!(
                tokio::time::Instant::now() < deadline,
                "Deployment {ns}/{name} never became ready"
            );
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// Waits until the operator reports `name` Available with every
    /// member ready.
    pub async fn wait_ready(&self, name: &str, replicas: i64) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
        loop {
            let obj = self.clusters().get(name).await.unwrap();
            let status = obj.data["status"].clone();
            let available = status["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Available" && c["status"] == "True");
            if available && status["readyMembers"].as_i64() == Some(replicas) {
                return status;
            }
            if tokio::time::Instant::now() > deadline {
                let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
                let states: Vec<String> = pods
                    .list(&ListParams::default())
                    .await
                    .unwrap()
                    .items
                    .iter()
                    .map(|p| format!("{:?}: {:?}", p.metadata.name, p.status))
                    .collect();
                panic!(
                    "EtcdCluster {name} not ready: {status}\npods: {states:#?}\nkubelet:\n{}",
                    self.node.log_tail("kubelet", 20)
                );
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// Creates EtcdCluster `name` (3.6, `replicas` members, volumes of
    /// `size`), with `tls` as its `spec.tls` unless null.
    pub async fn create_cluster(&self, name: &str, replicas: i64, size: &str, tls: Value) {
        let mut spec = json!({"replicas": replicas, "version": VERSION, "storage": {"size": size}});
        if !tls.is_null() {
            spec["tls"] = tls;
        }
        self.create_cluster_spec(name, spec).await;
    }

    /// Creates EtcdCluster `name` with `spec` as given.
    pub async fn create_cluster_spec(&self, name: &str, spec: Value) {
        create(
            &self.clusters(),
            json!({
                "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
                "kind": "EtcdCluster",
                "metadata": {"name": name, "namespace": self.ns},
                "spec": spec,
            }),
        )
        .await;
    }

    /// `kubectl apply` of `docs` (one List), through the real kubectl.
    pub async fn apply(&self, docs: Vec<Value>) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(
            file.path(),
            serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": docs}))
                .unwrap(),
        )
        .unwrap();
        self.kubectl(&["apply", "-f", file.path().to_str().unwrap()])
            .await
            .expect_code(0);
    }

    /// When the first node's kubelet began stopping Pod `pod`'s container
    /// (its "Killing container with a grace period" line), in seconds since
    /// the epoch: klog gives the time of day (UTC here), `near` (a moment
    /// on this machine's clock shortly before) gives the date.
    pub fn kubelet_stopped(&self, pod: &str, near: f64) -> f64 {
        let kubelet = self.node.log_tail("kubelet", 4000);
        let killing = kubelet
            .lines()
            .rev()
            .find(|l| l.contains("Killing container with a grace period") && l.contains(pod))
            .unwrap_or_else(|| panic!("the kubelet did not log stopping {pod}"));
        let clock = killing.split_whitespace().nth(1).unwrap();
        let parts: Vec<f64> = clock.split(':').map(|p| p.parse().unwrap()).collect();
        let time_of_day = parts[0] * 3600.0 + parts[1] * 60.0 + parts[2];
        let mut at = (near / 86400.0).floor() * 86400.0 + time_of_day;
        // Past midnight between `near` and the kubelet's line.
        if at < near - 43200.0 {
            at += 86400.0;
        }
        at
    }

    /// The process of member Pod `member`'s (first) container on the node.
    pub async fn member_pid(&self, member: &str) -> nix::unistd::Pid {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
        let container = pods
            .get(member)
            .await
            .unwrap()
            .status
            .and_then(|s| s.container_statuses)
            .and_then(|c| c.into_iter().next())
            .and_then(|c| c.container_id)
            .unwrap_or_else(|| panic!("{member} has no container"));
        nix::unistd::Pid::from_raw(self.node.container_pid(&container).unwrap() as i32)
    }

    /// The Pod address of each of `members`.
    pub async fn pod_ips(&self, members: &[String]) -> Vec<String> {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
        let mut out = Vec::new();
        for m in members {
            let ip = pods
                .get(m)
                .await
                .unwrap()
                .status
                .and_then(|s| s.pod_ip)
                .unwrap_or_else(|| panic!("{m} has no address"));
            out.push(ip);
        }
        out
    }

    /// Where each of `members`' logs stands now, for
    /// [`Bed::wait_for_a_defrag`]: the `defragmenting` records each has
    /// logged since a moment just before this call. The window is fixed
    /// and counted again, so a record of an earlier run still in the log
    /// is never taken for a new one.
    pub async fn defrag_mark(&self, members: &[String]) -> DefragMark {
        let since =
            k8s_openapi::jiff::Timestamp::now() - k8s_openapi::jiff::SignedDuration::from_secs(2);
        let mut counts = Vec::new();
        for m in members {
            counts.push(self.defrags_logged_since(m, since).await);
        }
        DefragMark { since, counts }
    }

    async fn defrags_logged_since(
        &self,
        member: &str,
        since: k8s_openapi::jiff::Timestamp,
    ) -> usize {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.ns);
        let params = LogParams {
            since_time: Some(since),
            ..LogParams::default()
        };
        pods.logs(member, &params)
            .await
            .unwrap()
            .matches("\"msg\":\"defragmenting\"")
            .count()
    }

    /// Waits until one of `members` logs the start of a defragmentation
    /// it had not logged at `mark`.
    pub async fn wait_for_a_defrag(&self, members: &[String], mark: &DefragMark) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            for (m, before) in members.iter().zip(&mark.counts) {
                if self.defrags_logged_since(m, mark.since).await > *before {
                    return;
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no member started defragmenting"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A plaintext client of the member Pods `members` at their addresses.
    pub async fn plain_client_at(&self, members: &[String]) -> etcd_client::Client {
        let endpoints: Vec<String> = self
            .pod_ips(members)
            .await
            .iter()
            .map(|ip| format!("http://{ip}:2379"))
            .collect();
        etcd_client::Client::connect(endpoints, None).await.unwrap()
    }

    /// A plaintext client of `cluster`'s members at their Pod addresses
    /// (the node routes them to this machine), as a client in the cluster
    /// would reach them.
    pub async fn plain_client(&self, cluster: &str) -> etcd_client::Client {
        let members = self.members(cluster).await;
        self.plain_client_at(&members).await
    }
}

/// `kubectl port-forward -n NS TARGET :PORT` with `kubeconfig`: the
/// process (killed on drop) and the local port it listens on.
pub async fn port_forward(
    kubeconfig: &std::path::Path,
    ns: &str,
    target: &str,
    port: u16,
) -> (tokio::process::Child, u16) {
    let mut child = tokio::process::Command::new(kubectl_bin())
        .env("KUBECONFIG", kubeconfig)
        .args(["port-forward", "-n", ns, target, &format!(":{port}")])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("port-forward did not start")
        .unwrap()
        .unwrap();
    // "Forwarding from 127.0.0.1:40123 -> 2379"
    let local = line
        .split(':')
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    // kubectl says "Handling connection …" for every connection: keep
    // reading, or it dies of a closed pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, local)
}

/// Writes about `keep` bytes of values that stay and `drop` bytes that
/// are deleted through `etcd`, then compacts physically: the members'
/// files keep the freed pages, and a defragmentation copies what stays
/// (its time follows `keep`). Returns the revision compacted at.
pub async fn fragment(mut etcd: etcd_client::Client, drop: usize, keep: usize) -> i64 {
    use etcd_client::{CompactionOptions, DeleteOptions, Txn, TxnOp};
    let value = vec![b'x'; 3800];
    for (prefix, bytes) in [("keep", keep), ("frag", drop)] {
        let count = bytes / value.len();
        for chunk in (0..count).collect::<Vec<_>>().chunks(64) {
            let ops: Vec<TxnOp> = chunk
                .iter()
                .map(|i| TxnOp::put(format!("{prefix}/{i:06}"), value.clone(), None))
                .collect();
            etcd.txn(Txn::new().and_then(ops)).await.unwrap();
        }
    }
    let deleted = etcd
        .delete("frag/", Some(DeleteOptions::new().with_prefix()))
        .await
        .unwrap();
    let revision = deleted.header().unwrap().revision();
    etcd.compact(revision, Some(CompactionOptions::new().with_physical()))
        .await
        .unwrap();
    revision
}

/// Asserts no two of `defrags` (from members' own logs, in start order)
/// overlap: never two members defragmenting at once.
pub fn never_together(defrags: &[LoggedDefrag]) {
    for pair in defrags.windows(2) {
        assert!(
            pair[0].end <= pair[1].start,
            "two members defragmented at once: {pair:?}"
        );
    }
}

/// Asserts the members' own logs show exactly one defragmentation each,
/// never two at once, and returns the members in the order they ran.
pub fn one_each_never_together(members: &[String], logs: &[String]) -> Vec<String> {
    let defrags = defrags_in_logs(logs);
    assert_eq!(
        defrags.len(),
        members.len(),
        "defrags in the members' logs: {defrags:?}"
    );
    never_together(&defrags);
    let order: Vec<String> = defrags.iter().map(|d| members[d.member].clone()).collect();
    let mut sorted = order.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), members.len(), "a member twice: {order:?}");
    order
}

/// Each member's count of `defragmenting` records logged since `since`
/// ([`Bed::defrag_mark`]).
pub struct DefragMark {
    since: k8s_openapi::jiff::Timestamp,
    counts: Vec<usize>,
}
