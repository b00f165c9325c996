//! The tool where users run it, on the test bed's real node (a kubelet over
//! containerd and runc) and, for most modules, the real etcd-operator: one
//! test each, one test binary for all of them (issue 38).
//!
//!     cargo test --test node                  # all of them
//!     cargo test --test node -- node_probes:: # one module
//!
//! A machine runs one node at a time (its addresses are fixed), so
//! `Node::start` waits until the process's previous node is stopped: the
//! tests run one after another, as they did as separate binaries.

#[path = "../support/mod.rs"]
mod support;

mod cronjob;
mod etcdio_operator;
mod kubeadm;
mod monitoring;
mod node;
mod node_beside;
mod node_probes;
mod node_room;
mod operator;
mod watch_deploy;
