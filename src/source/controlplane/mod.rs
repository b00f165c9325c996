//! The control plane's own etcd (issue 42, in progress): members the
//! kubelet runs from static Pods — kubeadm's `etcd-<node>` in
//! `kube-system` (labels `component=etcd,tier=control-plane`), and any
//! static Pod running etcd whose flags name its certificates. What the API
//! says of them is read here; the certificates a client may use live on the
//! node only, so the members are reached from there (the agent), never by
//! copying a key off the node.
//!
//! So far the pure half: which Pods are such members and what each one's
//! Pod says (`resolve`). Nothing above the source uses it yet.

pub mod resolve;
