//! The control plane's own etcd: members the kubelet runs from static
//! Pods — kubeadm's `etcd-<node>` in `kube-system` (labels
//! `component=etcd,tier=control-plane`), rke2's laid out alike, and with
//! `--kind control-plane` any static Pod running etcd. What the API says of
//! them is read here; the certificates a client may use live on the node
//! only, so the members are reached from there, through an agent Pod
//! (`crate::agent`), never by copying a key off the node.
//!
//! The cluster is named after its static Pods' manifest (`etcd`: the Pods
//! are `etcd-<node>`), in their namespace: `kube-system/etcd`.

pub mod resolve;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};

use crate::error::{Error, Result};
use crate::k8s::{describe, Kube};
use crate::reach::ClusterRef;
use resolve::StaticMember;

/// How messages name this kind's cluster.
pub const NOUN: &str = "control-plane etcd";

/// Where control planes keep their static Pods' copies.
pub const NAMESPACE: &str = "kube-system";

/// The label every layout known (kubeadm's, rke2's) puts on its etcd
/// Pods; listings read those only, unless `--kind control-plane` asks
/// for every static Pod running etcd.
pub const COMPONENT_SELECTOR: &str = "component=etcd";

/// A control plane's etcd as its static Pods show it: reached from one
/// of its nodes ([`crate::agent`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnNode {
    pub cluster: ClusterRef,
    /// Its members' Pods, sorted by node.
    pub members: Vec<StaticMember>,
}

/// What reading a control plane's etcd ends with: the command runs on its
/// node instead ([`Error::OnNode`]).
pub fn run_on_its_node(cluster: &ClusterRef) -> Error {
    Error::OnNode {
        namespace: cluster.namespace.clone(),
        name: cluster.name.clone(),
    }
}

/// What a name no operator's kind holds ends with: [`run_on_its_node`]
/// when it is a control plane's etcd (its [`COMPONENT_SELECTOR`] Pods),
/// else `not_found`, the operators' own word.
pub async fn or_not_found(kube: &Kube, namespace: &str, name: &str, not_found: Error) -> Error {
    match fetch(kube, namespace, name, false).await {
        Ok(on_node) => run_on_its_node(&on_node.cluster),
        Err(_) => not_found,
    }
}

/// The cluster name a static member's Pod carries: its name without the
/// `-<node>` the kubelet appends to a mirror Pod's.
pub fn cluster_name(member: &StaticMember) -> String {
    match &member.node {
        Some(node) => member
            .pod
            .strip_suffix(&format!("-{node}"))
            .unwrap_or(&member.pod)
            .to_string(),
        None => member.pod.clone(),
    }
}

/// Groups static members into clusters, by namespace and name. Pure.
pub fn clusters(members: Vec<StaticMember>) -> Vec<OnNode> {
    let mut out: Vec<OnNode> = Vec::new();
    for m in members {
        let cluster = ClusterRef::new(m.namespace.clone(), cluster_name(&m));
        match out.iter_mut().find(|c| c.cluster == cluster) {
            Some(c) => c.members.push(m),
            None => out.push(OnNode {
                cluster,
                members: vec![m],
            }),
        }
    }
    out.sort_by(|a, b| {
        (&a.cluster.namespace, &a.cluster.name).cmp(&(&b.cluster.namespace, &b.cluster.name))
    });
    out
}

/// The control planes' etcd clusters in `namespace` ([`NAMESPACE`] when
/// `None`: static Pods of a control plane live there). `every`: every
/// static Pod running etcd, else those [`COMPONENT_SELECTOR`] labels; a
/// user's `selector` is added to that.
pub async fn list_clusters(
    kube: &Kube,
    namespace: Option<&str>,
    selector: Option<&str>,
    every: bool,
) -> Result<Vec<OnNode>> {
    let namespace = namespace.unwrap_or(NAMESPACE);
    let pods: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let labels: Vec<&str> = [(!every).then_some(COMPONENT_SELECTOR), selector]
        .into_iter()
        .flatten()
        .collect();
    let mut params = ListParams::default();
    if !labels.is_empty() {
        params = params.labels(&labels.join(","));
    }
    let listed = pods.list(&params).await.map_err(|e| {
        describe(
            kube,
            &format!("list Pods in namespace {namespace} (the control plane's etcd)"),
            e,
        )
    })?;
    Ok(clusters(resolve::members(&listed.items)))
}

/// The control plane's etcd `namespace/name`; "not found" says what is
/// there.
pub async fn fetch(kube: &Kube, namespace: &str, name: &str, every: bool) -> Result<OnNode> {
    let found = list_clusters(kube, Some(namespace), None, every).await?;
    let names: Vec<String> = found.iter().map(|c| c.cluster.name.clone()).collect();
    found
        .into_iter()
        .find(|c| c.cluster.name == name)
        .ok_or_else(|| {
            let there = match names.is_empty() {
                true => format!("no static Pod runs etcd in namespace {namespace}"),
                false => format!("there: {}", names.join(", ")),
            };
            Error::Resolve(format!("{NOUN} {namespace}/{name} not found ({there})"))
        })
}

/// The cluster and member of static Pod `pod` in `namespace`: `-p POD`.
pub async fn member_of_pod(kube: &Kube, namespace: &str, pod: &str) -> Result<(String, String)> {
    let found = list_clusters(kube, Some(namespace), None, true).await?;
    found
        .iter()
        .find_map(|c| {
            c.members
                .iter()
                .find(|m| m.pod == pod)
                .map(|m| (c.cluster.name.clone(), m.name.clone().unwrap_or_default()))
        })
        .ok_or_else(|| {
            Error::Resolve(format!(
                "Pod {namespace}/{pod} is not a static Pod running etcd"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::resolve::Certificates;
    use super::*;

    fn member(pod: &str, namespace: &str, node: Option<&str>) -> StaticMember {
        StaticMember {
            pod: pod.into(),
            namespace: namespace.into(),
            node: node.map(str::to_string),
            name: node.map(str::to_string),
            advertised: Vec::new(),
            local: None,
            metrics: None,
            certificates: Certificates::Unnamed,
            host_paths: Vec::new(),
            data: None,
            probes: None,
        }
    }

    #[test]
    fn static_pods_group_into_clusters_named_after_their_manifest() {
        let found = clusters(vec![
            member("etcd-cp-2", "kube-system", Some("cp-2")),
            member("etcd-cp-1", "kube-system", Some("cp-1")),
            member("etcd-events-cp-1", "kube-system", Some("cp-1")),
            member("odd", "kube-system", None),
            member("etcd-cp-9", "other", Some("cp-9")),
        ]);
        let shape: Vec<(String, Vec<String>)> = found
            .iter()
            .map(|c| {
                (
                    c.cluster.label(),
                    c.members.iter().map(|m| m.pod.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "kube-system/etcd".to_string(),
                    vec!["etcd-cp-2".to_string(), "etcd-cp-1".into()]
                ),
                (
                    "kube-system/etcd-events".into(),
                    vec!["etcd-events-cp-1".into()]
                ),
                ("kube-system/odd".into(), vec!["odd".into()]),
                ("other/etcd".into(), vec!["etcd-cp-9".into()]),
            ]
        );
    }
}
