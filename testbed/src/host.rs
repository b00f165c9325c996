//! What every node of the test bed runs its processes with (the first
//! node, [`crate::node`], and a kubeadm control plane's others,
//! [`crate::peers`]): its processes, each started here with its output in
//! the node's folder and stopped by PID; the mount namespace holder and
//! containerd in the node's namespaces; `ctr` against that containerd;
//! and the wait for its Node to be Ready.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Node as KubeNode;
use kube::api::Api;

use crate::node::{run, which, write, PAUSE_IMAGE};
use crate::Result;

/// A node's processes, in start order (stopped in reverse).
pub(crate) struct Procs {
    dir: PathBuf,
    netns: String,
    children: Vec<(&'static str, Child)>,
}

impl Procs {
    /// The processes of a node whose folder is `dir` and whose network
    /// namespace is `netns`.
    pub fn new(dir: PathBuf, netns: &str) -> Procs {
        Procs {
            dir,
            netns: netns.to_string(),
            children: Vec::new(),
        }
    }

    /// Starts `program` with `args`, its output in `<dir>/<name>.log`.
    pub fn spawn(&mut self, name: &'static str, program: &Path, args: &[String]) -> Result<()> {
        let log = std::fs::File::create(self.dir.join(format!("{name}.log")))
            .map_err(|e| e.to_string())?;
        let log2 = log.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2)
            .spawn()
            .map_err(|e| format!("spawn {name} ({}): {e}", program.display()))?;
        self.children.push((name, child));
        Ok(())
    }

    /// Starts `program` inside the node: its network namespace and the
    /// mount namespace held by the `holder` process.
    pub fn spawn_in_node(
        &mut self,
        name: &'static str,
        program: &Path,
        args: &[String],
    ) -> Result<()> {
        let holder = self
            .children
            .iter()
            .find(|(n, _)| *n == "holder")
            .map(|(_, c)| c.id())
            .ok_or("the node's mount namespace is not held")?;
        let mut full = vec![
            format!("--mount=/proc/{holder}/ns/mnt"),
            format!("--net=/run/netns/{}", self.netns),
            "--".into(),
            program.display().to_string(),
        ];
        full.extend(args.iter().cloned());
        self.spawn(name, Path::new("nsenter"), &full)
    }

    /// The mount namespace holder ([`holder_script`]), then containerd in
    /// it, its Pods in `subnet`.
    pub fn start_runtime(&mut self, kubeadm_root: Option<&Path>, subnet: &str) -> Result<()> {
        let script = holder_script(&self.dir, kubeadm_root)?;
        self.spawn(
            "holder",
            Path::new("unshare"),
            &[
                "--mount".into(),
                "--propagation".into(),
                "private".into(),
                "sh".into(),
                "-c".into(),
                script,
            ],
        )?;
        let holder = self.children.last().map(|(_, c)| c.id()).unwrap_or(0);
        wait_for_holder(holder, &self.dir.join("holder.log"))?;
        let config = containerd_config(&self.dir, &self.socket(), subnet)?;
        let containerd = which("containerd")?;
        self.spawn_in_node(
            "containerd",
            &containerd,
            &[format!("--config={}", config.display())],
        )?;
        wait_for_socket(&self.socket(), &self.dir.join("containerd.log"))
    }

    /// The node's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The node's network namespace.
    pub fn netns(&self) -> &str {
        &self.netns
    }

    /// containerd's socket.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("containerd.sock")
    }

    /// `ctr` against the node's containerd, in the Kubernetes namespace.
    pub fn ctr(&self, args: &[&str]) -> Result<String> {
        let socket = self.socket().display().to_string();
        let mut full = vec!["-a", socket.as_str(), "-n", "k8s.io"];
        full.extend_from_slice(args);
        run(
            &format!("ctr {}", args.join(" ")),
            Command::new("ctr").args(&full),
        )
    }

    /// Builds image `spec` and imports it into the node's containerd.
    pub fn import(&self, spec: &crate::image::ImageSpec) -> Result<()> {
        let name = spec.name.replace(['/', ':'], "_");
        let file = self.dir.join(format!("image-{name}.tar"));
        crate::image::write_archive(spec, &file)?;
        self.ctr(&["images", "import", &file.display().to_string()])?;
        let _ = std::fs::remove_file(&file);
        Ok(())
    }

    /// The last `lines` lines of a component's log.
    pub fn log_tail(&self, name: &str, lines: usize) -> String {
        let text =
            std::fs::read_to_string(self.dir.join(format!("{name}.log"))).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The PIDs of the processes it started.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(|(_, c)| c.id()).collect()
    }

    /// Waits until Node `name` is Ready; fails at once when one of the
    /// processes exited, with its log's last lines.
    pub async fn wait_ready(
        &mut self,
        client: kube::Client,
        name: &str,
        limit: Duration,
    ) -> Result<()> {
        let nodes: Api<KubeNode> = Api::all(client);
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(n)) = nodes.get_opt(name).await {
                let ready = n
                    .status
                    .and_then(|s| s.conditions)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Ready" && c.status == "True");
                if ready {
                    return Ok(());
                }
            }
            let exited = self
                .children
                .iter_mut()
                .find_map(|(name, child)| Some((*name, child.try_wait().ok()??)));
            if let Some((process, status)) = exited {
                return Err(format!(
                    "{process} of node {name} exited ({status}); last lines:\n{}",
                    self.log_tail(process, 30)
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "node {name} not Ready after {}s; kubelet:\n{}",
                    limit.as_secs(),
                    self.log_tail("kubelet", 30)
                ));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Removes the node: its containers (killed while containerd can),
    /// its processes ([`Procs::stop`]) and containerd's shims, the cgroup
    /// tree `cgroup`, its network namespace and this machine's end of its
    /// link, `link`.
    pub fn remove(&mut self, cgroup: &str, link: &str) {
        if let Ok(list) = self.ctr(&["tasks", "ls", "-q"]) {
            for task in list.lines().filter(|l| !l.is_empty()) {
                let _ = self.ctr(&["tasks", "kill", "-s", "SIGKILL", task]);
            }
        }
        let socket = self.socket();
        self.stop();
        for pid in crate::node::shims_of(&socket) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        crate::node::remove_cgroup_tree(cgroup);
        let _ = crate::node::ip(&["netns", "del", &self.netns]);
        // The host end of the veth goes with its peer; make sure.
        let _ = crate::node::ip(&["link", "del", link]);
    }

    /// Stops every process: SIGTERM to all, 5 s for all to end, then
    /// SIGKILL.
    pub fn stop(&mut self) {
        for (_, child) in self.children.iter() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline
            && self
                .children
                .iter_mut()
                .any(|(_, c)| matches!(c.try_wait(), Ok(None)))
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        while let Some((_, mut child)) = self.children.pop() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The script of a node's mount namespace holder (`unshare --mount sh
/// -c`): a `/run` of its own, the kernel settings the kubelet insists on
/// shown as files with the values it wants, kubeadm's host paths when
/// `kubeadm_root` is given, and `/var/log` a folder of `dir`'s.
fn holder_script(dir: &Path, kubeadm_root: Option<&Path>) -> Result<String> {
    // Kernel settings the kubelet sets unless they already read as it
    // wants: shown to it (in the node's mount namespace only) as files
    // with those values.
    let sysctl = dir.join("sysctl");
    std::fs::create_dir_all(&sysctl).map_err(|e| e.to_string())?;
    let wanted = [
        ("vm/overcommit_memory", "1"),
        ("vm/panic_on_oom", "0"),
        ("kernel/panic", "10"),
        ("kernel/panic_on_oops", "1"),
        ("kernel/keys/root_maxkeys", "1000000"),
        ("kernel/keys/root_maxbytes", "25000000"),
    ];
    // A /run of its own: containerd keeps its shims' sockets, runc's
    // state and the Pods' network namespace files there.
    let mut script =
        String::from("set -e; mount --make-rshared /; mount -t tmpfs -o mode=755 node-run /run; ");
    for (key, value) in wanted {
        let file = sysctl.join(key.replace('/', "_"));
        write(&file, &format!("{value}\n"))?;
        script.push_str(&format!(
            "mount --bind -o ro '{}' /proc/sys/{key}; ",
            file.display()
        ));
    }
    if let Some(root) = kubeadm_root {
        script.push_str(&crate::kubeadm::mounts(dir, root)?);
    }
    let varlog = dir.join("var-log");
    std::fs::create_dir_all(&varlog).map_err(|e| e.to_string())?;
    script.push_str(&format!(
        "mount --bind '{}' /var/log; exec sleep infinity",
        varlog.display()
    ));
    Ok(script)
}

/// Waits until the holder process `holder` has its mounts in place.
fn wait_for_holder(holder: u32, log: &Path) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mounts =
            std::fs::read_to_string(format!("/proc/{holder}/mountinfo")).unwrap_or_default();
        if mounts.contains(" /var/log ") {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the node's mount namespace was not set up: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until containerd serves `socket`.
fn wait_for_socket(socket: &Path, log: &Path) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !socket.exists() {
        if Instant::now() > deadline {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            return Err(format!(
                "containerd did not start: {}",
                lines[lines.len().saturating_sub(20)..].join("\n")
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Writes containerd's configuration (and the CNI network's: a bridge,
/// its Pods in `subnet`) under `dir`, for `socket`; the configuration
/// file.
fn containerd_config(dir: &Path, socket: &Path, subnet: &str) -> Result<PathBuf> {
    let cni = dir.join("cni");
    std::fs::create_dir_all(&cni).map_err(|e| e.to_string())?;
    write(
        &cni.join("10-testbed.conflist"),
        &serde_json::json!({
            "cniVersion": "1.0.0",
            "name": "testbed",
            "plugins": [
                {
                    "type": "bridge",
                    "bridge": "cni0",
                    "isGateway": true,
                    "ipMasq": true,
                    "hairpinMode": true,
                    "ipam": {
                        "type": "host-local",
                        "ranges": [[{"subnet": subnet}]],
                        "routes": [{"dst": "0.0.0.0/0"}],
                        "dataDir": dir.join("cni-ipam").display().to_string(),
                    },
                },
                {"type": "portmap", "capabilities": {"portMappings": true}},
            ],
        })
        .to_string(),
    )?;
    let config = dir.join("containerd.toml");
    write(
        &config,
        &format!(
            r#"version = 2
root = "{root}"
state = "{state}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "{sock}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "{cni}"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = false
"#,
            root = dir.join("containerd-root").display(),
            state = dir.join("containerd-state").display(),
            sock = socket.display(),
            cni = cni.display(),
        ),
    )?;
    Ok(config)
}
