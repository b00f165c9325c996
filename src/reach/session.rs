//! Opening a cluster: from the flags (standalone) or from an EtcdCluster
//! (plugin mode, with direct dials or port-forwards), to a `Session` of a
//! resolved `Target` and live per-member connections. Shared by every
//! command and by the controller.
//!
//! Which mode: a CLUSTER argument, `-A`, `-n`, `--context` or `--kubeconfig`
//! selects plugin mode; otherwise `--endpoints` (or `ETCDCTL_ENDPOINTS`)
//! selects standalone mode; with neither, plugin mode is the default.

use std::time::Duration;

use crate::cli::{ConnectMode, GlobalArgs};
use crate::error::{Error, Result};
use crate::etcd::EtcdClients;
use crate::k8s::crd::{EtcdCluster, CLIENT_PORT};
use crate::k8s::objects::ClusterObjects;
use crate::k8s::portforward::{self, Forward};
use crate::k8s::{self, Kube, KubeSettings};
use crate::reach::cluster::{resolve, Resolved};
use crate::reach::flags::target_from_flags;
use crate::reach::{Dial, Endpoint, KnownMember, Scheme, Target};

/// How to reach members once they are resolved.
#[derive(Debug, Clone, Copy)]
pub struct Connection {
    pub mode: ConnectMode,
    pub dial_timeout: Duration,
    pub command_timeout: Duration,
}

impl From<&GlobalArgs> for Connection {
    fn from(global: &GlobalArgs) -> Self {
        Connection {
            mode: global.connect,
            dial_timeout: global.dial_timeout,
            command_timeout: global.command_timeout,
        }
    }
}

/// A resolved target with its connections (and port-forwards, which stop
/// when the session is dropped).
pub struct Session {
    pub target: Target,
    pub clients: EtcdClients,
    _forwards: Vec<Forward>,
}

/// Whether the flags ask for plugin mode (see the module docs).
pub fn plugin_mode(global: &GlobalArgs, cluster: Option<&str>, all: bool) -> bool {
    cluster.is_some()
        || all
        || global.namespace.is_some()
        || global.context.is_some()
        || global.kubeconfig.is_some()
        || global.endpoints.iter().all(|e| e.trim().is_empty())
}

pub fn kube_settings(global: &GlobalArgs) -> KubeSettings {
    KubeSettings {
        kubeconfig: global.kubeconfig.clone(),
        context: global.context.clone(),
        namespace: global.namespace.clone(),
        impersonate: global.as_user.clone(),
        impersonate_groups: global.as_group.clone(),
    }
}

/// Opens the one cluster the command line names, in either mode.
pub async fn open(global: &GlobalArgs, cluster: Option<&str>) -> Result<Session> {
    if !plugin_mode(global, cluster, false) {
        let target = target_from_flags(global, |path| std::fs::read(path))?;
        let clients = EtcdClients::new(&target, global.dial_timeout, global.command_timeout);
        return Ok(Session {
            target,
            clients,
            _forwards: Vec::new(),
        });
    }
    let (kube, namespace, name) = connect_cluster(global, cluster).await?;
    open_cluster(&kube, &Connection::from(global), &namespace, &name).await
}

/// Plugin mode's first steps for one cluster: connect to the API server and
/// pick the EtcdCluster (the one named, or the namespace's only one).
/// Returns the client, the namespace and the cluster's name.
pub async fn connect_cluster(
    global: &GlobalArgs,
    cluster: Option<&str>,
) -> Result<(Kube, String, String)> {
    if global.endpoints.iter().any(|e| !e.trim().is_empty()) {
        tracing::info!("plugin mode: --endpoints/ETCDCTL_ENDPOINTS is ignored");
    }
    let kube = k8s::connect(&kube_settings(global)).await?;
    let namespace = kube.default_namespace.clone();
    let name = k8s::choose_cluster(&kube, &namespace, cluster).await?;
    Ok((kube, namespace, name))
}

/// Resolves one EtcdCluster and prepares connections to its members.
pub async fn open_cluster(
    kube: &Kube,
    connection: &Connection,
    namespace: &str,
    name: &str,
) -> Result<Session> {
    let objects = k8s::fetch(kube, namespace, name).await?;
    open_objects(kube, connection, objects).await
}

/// [`open_cluster`] for an EtcdCluster already read (a controller's pass
/// that just checked it exists).
pub async fn open_fetched(
    kube: &Kube,
    connection: &Connection,
    namespace: &str,
    cluster: EtcdCluster,
) -> Result<Session> {
    let objects = k8s::fetch_around(kube, namespace, cluster).await?;
    open_objects(kube, connection, objects).await
}

/// Resolves the objects read for one cluster and prepares connections to
/// its members (port-forwards in that mode).
pub async fn open_objects(
    kube: &Kube,
    connection: &Connection,
    objects: ClusterObjects,
) -> Result<Session> {
    let resolved = resolve(&objects).map_err(Error::Resolve)?;
    for note in &resolved.notes {
        crate::logging::message(&format!("note: {note}"));
    }
    let mode = match connection.mode {
        ConnectMode::Auto if k8s::in_pod() => ConnectMode::Direct,
        ConnectMode::Auto => ConnectMode::PortForward,
        other => other,
    };
    let (dials, forwards) = dials_for(kube, &resolved, mode).await?;
    // Every address belongs to a named EtcdMember: a member that does not
    // answer is still reported by its name and id.
    let known = resolved
        .members
        .iter()
        .zip(&dials)
        .map(|(m, dial)| KnownMember {
            name: m.name.clone(),
            id: m.member_id,
            dial: dial.clone(),
        })
        .collect();
    let target = Target {
        dials,
        known,
        discover: false,
        tls: resolved.tls.clone(),
        credentials: resolved.credentials.clone(),
        quota: resolved.quota,
        cluster: Some(resolved.cluster.clone()),
    };
    let clients = EtcdClients::new(&target, connection.dial_timeout, connection.command_timeout);
    Ok(Session {
        target,
        clients,
        _forwards: forwards,
    })
}

/// Where to dial each member. Direct: the Pod IP (certificate checked
/// against the member's DNS name), or the DNS name itself when the Pod has
/// no IP. Port-forward: a local tunnel per Pod, certificate checked against
/// the DNS name.
async fn dials_for(
    kube: &Kube,
    resolved: &Resolved,
    mode: ConnectMode,
) -> Result<(Vec<Dial>, Vec<Forward>)> {
    let scheme = resolved.scheme;
    let mut dials = Vec::new();
    let mut forwards = Vec::new();
    for m in &resolved.members {
        let dial = match mode {
            ConnectMode::PortForward => {
                let pods = kube::Api::namespaced(kube.client.clone(), &resolved.cluster.namespace);
                let forward = portforward::open(
                    pods,
                    &kube.server,
                    &resolved.cluster.namespace,
                    &m.pod,
                    CLIENT_PORT,
                )
                .await?;
                let dial = Dial {
                    endpoint: Endpoint {
                        scheme,
                        host: "127.0.0.1".into(),
                        port: forward.local.port(),
                    },
                    tls_server_name: Some(m.dns_name.clone()),
                };
                forwards.push(forward);
                dial
            }
            _ => match &m.pod_ip {
                Some(ip) => Dial {
                    endpoint: Endpoint {
                        scheme,
                        host: if ip.contains(':') {
                            format!("[{ip}]")
                        } else {
                            ip.clone()
                        },
                        port: CLIENT_PORT,
                    },
                    tls_server_name: (scheme == Scheme::Https).then(|| m.dns_name.clone()),
                },
                None => Dial::new(Endpoint {
                    scheme,
                    host: m.dns_name.clone(),
                    port: CLIENT_PORT,
                }),
            },
        };
        dials.push(dial);
    }
    Ok((dials, forwards))
}
