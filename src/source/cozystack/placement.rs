//! Where a cluster's members run and how they were started, for `doctor`:
//! each member's Pod (its node and the etcd container's arguments, taken
//! when the session read the Pods) and each node's zone label. Plain data;
//! the decisions are `plan::doctor`'s.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, PodSpec};
use kube::api::Api;

use crate::k8s::{describe, Kube};
use crate::source::{MemberPod, NodeZone, ZONE_LABEL};

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
