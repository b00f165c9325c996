//! Which Pods are the control plane's etcd members, and what each one's
//! Pod says: its node, the client URLs it advertises and the loopback one
//! an agent on its node dials, its certificates (named on its command line
//! as kubeadm does, or in a configuration file on the node as rke2 does),
//! the host folders that hold them, its data volume and probes. Pure.
//!
//! kubeadm's layout, from its source (`cmd/kubeadm/app/phases/etcd`): a
//! static Pod `etcd-<node>` in `kube-system`, labels
//! `component=etcd,tier=control-plane`, `hostNetwork`, the annotation
//! `kubeadm.kubernetes.io/etcd.advertise-client-urls`, the command `etcd
//! --name=<node> --listen-client-urls=https://127.0.0.1:2379,https://<ip>:2379
//! --cert-file=… --trusted-ca-file=<pki>/etcd/ca.crt
//! --listen-metrics-urls=http://127.0.0.1:2381 …`, probes on 2381, and
//! hostPath volumes `etcd-data` (`/var/lib/etcd`) and `etcd-certs`
//! (`<pki>/etcd`). The client certificates are files beside the CA:
//! `healthcheck-client.{crt,key}` there, `apiserver-etcd-client.{crt,key}`
//! one folder up.

use k8s_openapi::api::core::v1::Pod;

use crate::kubelet::PodProbes;
use crate::source::pods::{data_volume, etcd_args, etcd_container, flag_value, pod_probes};
use crate::source::DataVolume;

/// The label selector of kubeadm's etcd static Pods.
pub const KUBEADM_SELECTOR: &str = "component=etcd,tier=control-plane";

/// kubeadm's annotation with the member's advertised client URL.
pub const ADVERTISE_ANNOTATION: &str = "kubeadm.kubernetes.io/etcd.advertise-client-urls";

/// The kubelet's annotation on the API server's copy of a static Pod.
const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// Where the kubelet read a Pod from (`file`, `http` for static Pods).
const SOURCE_ANNOTATION: &str = "kubernetes.io/config.source";

/// One etcd member the kubelet runs from a static Pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticMember {
    pub pod: String,
    pub namespace: String,
    pub node: Option<String>,
    /// `--name`.
    pub name: Option<String>,
    /// The client URLs it advertises (kubeadm's annotation, else
    /// `--advertise-client-urls`).
    pub advertised: Vec<String>,
    /// A loopback client URL it listens on: what an agent on its node
    /// dials.
    pub local: Option<String>,
    /// A loopback metrics URL (`--listen-metrics-urls`), plain HTTP.
    pub metrics: Option<String>,
    pub certificates: Certificates,
    /// The host folders mounted into its container, each at its place:
    /// an agent mounts those holding the certificates, read-only.
    pub host_paths: Vec<HostMount>,
    pub data: Option<DataVolume>,
    pub probes: Option<PodProbes>,
}

/// How a static Pod's etcd names its certificates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Certificates {
    /// On its command line: the CA it trusts for clients, and the client
    /// certificates a tool on the node may use, best first.
    Flags {
        ca: String,
        clients: Vec<ClientPair>,
    },
    /// In a configuration file on the node (`--config-file`): read there.
    ConfigFile(String),
    /// Neither: its clients are not asked for a certificate it names.
    Unnamed,
}

/// A client certificate and its key, files on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientPair {
    pub cert: String,
    pub key: String,
}

/// A hostPath volume mounted into the etcd container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostMount {
    /// The folder on the node.
    pub host_path: String,
    /// Where the container sees it.
    pub mount_path: String,
}

/// The control plane's etcd members among `pods`: the static Pods running
/// etcd, sorted by node and Pod name.
pub fn members(pods: &[Pod]) -> Vec<StaticMember> {
    let mut out: Vec<StaticMember> = pods.iter().filter_map(static_member).collect();
    out.sort_by(|a, b| (&a.node, &a.pod).cmp(&(&b.node, &b.pod)));
    out
}

/// `pod`'s member when it is a static Pod running etcd.
pub fn static_member(pod: &Pod) -> Option<StaticMember> {
    if !is_static(pod) || !runs_etcd(pod) {
        return None;
    }
    let spec = pod.spec.as_ref()?;
    let args = etcd_args(spec);
    let flag = |name: &str| flag_value(&args, name).map(str::to_string);
    let urls = |text: Option<String>| -> Vec<String> {
        text.map(|t| {
            t.split(',')
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
    };
    let annotated = pod
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ADVERTISE_ANNOTATION).cloned());
    let advertised = match urls(annotated) {
        a if a.is_empty() => urls(flag("--advertise-client-urls")),
        a => a,
    };
    let local = urls(flag("--listen-client-urls"))
        .into_iter()
        .find(|u| is_loopback(u));
    let metrics = urls(flag("--listen-metrics-urls"))
        .into_iter()
        .find(|u| is_loopback(u));
    let certificates = match (flag("--config-file"), flag("--trusted-ca-file")) {
        (_, Some(ca)) => Certificates::Flags {
            clients: client_pairs(&ca),
            ca,
        },
        (Some(file), None) => Certificates::ConfigFile(file),
        (None, None) => Certificates::Unnamed,
    };
    let container = etcd_container(pod)?;
    let host_paths = container
        .volume_mounts
        .iter()
        .flatten()
        .filter_map(|m| {
            let volume = spec.volumes.iter().flatten().find(|v| v.name == m.name)?;
            Some(HostMount {
                host_path: volume.host_path.as_ref()?.path.clone(),
                mount_path: m.mount_path.clone(),
            })
        })
        .collect();
    Some(StaticMember {
        pod: pod.metadata.name.clone().unwrap_or_default(),
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        node: spec.node_name.clone(),
        name: flag("--name"),
        advertised,
        local,
        metrics,
        certificates,
        host_paths,
        data: data_volume(spec, None),
        probes: pod_probes(pod),
    })
}

/// The client certificates kubeadm leaves beside the etcd CA `ca`:
/// `healthcheck-client` in its folder (made for reading etcd's health),
/// then `apiserver-etcd-client` one folder up (the API server's own).
fn client_pairs(ca: &str) -> Vec<ClientPair> {
    let Some((dir, _)) = ca.rsplit_once('/') else {
        return Vec::new();
    };
    let pair = |dir: &str, stem: &str| ClientPair {
        cert: format!("{dir}/{stem}.crt"),
        key: format!("{dir}/{stem}.key"),
    };
    let mut out = vec![pair(dir, "healthcheck-client")];
    if let Some((up, _)) = dir.rsplit_once('/') {
        out.push(pair(up, "apiserver-etcd-client"));
    }
    out
}

/// Whether the kubelet runs `pod` from a file (or URL) of its own: the API
/// server holds a mirror of it, owned by its Node.
pub fn is_static(pod: &Pod) -> bool {
    let annotations = pod.metadata.annotations.as_ref();
    let mirrored = annotations.is_some_and(|a| a.contains_key(MIRROR_ANNOTATION));
    let from_file = annotations
        .and_then(|a| a.get(SOURCE_ANNOTATION))
        .is_some_and(|s| s == "file" || s == "http");
    let node_owned = pod
        .metadata
        .owner_references
        .iter()
        .flatten()
        .any(|o| o.kind == "Node" && o.controller == Some(true));
    mirrored || from_file || node_owned
}

/// Whether `pod`'s container runs etcd: a command or first argument whose
/// file name is `etcd`, with a flag only etcd takes.
fn runs_etcd(pod: &Pod) -> bool {
    let Some(spec) = pod.spec.as_ref() else {
        return false;
    };
    let args = etcd_args(spec);
    let binary = args
        .iter()
        .take(2)
        .any(|a| a.rsplit('/').next() == Some("etcd"));
    let flags = ["--data-dir", "--config-file", "--listen-client-urls"]
        .iter()
        .any(|f| flag_value(&args, f).is_some());
    binary && flags
}

/// Whether `url`'s host is a loopback address (`127.0.0.1`, `[::1]`,
/// `localhost`).
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => rest.split([':', '/']).next().unwrap_or_default(),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// kubeadm's certificates as its manifest names them (default
/// `certificatesDir`): for the tests of this kind and of its agent.
#[cfg(test)]
pub(crate) fn kubeadm_certificates() -> Certificates {
    let pair = |cert: &str, key: &str| ClientPair {
        cert: cert.into(),
        key: key.into(),
    };
    Certificates::Flags {
        ca: "/etc/kubernetes/pki/etcd/ca.crt".into(),
        clients: vec![
            pair(
                "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
                "/etc/kubernetes/pki/etcd/healthcheck-client.key",
            ),
            pair(
                "/etc/kubernetes/pki/apiserver-etcd-client.crt",
                "/etc/kubernetes/pki/apiserver-etcd-client.key",
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    /// The mirror Pod the API server holds for kubeadm's etcd on node
    /// `cp-1` (10.0.0.11), as kubeadm 1.37 writes the manifest.
    fn kubeadm_pod() -> serde_json::Value {
        json!({
            "metadata": {
                "name": "etcd-cp-1", "namespace": "kube-system",
                "labels": {"component": "etcd", "tier": "control-plane"},
                "annotations": {
                    "kubeadm.kubernetes.io/etcd.advertise-client-urls": "https://10.0.0.11:2379",
                    "kubernetes.io/config.source": "file",
                    "kubernetes.io/config.mirror": "0f3c9a"
                },
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "cp-1", "uid": "u", "controller": true}]
            },
            "spec": {
                "nodeName": "cp-1",
                "hostNetwork": true,
                "containers": [{
                    "name": "etcd",
                    "image": "registry.k8s.io/etcd:3.7.0-0",
                    "command": [
                        "etcd",
                        "--advertise-client-urls=https://10.0.0.11:2379",
                        "--cert-file=/etc/kubernetes/pki/etcd/server.crt",
                        "--client-cert-auth=true",
                        "--data-dir=/var/lib/etcd",
                        "--feature-gates=InitialCorruptCheck=true",
                        "--initial-advertise-peer-urls=https://10.0.0.11:2380",
                        "--initial-cluster=cp-1=https://10.0.0.11:2380",
                        "--key-file=/etc/kubernetes/pki/etcd/server.key",
                        "--listen-client-urls=https://127.0.0.1:2379,https://10.0.0.11:2379",
                        "--listen-metrics-urls=http://127.0.0.1:2381",
                        "--listen-peer-urls=https://10.0.0.11:2380",
                        "--name=cp-1",
                        "--peer-cert-file=/etc/kubernetes/pki/etcd/peer.crt",
                        "--peer-client-cert-auth=true",
                        "--peer-key-file=/etc/kubernetes/pki/etcd/peer.key",
                        "--peer-trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
                        "--snapshot-count=10000",
                        "--trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
                        "--watch-progress-notify-interval=5s"
                    ],
                    "livenessProbe": {"httpGet": {"host": "127.0.0.1", "path": "/livez", "port": "probe-port", "scheme": "HTTP"},
                                      "failureThreshold": 8, "periodSeconds": 10, "timeoutSeconds": 15, "initialDelaySeconds": 10},
                    "startupProbe": {"httpGet": {"host": "127.0.0.1", "path": "/readyz", "port": "probe-port", "scheme": "HTTP"},
                                     "failureThreshold": 24, "periodSeconds": 10, "timeoutSeconds": 15, "initialDelaySeconds": 10},
                    "ports": [{"name": "probe-port", "containerPort": 2381, "protocol": "TCP"}],
                    "volumeMounts": [
                        {"name": "etcd-data", "mountPath": "/var/lib/etcd"},
                        {"name": "etcd-certs", "mountPath": "/etc/kubernetes/pki/etcd"}
                    ]
                }],
                "volumes": [
                    {"name": "etcd-certs", "hostPath": {"path": "/etc/kubernetes/pki/etcd", "type": "DirectoryOrCreate"}},
                    {"name": "etcd-data", "hostPath": {"path": "/var/lib/etcd", "type": "DirectoryOrCreate"}}
                ]
            }
        })
    }

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn kubeadms_static_pod_is_a_member_with_its_certificates_on_the_node() {
        let m = static_member(&pod(kubeadm_pod())).expect("a member");
        assert_eq!(
            (m.pod.as_str(), m.namespace.as_str()),
            ("etcd-cp-1", "kube-system")
        );
        assert_eq!(
            (m.node.as_deref(), m.name.as_deref()),
            (Some("cp-1"), Some("cp-1"))
        );
        assert_eq!(m.advertised, ["https://10.0.0.11:2379"]);
        assert_eq!(m.local.as_deref(), Some("https://127.0.0.1:2379"));
        assert_eq!(m.metrics.as_deref(), Some("http://127.0.0.1:2381"));
        assert_eq!(m.certificates, kubeadm_certificates());
        assert!(m.host_paths.contains(&HostMount {
            host_path: "/etc/kubernetes/pki/etcd".into(),
            mount_path: "/etc/kubernetes/pki/etcd".into(),
        }));
        let data = m.data.expect("data volume");
        assert_eq!(
            (data.name.as_str(), data.host_path.as_deref()),
            ("etcd-data", Some("/var/lib/etcd"))
        );
        let probes = m.probes.expect("probes");
        assert!(probes.liveness.is_some() && probes.startup.is_some());
    }

    #[test]
    fn which_pods_are_control_plane_members() {
        let mut other_node = kubeadm_pod();
        other_node["metadata"]["name"] = json!("etcd-cp-0");
        other_node["spec"]["nodeName"] = json!("cp-0");
        // An operator's member Pod runs etcd too, but no kubelet file made it.
        let mut operated = kubeadm_pod();
        operated["metadata"]["name"] = json!("etcd-0");
        operated["metadata"]["annotations"] = json!({});
        operated["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "etcd", "uid": "s", "controller": true}]);
        // A static Pod that is not etcd (kube-apiserver names etcd in flags).
        let mut apiserver = kubeadm_pod();
        apiserver["metadata"]["name"] = json!("kube-apiserver-cp-1");
        apiserver["spec"]["containers"][0]["name"] = json!("kube-apiserver");
        apiserver["spec"]["containers"][0]["command"] =
            json!(["kube-apiserver", "--etcd-servers=https://127.0.0.1:2379"]);
        let found: Vec<String> = members(&[
            pod(kubeadm_pod()),
            pod(operated),
            pod(apiserver),
            pod(other_node),
        ])
        .into_iter()
        .map(|m| m.pod)
        .collect();
        assert_eq!(found, ["etcd-cp-0", "etcd-cp-1"]);
    }

    /// rke2's layout: a static Pod whose etcd reads its flags, the
    /// certificates among them, from a file on the node.
    #[test]
    fn certificates_in_a_configuration_file_are_read_on_the_node() {
        let mut rke2 = kubeadm_pod();
        rke2["metadata"]["annotations"] = json!({"kubernetes.io/config.source": "file"});
        rke2["spec"]["containers"][0]["command"] = json!(["etcd"]);
        rke2["spec"]["containers"][0]["args"] =
            json!(["--config-file=/var/lib/rancher/rke2/server/db/etcd/config"]);
        let m = static_member(&pod(rke2)).expect("a member");
        assert_eq!(
            m.certificates,
            Certificates::ConfigFile("/var/lib/rancher/rke2/server/db/etcd/config".into())
        );
        assert!(m.advertised.is_empty() && m.local.is_none());
    }

    #[test]
    fn loopback_urls_are_told_apart() {
        for (url, loopback) in [
            ("https://127.0.0.1:2379", true),
            ("https://[::1]:2379", true),
            ("http://localhost:2381", true),
            ("https://10.0.0.11:2379", false),
            ("https://[fd00::1]:2379", false),
            ("unix:///run/etcd.sock", false),
        ] {
            assert_eq!(is_loopback(url), loopback, "{url}");
        }
    }
}
