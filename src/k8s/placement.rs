//! Where a cluster's members run and how they were started, for `doctor`:
//! each member's Pod (its node and the etcd container's arguments) and each
//! node's zone label. Plain data; the decisions are `plan::doctor`'s.

use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::Api;

use super::{describe, list_members, Kube};
use crate::error::Result;

/// The label zone-aware routing reads.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// One member's Pod as doctor sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberPod {
    /// The EtcdMember's name.
    pub member: String,
    /// `None` when the Pod is missing or not scheduled.
    pub node: Option<String>,
    /// The zone label of that node.
    pub zone: Option<String>,
    /// The etcd container's command and arguments (every container's when
    /// none is named `etcd`).
    pub args: Vec<String>,
}

/// The Pods of cluster `name`'s members, with their nodes' zones.
pub async fn member_pods(kube: &Kube, namespace: &str, name: &str) -> Result<Vec<MemberPod>> {
    let members = list_members(kube, namespace, name).await?;
    let pods: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let nodes: Api<Node> = Api::all(kube.client.clone());
    let mut out = Vec::new();
    for m in &members {
        let member = m.metadata.name.clone().unwrap_or_default();
        let pod_name = m
            .status
            .as_ref()
            .and_then(|s| s.pod_name.clone())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| member.clone());
        let pod = pods
            .get_opt(&pod_name)
            .await
            .map_err(|e| describe(kube, &format!("get Pod {namespace}/{pod_name}"), e))?;
        let spec = pod.and_then(|p| p.spec);
        let node = spec.as_ref().and_then(|s| s.node_name.clone());
        let args = spec
            .map(|s| {
                let etcd: Vec<_> = s.containers.iter().filter(|c| c.name == "etcd").collect();
                let chosen = if etcd.is_empty() {
                    s.containers.iter().collect()
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
            })
            .unwrap_or_default();
        let zone = match &node {
            Some(n) => nodes
                .get_opt(n)
                .await
                .map_err(|e| describe(kube, &format!("get Node {n}"), e))?
                .and_then(|node| node.metadata.labels)
                .and_then(|labels| labels.get(ZONE_LABEL).cloned()),
            None => None,
        };
        out.push(MemberPod {
            member,
            node,
            zone,
            args,
        });
    }
    out.sort_by(|a, b| a.member.cmp(&b.member));
    Ok(out)
}
