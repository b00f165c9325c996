//! The kubelet's volume statistics, read through the API server's node
//! proxy (`GET /api/v1/nodes/{node}/proxy/stats/summary`): the free space
//! on a member's data volume, as the kubelet measured it (for a `local`
//! PersistentVolume, statfs of its folder's filesystem).
//!
//! The API server asks the caller for `get` on `nodes/proxy`; the kubelet
//! then authorizes the API server's own client. That permission is wide
//! (it reaches every kubelet endpoint the API server proxies), so only the
//! opt-in `deploy/volume-stats` grants it: without it the room
//! is not known, and the command says so.
//!
//! The kubelet refreshes a volume's figures about once a minute (its
//! `volumeStatsAggPeriod`), and reports nothing for a Pod until it has
//! measured it once; each figure carries when it was taken.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Kube;

/// One volume of one Pod, as the kubelet last measured it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeStats {
    pub available_bytes: u64,
    pub capacity_bytes: u64,
    /// When the kubelet measured it (RFC 3339), as it says.
    pub time: Option<String>,
}

/// Every Pod volume the node's kubelet reports, by (namespace, Pod,
/// volume name). Volumes it reports no capacity for (a kubelet's 0 means
/// not known) are left out.
pub type NodeVolumes = BTreeMap<(String, String, String), VolumeStats>;

#[derive(Deserialize)]
struct Summary {
    #[serde(default)]
    pods: Vec<PodStats>,
}

#[derive(Deserialize)]
struct PodStats {
    #[serde(rename = "podRef")]
    pod_ref: PodRef,
    #[serde(default)]
    volume: Vec<Volume>,
}

#[derive(Deserialize)]
struct PodRef {
    name: String,
    namespace: String,
}

#[derive(Deserialize)]
struct Volume {
    name: String,
    #[serde(rename = "availableBytes")]
    available: Option<u64>,
    #[serde(rename = "capacityBytes")]
    capacity: Option<u64>,
    time: Option<String>,
}

/// Parses a kubelet Summary. Pure.
pub fn parse_summary(body: &[u8]) -> Result<NodeVolumes, String> {
    let summary: Summary = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    let mut out = NodeVolumes::new();
    for pod in summary.pods {
        for v in pod.volume {
            let (Some(available), Some(capacity)) = (v.available, v.capacity) else {
                continue;
            };
            if capacity == 0 {
                continue;
            }
            out.insert(
                (
                    pod.pod_ref.namespace.clone(),
                    pod.pod_ref.name.clone(),
                    v.name,
                ),
                VolumeStats {
                    available_bytes: available,
                    capacity_bytes: capacity,
                    time: v.time,
                },
            );
        }
    }
    Ok(out)
}

/// The volume statistics of node `node`'s kubelet, or one line saying why
/// they could not be read (a refusal names the permission to grant).
pub async fn of_node(kube: &Kube, node: &str) -> Result<NodeVolumes, String> {
    let path = format!("/api/v1/nodes/{node}/proxy/stats/summary");
    let request = http::Request::get(&path)
        .body(Vec::new())
        .map_err(|e| e.to_string())?;
    match kube.client.request_text(request).await {
        Ok(text) => parse_summary(text.as_bytes())
            .map_err(|e| format!("node {node}'s kubelet answered a summary this tool cannot read: {e}")),
        Err(kube::Error::Api(s)) if s.code == 403 => Err(format!(
            "reading the kubelet's volume statistics needs get on nodes/proxy, which deploy/volume-stats grants (check: kubectl auth can-i get nodes --subresource=proxy); the API server said: {}",
            s.message
        )),
        Err(kube::Error::Api(s)) => Err(format!(
            "the API server answered {} to node {node}'s kubelet volume statistics: {}",
            s.code, s.message
        )),
        Err(e) => Err(format!(
            "node {node}'s kubelet volume statistics: {}",
            super::error_chain(&e)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_gives_each_volume_with_a_capacity() {
        let body = br#"{"node":{"nodeName":"n1"},"pods":[
          {"podRef":{"name":"etcd-0","namespace":"prod","uid":"u"},"volume":[
            {"time":"2026-12-05T10:00:00Z","availableBytes":104857600,"capacityBytes":1073741824,"usedBytes":1,"name":"data","pvcRef":{"name":"data-etcd-0","namespace":"prod"}},
            {"availableBytes":0,"capacityBytes":0,"name":"unknown"},
            {"name":"kube-api-access"}]},
          {"podRef":{"name":"other","namespace":"prod","uid":"v"}}]}"#;
        let got = parse_summary(body).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[&("prod".into(), "etcd-0".into(), "data".into())],
            VolumeStats {
                available_bytes: 100 << 20,
                capacity_bytes: 1 << 30,
                time: Some("2026-12-05T10:00:00Z".into()),
            }
        );
        assert!(parse_summary(b"<html>").is_err());
    }
}
