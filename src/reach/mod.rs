//! `Target`: the one input of every command — where the members are, how to
//! reach them (TLS, auth) and what quota to assume.
//!
//! Two sources build it: flags (`flags.rs`, standalone mode, like etcdctl) and,
//! in plugin mode, an `EtcdCluster` read from the Kubernetes API. Nothing
//! downstream knows which source was used.

pub mod endpoint;
pub mod flags;
pub mod tls;

pub use endpoint::{Endpoint, Scheme};
pub use tls::{Credentials, TlsMaterial};

use serde::Serialize;

/// How a plugin-mode command reaches the member Pods (`--connect`):
/// `auto` is `direct` inside a Pod, else `port-forward`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ConnectMode {
    Auto,
    Direct,
    PortForward,
}

/// A kind of cluster plugin mode finds on Kubernetes (`--kind`; the
/// reads of each are `source`'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The cozystack etcd-operator's EtcdCluster (etcd-operator.cozystack.io).
    Cozystack,
    /// The etcd project's operator's EtcdCluster (operator.etcd.io).
    EtcdIo,
    /// A control plane's own etcd: static Pods the kubelet runs (kubeadm,
    /// rke2), reached from their node through an agent Pod.
    ControlPlane,
}

impl Kind {
    /// The kind's name on the command line (`--kind`) and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Cozystack => "cozystack",
            Kind::EtcdIo => "etcd-io",
            Kind::ControlPlane => "control-plane",
        }
    }
}

/// Which EtcdCluster a report is about (plugin mode only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterRef {
    pub namespace: String,
    pub name: String,
    /// Its kubeconfig context, when a command reads several
    /// (`--context` more than once, `--all-contexts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl ClusterRef {
    /// The cluster `name` in `namespace` (of the one context read).
    pub fn new(namespace: impl Into<String>, name: impl Into<String>) -> ClusterRef {
        ClusterRef {
            namespace: namespace.into(),
            name: name.into(),
            context: None,
        }
    }

    /// How a printed command names the cluster: ` NAME -n NAMESPACE` in
    /// plugin mode (and ` --context CONTEXT` when a command read several),
    /// nothing standalone (the user's `ETCDCTL_*` settings or flags carry
    /// it), so that advice runs as printed.
    pub fn command_args(cluster: Option<&ClusterRef>) -> String {
        cluster.map_or_else(String::new, |c| {
            let context = c
                .context
                .as_deref()
                .map(|x| format!(" --context {x}"))
                .unwrap_or_default();
            format!(" {} -n {}{context}", c.name, c.namespace)
        })
    }

    /// How a line names the cluster: `ns/name`, after `context: ` when a
    /// command read several contexts.
    pub fn label(&self) -> String {
        match &self.context {
            Some(c) => format!("{c}: {}/{}", self.namespace, self.name),
            None => format!("{}/{}", self.namespace, self.name),
        }
    }

    /// This cluster, in `context`.
    pub fn in_context(self, context: Option<String>) -> ClusterRef {
        ClusterRef { context, ..self }
    }
}

/// Where a member's backend quota figure came from, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QuotaSource {
    /// `StatusResponse.dbSizeQuota`, reported by etcd 3.6 and later.
    Member,
    /// `etcd_server_quota_backend_bytes` on the member's `/metrics`: its
    /// own figure, for releases whose Status does not carry it (3.4, 3.5).
    Metrics,
    /// `spec.options.quotaBackendBytes` of the EtcdCluster.
    Cluster,
    /// The `--quota-backend-bytes` flag.
    Flag,
    /// etcd's default, 2 GiB: an assumption, never a figure to disarm
    /// NOSPACE on.
    Default,
}

impl QuotaSource {
    /// The stable lower-case name used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            QuotaSource::Member => "member",
            QuotaSource::Metrics => "metrics",
            QuotaSource::Cluster => "cluster",
            QuotaSource::Flag => "flag",
            QuotaSource::Default => "default",
        }
    }
}

/// etcd's default backend quota (2 GiB), used when nothing else says.
pub const DEFAULT_QUOTA_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// The quota to assume for members that do not report their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaFallback {
    pub bytes: u64,
    pub source: QuotaSource,
}

impl Default for QuotaFallback {
    fn default() -> Self {
        QuotaFallback {
            bytes: DEFAULT_QUOTA_BYTES,
            source: QuotaSource::Default,
        }
    }
}

/// One place to dial: a member's client URL, and the name to verify its
/// certificate against when that differs from the dialed host (a
/// port-forward to 127.0.0.1 still verifies the member's DNS name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dial {
    pub endpoint: Endpoint,
    pub tls_server_name: Option<String>,
    /// The Pod whose `status.podIP` this address is (plugin mode dialing
    /// Pod IPs): a failure to reach it says where the address came from,
    /// since a Pod recreated elsewhere may have another one by now.
    pub pod_ip_of: Option<String>,
}

impl Dial {
    pub fn new(endpoint: Endpoint) -> Self {
        Dial {
            endpoint,
            tls_server_name: None,
            pod_ip_of: None,
        }
    }
}

/// A member known by name before any dial (plugin mode: an EtcdMember and
/// its `status.memberID`), and where it is dialed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownMember {
    pub name: String,
    pub id: Option<u64>,
    pub dial: Dial,
    /// Its Pod's etcd container probes (plugin mode, when the Pod exists).
    pub probes: Option<crate::kubelet::PodProbes>,
}

/// What the tool that starts an agent on a control plane's node knows of
/// the cluster from the API server, which the agent's command (standalone
/// on the node, with no Kubernetes access) cannot read; handed to it in
/// [`flags::AGENT_FACTS_ENV`] as JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentFacts {
    /// Each member's node, by member name.
    #[serde(default)]
    pub nodes: Vec<(String, String)>,
    /// Each member's etcd container probes, by member name.
    #[serde(default)]
    pub probes: Vec<(String, crate::kubelet::PodProbes)>,
    /// Where the user's own API server is.
    #[serde(default)]
    pub api_server: ApiServerAt,
}

/// Where the API server the user's kubeconfig names is, against a
/// control plane's nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApiServerAt {
    /// Not known (the nodes could not be read).
    #[default]
    Unknown,
    /// On this node: the kubeconfig's server is one of its addresses.
    Node(String),
    /// At this host, which is none of the nodes' addresses (a load
    /// balancer, a name in front of them, or another cluster's).
    Elsewhere(String),
}

/// Everything needed to reach one etcd cluster.
#[derive(Debug, Clone)]
pub struct Target {
    /// Endpoints to start from. With `discover`, they are seeds for MemberList;
    /// without it they are the complete set of members to probe.
    pub dials: Vec<Dial>,
    /// Who is behind which dial, when that is known before dialing (plugin
    /// mode); empty in standalone mode.
    pub known: Vec<KnownMember>,
    /// Add the members found in MemberList to the given endpoints.
    pub discover: bool,
    /// Server verification (and client identity for mTLS), in memory only.
    pub tls: Option<TlsMaterial>,
    /// etcd user and password, when auth is on.
    pub credentials: Option<Credentials>,
    /// Quota for members that do not report one.
    pub quota: QuotaFallback,
    /// The EtcdCluster this target came from (plugin mode).
    pub cluster: Option<ClusterRef>,
    /// The release the members are said to run before any is asked (plugin
    /// mode: the version the operator observed). A look asks a member of a
    /// release whose Status has no quota (before 3.6) for its `/metrics`
    /// beside Status instead of after it.
    pub release_hint: Option<String>,
    /// Members' Pod probes known by member name before any dial, for
    /// members found by discovery (an agent's, from [`AgentFacts`]).
    pub probes_by_name: Vec<(String, crate::kubelet::PodProbes)>,
}
