//! The other control-plane nodes of a kubeadm control plane
//! (`NodeSpec::control_planes` above 1): each its own network namespace,
//! mount namespace, containerd and kubelet, registered with the bed's API
//! server, running kubeadm's etcd static Pod laid out by the real kubeadm
//! with the first node's etcd CA, so that the members form one cluster
//! (`--initial-cluster` naming all of them, given to kubeadm as
//! `etcd.local.extraArgs`).
//!
//! A peer runs what a control-plane node needs for etcd and the agent: no
//! kube-proxy, no DNS (its Pods are the static etcd Pod and the agent,
//! both `hostNetwork`). The API server stays the bed's one, on this
//! machine; a peer's kubelet reaches it over the peer's own veth pair.
//!
//! # Network
//!
//! Peer `i` (2, 3, …) is `198.18.254.<4(i-2)+2>`, its end of a /30 with
//! this machine (which does not forward between its links: its own
//! settings stay as they are). The nodes reach one another (etcd's peer
//! and client traffic) over a veth pair per pair of nodes, both ends in
//! the two nodes' namespaces, with a /32 route to the other's address:
//! everything goes with the namespaces.
//!
//! # Confinement
//!
//! As the first node's ([`crate::node`]): its namespaces are named after
//! this process (`kubectl-etcd-node-<pid>-<i>`, so a later start removes
//! those of a dead process), its cgroups likewise, its processes started
//! here and stopped by PID (the containerd shims found by socket), a
//! watchdog of its own for when this process dies without dropping it.

use std::path::PathBuf;
use std::time::Duration;

use crate::host::Procs;
use crate::node::{create_cgroup_root, ip, kubelet_config, Node, NODE_IP, NODE_NAME};
use crate::Result;

/// Peer `i`'s address.
pub fn address(i: usize) -> String {
    format!("198.18.254.{}", 4 * (i - 2) + 2)
}

/// This machine's end of peer `i`'s link.
fn host_ip(i: usize) -> String {
    format!("198.18.254.{}", 4 * (i - 2) + 1)
}

/// Peer `i`'s name (its Node's and its etcd member's).
pub fn name(i: usize) -> String {
    format!("{NODE_NAME}-{i}")
}

/// Node `i`'s address and name (1: the first node).
fn node(i: usize) -> (String, String) {
    match i {
        1 => (NODE_IP.to_string(), NODE_NAME.to_string()),
        _ => (address(i), name(i)),
    }
}

/// etcd's `--initial-cluster` for `n` control-plane nodes (`None` for
/// one: kubeadm's own).
pub fn initial_cluster(n: usize) -> Option<String> {
    (n > 1).then(|| {
        (1..=n)
            .map(|i| {
                let (address, name) = node(i);
                format!("{name}=https://{address}:2380")
            })
            .collect::<Vec<_>>()
            .join(",")
    })
}

/// The `etcd.local.extraArgs` of every node: the bed's small quota, and
/// the whole cluster when there is more than one member.
pub fn etcd_args(initial: &Option<String>) -> Vec<(String, String)> {
    let mut args = vec![("quota-backend-bytes".to_string(), "268435456".to_string())];
    if let Some(all) = initial {
        args.push(("initial-cluster".into(), all.clone()));
        args.push(("initial-cluster-state".into(), "new".into()));
    }
    args
}

/// A running peer; dropping it stops everything it started and removes
/// what it created.
pub struct Peer {
    pub index: usize,
    pub name: String,
    pub ip: String,
    /// kubeadm's root for this node.
    pub kubeadm_root: PathBuf,
    cgroup: String,
    host_link: String,
    procs: Procs,
}

impl Peer {
    /// Starts peer `i` of `first`'s control plane and waits until its Node
    /// is Ready and marked a control plane.
    pub async fn start(first: &Node, i: usize) -> Result<Peer> {
        let id = format!("{}-{i}", first.netns());
        let dir = first.dir().join(format!("peer-{i}"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let first_root = first
            .kubeadm_root
            .clone()
            .ok_or("a peer needs a kubeadm control plane")?;
        let n = first.control_planes;
        let kubeadm_root = crate::kubeadm::lay_out(
            &dir,
            &name(i),
            &address(i),
            &etcd_args(&initial_cluster(n)),
            Some(&first_root),
        )?;
        let mut peer = Peer {
            index: i,
            name: name(i),
            ip: address(i),
            kubeadm_root,
            procs: Procs::new(dir, &id),
            cgroup: id,
            host_link: format!("ke{}h{i}", std::process::id() % 1_000_000),
        };
        peer.network(first)?;
        let subnet = format!("198.18.{}.0/24", i - 1);
        let root = peer.kubeadm_root.clone();
        peer.procs.start_runtime(Some(&root), &subnet)?;
        peer.import_images()?;
        peer.start_kubelet(first)?;
        peer.start_watchdog()?;
        let client = first.api.admin_client(None).await?;
        let name = peer.name.clone();
        peer.procs
            .wait_ready(client, &name, Duration::from_secs(120))
            .await?;
        first.mark_control_plane(&peer.name).await?;
        Ok(peer)
    }

    /// Its namespace and link to this machine, and a link to every node
    /// before it (the later ones link to it when they start).
    fn network(&mut self, first: &Node) -> Result<()> {
        let (ns, i) = (self.procs.netns().to_string(), self.index);
        ip(&["netns", "add", &ns])?;
        ip(&[
            "link",
            "add",
            &self.host_link,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            &ns,
        ])?;
        ip(&[
            "addr",
            "add",
            &format!("{}/30", host_ip(i)),
            "dev",
            &self.host_link,
        ])?;
        ip(&["link", "set", &self.host_link, "up"])?;
        let own = format!("{}/30", self.ip);
        ip(&["-n", &ns, "addr", "add", &own, "dev", "eth0"])?;
        ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        ip(&["-n", &ns, "route", "add", "default", "via", &host_ip(i)])?;
        for j in 1..i {
            let (address, _) = node(j);
            let other = match j {
                1 => first.netns().to_string(),
                _ => format!("{}-{j}", first.netns()),
            };
            let here = format!("to{j}");
            let there = format!("to{i}");
            ip(&[
                "-n", &ns, "link", "add", &here, "type", "veth", "peer", "name", &there, "netns",
                &other,
            ])?;
            ip(&["-n", &ns, "link", "set", &here, "up"])?;
            ip(&["-n", &other, "link", "set", &there, "up"])?;
            ip(&[
                "-n",
                &ns,
                "route",
                "add",
                &format!("{address}/32"),
                "dev",
                &here,
                "src",
                &self.ip,
            ])?;
            ip(&[
                "-n",
                &other,
                "route",
                "add",
                &format!("{}/32", self.ip),
                "dev",
                &there,
                "src",
                &address,
            ])?;
        }
        Ok(())
    }

    /// The sandbox image and kubeadm's etcd image (the bed's newest etcd
    /// under the name kubeadm's manifest gives it).
    fn import_images(&mut self) -> Result<()> {
        self.procs.import(&crate::node::pause_image()?)?;
        self.procs
            .import(&crate::kubeadm::etcd_image(&self.kubeadm_root)?)
    }

    fn start_kubelet(&mut self, first: &Node) -> Result<()> {
        let config = kubelet_config(
            self.procs.dir(),
            &first.api,
            &self.ip,
            &self.cgroup,
            &self.procs.socket(),
            true,
        )?;
        create_cgroup_root(&self.cgroup)?;
        let kubeconfig = first.api.dir().join("admin.kubeconfig");
        let kubelet = crate::bins::node_command("kubelet")?;
        let root = self.procs.dir().join("kubelet");
        self.procs.spawn_in_node(
            "kubelet",
            &kubelet,
            &[
                format!("--config={}", config.display()),
                format!("--kubeconfig={}", kubeconfig.display()),
                format!("--hostname-override={}", self.name),
                format!("--node-ip={}", self.ip),
                format!("--root-dir={}", root.display()),
                format!(
                    "--cert-dir={}",
                    self.procs.dir().join("kubelet-pki").display()
                ),
                "--v=2".into(),
            ],
        )?;
        Ok(())
    }

    /// As the first node's watchdog ([`crate::node`]), for this peer.
    fn start_watchdog(&self) -> Result<()> {
        let pids = self.procs.pids();
        crate::node::watchdog(
            &pids,
            &[self.procs.dir().to_path_buf()],
            &self.procs.socket(),
            &self.cgroup,
            self.procs.netns(),
            &self.host_link,
        )
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.procs.remove(&self.cgroup, &self.host_link);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_nodes_name_one_cluster() {
        assert_eq!(initial_cluster(1), None);
        assert_eq!(
            initial_cluster(3).as_deref(),
            Some("testbed-node=https://198.18.255.2:2380,testbed-node-2=https://198.18.254.2:2380,testbed-node-3=https://198.18.254.6:2380")
        );
        assert_eq!(
            (host_ip(3), address(3)),
            ("198.18.254.5".into(), "198.18.254.6".into())
        );
        assert_eq!(etcd_args(&None).len(), 1);
        assert_eq!(etcd_args(&initial_cluster(3)).len(), 3);
    }
}
