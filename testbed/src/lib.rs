//! The real test bed: etcd clusters of 1, 3 or 5 members on loopback, built
//! from pinned Go modules by `testbed/build.sh`, with throwaway certificates
//! for plaintext, server-TLS, mutual-TLS and mutual-TLS + auth clusters.
//!
//! Every process a `Cluster` starts is killed when the `Cluster` is dropped,
//! including when a test panics, so a failing test leaves nothing running.

pub mod apiserver;
pub mod bins;
pub mod certs;
pub mod cluster;
pub mod delay;
pub mod etcdio_operator;
mod host;
pub mod image;
pub mod kubeadm;
pub mod kubelet;
pub mod node;
pub mod operator;
pub mod peers;
pub mod ports;
pub mod soak;
pub mod storage;
pub mod tool_image;

pub use apiserver::{kubeconfig_across, ApiServer, Context, ContextOn, ServerOptions};
pub use bins::{EtcdVersion, KubeRelease};
pub use cluster::{
    Cluster, ClusterSpec, LeadershipEvent, LoggedDefrag, LoggedLeadership, Security,
};
pub use kubelet::Kubelet;

/// Errors of the test bed are plain strings: they end up in a test failure
/// message, where the text is what matters.
pub type Result<T> = std::result::Result<T, String>;
