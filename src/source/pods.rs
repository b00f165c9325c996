//! What every kind of cluster reads of a member's Pod, whoever made it:
//! where to dial it and its etcd container's probes, where it runs and how
//! etcd was started (the node, the etcd container's arguments, image and
//! data volume, for `doctor` and the room on the disk), and each node's
//! zone label. Plain data; the decisions are `plan::doctor`'s.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, Node, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::api::Api;

use crate::k8s::{describe, Kube};
use crate::kubelet::{
    Handler, PodProbes, Probe, ProbeKind, DEFAULT_FAILURE_THRESHOLD, DEFAULT_PERIOD_SECONDS,
    DEFAULT_TIMEOUT_SECONDS,
};
use crate::source::{DataVolume, MemberPod, NodeZone, ZONE_LABEL};

/// What plugin mode takes from a member's Pod: where to dial it, its
/// probes, and where it runs and how etcd was started (`doctor`).
#[derive(Debug, Clone, Default)]
pub struct PodFacts {
    pub ip: Option<String>,
    pub probes: Option<PodProbes>,
    pub node: Option<String>,
    pub args: Vec<String>,
    pub namespace: Option<String>,
    pub data_volume: Option<DataVolume>,
    pub image: Option<String>,
}

impl PodFacts {
    /// `pod`'s facts; `data_dir` is where etcd keeps its data when the
    /// Pod's spec does not say (`--data-dir`, a literal `ETCD_DATA_DIR`),
    /// as the kind's operator sets it elsewhere (a ConfigMap).
    pub fn of(pod: &Pod, data_dir: Option<&str>) -> PodFacts {
        let spec = pod.spec.as_ref();
        PodFacts {
            ip: pod.status.as_ref().and_then(|s| s.pod_ip.clone()),
            probes: pod_probes(pod),
            node: spec.and_then(|s| s.node_name.clone()),
            args: spec.map(etcd_args).unwrap_or_default(),
            namespace: pod.metadata.namespace.clone(),
            data_volume: spec.and_then(|s| data_volume(s, data_dir)),
            image: spec.and_then(etcd_image),
        }
    }

    /// Member `member`'s [`MemberPod`] from these facts of its Pod `pod`
    /// (`None`: the Pod was not found); zones not read yet.
    pub fn member_pod(member: String, pod: Option<String>, facts: Option<&PodFacts>) -> MemberPod {
        MemberPod {
            member,
            node: facts.and_then(|f| f.node.clone()),
            zone: NodeZone::NoNode,
            args: facts.map(|f| f.args.clone()).unwrap_or_default(),
            pod: facts
                .zip(pod)
                .and_then(|(f, p)| Some((f.namespace.clone()?, p))),
            data_volume: facts.and_then(|f| f.data_volume.clone()),
            image: facts.and_then(|f| f.image.clone()),
        }
    }
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

/// The volume the etcd container keeps `--data-dir` on: the mount at the
/// longest prefix of that folder (etcd-operator mounts `data` at
/// `/var/lib/etcd`; kubeadm's static Pod a hostPath `etcd-data` there).
/// The folder is `--data-dir`, else a literal `ETCD_DATA_DIR` in the etcd
/// container's environment, else `fallback` (where the kind's operator
/// sets it out of the Pod's sight). `None` without a folder or a mount
/// that holds it. Pure.
pub(crate) fn data_volume(spec: &PodSpec, fallback: Option<&str>) -> Option<DataVolume> {
    let args = etcd_args(spec);
    let from_env = || {
        spec.containers
            .iter()
            .filter(|c| c.name == "etcd" || spec.containers.len() == 1)
            .flat_map(|c| c.env.iter().flatten())
            .find(|e| e.name == "ETCD_DATA_DIR")
            .and_then(|e| e.value.clone())
    };
    let dir = args
        .iter()
        .enumerate()
        .find_map(|(i, a)| {
            a.strip_prefix("--data-dir=")
                .map(str::to_string)
                .or_else(|| {
                    (a == "--data-dir")
                        .then(|| args.get(i + 1).cloned())
                        .flatten()
                })
        })
        .or_else(from_env)
        .or_else(|| fallback.map(str::to_string))?;
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
pub(crate) fn etcd_args(spec: &PodSpec) -> Vec<String> {
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

/// The value of etcd flag `flag` (`--quota-backend-bytes`) in `args`, in
/// either of its forms (`--f=v`, `--f v`); the last one wins, as in etcd.
pub fn flag_value<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let mut found = None;
    let mut iter = args.iter().peekable();
    while let Some(arg) = iter.next() {
        if let Some(v) = arg.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            found = Some(v);
        } else if let Some(v) = arg
            .strip_prefix(flag)
            .and_then(|r| r.strip_prefix(' '))
            .map(str::trim)
        {
            found = Some(v);
        } else if arg == flag {
            found = iter.peek().map(|v| v.as_str());
        }
    }
    found
}

/// The container the kubelet runs etcd in: the one named `etcd` (the
/// operator's name, and kubeadm's), else the Pod's only container.
pub(crate) fn etcd_container(pod: &Pod) -> Option<&Container> {
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
            .and_then(|p| probe_of(ProbeKind::Liveness, p, container)),
        startup: container
            .startup_probe
            .as_ref()
            .and_then(|p| probe_of(ProbeKind::Startup, p, container)),
    })
}

/// `p` as the tool weighs it; a port named in `container`'s ports
/// (kubeadm's `probe-port`) is its number.
fn probe_of(
    kind: ProbeKind,
    p: &k8s_openapi::api::core::v1::Probe,
    container: &k8s_openapi::api::core::v1::Container,
) -> Option<Probe> {
    let port = |port: &IntOrString| match port {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(name) => container
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .map_or_else(|| name.clone(), |p| p.container_port.to_string()),
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
            let got = data_volume(&spec, None);
            let got = got
                .as_ref()
                .map(|v| (v.name.as_str(), v.host_path.as_deref()));
            assert_eq!(got, want, "{:?}", spec.containers[0].args);
        }
    }
}

#[cfg(test)]
mod probe_tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_probe_on_a_named_port_is_on_that_ports_number() {
        // kubeadm 1.37's static Pod names its metrics port.
        let named = |ports: serde_json::Value| {
            let p = pod(serde_json::json!({
                "metadata": {"name": "etcd-cp1"},
                "spec": {"containers": [{
                    "name": "etcd", "image": "registry.k8s.io/etcd:3.6.5-0",
                    "ports": ports,
                    "livenessProbe": {"httpGet": {"path": "/livez", "port": "probe-port"}}
                }]}
            }));
            match pod_probes(&p).unwrap().liveness.unwrap().handler {
                Handler::HttpGet { port, .. } => port,
                other => panic!("{other:?}"),
            }
        };
        let ports = serde_json::json!([{"name": "probe-port", "containerPort": 2381}]);
        assert_eq!(named(ports), "2381");
        assert_eq!(named(serde_json::json!([])), "probe-port");
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
