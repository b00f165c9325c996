//! A real one-node Kubernetes cluster: the test bed's kube-apiserver, with
//! kube-controller-manager and kube-scheduler beside it, and a node — a
//! kubelet over containerd and runc, kube-proxy, and a CNI bridge — that
//! runs Pods from images built here ([`crate::image`]), never pulled — and
//! cluster DNS (CoreDNS with its kubernetes plugin) for Service and Pod
//! names.
//!
//! # Confinement
//!
//! Everything the node changes is kept where stopping it removes it:
//! - **network**: the node lives in its own network namespace
//!   (`kubectl-etcd-node-<pid>`), joined to this machine by one veth pair
//!   with addresses from 198.18.0.0/15 (RFC 2544, never a real network).
//!   The Pods' bridge, their veths and every iptables rule kube-proxy and
//!   the CNI plugins write are inside it and go with it;
//! - **mounts**: containerd and the kubelet share a private mount
//!   namespace held by one `sleep` process, so overlay and volume mounts
//!   disappear with the last process in it. In it `/run` is a tmpfs of its
//!   own (containerd's shim sockets, runc's state, the Pods' network
//!   namespace files), `/var/log` is a folder
//!   of the node's (the kubelet writes Pod logs to `/var/log/pods`), and the
//!   kernel settings the kubelet insists on are shown to it as files with
//!   the values it wants, so it never writes the machine's own;
//! - **cgroups**: the kubelet's cgroup root is `/kubectl-etcd-node-<pid>`,
//!   removed at the end;
//! - **processes**: each is started here and stopped by its PID; the
//!   containerd shims (which leave their parent) are found by the socket
//!   they serve, and container processes by the cgroups above.
//!
//! Root here lacks CAP_SYS_RESOURCE, so no process may lower its OOM score
//! below 0 (the Pods' sandboxes ask for -998): containerd is told to keep
//! every container's score at or above its own (`restrict_oom_score_adj`,
//! as for rootless runs).
//!
//! A node whose process dies without stopping it (SIGKILL) is cleaned up by
//! its watchdog, a shell loop that waits for that process to go; and
//! should the watchdog go too, by the next start: namespaces and cgroups
//! named after a dead PID.
//!
//! The components authenticate with the test bed's admin certificate
//! (`system:masters`): the node is a place to run Pods, not a study of
//! node authorization.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use k8s_openapi::api::core::v1::Node as KubeNode;
use kube::api::Api;

use crate::apiserver::{ApiServer, Context, ServerOptions};
use crate::bins::{self, EtcdVersion, KubeRelease};
use crate::image::{ImageFile, ImageSpec};
use crate::{operator, storage, Result};

/// This machine's end of the veth pair: where the API server listens.
pub const HOST_IP: &str = "198.18.255.1";
/// The node's address (the kubelet's, and the source of Pod traffic).
pub const NODE_IP: &str = "198.18.255.2";
/// The Pods' addresses.
pub const POD_CIDR: &str = "198.18.0.0/24";
/// The Services' cluster IPs; the `kubernetes` Service is the first.
pub const SERVICE_CIDR: &str = "198.19.0.0/24";
/// The cluster DNS Service's address.
pub const DNS_IP: &str = "198.19.0.10";
/// The name of the one Node.
pub const NODE_NAME: &str = "testbed-node";
/// The sandbox image every Pod starts with.
pub const PAUSE_IMAGE: &str = "localhost/pause:testbed";
/// The repository of the etcd images (`<repository>:v<version>`).
pub const ETCD_REPOSITORY: &str = "localhost/etcd";

/// Names of what a node creates, after the PID of the process that
/// started it: how a later start recognises leftovers of a dead one.
const PREFIX: &str = "kubectl-etcd-node-";

/// What to start.
#[derive(Debug, Clone)]
pub struct NodeSpec {
    /// The etcd releases to build images for.
    pub etcd_versions: Vec<EtcdVersion>,
    /// CRD files to install (after the operator's, which they replace
    /// when they define the same CRD).
    pub crds: Vec<PathBuf>,
    /// Run this build of the real etcd-operator ([`crate::operator`]),
    /// with the CRDs of its own chart.
    pub operator: Option<operator::Operator>,
    /// Run the etcd project's own operator too ([`crate::etcdio_operator`]),
    /// with its CRD.
    pub etcd_io_operator: bool,
    /// Make the node a kubeadm control plane ([`crate::kubeadm`]): etcd as
    /// kubeadm's static Pod, from kubeadm's own certificates and manifest,
    /// and the node labelled and tainted as kubeadm marks one.
    pub kubeadm: bool,
    /// With `kubeadm`: how many control-plane nodes, their etcd members
    /// one cluster (the others are [`crate::peers`]).
    pub control_planes: usize,
}

impl Default for NodeSpec {
    fn default() -> Self {
        NodeSpec {
            etcd_versions: vec![EtcdVersion::V3_6],
            crds: Vec::new(),
            operator: None,
            etcd_io_operator: false,
            kubeadm: false,
            control_planes: 1,
        }
    }
}

/// A running node and its control plane. Dropping it stops everything it
/// started and removes what it created.
pub struct Node {
    pub api: ApiServer,
    dir: tempfile::TempDir,
    cgroup: String,
    host_link: String,
    /// Started processes, in start order (stopped in reverse).
    procs: crate::host::Procs,
    /// The images imported, by name.
    pub images: Vec<String>,
    /// kubeadm's root ([`crate::kubeadm::ROOT`]) for a kubeadm control
    /// plane.
    pub kubeadm_root: Option<PathBuf>,
    /// The other control-plane nodes of a kubeadm control plane.
    pub peers: Vec<crate::peers::Peer>,
    /// How many control-plane nodes it has, this one included.
    pub control_planes: usize,
    /// Offers released volumes again ([`storage::recycle`]).
    recycler: Option<tokio::task::JoinHandle<()>>,
    /// This process's turn to run a node ([`TURN`]), given back last, once
    /// everything above is stopped and removed.
    _turn: tokio::sync::SemaphorePermit<'static>,
}

/// One node at a time in this process: its names (after the process id)
/// and its addresses are fixed, so a second one waits for the first to be
/// dropped instead of failing. Tests of one binary run in threads of one
/// process, and each of the real node's tests starts a node of its own.
static TURN: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

pub(crate) fn run(what: &str, command: &mut Command) -> Result<String> {
    let out = command
        .output()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", command.get_program()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{what}: {:?} failed ({}): {}",
            command.get_program(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

pub(crate) fn ip(args: &[&str]) -> Result<String> {
    run(
        &format!("ip {}", args.join(" ")),
        Command::new("ip").args(args),
    )
}

pub(crate) fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))
}

/// Whether a PID is a running process.
fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The cgroup v1 hierarchies mounted here (`/sys/fs/cgroup/<name>`).
pub(crate) fn hierarchies() -> Vec<PathBuf> {
    std::fs::read_dir("/sys/fs/cgroup")
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("cgroup.procs").exists())
                .collect()
        })
        .unwrap_or_default()
}

/// Creates the cgroup `root` in every hierarchy (the kubelet wants its
/// cgroup root to exist); a new cpuset gets its parent's CPUs and memory
/// nodes, as cgroup v1 leaves them empty.
pub(crate) fn create_cgroup_root(root: &str) -> Result<()> {
    for h in hierarchies() {
        let dir = h.join(root);
        std::fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        for file in ["cpuset.cpus", "cpuset.mems"] {
            if let Ok(parent) = std::fs::read_to_string(h.join(file)) {
                std::fs::write(dir.join(file), parent.trim())
                    .map_err(|e| format!("write {}: {e}", dir.join(file).display()))?;
            }
        }
    }
    Ok(())
}

/// SIGKILLs every process in the cgroup tree `root` (relative to each
/// hierarchy) and removes the tree, deepest first.
pub(crate) fn remove_cgroup_tree(root: &str) {
    for h in hierarchies() {
        let top = h.join(root);
        if !top.exists() {
            continue;
        }
        let mut dirs = Vec::new();
        let mut stack = vec![top.clone()];
        while let Some(d) = stack.pop() {
            if let Ok(entries) = std::fs::read_dir(&d) {
                stack.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
            }
            dirs.push(d);
        }
        for d in &dirs {
            let procs = std::fs::read_to_string(d.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        // Deepest first: a cgroup goes only once its children have.
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            for _ in 0..50 {
                if std::fs::remove_dir(&d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// The PIDs of the containerd shims serving `socket` (they leave their
/// parent, so they are found by what they were started with).
pub(crate) fn shims_of(socket: &Path) -> Vec<i32> {
    let socket = socket.display().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // By the program's name, not its command line: a shell whose
            // script mentions both (the watchdog) is no shim.
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            comm.trim() == "containerd-shim" && String::from_utf8_lossy(&cmd).contains(&socket)
        })
        .collect()
}

/// Removes what nodes of dead processes left: their network namespaces
/// and cgroup trees.
pub fn clean_leftovers() {
    let dead = |name: &str| {
        name.strip_prefix(PREFIX)
            .and_then(|p| p.split('-').next()?.parse::<u32>().ok())
            .is_some_and(|pid| !alive(pid))
    };
    if let Ok(entries) = std::fs::read_dir("/run/netns") {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if dead(&name) {
                let _ = ip(&["netns", "del", &name]);
            }
        }
    }
    let mut roots = std::collections::BTreeSet::new();
    for h in hierarchies() {
        if let Ok(entries) = std::fs::read_dir(&h) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if dead(&name) {
                    roots.insert(name);
                }
            }
        }
    }
    for root in roots {
        remove_cgroup_tree(&root);
    }
}

impl Node {
    /// Starts the control plane and the node, imports the images, and
    /// waits until the Node is Ready.
    pub async fn start(spec: NodeSpec) -> Result<Node> {
        let turn = TURN
            .acquire()
            .await
            .map_err(|e| format!("wait for this process's previous node: {e}"))?;
        clean_leftovers();
        // One node per machine: its addresses are fixed. (Another process's:
        // this process's previous node is gone once `turn` is ours.)
        if let Ok(entries) = std::fs::read_dir("/run/netns") {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(pid) = name.strip_prefix(PREFIX).and_then(|p| p.split('-').next()) {
                    return Err(format!(
                        "another test bed node is running (process {pid}); stop it first"
                    ));
                }
            }
        }
        let id = format!("{PREFIX}{}", std::process::id());
        let dir = tempfile::Builder::new()
            .prefix("kubectl-etcd-node-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let short = format!("ke{}", std::process::id() % 1_000_000);
        // The network first: the API server listens on this end of it.
        ip(&["netns", "add", &id])?;
        let mut node_guard = NetGuard {
            netns: Some(id.clone()),
        };
        let host_link = format!("{short}h");
        ip(&[
            "link", "add", &host_link, "type", "veth", "peer", "name", "eth0", "netns", &id,
        ])?;
        ip(&["addr", "add", &format!("{HOST_IP}/30"), "dev", &host_link])?;
        ip(&["link", "set", &host_link, "up"])?;
        ip(&[
            "-n",
            &id,
            "addr",
            "add",
            &format!("{NODE_IP}/30"),
            "dev",
            "eth0",
        ])?;
        ip(&["-n", &id, "link", "set", "eth0", "up"])?;
        ip(&["-n", &id, "link", "set", "lo", "up"])?;
        ip(&["-n", &id, "route", "add", "default", "via", HOST_IP])?;
        // Pod addresses are reachable from this machine through the node
        // (tests write to members directly, as a client in the cluster
        // would); the route goes with the link.
        ip(&["route", "add", POD_CIDR, "via", NODE_IP, "dev", &host_link])?;

        let options = ServerOptions {
            bind: HOST_IP.into(),
            service_cidr: SERVICE_CIDR.into(),
            service_accounts: true,
            kubelet_ips: std::iter::once(NODE_IP.to_string())
                .chain((2..=spec.control_planes).map(crate::peers::address))
                .collect(),
            extra_names: [
                "198.19.0.1",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "kubernetes.default.svc.cluster.local",
            ]
            .map(String::from)
            .to_vec(),
        };
        let mut crds = match spec.operator {
            Some(which) => operator::crds(which)?,
            None => Vec::new(),
        };
        if spec.etcd_io_operator {
            crds.extend(crate::etcdio_operator::crds()?);
        }
        crds.extend(spec.crds.iter().cloned());
        let api = ApiServer::start_for(KubeRelease::Current, &crds, "", None, &options).await?;
        let dir_path = dir.path().to_path_buf();
        let mut node = Node {
            api,
            dir,
            cgroup: id.clone(),
            host_link,
            procs: crate::host::Procs::new(dir_path.clone(), &id),
            images: Vec::new(),
            kubeadm_root: None,
            peers: Vec::new(),
            control_planes: spec.control_planes.max(1),
            recycler: None,
            _turn: turn,
        };
        node_guard.netns = None;
        node.grant_kubelet_access().await?;
        node.start_control_plane()?;
        if spec.kubeadm {
            // A small quota, as the bed's other clusters have: a few
            // dozen MiB to give back is worth a defrag.
            let initial = crate::peers::initial_cluster(spec.control_planes);
            node.kubeadm_root = Some(crate::kubeadm::lay_out(
                node.dir.path(),
                NODE_NAME,
                NODE_IP,
                &crate::peers::etcd_args(&initial),
                None,
            )?);
        }
        node.start_runtime()?;
        node.import_images(&spec)?;
        node.start_kubelet_and_proxy()?;
        node.start_dns().await?;
        node.wait_ready(Duration::from_secs(120)).await?;
        if spec.kubeadm {
            node.mark_control_plane(NODE_NAME).await?;
            for i in 2..=spec.control_planes {
                let peer = crate::peers::Peer::start(&node, i).await?;
                node.peers.push(peer);
            }
        }
        node.start_watchdog()?;
        node.start_storage().await?;
        if let Some(which) = spec.operator {
            let client = node.api.admin_client(None).await?;
            operator::deploy(client.clone(), which, ETCD_REPOSITORY).await?;
            operator::wait_available(client, Duration::from_secs(90)).await?;
        }
        if spec.etcd_io_operator {
            let client = node.api.admin_client(None).await?;
            crate::etcdio_operator::deploy(client.clone(), ETCD_REPOSITORY).await?;
            crate::etcdio_operator::wait_available(client, Duration::from_secs(90)).await?;
        }
        Ok(node)
    }

    /// Lets the API server's kubelet client (logs, exec, port-forward)
    /// through the kubelet's webhook authorization, as kubeadm does.
    async fn grant_kubelet_access(&self) -> Result<()> {
        use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleRef, Subject};
        let client = self.api.admin_client(None).await?;
        let bindings: Api<ClusterRoleBinding> = Api::all(client);
        let binding = ClusterRoleBinding {
            metadata: kube::api::ObjectMeta {
                name: Some("testbed:kube-apiserver-kubelet-client".into()),
                ..Default::default()
            },
            role_ref: RoleRef {
                api_group: Some("rbac.authorization.k8s.io".into()),
                kind: "ClusterRole".into(),
                name: "system:kubelet-api-admin".into(),
            },
            subjects: Some(vec![Subject {
                kind: "User".into(),
                name: "kube-apiserver-kubelet-client".into(),
                api_group: Some("rbac.authorization.k8s.io".into()),
                namespace: None,
            }]),
        };
        bindings
            .create(&kube::api::PostParams::default(), &binding)
            .await
            .map_err(|e| format!("grant the API server access to the kubelet: {e}"))?;
        Ok(())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Starts `program` with `args`, its output in `<dir>/<name>.log`.
    fn spawn(&mut self, name: &'static str, program: &Path, args: &[String]) -> Result<()> {
        self.procs.spawn(name, program, args)
    }

    /// Starts `program` inside the node: its network namespace and the
    /// shared mount namespace held by the `holder` process.
    fn spawn_in_node(&mut self, name: &'static str, program: &Path, args: &[String]) -> Result<()> {
        self.procs.spawn_in_node(name, program, args)
    }

    fn start_control_plane(&mut self) -> Result<()> {
        let kubeconfig = self.api.write_kubeconfig(
            "admin.kubeconfig",
            &[Context {
                name: "admin".into(),
                namespace: None,
                impersonate: None,
            }],
        )?;
        let kubeconfig = kubeconfig.display().to_string();
        let api_dir = self.api.dir().to_path_buf();
        self.spawn(
            "kube-controller-manager",
            &bins::node_command("kube-controller-manager")?,
            &[
                format!("--kubeconfig={kubeconfig}"),
                "--leader-elect=false".into(),
                format!(
                    "--service-account-private-key-file={}",
                    api_dir.join("sa.key").display()
                ),
                format!("--root-ca-file={}", api_dir.join("ca.crt").display()),
                "--secure-port=0".into(),
                format!("--cluster-cidr={POD_CIDR}"),
                format!("--service-cluster-ip-range={SERVICE_CIDR}"),
                "--v=1".into(),
            ],
        )?;
        self.spawn(
            "kube-scheduler",
            &bins::node_command("kube-scheduler")?,
            &[
                format!("--kubeconfig={kubeconfig}"),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
                "--v=1".into(),
            ],
        )?;
        Ok(())
    }

    /// The mount namespace holder, then containerd in it.
    fn start_runtime(&mut self) -> Result<()> {
        let root = self.kubeadm_root.clone();
        self.procs.start_runtime(root.as_deref(), POD_CIDR)
    }

    /// containerd's socket.
    pub fn socket(&self) -> PathBuf {
        self.path("containerd.sock")
    }

    /// `ctr` against this node's containerd, in the Kubernetes namespace.
    fn ctr(&self, args: &[&str]) -> Result<String> {
        self.procs.ctr(args)
    }

    /// Builds and imports an image.
    pub fn import(&mut self, spec: &ImageSpec) -> Result<()> {
        self.procs.import(spec)?;
        self.images.push(spec.name.clone());
        Ok(())
    }

    /// The host PID of a container's main process, from its ID as a Pod's
    /// status gives it (`containerd://<id>` or the bare ID): for tests
    /// that stop or freeze a container's process directly.
    pub fn container_pid(&self, container_id: &str) -> Result<u32> {
        let id = container_id
            .strip_prefix("containerd://")
            .unwrap_or(container_id);
        let out = self.ctr(&["tasks", "ls"])?;
        out.lines()
            .filter_map(|l| {
                let mut cols = l.split_whitespace();
                Some((cols.next()?, cols.next()?.parse::<u32>().ok()?))
            })
            .find(|(task, _)| *task == id)
            .map(|(_, pid)| pid)
            .ok_or_else(|| format!("no running task for container {id}:\n{out}"))
    }

    /// Imports an image archive (OCI or `docker-archive`) named `name`.
    pub fn import_archive(&mut self, file: &Path, name: &str) -> Result<()> {
        self.ctr(&["images", "import", &file.display().to_string()])?;
        self.images.push(name.to_string());
        Ok(())
    }

    fn import_images(&mut self, spec: &NodeSpec) -> Result<()> {
        self.import(&pause_image()?)?;
        for version in &spec.etcd_versions {
            self.import(&etcd_image(*version, &release_of(*version)?)?)?;
        }
        if let Some(which) = spec.operator {
            self.import(&operator::image(which)?)?;
        }
        if spec.etcd_io_operator {
            self.import(&crate::etcdio_operator::image()?)?;
        }
        if let Some(root) = self.kubeadm_root.clone() {
            self.import(&crate::kubeadm::etcd_image(&root)?)?;
        }
        Ok(())
    }

    /// Labels and taints the Node as kubeadm's `mark-control-plane` phase
    /// does.
    pub(crate) async fn mark_control_plane(&self, name: &str) -> Result<()> {
        let client = self.api.admin_client(None).await?;
        let nodes: Api<KubeNode> = Api::all(client);
        let patch = serde_json::json!({
            "metadata": {"labels": {
                "node-role.kubernetes.io/control-plane": "",
                "node.kubernetes.io/exclude-from-external-load-balancers": "",
            }},
            "spec": {"taints": [{
                "key": "node-role.kubernetes.io/control-plane",
                "effect": "NoSchedule",
            }]},
        });
        nodes
            .patch(
                name,
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&patch),
            )
            .await
            .map_err(|e| format!("mark {name} a control plane: {e}"))?;
        Ok(())
    }

    /// The default StorageClass and its volumes, in the node's folder.
    async fn start_storage(&mut self) -> Result<()> {
        let client = self.api.admin_client(None).await?;
        let root = self.path("volumes");
        storage::provide(client.clone(), &root, NODE_NAME).await?;
        self.recycler = Some(tokio::spawn(storage::recycle(client, root)));
        Ok(())
    }

    fn start_kubelet_and_proxy(&mut self) -> Result<()> {
        let api_dir = self.api.dir().to_path_buf();
        let kubeconfig = api_dir.join("admin.kubeconfig").display().to_string();
        let config = kubelet_config(
            self.dir.path(),
            &self.api,
            NODE_IP,
            &self.cgroup,
            &self.socket(),
            self.kubeadm_root.is_some(),
        )?;
        create_cgroup_root(&self.cgroup)?;
        let kubelet = bins::node_command("kubelet")?;
        let root = self.path("kubelet");
        self.spawn_in_node(
            "kubelet",
            &kubelet,
            &[
                format!("--config={}", config.display()),
                format!("--kubeconfig={kubeconfig}"),
                format!("--hostname-override={NODE_NAME}"),
                format!("--node-ip={NODE_IP}"),
                format!("--root-dir={}", root.display()),
                format!("--cert-dir={}", self.path("kubelet-pki").display()),
                // Level 2 records when it stops a container ("Killing
                // container with a grace period"): when a Pod got SIGTERM.
                "--v=2".into(),
            ],
        )?;
        let proxy_config = self.path("kube-proxy.yaml");
        write(
            &proxy_config,
            &format!(
                r#"apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: {kubeconfig}
hostnameOverride: {NODE_NAME}
mode: iptables
clusterCIDR: {POD_CIDR}
bindAddress: {NODE_IP}
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
iptables:
  masqueradeAll: true
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
"#
            ),
        )?;
        let proxy = bins::node_command("kube-proxy")?;
        self.spawn_in_node(
            "kube-proxy",
            &proxy,
            &[
                format!("--config={}", proxy_config.display()),
                "--v=1".into(),
            ],
        )?;
        Ok(())
    }

    /// The cluster DNS: CoreDNS in the node's network namespace (on every
    /// address there), and the `kube-dns` Service at [`DNS_IP`] whose one
    /// endpoint is the node, which the kubelet names in every Pod's
    /// resolv.conf.
    async fn start_dns(&mut self) -> Result<()> {
        use k8s_openapi::api::core::v1::Service;
        use k8s_openapi::api::discovery::v1::EndpointSlice;
        let kubeconfig = self.api.dir().join("admin.kubeconfig");
        let corefile = self.path("Corefile");
        write(
            &corefile,
            &format!(
                ".:53 {{\n    errors\n    kubernetes cluster.local in-addr.arpa ip6.arpa {{\n        kubeconfig {} admin\n        pods insecure\n        fallthrough in-addr.arpa ip6.arpa\n        ttl 5\n    }}\n}}\n",
                kubeconfig.display()
            ),
        )?;
        let coredns = bins::coredns()?;
        self.spawn_in_node(
            "coredns",
            &coredns,
            &[format!("-conf={}", corefile.display())],
        )?;
        let client = self.api.admin_client(None).await?;
        let services: Api<Service> = Api::namespaced(client.clone(), "kube-system");
        let slices: Api<EndpointSlice> = Api::namespaced(client, "kube-system");
        let service: Service = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns", "labels": {"k8s-app": "kube-dns"}},
            "spec": {
                "clusterIP": DNS_IP,
                "ports": [
                    {"name": "dns", "protocol": "UDP", "port": 53, "targetPort": 53},
                    {"name": "dns-tcp", "protocol": "TCP", "port": 53, "targetPort": 53},
                ],
            },
        }))
        .map_err(|e| e.to_string())?;
        let slice: EndpointSlice = serde_json::from_value(serde_json::json!({
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": "kube-dns-testbed",
                "labels": {
                    "kubernetes.io/service-name": "kube-dns",
                    "endpointslice.kubernetes.io/managed-by": "testbed",
                },
            },
            "addressType": "IPv4",
            "endpoints": [{"addresses": [NODE_IP], "conditions": {"ready": true}}],
            "ports": [
                {"name": "dns", "protocol": "UDP", "port": 53},
                {"name": "dns-tcp", "protocol": "TCP", "port": 53},
            ],
        }))
        .map_err(|e| e.to_string())?;
        let pp = kube::api::PostParams::default();
        services
            .create(&pp, &service)
            .await
            .map_err(|e| format!("create the kube-dns Service: {e}"))?;
        slices
            .create(&pp, &slice)
            .await
            .map_err(|e| format!("create the kube-dns EndpointSlice: {e}"))?;
        Ok(())
    }

    /// A small process that, once this process is gone without stopping
    /// the node (SIGKILL, a panic that aborts), does what `Drop` would:
    /// SIGKILLs every process the node started (and the shims and
    /// containers, found by socket and cgroup), removes its cgroups and
    /// network namespace, and deletes its folders.
    fn start_watchdog(&self) -> Result<()> {
        let mut dirs = vec![self.dir.path().to_path_buf()];
        dirs.extend(self.api.dirs().iter().map(|d| d.to_path_buf()));
        watchdog(
            &self.pids(),
            &dirs,
            &self.socket(),
            &self.cgroup,
            self.procs.netns(),
            &self.host_link,
        )
    }

    /// The last `lines` lines of a component's log.
    pub fn log_tail(&self, name: &str, lines: usize) -> String {
        self.procs.log_tail(name, lines)
    }

    async fn wait_ready(&mut self, limit: Duration) -> Result<()> {
        let client = self.api.admin_client(None).await?;
        self.procs.wait_ready(client, NODE_NAME, limit).await
    }

    /// A kubeconfig for this cluster (admin), written into the node's
    /// folder.
    pub fn kubeconfig(&self) -> Result<PathBuf> {
        self.api.write_kubeconfig(
            "kubeconfig",
            &[Context {
                name: "testbed-node".into(),
                namespace: None,
                impersonate: None,
            }],
        )
    }

    /// The PIDs of everything the node runs now: the processes it
    /// started, the API server and its etcd, and containerd's shims.
    pub fn pids(&self) -> Vec<u32> {
        let mut pids = self.procs.pids();
        pids.extend(self.api.pids());
        pids.extend(shims_of(&self.socket()).into_iter().map(|p| p as u32));
        pids
    }

    /// The node's cgroup root (relative to each hierarchy).
    pub fn cgroup(&self) -> &str {
        &self.cgroup
    }

    /// The node's folder (logs, configuration, containerd's state).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The name of the node's network namespace.
    pub fn netns(&self) -> &str {
        self.procs.netns()
    }
}

/// Writes a kubelet's configuration under `dir`: serving at `ip` with
/// the bed's kubelet certificate, its cgroups under `cgroup`, containerd
/// at `socket`, static Pods from `/etc/kubernetes/manifests` when
/// `static_pods`; the file.
pub(crate) fn kubelet_config(
    dir: &Path,
    api: &ApiServer,
    ip: &str,
    cgroup: &str,
    socket: &Path,
    static_pods: bool,
) -> Result<PathBuf> {
    let api_dir = api.dir().to_path_buf();
    // The kubelet's serving certificate, for the node's address.
    let serving = &api.kubelet_serving;
    let cert = dir.join("kubelet.crt");
    let key = dir.join("kubelet.key");
    write(&cert, &serving.cert_pem)?;
    write(&key, &serving.key_pem)?;
    let resolv = dir.join("resolv.conf");
    write(&resolv, &format!("nameserver {DNS_IP}\n"))?;
    let config = dir.join("kubelet.yaml");
    write(
        &config,
        &format!(
            r#"apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: {ip}
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: {ca}
authorization:
  mode: Webhook
tlsCertFile: {cert}
tlsPrivateKeyFile: {key}
cgroupDriver: cgroupfs
cgroupRoot: /{cgroup}
cgroupsPerQOS: true
containerRuntimeEndpoint: unix://{sock}
failSwapOn: false
failCgroupV1: false
clusterDNS: [{DNS_IP}]
clusterDomain: cluster.local
resolvConf: {resolv}
evictionHard:
  memory.available: "0%"
  nodefs.available: "0%"
  imagefs.available: "0%"
  nodefs.inodesFree: "0%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
localStorageCapacityIsolation: true
{static_pods}"#,
            ca = api_dir.join("ca.crt").display(),
            cert = cert.display(),
            key = key.display(),
            cgroup = cgroup,
            sock = socket.display(),
            resolv = resolv.display(),
            static_pods = if static_pods {
                "staticPodPath: /etc/kubernetes/manifests\n"
            } else {
                ""
            },
        ),
    )?;
    Ok(config)
}

/// A small process that, once this process is gone without stopping a
/// node (SIGKILL, a panic that aborts), does what `Drop` would: SIGKILLs
/// `pids` (and the shims of `socket`, and what runs in the cgroup tree
/// `cgroup`), removes those cgroups, the network namespace `netns` and the
/// link `link`, and deletes `dirs`.
pub(crate) fn watchdog(
    pids: &[u32],
    dirs: &[PathBuf],
    socket: &Path,
    cgroup: &str,
    netns: &str,
    link: &str,
) -> Result<()> {
    let pids: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let cgroups: Vec<String> = hierarchies()
        .iter()
        .map(|h| h.join(cgroup).display().to_string())
        .collect();
    // Pids seen gone are forgotten (see `apiserver::watchdog`): a node
    // stopped by its test leaves nothing for this to kill.
    let script = format!(
        r#"pids="{pids}"
while kill -0 {parent} 2>/dev/null; do
  {forget}
  sleep 0.5
done
[ -z "$pids" ] || kill -9 $pids 2>/dev/null
for p in /proc/[0-9]*; do
  [ "$(cat "$p/comm" 2>/dev/null)" = containerd-shim ] || continue
  if tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -qF "{socket}"; then kill -9 "${{p#/proc/}}" 2>/dev/null; fi
done
for c in {cgroups}; do
  [ -d "$c" ] || continue
  find "$c" -name cgroup.procs -exec cat {{}} + 2>/dev/null | xargs -r kill -9 2>/dev/null
done
sleep 0.5
for c in {cgroups}; do
  [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {{}} + 2>/dev/null
done
ip netns del {netns} 2>/dev/null
ip link del {link} 2>/dev/null
rm -rf -- "$@"
exit 0"#,
        parent = std::process::id(),
        pids = pids.join(" "),
        forget = crate::apiserver::FORGET_GONE,
        socket = socket.display(),
        cgroups = cgroups.join(" "),
        netns = netns,
        link = link,
    );
    Command::new("sh")
        .arg("-c")
        .arg(&script)
        .arg("node-watchdog")
        .args(&dirs)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|e| format!("spawn the node's watchdog: {e}"))
}

/// The sandbox image every Pod starts with ([`PAUSE_IMAGE`]).
pub(crate) fn pause_image() -> Result<ImageSpec> {
    Ok(ImageSpec {
        name: PAUSE_IMAGE.into(),
        files: vec![ImageFile::executable("pause", &bins::pause()?)],
        entrypoint: vec!["/pause".into()],
        ..ImageSpec::default()
    })
}

/// The image of one etcd release: the test bed's static etcd, etcdctl and
/// etcdutl in `/usr/local/bin`, as the upstream image lays them out.
pub fn etcd_image(version: EtcdVersion, release: &str) -> Result<ImageSpec> {
    let mut files = vec![ImageFile::executable(
        "usr/local/bin/etcd",
        &bins::etcd(version)?,
    )];
    files.push(ImageFile::executable(
        "usr/local/bin/etcdctl",
        &bins::etcdctl(version)?,
    ));
    if let Ok(etcdutl) = bins::etcdutl(version) {
        files.push(ImageFile::executable("usr/local/bin/etcdutl", &etcdutl));
    }
    Ok(ImageSpec {
        name: format!("{ETCD_REPOSITORY}:v{release}"),
        files,
        dirs: vec![("tmp".into(), 0o1777), ("var/lib/etcd".into(), 0o700)],
        entrypoint: vec!["/usr/local/bin/etcd".into()],
        env: vec!["PATH=/usr/local/bin:/usr/bin:/bin".into()],
        ..ImageSpec::default()
    })
}

/// The release the bed's etcd of `version` reports (`3.6.16`).
pub(crate) fn release_of(version: EtcdVersion) -> Result<String> {
    let etcd = bins::etcd(version)?;
    let full = Command::new(&etcd)
        .arg("--version")
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&full.stdout);
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("etcd Version: "))
        .ok_or_else(|| format!("{} --version: {text}", etcd.display()))?
        .trim()
        .to_string())
}

/// The path of a program on `PATH`.
pub(crate) fn which(name: &str) -> Result<PathBuf> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("{name} not found: install it (apt-get install {name})"))
}

/// Deletes the network namespace if the start fails before `Node` owns it.
struct NetGuard {
    netns: Option<String>,
}

impl Drop for NetGuard {
    fn drop(&mut self) {
        if let Some(ns) = self.netns.take() {
            let _ = ip(&["netns", "del", &ns]);
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(recycler) = self.recycler.take() {
            recycler.abort();
        }
        // The Pods first, while containerd can still stop them.
        self.procs.remove(&self.cgroup, &self.host_link);
    }
}
