//! Locating the server binaries that `testbed/build.sh` built.

use std::path::PathBuf;

use crate::Result;

/// The etcd releases of the test bed: 3.7, 3.6 and 3.5 built from their Go
/// modules (pinned in `testbed/go/*/go.mod`), 3.4 unpacked from Debian's
/// `etcd-server`/`etcd-client` packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EtcdVersion {
    /// 3.7.x: reports `dbSizeQuota` like 3.6, and has no `--experimental-*`
    /// flags left (nor the v2 store).
    V3_7,
    /// 3.6.x: reports `dbSizeQuota` in Status.
    V3_6,
    /// 3.5.x: does not report the quota.
    V3_5,
    /// 3.4.x (Debian's 3.4.23): does not report the quota either, and logs
    /// through capnslog in plain text unless started with `--logger=zap`.
    V3_4,
}

impl EtcdVersion {
    fn dir(self) -> &'static str {
        match self {
            EtcdVersion::V3_7 => "etcd-v3.7",
            EtcdVersion::V3_6 => "etcd-v3.6",
            EtcdVersion::V3_5 => "etcd-v3.5",
            EtcdVersion::V3_4 => "etcd-v3.4",
        }
    }

    /// Where `testbed/build.sh` gets this release from, for error messages.
    fn source(self) -> &'static str {
        match self {
            EtcdVersion::V3_7 | EtcdVersion::V3_6 | EtcdVersion::V3_5 => "etcd from its Go module",
            EtcdVersion::V3_4 => "etcd 3.4 from Debian's etcd-server and etcd-client packages",
        }
    }

    /// Parses `3.7` / `3.6` / `3.5` / `3.4`.
    pub fn parse(text: &str) -> Result<EtcdVersion> {
        match text.trim_start_matches('v') {
            "3.7" => Ok(EtcdVersion::V3_7),
            "3.6" => Ok(EtcdVersion::V3_6),
            "3.5" => Ok(EtcdVersion::V3_5),
            "3.4" => Ok(EtcdVersion::V3_4),
            other => Err(format!(
                "unknown etcd version {other:?}: use 3.7, 3.6, 3.5 or 3.4"
            )),
        }
    }
}

/// The folder holding `etcd-v3.7/`, `etcd-v3.6/`, `etcd-v3.5/`, `etcd-v3.4/` and the
/// kube-apiserver folders:
/// `$KUBECTL_ETCD_TESTBED_CACHE/current`, default
/// `~/.cache/kubectl-etcd-testbed/current`.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("KUBECTL_ETCD_TESTBED_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache").join("kubectl-etcd-testbed")
        });
    base.join("current")
}

/// `name` in the cache folder `dir`, or how to get it. `source` names what
/// `testbed/build.sh` makes it from.
fn cached(dir: &str, name: &str, source: &str) -> Result<PathBuf> {
    let path = cache_dir().join(dir).join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} not found: run testbed/build.sh first (it builds {source})",
            path.display()
        ))
    }
}

fn binary(version: EtcdVersion, name: &str) -> Result<PathBuf> {
    cached(version.dir(), name, version.source())
}

/// The etcd server binary of `version`.
pub fn etcd(version: EtcdVersion) -> Result<PathBuf> {
    binary(version, "etcd")
}

/// The etcdctl binary of `version`.
pub fn etcdctl(version: EtcdVersion) -> Result<PathBuf> {
    binary(version, "etcdctl")
}

/// The etcdutl binary of `version` (3.5 to 3.7; 3.4 has none: its
/// etcdctl restores snapshots itself).
pub fn etcdutl(version: EtcdVersion) -> Result<PathBuf> {
    binary(version, "etcdutl")
}

/// The kube-apiserver releases the test bed builds (pinned in
/// `testbed/go/kube-apiserver*/go.mod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KubeRelease {
    /// The current release (1.37): `PreferSameZone` and `PreferSameNode`
    /// are GA, and `PreferClose` answers with a deprecation warning.
    #[default]
    Current,
    /// 1.34: knows every trafficDistribution value behind the
    /// `PreferSameTrafficDistribution` gate (beta, on by default).
    V1_34,
    /// 1.30: `spec.trafficDistribution` is alpha and off, so the server
    /// accepts the field and silently drops it.
    V1_30,
}

impl KubeRelease {
    fn dir(self) -> &'static str {
        match self {
            KubeRelease::Current => "kube-apiserver",
            KubeRelease::V1_34 => "kube-apiserver-v1.34",
            KubeRelease::V1_30 => "kube-apiserver-v1.30",
        }
    }
}

/// The kube-apiserver binary of `release`.
pub fn kube_apiserver(release: KubeRelease) -> Result<PathBuf> {
    cached(
        release.dir(),
        "kube-apiserver",
        "kube-apiserver from k8s.io/kubernetes",
    )
}

/// kubectl, built from the same k8s.io/kubernetes module as the current
/// kube-apiserver.
pub fn kubectl() -> Result<PathBuf> {
    cached("kubectl", "kubectl", "kubectl from k8s.io/kubernetes")
}

/// The fake kubelet (`testbed/go/kubelet`): serves port-forward for the
/// member Pods' Node.
pub fn fake_kubelet() -> Result<PathBuf> {
    cached(
        "kubelet",
        "fake-kubelet",
        "the fake kubelet from testbed/go/kubelet",
    )
}

/// krew's `kubectl-krew` and `validate-krew-manifest`, from
/// sigs.k8s.io/krew (`testbed/go/krew`).
pub fn krew(name: &str) -> Result<PathBuf> {
    cached("krew", name, "krew from sigs.k8s.io/krew")
}

/// A command of the real node (`testbed/build.sh node`): `kubelet`,
/// `kube-proxy`, `kube-controller-manager` or `kube-scheduler`, from the
/// same k8s.io/kubernetes module as the current kube-apiserver.
pub fn node_command(name: &str) -> Result<PathBuf> {
    cached(
        &format!("node-{name}"),
        name,
        &format!("{name} from k8s.io/kubernetes (testbed/build.sh node)"),
    )
}

/// The sandbox program of the node's Pods (`testbed/go/pause`).
pub fn pause() -> Result<PathBuf> {
    cached(
        "pause",
        "pause",
        "pause from testbed/go/pause (testbed/build.sh node)",
    )
}

/// The node's cluster DNS: CoreDNS with the kubernetes plugin
/// (`testbed/go/coredns`).
pub fn coredns() -> Result<PathBuf> {
    cached(
        "coredns",
        "coredns",
        "CoreDNS from testbed/go/coredns (testbed/build.sh node)",
    )
}

/// The folder of the real etcd-operator `which` (`testbed/build.sh
/// operator` or `operator-defrag`): its `manager`, its CRDs (`crds/`) and
/// its ClusterRole's rules (`manager-role-rules.yaml`), from its source in
/// `../shared/anchors`.
pub fn operator_dir(which: crate::operator::Operator) -> Result<PathBuf> {
    let manager = cached(which.dir(), "manager", which.source())?;
    Ok(manager
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| cache_dir().join(which.dir())))
}
