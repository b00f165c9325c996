//! One module per command; each resolves its target, takes what it needs
//! from etcd, calls the pure stages and hands a report to `output`.
//!
//! Which mode: a CLUSTER argument, `-A`, `-n`, `--context` or `--kubeconfig`
//! selects plugin mode; otherwise `--endpoints` (or `ETCDCTL_ENDPOINTS`)
//! selects standalone mode; with neither, plugin mode is the default.

pub mod alarm;
pub mod defrag;
pub mod members;
pub mod move_leader;
pub mod status;
pub mod traffic;

use crate::cli::{Cli, Command, ConnectMode, GlobalArgs};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdClients;
use crate::k8s::crd::CLIENT_PORT;
use crate::k8s::portforward::{self, Forward};
use crate::k8s::{self, Kube, KubeSettings};
use crate::target::cluster::{resolve, Resolved};
use crate::target::flags::target_from_flags;
use crate::target::{Dial, Endpoint, Scheme, Target};

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<ExitStatus> {
    match &cli.command {
        Command::Status(args) => status::run(&cli.global, args).await,
        Command::Members(args) => members::run(&cli.global, args).await,
        Command::Defrag(args) => defrag::run(&cli.global, args).await,
        Command::Alarm(crate::cli::AlarmCommand::List(args)) => {
            alarm::list(&cli.global, args).await
        }
        Command::Alarm(crate::cli::AlarmCommand::Disarm(args)) => {
            alarm::disarm(&cli.global, args).await
        }
        Command::MoveLeader(args) => move_leader::run(&cli.global, args).await,
        Command::Traffic(crate::cli::TrafficCommand::Show(args)) => {
            traffic::show(&cli.global, args).await
        }
        Command::Traffic(crate::cli::TrafficCommand::Set(args)) => {
            traffic::set(&cli.global, args).await
        }
        Command::Traffic(crate::cli::TrafficCommand::Clear(args)) => {
            traffic::clear(&cli.global, args).await
        }
        Command::Completion { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut command, "kubectl-etcd", &mut out);
            crate::output::emit(&String::from_utf8_lossy(&out))?;
            Ok(ExitStatus::Success)
        }
        Command::Version => {
            crate::output::emit(&format!("kubectl-etcd {}\n", env!("CARGO_PKG_VERSION")))?;
            Ok(ExitStatus::Success)
        }
    }
}

/// A resolved target with its connections (and port-forwards, which stop
/// when the session is dropped).
pub(crate) struct Session {
    pub target: Target,
    pub clients: EtcdClients,
    _forwards: Vec<Forward>,
}

/// Whether the flags ask for plugin mode (see the module docs).
pub(crate) fn plugin_mode(global: &GlobalArgs, cluster: Option<&str>, all: bool) -> bool {
    cluster.is_some()
        || all
        || global.namespace.is_some()
        || global.context.is_some()
        || global.kubeconfig.is_some()
        || global.endpoints.iter().all(|e| e.trim().is_empty())
}

pub(crate) fn kube_settings(global: &GlobalArgs) -> KubeSettings {
    KubeSettings {
        kubeconfig: global.kubeconfig.clone(),
        context: global.context.clone(),
        namespace: global.namespace.clone(),
        impersonate: global.as_user.clone(),
        impersonate_groups: global.as_group.clone(),
    }
}

/// Opens the one cluster the command line names, in either mode.
pub(crate) async fn open(global: &GlobalArgs, cluster: Option<&str>) -> Result<Session> {
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
    open_cluster(&kube, global, &namespace, &name).await
}

/// Plugin mode's first steps for one cluster: connect to the API server and
/// pick the EtcdCluster (the one named, or the namespace's only one).
/// Returns the client, the namespace and the cluster's name.
pub(crate) async fn connect_cluster(
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
pub(crate) async fn open_cluster(
    kube: &Kube,
    global: &GlobalArgs,
    namespace: &str,
    name: &str,
) -> Result<Session> {
    let objects = k8s::fetch(kube, namespace, name).await?;
    let resolved = resolve(&objects).map_err(Error::Resolve)?;
    for note in &resolved.notes {
        crate::logging::message(&format!("note: {note}"));
    }
    let mode = match global.connect {
        ConnectMode::Auto if k8s::in_pod() => ConnectMode::Direct,
        ConnectMode::Auto => ConnectMode::PortForward,
        other => other,
    };
    let (dials, forwards) = dials_for(kube, &resolved, mode).await?;
    let target = Target {
        dials,
        discover: false,
        tls: resolved.tls.clone(),
        credentials: resolved.credentials.clone(),
        quota: resolved.quota,
        cluster: Some(resolved.cluster.clone()),
    };
    let clients = EtcdClients::new(&target, global.dial_timeout, global.command_timeout);
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
                let forward =
                    portforward::open(pods, &resolved.cluster.namespace, &m.pod, CLIENT_PORT)
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
