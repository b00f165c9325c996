//! Locating the server binaries that `testbed/build.sh` built.

use std::path::PathBuf;

use crate::Result;

/// The etcd releases of the test bed: 3.7, 3.6 and 3.5 built from their Go
/// modules (pinned in `testbed/go/*/go.mod`), 3.4 unpacked from Debian's
/// `etcd-server`/`etcd-client` packages; and two older releases pinned
/// exactly for the known defects they carry (3.6.5 and 3.5.23), which
/// `testbed/build.sh` builds only when named. A pinned release behaves in
/// the test bed like its minor line ([`EtcdVersion::line`]).
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
    /// Exactly 3.6.5 (`testbed/build.sh etcd-v3.6.5`, with etcdctl and
    /// etcdutl of the same release): below 3.6.11, the lowest 3.6 release
    /// an upgrade to 3.7 is supported from, and without the auth fixes of
    /// 3.6.9 (the 2026 CVEs). A 3.6 release, so Status carries
    /// `dbSizeQuota`; but it reports 0 there when the member runs with the
    /// default quota (no `--quota-backend-bytes`), the configured value
    /// otherwise.
    V3_6_5,
    /// Exactly 3.5.23 (`testbed/build.sh etcd-v3.5.23`): below 3.5.26, the
    /// lowest 3.5 release an upgrade to 3.6 is supported from, and without
    /// the auth fixes of 3.5.28. Does not report the quota, like any 3.5.
    /// Its etcdctl and etcdutl are 3.5.35's: the module proxy serves no
    /// etcdctl or etcdutl v3.5.23.
    V3_5_23,
}

impl EtcdVersion {
    fn dir(self) -> &'static str {
        match self {
            EtcdVersion::V3_7 => "etcd-v3.7",
            EtcdVersion::V3_6 => "etcd-v3.6",
            EtcdVersion::V3_5 => "etcd-v3.5",
            EtcdVersion::V3_4 => "etcd-v3.4",
            EtcdVersion::V3_6_5 => "etcd-v3.6.5",
            EtcdVersion::V3_5_23 => "etcd-v3.5.23",
        }
    }

    /// The minor line a release belongs to: a pinned release (3.6.5,
    /// 3.5.23) maps to its line (3.6, 3.5), every other to itself. The test
    /// bed decides what a release reports, logs and accepts by its line.
    pub fn line(self) -> EtcdVersion {
        match self {
            EtcdVersion::V3_6_5 => EtcdVersion::V3_6,
            EtcdVersion::V3_5_23 => EtcdVersion::V3_5,
            EtcdVersion::V3_7 => EtcdVersion::V3_7,
            EtcdVersion::V3_6 => EtcdVersion::V3_6,
            EtcdVersion::V3_5 => EtcdVersion::V3_5,
            EtcdVersion::V3_4 => EtcdVersion::V3_4,
        }
    }

    /// What to run to get this release, for error messages: the default
    /// `testbed/build.sh` builds the lines, a pinned release only when
    /// named.
    fn source(self) -> &'static str {
        match self {
            EtcdVersion::V3_7 | EtcdVersion::V3_6 | EtcdVersion::V3_5 => {
                "run testbed/build.sh first (it builds etcd from its Go module)"
            }
            EtcdVersion::V3_4 => "run testbed/build.sh first (it builds etcd 3.4 from Debian's etcd-server and etcd-client packages)",
            EtcdVersion::V3_6_5 => "run testbed/build.sh etcd-v3.6.5 (the default build leaves this pinned release out)",
            EtcdVersion::V3_5_23 => "run testbed/build.sh etcd-v3.5.23 (the default build leaves this pinned release out)",
        }
    }

    /// Parses `3.7` / `3.6` / `3.5` / `3.4`, or a pinned release `3.6.5` /
    /// `3.5.23`.
    pub fn parse(text: &str) -> Result<EtcdVersion> {
        match text.trim_start_matches('v') {
            "3.7" => Ok(EtcdVersion::V3_7),
            "3.6" => Ok(EtcdVersion::V3_6),
            "3.5" => Ok(EtcdVersion::V3_5),
            "3.4" => Ok(EtcdVersion::V3_4),
            "3.6.5" => Ok(EtcdVersion::V3_6_5),
            "3.5.23" => Ok(EtcdVersion::V3_5_23),
            other => Err(format!(
                "unknown etcd version {other:?}: use 3.7, 3.6, 3.5 or 3.4 (or a pinned release: 3.6.5, 3.5.23)"
            )),
        }
    }
}

/// The folder holding `etcd-v3.7/`, `etcd-v3.6/`, `etcd-v3.5/`, `etcd-v3.4/`
/// (and, once built by name, `etcd-v3.6.5/` and `etcd-v3.5.23/`) and the
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
    cached_or(
        dir,
        name,
        &format!("run testbed/build.sh first (it builds {source})"),
    )
}

/// `name` in the cache folder `dir`, or `todo` (what to run) in the error.
fn cached_or(dir: &str, name: &str, todo: &str) -> Result<PathBuf> {
    let path = cache_dir().join(dir).join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("{} not found: {todo}", path.display()))
    }
}

fn binary(version: EtcdVersion, name: &str) -> Result<PathBuf> {
    cached_or(version.dir(), name, version.source())
}

/// The etcd server binary of `version`.
pub fn etcd(version: EtcdVersion) -> Result<PathBuf> {
    binary(version, "etcd")
}

/// The etcdctl binary of `version` (3.5.23's is 3.5.35's).
pub fn etcdctl(version: EtcdVersion) -> Result<PathBuf> {
    binary(version, "etcdctl")
}

/// The etcdutl binary of `version` (3.5 to 3.7; 3.4 has none: its
/// etcdctl restores snapshots itself; 3.5.23's is 3.5.35's).
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

/// kubeadm, from the same k8s.io/kubernetes module as the current
/// kube-apiserver (`testbed/build.sh kubeadm`).
pub fn kubeadm() -> Result<PathBuf> {
    cached("kubeadm", "kubeadm", "kubeadm from k8s.io/kubernetes")
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

/// `prometheus` or `promtool` (`testbed/go/prometheus`), for the alert
/// rules' checks and `doctor --serve`'s scrapes.
pub fn prometheus(name: &str) -> Result<PathBuf> {
    cached(
        "prometheus",
        name,
        "Prometheus and promtool from testbed/go/prometheus (testbed/build.sh prometheus)",
    )
}

/// The folder of the real etcd-operator `which` (`testbed/build.sh
/// operator` or `operator-defrag`): its `manager`, its CRDs (`crds/`) and
/// its ClusterRole's rules (`manager-role-rules.yaml`), from its source in
/// `../shared/anchors`.
pub fn operator_dir(which: crate::operator::Operator) -> Result<PathBuf> {
    manager_dir(which.dir(), which.source())
}

/// The cache folder `dir` of an operator's build (its `manager` beside its
/// CRDs and rules), or an error saying to build `source`.
pub fn manager_dir(dir: &str, source: &str) -> Result<PathBuf> {
    let manager = cached(dir, "manager", source)?;
    Ok(manager
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| cache_dir().join(dir)))
}

#[cfg(test)]
mod tests {
    use super::EtcdVersion;

    #[test]
    fn pinned_releases_parse_and_behave_like_their_line() {
        for (text, version, line, dir) in [
            ("3.7", EtcdVersion::V3_7, EtcdVersion::V3_7, "etcd-v3.7"),
            ("3.6", EtcdVersion::V3_6, EtcdVersion::V3_6, "etcd-v3.6"),
            ("3.5", EtcdVersion::V3_5, EtcdVersion::V3_5, "etcd-v3.5"),
            ("3.4", EtcdVersion::V3_4, EtcdVersion::V3_4, "etcd-v3.4"),
            (
                "3.6.5",
                EtcdVersion::V3_6_5,
                EtcdVersion::V3_6,
                "etcd-v3.6.5",
            ),
            (
                "v3.5.23",
                EtcdVersion::V3_5_23,
                EtcdVersion::V3_5,
                "etcd-v3.5.23",
            ),
        ] {
            assert_eq!(EtcdVersion::parse(text), Ok(version));
            assert_eq!(version.line(), line);
            assert_eq!(version.dir(), dir);
        }
        assert!(EtcdVersion::parse("3.6.16").is_err());
    }

    #[test]
    fn a_missing_pinned_release_says_to_build_it_by_name() {
        assert!(EtcdVersion::V3_6_5
            .source()
            .contains("testbed/build.sh etcd-v3.6.5"));
        assert!(EtcdVersion::V3_5_23
            .source()
            .contains("testbed/build.sh etcd-v3.5.23"));
    }
}
