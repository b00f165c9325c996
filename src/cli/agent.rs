//! The agent's flags, beside the other global flags (`GlobalArgs`
//! flattens them in): where a control plane's etcd is reached from
//! (`crate::agent`).

/// `--agent-image`'s default: this release of the tool, as the manifests
/// in `deploy/` name it.
pub const DEFAULT_IMAGE: &str = concat!("kubectl-etcd:v", env!("CARGO_PKG_VERSION"));

/// `--agent-namespace`'s default.
pub const DEFAULT_NAMESPACE: &str = "kube-system";

/// Where a control plane's etcd is reached from.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentArgs {
    /// A control plane's etcd (kubeadm's static Pods) is reached through a
    /// short-lived agent Pod on one of its nodes: this image of the tool.
    #[arg(long, global = true, help_heading = super::K8S, value_name = "IMAGE", default_value = DEFAULT_IMAGE)]
    pub agent_image: String,

    /// The namespace of that agent's Job (hostNetwork and hostPath files:
    /// its Pod Security level must be privileged).
    #[arg(long, global = true, help_heading = super::K8S, value_name = "NAMESPACE", default_value = DEFAULT_NAMESPACE)]
    pub agent_namespace: String,

    /// In an agent: the cluster its command is about (`namespace/name`),
    /// from `reach::flags::AGENT_OF_ENV`, which the agent's Job sets (read by
    /// `cli::parse`: no flag a user could type).
    #[arg(skip)]
    pub agent_of: Option<String>,

    /// In an agent that serves its answer on a port of the node: the
    /// SHA-256 of the token to serve, from `reach::flags::AGENT_SERVE_ENV`
    /// (read by `cli::parse`).
    #[arg(skip)]
    pub serve_key: Option<String>,

    /// In an agent: what the tool that started it knew of the cluster
    /// (JSON), from `reach::flags::AGENT_FACTS_ENV`.
    #[arg(skip)]
    pub facts: Option<String>,
}

impl AgentArgs {
    /// Reads what an agent's Job sets (no flag a user could type).
    pub fn read_env(&mut self) {
        self.agent_of = std::env::var(crate::reach::flags::AGENT_OF_ENV).ok();
        self.serve_key = std::env::var(crate::reach::flags::AGENT_SERVE_ENV).ok();
        self.facts = std::env::var(crate::reach::flags::AGENT_FACTS_ENV).ok();
    }
}
