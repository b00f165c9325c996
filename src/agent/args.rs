//! The agent's flags, beside the other global flags (`cli` flattens them
//! in).

/// Where a control plane's etcd is reached from.
#[derive(Debug, Clone, clap::Args)]
pub struct AgentArgs {
    /// A control plane's etcd (kubeadm's static Pods) is reached through a
    /// short-lived agent Pod on one of its nodes: this image of the tool.
    #[arg(long, global = true, help_heading = "Kubernetes (plugin mode)", value_name = "IMAGE", default_value = super::DEFAULT_IMAGE)]
    pub agent_image: String,

    /// The namespace of that agent's Job (hostNetwork and hostPath files:
    /// its Pod Security level must be privileged).
    #[arg(long, global = true, help_heading = "Kubernetes (plugin mode)", value_name = "NAMESPACE", default_value = super::DEFAULT_NAMESPACE)]
    pub agent_namespace: String,

    /// In an agent: the cluster its command is about (`namespace/name`).
    #[arg(long, global = true, hide = true, env = super::job::AGENT_OF_ENV, value_name = "CLUSTER")]
    pub agent_of: Option<String>,
}
