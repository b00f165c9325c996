//! What plugin mode reads for one cluster, as plain data: the EtcdCluster,
//! its EtcdMembers, their Pods' IPs and probes, and the Secrets its spec
//! names. `source::cozystack::fetch` fills it; `resolve::resolve` decides from it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::k8s::crd::{EtcdCluster, EtcdMember};
use crate::kubelet::{
    Handler, PodProbes, Probe, ProbeKind, DEFAULT_FAILURE_THRESHOLD, DEFAULT_PERIOD_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
};

/// The data of one Secret (`None` when it does not exist).
pub type SecretData = Option<BTreeMap<String, Vec<u8>>>;

/// Everything read from the API for one cluster.
#[derive(Debug, Clone)]
pub struct ClusterObjects {
    pub namespace: String,
    pub cluster: EtcdCluster,
    /// EtcdMembers labelled with the cluster, in any order.
    pub members: Vec<EtcdMember>,
    /// Pod name → `status.podIP`, for Pods that have one.
    pub pod_ips: BTreeMap<String, String>,
    /// Pod name → its etcd container's probes, for Pods that exist.
    pub probes: BTreeMap<String, PodProbes>,
    /// The Secrets `secret_names` asked for.
    pub secrets: BTreeMap<String, SecretData>,
    /// Each member's Pod: its node and etcd arguments (zones not read).
    pub placement: Vec<crate::source::MemberPod>,
}

/// The container the kubelet runs etcd in: the one named `etcd` (the
/// operator's name, and kubeadm's), else the Pod's only container.
fn etcd_container(pod: &Pod) -> Option<&Container> {
    let containers = &pod.spec.as_ref()?.containers;
    containers
        .iter()
        .find(|c| c.name == "etcd")
        .or_else(|| (containers.len() == 1).then(|| &containers[0]))
}

/// The liveness and startup probes of a member Pod's etcd container, with
/// the API server's defaults where a field is left out. `None` when the
/// Pod has no such container. Pure.
pub fn pod_probes(pod: &Pod) -> Option<PodProbes> {
    let container = etcd_container(pod)?;
    let started = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .and_then(|all| all.iter().find(|c| c.name == container.name))
        .and_then(|c| c.started);
    Some(PodProbes {
        pod: pod.metadata.name.clone().unwrap_or_default(),
        container: container.name.clone(),
        started,
        liveness: container
            .liveness_probe
            .as_ref()
            .and_then(|p| probe_of(ProbeKind::Liveness, p)),
        startup: container
            .startup_probe
            .as_ref()
            .and_then(|p| probe_of(ProbeKind::Startup, p)),
    })
}

fn probe_of(kind: ProbeKind, p: &k8s_openapi::api::core::v1::Probe) -> Option<Probe> {
    let port = |port: &IntOrString| match port {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(name) => name.clone(),
    };
    let handler = if let Some(h) = &p.http_get {
        Handler::HttpGet {
            path: h.path.clone().unwrap_or_else(|| "/".into()),
            port: port(&h.port),
        }
    } else if let Some(t) = &p.tcp_socket {
        Handler::TcpSocket {
            port: port(&t.port),
        }
    } else if let Some(g) = &p.grpc {
        Handler::Grpc {
            port: g.port,
            service: g.service.clone().unwrap_or_default(),
        }
    } else {
        Handler::Exec {
            command: p.exec.as_ref()?.command.clone().unwrap_or_default(),
        }
    };
    let seconds = |v: Option<i32>, default: u32| {
        v.and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
    };
    Some(Probe {
        kind,
        handler,
        period_seconds: seconds(p.period_seconds, DEFAULT_PERIOD_SECONDS),
        timeout_seconds: seconds(p.timeout_seconds, DEFAULT_TIMEOUT_SECONDS),
        failure_threshold: seconds(p.failure_threshold, DEFAULT_FAILURE_THRESHOLD),
    })
}

/// What a Secret is used for, to name it in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretRole {
    Server,
    OperatorClient,
    RootCredentials,
}

impl SecretRole {
    pub fn describe(self) -> &'static str {
        match self {
            SecretRole::Server => "server TLS Secret",
            SecretRole::OperatorClient => "operator-client TLS Secret",
            SecretRole::RootCredentials => "root credentials Secret",
        }
    }
}

/// The Secrets a cluster's spec refers to, by role. Pure.
pub fn secret_names(cluster: &EtcdCluster) -> Vec<(String, SecretRole)> {
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let mut out = Vec::new();
    if let Some(client) = cluster.spec.tls.as_ref().and_then(|t| t.client.as_ref()) {
        if let Some(r) = &client.server_secret_ref {
            out.push((r.name.clone(), SecretRole::Server));
            if let Some(o) = &client.operator_client_secret_ref {
                out.push((o.name.clone(), SecretRole::OperatorClient));
            }
        } else if let Some(cm) = &client.cert_manager {
            if cm.server_issuer_ref.is_some() {
                out.push((format!("{name}-server-tls"), SecretRole::Server));
            }
            if cm.operator_client_issuer_ref.is_some() {
                out.push((
                    format!("{name}-operator-client-tls"),
                    SecretRole::OperatorClient,
                ));
            }
        }
    }
    if auth_active(cluster) {
        if let Some(r) = cluster
            .spec
            .auth
            .as_ref()
            .and_then(|a| a.root_credentials_secret_ref.as_ref())
        {
            out.push((r.name.clone(), SecretRole::RootCredentials));
        }
    }
    out
}

/// Credentials are sent only when auth is requested and already on.
pub fn auth_active(cluster: &EtcdCluster) -> bool {
    let requested = cluster.spec.auth.as_ref().and_then(|a| a.enabled) == Some(true);
    let on = cluster.status.as_ref().and_then(|s| s.auth_enabled) == Some(true);
    requested && on
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn probes_are_read_from_the_etcd_container_with_the_servers_defaults() {
        // kubeadm's static Pod: HTTP probes on the metrics port.
        let kubeadm = pod(serde_json::json!({
            "metadata": {"name": "etcd-cp1"},
            "spec": {"containers": [{
                "name": "etcd", "image": "registry.k8s.io/etcd:3.6.5-0",
                "livenessProbe": {"httpGet": {"host": "127.0.0.1", "path": "/livez", "port": 2381},
                                  "periodSeconds": 10, "timeoutSeconds": 15, "failureThreshold": 8},
                "startupProbe": {"httpGet": {"path": "/readyz", "port": 2381},
                                 "periodSeconds": 10, "timeoutSeconds": 15, "failureThreshold": 24}
            }]},
            "status": {"containerStatuses": [{"name": "etcd", "started": true, "ready": true,
                "restartCount": 0, "image": "x", "imageID": ""}]}
        }));
        let p = pod_probes(&kubeadm).unwrap();
        assert_eq!(p.started, Some(true));
        let live = p.liveness.unwrap();
        assert_eq!(
            (
                live.handler,
                live.period_seconds,
                live.timeout_seconds,
                live.failure_threshold
            ),
            (
                Handler::HttpGet {
                    path: "/livez".into(),
                    port: "2381".into()
                },
                10,
                15,
                8
            )
        );
        assert_eq!(p.startup.unwrap().failure_threshold, 24);

        // The operator's: TCP on the peer port, timeout left to the default;
        // a sidecar beside it does not matter.
        let operator = pod(serde_json::json!({
            "metadata": {"name": "c-b7xq2"},
            "spec": {"containers": [
                {"name": "sidecar", "image": "x",
                 "livenessProbe": {"exec": {"command": ["true"]}}},
                {"name": "etcd", "image": "x",
                 "livenessProbe": {"tcpSocket": {"port": 2380}, "periodSeconds": 10,
                                   "failureThreshold": 3, "initialDelaySeconds": 15}}
            ]}
        }));
        let p = pod_probes(&operator).unwrap();
        assert_eq!((p.container.as_str(), p.started), ("etcd", None));
        let live = p.liveness.unwrap();
        assert_eq!(
            live.handler,
            Handler::TcpSocket {
                port: "2380".into()
            }
        );
        assert_eq!(live.timeout_seconds, DEFAULT_TIMEOUT_SECONDS);
        assert!(p.startup.is_none());

        // A named port, gRPC and exec handlers; no probe at all.
        let other = pod(serde_json::json!({
            "metadata": {"name": "x"},
            "spec": {"containers": [{"name": "main", "image": "x",
                "livenessProbe": {"httpGet": {"port": "metrics"}},
                "startupProbe": {"grpc": {"port": 2379}}}]}
        }));
        let p = pod_probes(&other).unwrap();
        assert_eq!(
            p.liveness.unwrap().handler,
            Handler::HttpGet {
                path: "/".into(),
                port: "metrics".into()
            }
        );
        assert_eq!(
            p.startup.unwrap().handler,
            Handler::Grpc {
                port: 2379,
                service: String::new()
            }
        );
        let two = pod(serde_json::json!({
            "metadata": {"name": "x"},
            "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]}
        }));
        assert_eq!(pod_probes(&two), None);
    }
}
