//! Plugin mode on the test bed's kube-apiserver (with its fake kubelet for
//! port-forwards and probes) and real etcd clusters: status, doctor,
//! traffic, port-forward, the real kubectl, and `defrag --watch`. One test
//! binary for all of them (issue 38), so they share one API server, as the
//! tests of each module always did: each module works in namespaces of its
//! own, and its cluster-scoped objects (ClusterRoles and their bindings)
//! have names of its own and grant nobody EtcdDefrag status.
//!
//!     cargo test --test k8s                   # all of them
//!     cargo test --test k8s -- watch_lease::  # one module
//!
//! Modules that need an API server to themselves are binaries of their own
//! (`tests/k8s_*.rs`; each says why), and the real node's are `tests/node`.

#[path = "../support/mod.rs"]
mod support;

mod contexts;
mod doctor;
mod etcdio;
mod incluster;
mod kubectl_plugin;
mod portforward;
mod probes;
mod room;
mod status;
mod traffic;
mod watch;
mod watch_lease;
mod watch_metrics;
mod watch_more;
mod watch_policy;
mod watch_takeover;
