//! Where a cluster's members run and how they were started, for `doctor`:
//! each member's Pod (its node and the etcd container's arguments, taken
//! when the session read the Pods) and each node's zone label. Plain data;
//! the decisions are `plan::doctor`'s.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, PodSpec};
use kube::api::Api;

use crate::k8s::{describe, Kube};
use crate::source::{DataVolume, MemberPod, NodeZone, ZONE_LABEL};

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

/// The volume the etcd container keeps `--data-dir` on: the mount at the
/// longest prefix of that folder (etcd-operator mounts `data` at
/// `/var/lib/etcd`; kubeadm's static Pod a hostPath `etcd-data` there).
/// `None` without a `--data-dir` or a mount that holds it. Pure.
pub(crate) fn data_volume(spec: &PodSpec) -> Option<DataVolume> {
    let args = etcd_args(spec);
    let dir = args.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix("--data-dir=")
            .map(str::to_string)
            .or_else(|| {
                (a == "--data-dir")
                    .then(|| args.get(i + 1).cloned())
                    .flatten()
            })
    })?;
    let under = |mount: &str| {
        let mount = mount.trim_end_matches('/');
        dir == mount || dir.starts_with(&format!("{mount}/")) || mount.is_empty()
    };
    let mount = spec
        .containers
        .iter()
        .filter(|c| c.name == "etcd" || spec.containers.len() == 1)
        .flat_map(|c| c.volume_mounts.iter().flatten())
        .filter(|m| under(&m.mount_path))
        .max_by_key(|m| m.mount_path.len())?;
    let volume = spec
        .volumes
        .iter()
        .flatten()
        .find(|v| v.name == mount.name)?;
    Some(DataVolume {
        name: volume.name.clone(),
        host_path: volume.host_path.as_ref().map(|h| h.path.clone()),
    })
}

/// The etcd container's image (the only container's when none is named
/// `etcd`).
pub(crate) fn etcd_image(spec: &PodSpec) -> Option<String> {
    spec.containers
        .iter()
        .find(|c| c.name == "etcd")
        .or_else(|| (spec.containers.len() == 1).then(|| &spec.containers[0]))
        .and_then(|c| c.image.clone())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: &[&str], mounts: &[(&str, &str)], volumes: serde_json::Value) -> PodSpec {
        let mounts: Vec<serde_json::Value> = mounts
            .iter()
            .map(|(name, path)| serde_json::json!({"name": name, "mountPath": path}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "containers": [
                {"name": "etcd", "command": ["etcd"], "args": args, "volumeMounts": mounts},
                {"name": "sidecar", "volumeMounts": [{"name": "other", "mountPath": "/"}]}
            ],
            "volumes": volumes,
        }))
        .unwrap()
    }

    #[test]
    fn the_data_volume_is_the_mount_holding_the_data_dir() {
        let operator = spec(
            &["--data-dir=/var/lib/etcd/default"],
            &[("data", "/var/lib/etcd"), ("tls", "/etc/etcd/tls")],
            serde_json::json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-m0"}},
                               {"name": "tls", "secret": {"secretName": "s"}}]),
        );
        let kubeadm = spec(
            &["--data-dir", "/var/lib/etcd"],
            &[
                ("etcd-certs", "/etc/kubernetes/pki/etcd"),
                ("etcd-data", "/var/lib/etcd/"),
            ],
            serde_json::json!([{"name": "etcd-data", "hostPath": {"path": "/var/lib/etcd", "type": "DirectoryOrCreate"}},
                               {"name": "etcd-certs", "hostPath": {"path": "/etc/kubernetes/pki/etcd"}}]),
        );
        let nested = spec(
            &["--data-dir=/data/etcd"],
            &[("root", "/data"), ("inner", "/data/etcd")],
            serde_json::json!([{"name": "root", "emptyDir": {}}, {"name": "inner", "emptyDir": {}}]),
        );
        let no_flag = spec(&[], &[("data", "/var/lib/etcd")], serde_json::json!([]));
        let prefix_only = spec(
            &["--data-dir=/var/lib/etcd2"],
            &[("data", "/var/lib/etcd")],
            serde_json::json!([{"name": "data", "emptyDir": {}}]),
        );
        let cases = [
            (operator, Some(("data", None))),
            (kubeadm, Some(("etcd-data", Some("/var/lib/etcd")))),
            (nested, Some(("inner", None))),
            (no_flag, None),
            (prefix_only, None),
        ];
        for (spec, want) in cases {
            let got = data_volume(&spec);
            let got = got
                .as_ref()
                .map(|v| (v.name.as_str(), v.host_path.as_deref()));
            assert_eq!(got, want, "{:?}", spec.containers[0].args);
        }
    }
}
