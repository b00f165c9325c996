//! A fake kubelet for one Node (`testbed/go/kubelet`), so that the real
//! API server's `pods/portforward` carries traffic to member Pods bound to
//! that Node: the API server dials the Node's InternalIP (127.0.0.1) at its
//! kubelet port with its kubelet client certificate, and the fake kubelet
//! connects each forwarded stream to the loopback address the mapping table
//! names for that Pod and port.
//!
//! The table is a file the kubelet re-reads for every stream and polls
//! every 50 ms: rewriting an entry (to another address, `refuse` or `hang`)
//! or removing it cuts that Pod port's live streams, which is how a test
//! breaks a forward mid-sweep.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, PostParams};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use crate::apiserver::ApiServer;
use crate::Result;

/// (namespace, pod, port) → target (`HOST:PORT`, `refuse` or `hang`).
type Table = BTreeMap<(String, String, u16), String>;

/// A running fake kubelet and its Node. Dropping it kills the process (the
/// Node object stays; nothing schedules onto it).
pub struct Kubelet {
    /// The Node's name: set it as `spec.nodeName` of the Pods it serves.
    pub node: String,
    /// The kubelet API port on 127.0.0.1.
    pub port: u16,
    dir: tempfile::TempDir,
    table: Mutex<Table>,
    child: Option<Child>,
}

impl ApiServer {
    /// Starts a fake kubelet on a free loopback port and registers Node
    /// `node` (InternalIP 127.0.0.1, that kubelet port) with this server.
    pub async fn start_kubelet(&self, node: &str) -> Result<Kubelet> {
        let binary = crate::bins::fake_kubelet()?;
        let dir = tempfile::Builder::new()
            .prefix("kubectl-etcd-kubelet-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let write = |name: &str, text: &str| -> Result<String> {
            let path = dir.path().join(name);
            std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
            Ok(path.display().to_string())
        };
        let cert = write("kubelet.crt", &self.kubelet_serving.cert_pem)?;
        let key = write("kubelet.key", &self.kubelet_serving.key_pem)?;
        let ca = write("ca.crt", self.ca_pem())?;
        let map = dir.path().join("map");
        let log_path = dir.path().join("kubelet.log");
        let log = File::create(&log_path).map_err(|e| e.to_string())?;
        let child = Command::new(&binary)
            .arg("--listen=127.0.0.1:0")
            .arg(format!("--tls-cert-file={cert}"))
            .arg(format!("--tls-private-key-file={key}"))
            .arg(format!("--client-ca-file={ca}"))
            .arg(format!("--map-file={}", map.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", binary.display()))?;
        let mut kubelet = Kubelet {
            node: node.to_string(),
            port: 0,
            dir,
            table: Mutex::new(Table::new()),
            child: Some(child),
        };
        kubelet.port = kubelet.wait_ready().await?;

        let node_object: Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": node},
            "status": {
                "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": kubelet.port}},
            },
        }))
        .map_err(|e| e.to_string())?;
        let nodes: Api<Node> = Api::all(self.admin_client(None).await?);
        match nodes.create(&PostParams::default(), &node_object).await {
            Ok(_) => {}
            Err(kube::Error::Api(e)) if e.code == 409 => {
                // A Node of that name from an earlier kubelet: point it here.
                let patch = serde_json::json!({"status": node_object.status});
                nodes
                    .patch_status(
                        node,
                        &kube::api::PatchParams::default(),
                        &kube::api::Patch::Merge(&patch),
                    )
                    .await
                    .map_err(|e| format!("update Node {node}: {e}"))?;
            }
            Err(e) => return Err(format!("create Node {node}: {e}")),
        }
        Ok(kubelet)
    }
}

impl Kubelet {
    async fn wait_ready(&mut self) -> Result<u16> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let log = self.log();
            if let Some(rest) = log
                .lines()
                .find_map(|l| l.split("kubelet ready on 127.0.0.1:").nth(1))
            {
                return rest
                    .trim()
                    .parse()
                    .map_err(|e| format!("kubelet ready line {rest:?}: {e}"));
            }
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!("fake kubelet exited ({status}):\n{log}"));
                }
            }
            if Instant::now() > deadline {
                return Err(format!("fake kubelet not ready after 30s:\n{log}"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Forwards to `namespace/pod`'s `port` go to `target`: `HOST:PORT`,
    /// `refuse` or `hang`. Changing an entry cuts that port's live streams.
    pub fn map(&self, namespace: &str, pod: &str, port: u16, target: &str) -> Result<()> {
        let mut table = self.table.lock().map_err(|e| e.to_string())?;
        table.insert(
            (namespace.to_string(), pod.to_string(), port),
            target.to_string(),
        );
        self.write(&table)
    }

    /// Every entry of `namespace` now says `target` (e.g. `refuse`): cuts
    /// every live forward into that namespace and fails new ones.
    pub fn retarget_namespace(&self, namespace: &str, target: &str) -> Result<()> {
        let mut table = self.table.lock().map_err(|e| e.to_string())?;
        for ((ns, _, _), value) in table.iter_mut() {
            if ns == namespace {
                *value = target.to_string();
            }
        }
        self.write(&table)
    }

    /// Writes the table atomically (a temporary file renamed over).
    fn write(&self, table: &Table) -> Result<()> {
        let mut text = String::new();
        for ((ns, pod, port), target) in table {
            text.push_str(&format!("{ns}/{pod} {port} {target}\n"));
        }
        let tmp = self.dir.path().join("map.tmp");
        let path = self.dir.path().join("map");
        std::fs::write(&tmp, text).map_err(|e| format!("write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &path).map_err(|e| format!("rename {}: {e}", path.display()))
    }

    /// SIGUSR1: cuts every live stream with an error, as a kubelet restart
    /// or a broken node connection would.
    pub fn cut_all(&self) -> Result<()> {
        let pid = self.pid().ok_or("the fake kubelet is not running")?;
        kill(Pid::from_raw(pid as i32), Signal::SIGUSR1).map_err(|e| e.to_string())
    }

    /// What the kubelet logged (one line per stream opened, closed or cut).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("kubelet.log")).unwrap_or_default()
    }

    /// The process id, for a watchdog.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// The folder it writes to, for a watchdog.
    pub fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
