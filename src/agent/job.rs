//! The agent's Job, and where it runs: pure.
//!
//! One Job per command, on one control-plane node, pinned there by
//! `nodeName` (no scheduler, whatever the node's taints): the tool's own
//! image, `hostNetwork` (the member listens on the node's loopback), the
//! member's CA and one client certificate and key mounted read-only file
//! by file from the paths the etcd Pod's own flags name (nothing else of
//! the node's PKI: no CA key, no server key), no service account token,
//! root (kubeadm's keys are root's, mode 0600) without any capability or
//! privilege escalation, a read-only root filesystem, resource limits.
//!
//! Its ends: the tool deletes the Job (and its Pod) when the command ends
//! however it ends; should the tool die first, the Job's own deadline
//! (`activeDeadlineSeconds`) stops the Pod, and the TTL controller deletes
//! the finished Job and its Pod [`TTL_SECONDS`] later.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, EnvVar, HostPathVolumeSource, PodSecurityContext, PodSpec,
    PodTemplateSpec, ResourceRequirements, SeccompProfile, SecurityContext, Toleration, Volume,
    VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::ObjectMeta;

use crate::reach::{AgentFacts, ApiServerAt, ClusterRef};
use crate::source::controlplane::resolve::{Certificates, StaticMember};

/// The label every agent Job and Pod carries (value: the cluster's name).
pub const AGENT_LABEL: &str = "kubectl-etcd.io/agent-of";

/// The variable that makes the tool an agent's relay (`agent::relay`).
pub const RELAY_ENV: &str = "KUBECTL_ETCD_AGENT_RELAY";

/// The variable that names the cluster an agent's command is about
/// (`namespace/name`): the command runs standalone on the variables
/// below, and reports name that cluster.
pub use crate::reach::flags::AGENT_OF_ENV;

/// How long a finished agent Job is kept when the tool could not delete
/// it (it died, or lost the API server).
pub const TTL_SECONDS: i32 = 30;

/// Where the agent sees the member's CA, client certificate and key.
const PKI: &str = "/etc/kubectl-etcd/pki";

/// What an agent runs, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSpec {
    /// The Job's name.
    pub name: String,
    pub namespace: String,
    pub image: String,
    pub cluster: ClusterRef,
    /// The node it runs on, and the member there.
    pub node: String,
    /// The URL it dials: the member's loopback client URL.
    pub endpoint: String,
    /// The member's CA and a client certificate and key, on the node.
    pub tls: Option<HostTls>,
    /// The command line, as the user gave it (without the program).
    pub args: Vec<String>,
    /// Variables besides those every agent has (`serve::SERVE_ENV`).
    pub env: Vec<(String, String)>,
    /// How long the Pod may run at most.
    pub deadline: Duration,
}

/// Files on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTls {
    pub ca: String,
    pub cert: String,
    pub key: String,
}

/// Why no agent can be made for a cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPlace {
    /// No member's Pod is on a node.
    NoNode,
    /// No member listens on its node's loopback.
    NoLocalUrl,
    /// Its certificates are in a configuration file on the node (rke2).
    ConfigFile(String),
    /// Its flags name a CA but no client certificate the tool knows.
    NoClientCertificate(String),
}

impl std::fmt::Display for NoPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoPlace::NoNode => write!(f, "none of its members' Pods is on a node"),
            NoPlace::NoLocalUrl => write!(
                f,
                "none of its members listens on its node's loopback (--listen-client-urls), where an agent would dial it"
            ),
            NoPlace::ConfigFile(path) => write!(
                f,
                "its members read their certificates from {path} on the node (--config-file), which the agent does not read yet; run the tool on that node with --endpoints and the certificates that file names"
            ),
            NoPlace::NoClientCertificate(ca) => write!(
                f,
                "its members trust clients signed by {ca}, and no client certificate beside it is one the tool knows; run the tool on that node with --endpoints, --cacert {ca}, --cert and --key"
            ),
        }
    }
}

/// Where the agent for `members` runs, and with which files: the first
/// member (by node) on a node with a loopback client URL, and its first
/// client pair. Pure.
pub fn place(members: &[StaticMember]) -> Result<(String, String, Option<HostTls>), NoPlace> {
    let on_node: Vec<&StaticMember> = members.iter().filter(|m| m.node.is_some()).collect();
    if on_node.is_empty() {
        return Err(NoPlace::NoNode);
    }
    let member = on_node
        .iter()
        .find(|m| m.local.is_some())
        .ok_or(NoPlace::NoLocalUrl)?;
    let node = member.node.clone().unwrap_or_default();
    let endpoint = member.local.clone().unwrap_or_default();
    let tls = match &member.certificates {
        Certificates::Flags { ca, clients } => match clients.first() {
            Some(pair) => Some(HostTls {
                ca: ca.clone(),
                cert: pair.cert.clone(),
                key: pair.key.clone(),
            }),
            None => return Err(NoPlace::NoClientCertificate(ca.clone())),
        },
        Certificates::ConfigFile(path) => return Err(NoPlace::ConfigFile(path.clone())),
        Certificates::Unnamed => None,
    };
    Ok((node, endpoint, tls))
}

/// What the agent's command is told of `members` ([`AgentFacts`]): each
/// member's node and probes, and where the user's API server is —
/// `server` (the kubeconfig's URL) against `addresses`, each node's
/// addresses as its Node object lists them (`None`: some could not be
/// read). Pure.
pub fn facts(
    members: &[StaticMember],
    server: &str,
    addresses: Option<&[(String, Vec<String>)]>,
) -> AgentFacts {
    let named = members.iter().filter_map(|m| Some((m.name.clone()?, m)));
    let nodes = named
        .clone()
        .filter_map(|(name, m)| Some((name, m.node.clone()?)))
        .collect();
    let probes = named
        .filter_map(|(name, m)| Some((name, m.probes.clone()?)))
        .collect();
    let host = url::Url::parse(server)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.trim_matches(['[', ']']).to_string()));
    let api_server = match (host, addresses) {
        (Some(host), Some(addresses)) => addresses
            .iter()
            .find(|(node, listed)| *node == host || listed.contains(&host))
            .map_or(ApiServerAt::Elsewhere(host), |(node, _)| {
                ApiServerAt::Node(node.clone())
            }),
        _ => ApiServerAt::Unknown,
    };
    AgentFacts {
        nodes,
        probes,
        api_server,
    }
}

fn env(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..EnvVar::default()
    }
}

fn quantities(cpu: &str, memory: &str) -> BTreeMap<String, Quantity> {
    BTreeMap::from([
        ("cpu".to_string(), Quantity(cpu.into())),
        ("memory".to_string(), Quantity(memory.into())),
    ])
}

/// The member's three files as the agent sees them: each a read-only
/// file mount of its path on the node, and the `ETCDCTL_*` variable that
/// names it.
fn files(tls: &HostTls) -> (Vec<EnvVar>, Vec<Volume>, Vec<VolumeMount>) {
    let (mut envs, mut volumes, mut mounts) = (Vec::new(), Vec::new(), Vec::new());
    for (volume, host, file, var) in [
        ("etcd-ca", &tls.ca, "ca.crt", "ETCDCTL_CACERT"),
        ("etcd-client-cert", &tls.cert, "client.crt", "ETCDCTL_CERT"),
        ("etcd-client-key", &tls.key, "client.key", "ETCDCTL_KEY"),
    ] {
        let at = format!("{PKI}/{file}");
        envs.push(env(var, &at));
        volumes.push(Volume {
            name: volume.into(),
            host_path: Some(HostPathVolumeSource {
                path: host.clone(),
                type_: Some("File".into()),
            }),
            ..Volume::default()
        });
        mounts.push(VolumeMount {
            name: volume.into(),
            mount_path: at,
            read_only: Some(true),
            ..VolumeMount::default()
        });
    }
    (envs, volumes, mounts)
}

/// The agent's container: the command line, the variables that make it
/// the agent's and point it at the member, no privilege.
fn container(spec: &AgentSpec, mut envs: Vec<EnvVar>, mounts: Vec<VolumeMount>) -> Container {
    let mut all = vec![
        env(RELAY_ENV, "1"),
        env(
            AGENT_OF_ENV,
            &format!("{}/{}", spec.cluster.namespace, spec.cluster.name),
        ),
        env("ETCDCTL_ENDPOINTS", &spec.endpoint),
    ];
    all.append(&mut envs);
    all.extend(spec.env.iter().map(|(name, value)| env(name, value)));
    Container {
        name: "agent".into(),
        image: Some(spec.image.clone()),
        image_pull_policy: Some("IfNotPresent".into()),
        args: Some(spec.args.clone()),
        env: Some(all),
        volume_mounts: Some(mounts),
        resources: Some(ResourceRequirements {
            requests: Some(quantities("10m", "32Mi")),
            limits: Some(quantities("1", "512Mi")),
            ..ResourceRequirements::default()
        }),
        security_context: Some(SecurityContext {
            allow_privilege_escalation: Some(false),
            read_only_root_filesystem: Some(true),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".into()]),
                ..Capabilities::default()
            }),
            ..SecurityContext::default()
        }),
        ..Container::default()
    }
}

/// The Job for `spec`. Pure.
pub fn job(spec: &AgentSpec) -> Job {
    let labels = BTreeMap::from([
        (
            "app.kubernetes.io/name".to_string(),
            "kubectl-etcd".to_string(),
        ),
        ("app.kubernetes.io/component".into(), "agent".into()),
        (AGENT_LABEL.into(), spec.cluster.name.clone()),
    ]);
    let (envs, volumes, mounts) = match &spec.tls {
        Some(tls) => files(tls),
        None => (Vec::new(), Vec::new(), Vec::new()),
    };
    let pod = PodSpec {
        node_name: Some(spec.node.clone()),
        host_network: Some(true),
        restart_policy: Some("Never".into()),
        automount_service_account_token: Some(false),
        enable_service_links: Some(false),
        // Pinned to its node: it runs there whatever the node's taints.
        tolerations: Some(vec![Toleration {
            operator: Some("Exists".into()),
            ..Toleration::default()
        }]),
        security_context: Some(PodSecurityContext {
            run_as_user: Some(0),
            run_as_group: Some(0),
            run_as_non_root: Some(false),
            seccomp_profile: Some(SeccompProfile {
                type_: "RuntimeDefault".into(),
                ..SeccompProfile::default()
            }),
            ..PodSecurityContext::default()
        }),
        containers: vec![container(spec, envs, mounts)],
        volumes: Some(volumes),
        termination_grace_period_seconds: Some(60),
        ..PodSpec::default()
    };
    Job {
        metadata: ObjectMeta {
            name: Some(spec.name.clone()),
            namespace: Some(spec.namespace.clone()),
            labels: Some(labels.clone()),
            ..ObjectMeta::default()
        },
        spec: Some(JobSpec {
            backoff_limit: Some(0),
            active_deadline_seconds: Some(
                i64::try_from(spec.deadline.as_secs()).unwrap_or(i64::MAX),
            ),
            ttl_seconds_after_finished: Some(TTL_SECONDS),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(pod),
            },
            ..JobSpec::default()
        }),
        ..Job::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn member(node: Option<&str>, local: Option<&str>, certificates: Certificates) -> StaticMember {
        StaticMember {
            pod: format!("etcd-{}", node.unwrap_or("x")),
            namespace: "kube-system".into(),
            node: node.map(str::to_string),
            name: node.map(str::to_string),
            advertised: vec!["https://10.0.0.1:2379".into()],
            local: local.map(str::to_string),
            metrics: Some("http://127.0.0.1:2381".into()),
            certificates,
            host_paths: Vec::new(),
            data: None,
            probes: None,
        }
    }

    #[test]
    fn the_facts_name_each_members_node_probes_and_where_the_users_api_server_is() {
        let mut with_probes = member(Some("cp-1"), None, Certificates::Unnamed);
        with_probes.probes = Some(crate::kubelet::PodProbes {
            pod: "etcd-cp-1".into(),
            container: "etcd".into(),
            started: Some(true),
            liveness: None,
            startup: None,
        });
        let members = vec![
            with_probes,
            member(Some("cp-2"), None, Certificates::Unnamed),
            member(None, None, Certificates::Unnamed),
        ];
        let addresses = vec![
            (
                "cp-1".to_string(),
                vec!["10.0.0.1".to_string(), "cp-1".into()],
            ),
            (
                "cp-2".to_string(),
                vec!["10.0.0.2".to_string(), "fd00::2".into()],
            ),
        ];
        let facts_for = |server: &str, known: bool| {
            facts(&members, server, known.then_some(&addresses[..])).api_server
        };
        let node = |n: &str| ApiServerAt::Node(n.into());
        let cases = [
            ("https://10.0.0.2:6443", true, node("cp-2")),
            ("https://cp-1:6443", true, node("cp-1")),
            ("https://[fd00::2]:6443", true, node("cp-2")),
            (
                "https://lb.example:6443",
                true,
                ApiServerAt::Elsewhere("lb.example".into()),
            ),
            ("https://10.0.0.2:6443", false, ApiServerAt::Unknown),
            ("not a url", true, ApiServerAt::Unknown),
        ];
        for (server, known, want) in cases {
            assert_eq!(facts_for(server, known), want, "{server} {known}");
        }
        let all = facts(&members, "https://10.0.0.1:6443", Some(&addresses));
        assert_eq!(
            all.nodes,
            [
                ("cp-1".into(), "cp-1".into()),
                ("cp-2".into(), "cp-2".into())
            ]
        );
        let probed: Vec<&str> = all.probes.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(probed, ["cp-1"]);
        // Handed over as JSON, read back whole.
        let json = serde_json::to_string(&all).unwrap();
        assert_eq!(serde_json::from_str::<AgentFacts>(&json).unwrap(), all);
    }

    fn kubeadm() -> Certificates {
        crate::source::controlplane::resolve::kubeadm_certificates()
    }

    #[test]
    fn the_agent_goes_where_a_member_listens_on_loopback_with_its_first_client_pair() {
        let local = Some("https://127.0.0.1:2379");
        // (what, members, Ok((node, with files)) or the refusal)
        type Case<'a> = (&'a str, Vec<StaticMember>, Result<(&'a str, bool), NoPlace>);
        let cases: Vec<Case> = vec![
            (
                "kubeadm: the first node, healthcheck-client",
                vec![
                    member(Some("cp-1"), local, kubeadm()),
                    member(Some("cp-2"), local, kubeadm()),
                ],
                Ok(("cp-1", true)),
            ),
            (
                "a member without a loopback URL is passed over",
                vec![
                    member(Some("cp-1"), None, kubeadm()),
                    member(Some("cp-2"), local, kubeadm()),
                ],
                Ok(("cp-2", true)),
            ),
            (
                "plain: no files",
                vec![member(
                    Some("cp-1"),
                    Some("http://127.0.0.1:2379"),
                    Certificates::Unnamed,
                )],
                Ok(("cp-1", false)),
            ),
            (
                "no Pod on a node",
                vec![member(None, local, kubeadm())],
                Err(NoPlace::NoNode),
            ),
            (
                "nowhere on loopback",
                vec![member(Some("cp-1"), None, kubeadm())],
                Err(NoPlace::NoLocalUrl),
            ),
            (
                "rke2's config file",
                vec![member(
                    Some("cp-1"),
                    local,
                    Certificates::ConfigFile("/var/lib/rancher/rke2/server/db/etcd/config".into()),
                )],
                Err(NoPlace::ConfigFile(
                    "/var/lib/rancher/rke2/server/db/etcd/config".into(),
                )),
            ),
            (
                "a CA and no client pair",
                vec![member(
                    Some("cp-1"),
                    local,
                    Certificates::Flags {
                        ca: "/pki/ca.crt".into(),
                        clients: vec![],
                    },
                )],
                Err(NoPlace::NoClientCertificate("/pki/ca.crt".into())),
            ),
        ];
        for (what, members, want) in cases {
            let got = place(&members);
            match (got, want) {
                (Ok((node, endpoint, tls)), Ok((want_node, has_tls))) => {
                    assert_eq!(node, want_node, "{what}");
                    assert!(endpoint.contains("127.0.0.1:2379"), "{what}");
                    assert_eq!(tls.is_some(), has_tls, "{what}");
                    if let Some(tls) = tls {
                        assert!(tls.cert.ends_with("healthcheck-client.crt"), "{what}");
                        assert!(tls.key.ends_with("healthcheck-client.key"), "{what}");
                    }
                }
                (got, want) => assert_eq!(got.map(|_| ()), want.map(|_| ()), "{what}"),
            }
        }
    }

    #[test]
    fn every_refusal_says_what_to_run_instead_or_why() {
        for why in [
            NoPlace::ConfigFile("/f".into()),
            NoPlace::NoClientCertificate("/ca".into()),
        ] {
            assert!(why.to_string().contains("--endpoints"), "{why}");
        }
    }

    fn spec(tls: bool) -> AgentSpec {
        AgentSpec {
            name: "kubectl-etcd-agent-0a1b2c3d".into(),
            namespace: "kube-system".into(),
            image: "kubectl-etcd:v0.1.0".into(),
            cluster: ClusterRef::new("kube-system", "etcd"),
            node: "cp-1".into(),
            endpoint: "https://127.0.0.1:2379".into(),
            tls: tls.then(|| HostTls {
                ca: "/etc/kubernetes/pki/etcd/ca.crt".into(),
                cert: "/etc/kubernetes/pki/etcd/healthcheck-client.crt".into(),
                key: "/etc/kubernetes/pki/etcd/healthcheck-client.key".into(),
            }),
            args: vec!["status".into(), "-o".into(), "json".into()],
            env: vec![("EXTRA".into(), "1".into())],
            deadline: Duration::from_secs(3600),
        }
    }

    #[test]
    fn the_job_holds_its_node_its_three_files_read_only_and_nothing_more() {
        let job = serde_json::to_value(job(&spec(true))).unwrap();
        let js = &job["spec"];
        assert_eq!(js["backoffLimit"], 0);
        assert_eq!(js["activeDeadlineSeconds"], 3600);
        assert_eq!(js["ttlSecondsAfterFinished"], TTL_SECONDS);
        let pod = &js["template"]["spec"];
        assert_eq!(pod["nodeName"], "cp-1");
        assert_eq!(pod["hostNetwork"], true);
        assert_eq!(pod["restartPolicy"], "Never");
        assert_eq!(pod["automountServiceAccountToken"], false);
        assert_eq!(
            pod["tolerations"],
            serde_json::json!([{"operator": "Exists"}])
        );
        assert_eq!(pod["securityContext"]["runAsUser"], 0);
        let c = &pod["containers"][0];
        assert_eq!(c["image"], "kubectl-etcd:v0.1.0");
        assert_eq!(c["args"], serde_json::json!(["status", "-o", "json"]));
        assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
        assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
        assert_eq!(
            c["securityContext"]["capabilities"]["drop"],
            serde_json::json!(["ALL"])
        );
        assert!(c["resources"]["limits"]["memory"].is_string());
        // Exactly the member's CA and one client pair, each a file,
        // read-only: never the CA key, the server key or a folder.
        let hosts: Vec<&str> = pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                assert_eq!(v["hostPath"]["type"], "File", "{v}");
                v["hostPath"]["path"].as_str().unwrap()
            })
            .collect();
        assert_eq!(
            hosts,
            [
                "/etc/kubernetes/pki/etcd/ca.crt",
                "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
                "/etc/kubernetes/pki/etcd/healthcheck-client.key",
            ]
        );
        for m in c["volumeMounts"].as_array().unwrap() {
            assert_eq!(m["readOnly"], true, "{m}");
        }
        let env: Vec<(String, String)> = c["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    e["value"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let get = |n: &str| env.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get(RELAY_ENV), Some("1"));
        assert_eq!(get(AGENT_OF_ENV), Some("kube-system/etcd"));
        assert_eq!(get("ETCDCTL_ENDPOINTS"), Some("https://127.0.0.1:2379"));
        assert_eq!(get("ETCDCTL_KEY"), Some("/etc/kubectl-etcd/pki/client.key"));
        assert!(get("ETCDCTL_PASSWORD").is_none());
        assert_eq!(get("EXTRA"), Some("1"));
        assert_eq!(job["metadata"]["labels"][AGENT_LABEL], "etcd");
        assert_eq!(js["template"]["metadata"]["labels"][AGENT_LABEL], "etcd");
    }

    #[test]
    fn a_plain_member_gets_no_files() {
        let job = serde_json::to_value(job(&spec(false))).unwrap();
        let pod = &job["spec"]["template"]["spec"];
        assert_eq!(pod["volumes"], serde_json::json!([]));
        let names: Vec<&str> = pod["containers"][0]["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert!(!names.contains(&"ETCDCTL_CACERT"), "{names:?}");
    }
}
