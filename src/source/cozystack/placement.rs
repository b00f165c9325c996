//! Where a cluster's members run and how they were started, for `doctor`:
//! each member's Pod (its node and the etcd container's arguments) and each
//! node's zone label. Plain data; the decisions are `plan::doctor`'s.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::try_join_all;
use k8s_openapi::api::core::v1::{Node, Pod, PodSpec};
use kube::api::Api;

use super::{list_labelled_pods, list_members};
use crate::error::Result;
use crate::k8s::{describe, Kube};
use crate::source::{MemberPod, NodeZone, ZONE_LABEL};

/// The Pods of cluster `name`'s members, with their nodes' zones. The
/// EtcdMembers and the cluster's Pods are listed side by side, and every
/// node is read at once: a handful of round trips, however many members
/// (a Pod the LIST did not hold, or every Pod when the LIST is refused, is
/// read by name, all at once too).
pub async fn member_pods(kube: &Kube, namespace: &str, name: &str) -> Result<Vec<MemberPod>> {
    let (members, listed) = futures::join!(
        list_members(kube, namespace, name),
        list_labelled_pods(kube, namespace, name)
    );
    let members = members?;
    let mut listed: BTreeMap<String, Pod> = listed
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| Some((p.metadata.name.clone()?, p)))
        .collect();
    let api: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let wanted: Vec<(String, String)> = members
        .iter()
        .map(|m| {
            let member = m.metadata.name.clone().unwrap_or_default();
            (member, m.pod_name().unwrap_or_default())
        })
        .collect();
    let read = try_join_all(
        wanted
            .iter()
            .filter(|(_, pod)| !listed.contains_key(pod))
            .map(|(_, pod)| {
                let api = api.clone();
                async move {
                    api.get_opt(pod)
                        .await
                        .map(|p| (pod.clone(), p))
                        .map_err(|e| describe(kube, &format!("get Pod {namespace}/{pod}"), e))
                }
            }),
    )
    .await?;
    for (pod, found) in read {
        if let Some(found) = found {
            listed.insert(pod, found);
        }
    }
    let out: Vec<MemberPod> = wanted
        .into_iter()
        .map(|(member, pod_name)| {
            let spec = listed.get(&pod_name).and_then(|p| p.spec.as_ref());
            MemberPod {
                member,
                node: spec.and_then(|s| s.node_name.clone()),
                zone: NodeZone::NoNode,
                args: spec.map(etcd_args).unwrap_or_default(),
            }
        })
        .collect();
    Ok(with_zones(kube, out).await)
}

/// `pods` with each one's node's zone, every node read at once; sorted by
/// member.
pub async fn with_zones(kube: &Kube, mut out: Vec<MemberPod>) -> Vec<MemberPod> {
    let nodes: BTreeSet<String> = out.iter().filter_map(|p| p.node.clone()).collect();
    let node_api: Api<Node> = Api::all(kube.client.clone());
    // A node that cannot be read leaves its zone unknown, not the Pods
    // unread: their arguments are still worth judging.
    let zones: BTreeMap<String, NodeZone> = futures::future::join_all(nodes.into_iter().map(|n| {
        let api = node_api.clone();
        async move {
            let zone = match api.get_opt(&n).await {
                Ok(Some(node)) => node
                    .metadata
                    .labels
                    .and_then(|labels| labels.get(ZONE_LABEL).cloned())
                    .map_or(NodeZone::Unlabelled, NodeZone::Labelled),
                Ok(None) => NodeZone::NodeMissing,
                Err(e) => NodeZone::Unread(describe(kube, &format!("get Node {n}"), e).to_string()),
            };
            (n, zone)
        }
    }))
    .await
    .into_iter()
    .collect();
    for p in &mut out {
        p.zone = p
            .node
            .as_ref()
            .and_then(|n| zones.get(n).cloned())
            .unwrap_or_default();
    }
    out.sort_by(|a, b| a.member.cmp(&b.member));
    out
}

/// The etcd container's command and arguments (every container's when none
/// is named `etcd`).
pub(super) fn etcd_args(spec: &PodSpec) -> Vec<String> {
    let etcd: Vec<_> = spec
        .containers
        .iter()
        .filter(|c| c.name == "etcd")
        .collect();
    let chosen = if etcd.is_empty() {
        spec.containers.iter().collect()
    } else {
        etcd
    };
    chosen
        .into_iter()
        .flat_map(|c| {
            c.command
                .clone()
                .unwrap_or_default()
                .into_iter()
                .chain(c.args.clone().unwrap_or_default())
        })
        .collect()
}
