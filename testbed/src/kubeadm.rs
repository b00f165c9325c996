//! A control plane's etcd laid out by the real `kubeadm` of the bed's
//! Kubernetes release (`testbed/build.sh kubeadm`): its own phases write
//! the etcd certificates and the static Pod manifest, and the node's
//! kubelet runs that Pod from the bed's etcd image, tagged as the manifest
//! names it (never pulled).
//!
//! # Confinement
//!
//! kubeadm runs with `--rootfs <node>/kubeadm-root`: it chroots there, so
//! what it writes to `/etc/kubernetes` lands in the node's folder. The
//! manifest names kubeadm's own host paths (`/etc/kubernetes/pki/etcd`,
//! `/var/lib/etcd`); the kubelet and containerd see them because the
//! node's private mount namespace overlays `/etc` and `/var/lib` (upper
//! layers in the node's folder) and binds the node's folders at those two
//! paths. Nothing is written to this machine's own `/etc` or `/var/lib`,
//! and the mounts go with the namespace.
//!
//! Neither phase needed a path or a check that does not run confined:
//! `init phase certs etcd-*` and `init phase etcd local` write files only,
//! and `--rootfs` takes them where the bed wants them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// The folder kubeadm is chrooted to, inside a node's folder.
pub const ROOT: &str = "kubeadm-root";

/// The certificates kubeadm's phases make for a stacked etcd.
const CERT_PHASES: [&str; 5] = [
    "etcd-ca",
    "etcd-server",
    "etcd-peer",
    "etcd-healthcheck-client",
    "apiserver-etcd-client",
];

/// Writes kubeadm's etcd certificates and static Pod manifest for a node
/// named `node` at `address` under `<dir>/kubeadm-root`, returning that
/// folder. `extra_args` go to `etcd.local.extraArgs` (name, value). With
/// `ca_from` (another node's root), that node's etcd CA is copied first,
/// and kubeadm signs this node's certificates with it, as an operator
/// does who copies the CA before `kubeadm join --control-plane`.
pub fn lay_out(
    dir: &Path,
    node: &str,
    address: &str,
    extra_args: &[(String, String)],
    ca_from: Option<&Path>,
) -> Result<PathBuf> {
    let root = dir.join(ROOT);
    std::fs::create_dir_all(root.join("var/lib/etcd")).map_err(|e| e.to_string())?;
    if let Some(from) = ca_from {
        let pki = "etc/kubernetes/pki/etcd";
        std::fs::create_dir_all(root.join(pki)).map_err(|e| e.to_string())?;
        for file in ["ca.crt", "ca.key"] {
            std::fs::copy(from.join(pki).join(file), root.join(pki).join(file))
                .map_err(|e| format!("copy the etcd CA's {file}: {e}"))?;
        }
    }
    let mut extra = String::new();
    if !extra_args.is_empty() {
        extra.push_str("    extraArgs:\n");
        for (name, value) in extra_args {
            extra.push_str(&format!("    - name: {name}\n      value: \"{value}\"\n"));
        }
    }
    let config = format!(
        "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nlocalAPIEndpoint:\n  advertiseAddress: {address}\nnodeRegistration:\n  name: {node}\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  local:\n    dataDir: /var/lib/etcd\n{extra}"
    );
    std::fs::write(root.join("kubeadm.yaml"), config).map_err(|e| e.to_string())?;
    let kubeadm = crate::bins::kubeadm()?;
    let mut phases: Vec<Vec<&str>> = CERT_PHASES
        .iter()
        .map(|p| vec!["init", "phase", "certs", p])
        .collect();
    phases.push(vec!["init", "phase", "etcd", "local"]);
    for phase in phases {
        let out = Command::new(&kubeadm)
            .args(&phase)
            .arg(format!("--rootfs={}", root.display()))
            .arg("--config=/kubeadm.yaml")
            .output()
            .map_err(|e| format!("kubeadm {}: {e}", phase.join(" ")))?;
        if !out.status.success() {
            return Err(format!(
                "kubeadm {}: {}\n{}",
                phase.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(root)
}

/// The etcd image for the manifest under `root`: kubeadm's release names
/// its own etcd image, and it is the bed's newest etcd under that name.
pub fn etcd_image(root: &Path) -> Result<crate::image::ImageSpec> {
    let version = crate::bins::EtcdVersion::V3_7;
    let mut image = crate::node::etcd_image(version, &crate::node::release_of(version)?)?;
    image.name = etcd_image_name(root)?;
    Ok(image)
}

/// The etcd image the manifest under `root` names.
pub fn etcd_image_name(root: &Path) -> Result<String> {
    let manifest = std::fs::read_to_string(root.join("etc/kubernetes/manifests/etcd.yaml"))
        .map_err(|e| format!("kubeadm's etcd manifest: {e}"))?;
    manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("image: "))
        .map(|s| s.trim().to_string())
        .ok_or_else(|| "kubeadm's etcd manifest names no image".into())
}

/// The shell lines, for the node's mount namespace holder, that show
/// kubeadm's host paths to the kubelet and containerd: `/etc` and
/// `/var/lib` overlaid (upper layers under `dir`), then `root`'s
/// `etc/kubernetes` and `var/lib/etcd` bound at theirs.
pub fn mounts(dir: &Path, root: &Path) -> Result<String> {
    let mut script = String::new();
    for (layer, at) in [("etc", "/etc"), ("var-lib", "/var/lib")] {
        let upper = dir.join(format!("overlay-{layer}/upper"));
        let work = dir.join(format!("overlay-{layer}/work"));
        std::fs::create_dir_all(&upper).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        script.push_str(&format!(
            "mount -t overlay kubeadm-{layer} -o lowerdir={at},upperdir='{}',workdir='{}' {at}; ",
            upper.display(),
            work.display()
        ));
    }
    for (from, at) in [
        ("etc/kubernetes", "/etc/kubernetes"),
        ("var/lib/etcd", "/var/lib/etcd"),
    ] {
        script.push_str(&format!(
            "mkdir -p {at}; mount --bind '{}' {at}; ",
            root.join(from).display()
        ));
    }
    Ok(script)
}
