//! Opening a cluster: from the flags (standalone) or from an EtcdCluster
//! (plugin mode, with direct dials or port-forwards), to a `Session` of a
//! resolved `Target` and live per-member connections. Shared by every
//! command and by the controller.
//!
//! Which mode: a CLUSTER argument, `-A`, `-n`, `--context` or `--kubeconfig`
//! selects plugin mode; otherwise `--endpoints` (or `ETCDCTL_ENDPOINTS`)
//! selects standalone mode; with neither, plugin mode is the default. When
//! plugin mode fails although endpoints were given (or given empty), the
//! error names the argument that chose it and how to run the same command
//! in standalone mode (`move-leader ID` is etcdctl's `move-leader --to ID`).

pub mod fleet;
mod rooms;

pub use rooms::MemberRooms;

use std::time::Duration;

use crate::error::{Error, Result};
use crate::etcd::EtcdClients;
use crate::k8s::crd::CLIENT_PORT;
use crate::k8s::portforward::{self, Forward};
use crate::k8s::{self, Kube, KubeSettings};
use crate::reach::flags::{target_from_flags, Flags};
use crate::reach::{ConnectMode, Dial, Endpoint, KnownMember, Scheme, Target};
use crate::source::{Fetched, Resolved, Source};

/// How to reach members once they are resolved.
#[derive(Debug, Clone, Copy)]
pub struct Connection {
    pub mode: ConnectMode,
    pub dial_timeout: Duration,
    pub command_timeout: Duration,
}

impl From<&Flags> for Connection {
    fn from(global: &Flags) -> Self {
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
    /// Plugin mode: the EtcdDefrags of the cluster, for the sweep to ask
    /// before each step whether another processor is defragmenting it.
    pub runs: Option<ClusterRuns>,
    /// Plugin mode, for `status`: the cluster's namespace's EtcdDefrags
    /// and EtcdDefragPolicies, read while the session was opened.
    pub activity: Option<k8s::runs::Everything>,
    /// Plugin mode: what the operator's status says of the cluster.
    pub operator: Option<crate::look::OperatorSays>,
    /// Plugin mode: the spec facts `doctor` checks, as the cluster's
    /// source read them.
    pub spec: Option<crate::plan::doctor::ClusterSpecFacts>,
    /// Plugin mode: where the members run, from the Pods the session read
    /// (zones not read).
    pub placement: Option<Vec<crate::source::MemberPod>>,
    /// Plugin mode: the API server client the session was opened with,
    /// for a command's further reads (on the connections it already has).
    pub kube: Option<Kube>,
    _forwards: Vec<Forward>,
}

impl Session {
    /// Where the sweep reads each member's room (plugin mode, with the
    /// member Pods read): the kubelet's volume statistics.
    pub fn rooms(&self) -> Option<std::sync::Arc<dyn crate::exec::RoomReader>> {
        let (kube, pods) = (self.kube.as_ref()?, self.placement.as_ref()?);
        Some(std::sync::Arc::new(MemberRooms::new(kube, pods)))
    }
}

/// The non-terminal EtcdDefrags and the policies of one EtcdCluster, read
/// from the API server each time they are asked for (`exec::Others`): the
/// one-shot sweep's view of the operator's controllers and of `--watch`.
#[derive(Clone)]
pub struct ClusterRuns {
    kube: Kube,
    namespace: String,
    name: String,
}

impl std::fmt::Debug for ClusterRuns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClusterRuns({}/{})", self.namespace, self.name)
    }
}

impl ClusterRuns {
    /// The runs of EtcdCluster `namespace/name`, asked through `kube`.
    /// Only a sweep holds one: it keeps the API server's connection open
    /// for as long as the session lives.
    pub fn new(kube: &Kube, namespace: &str, name: &str) -> ClusterRuns {
        ClusterRuns {
            kube: kube.clone(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }

    /// The API server client, and the cluster's namespace.
    pub fn kube(&self) -> (&Kube, &str) {
        (&self.kube, &self.namespace)
    }

    /// As the engine's `RunInput::others`.
    pub fn shared(&self) -> std::sync::Arc<dyn crate::exec::Others> {
        std::sync::Arc::new(self.clone())
    }
}

impl crate::exec::Others for ClusterRuns {
    fn active(
        &self,
    ) -> futures::future::BoxFuture<'_, std::result::Result<crate::look::Outside, String>> {
        Box::pin(k8s::runs::outside(&self.kube, &self.namespace, &self.name))
    }
}

/// What chose plugin mode (see the module docs), to name it when plugin
/// mode fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginChoice {
    /// The CLUSTER argument.
    Cluster(String),
    AllNamespaces,
    Namespace(String),
    Context(String),
    Kubeconfig(String),
    /// `--endpoints=` (or `ETCDCTL_ENDPOINTS=`): given, but empty.
    EmptyEndpoints,
    /// No endpoints at all: plugin mode is the default.
    NoEndpoints,
}

/// Which mode the flags ask for: `Some` (and why) for plugin mode, `None`
/// for standalone mode.
pub fn plugin_choice(global: &Flags, cluster: Option<&str>, all: bool) -> Option<PluginChoice> {
    // An agent's command runs on the endpoints it was given.
    if global.agent_of.is_some() {
        return None;
    }
    if let Some(c) = cluster {
        return Some(PluginChoice::Cluster(c.to_string()));
    }
    if all {
        return Some(PluginChoice::AllNamespaces);
    }
    if let Some(ns) = &global.namespace {
        return Some(PluginChoice::Namespace(ns.clone()));
    }
    if let Some(c) = &global.context {
        return Some(PluginChoice::Context(c.clone()));
    }
    if let Some(k) = &global.kubeconfig {
        return Some(PluginChoice::Kubeconfig(k.clone()));
    }
    if global.endpoints.is_empty() {
        return Some(PluginChoice::NoEndpoints);
    }
    if global.endpoints.iter().all(|e| e.trim().is_empty()) {
        return Some(PluginChoice::EmptyEndpoints);
    }
    None
}

/// Whether the flags ask for plugin mode (see the module docs).
pub fn plugin_mode(global: &Flags, cluster: Option<&str>, all: bool) -> bool {
    plugin_choice(global, cluster, all).is_some()
}

/// When plugin mode was chosen although endpoints were given (or given
/// empty), what chose it and how to run the same command on the endpoints:
/// (why, what to run). `None` when there were no endpoints to use.
///
/// `argv` is the command line without the program, `env_endpoints` the
/// value of `ETCDCTL_ENDPOINTS`.
pub fn explain_plugin_choice(
    choice: &PluginChoice,
    global: &Flags,
    argv: &[String],
    env_endpoints: Option<&str>,
) -> Option<(String, String)> {
    use crate::settings::usage::{respell, subcommand_path, Respell};
    let endpoints = crate::reach::flags::named(global, "endpoints");
    let given = global.endpoints.iter().any(|e| !e.trim().is_empty());
    let unused = format!("so {endpoints} was not used");
    let run_it = |line: Option<String>, otherwise: String| match line {
        Some(line) => format!("to use {endpoints}, run: {line}"),
        None => otherwise,
    };
    let path = subcommand_path(argv);
    let command = path.join(" ");
    // A flag that selected plugin mode: the same line without it.
    let by_flag = |(short, long): (Option<char>, &'static str), why: String, flag: String| {
        let line = respell(argv, &Respell::Flag { short, long });
        (
            format!("{why}, {unused}"),
            run_it(line, format!("to use {endpoints}, leave out {flag}")),
        )
    };
    let (why, fix) = match choice {
        PluginChoice::Cluster(name) if given => {
            let why = format!(
                "{name:?} was read as the CLUSTER argument (an EtcdCluster's name), which selects plugin mode, {unused}"
            );
            let as_flag = match path.first().map(String::as_str) {
                Some("move-leader") => Some("--to"),
                _ => None,
            };
            let line = respell(
                argv,
                &Respell::Positional {
                    value: name.clone(),
                    into_flag: as_flag,
                },
            );
            let fix = match (as_flag, line) {
                (Some(_), Some(line)) => {
                    format!("for etcdctl's `{command} {name}` on {endpoints}, run: {line}")
                }
                (Some(flag), None) => format!(
                    "for etcdctl's `{command} {name}` on {endpoints}, pass it as {flag} {name}"
                ),
                (None, line) => run_it(line, format!("to use {endpoints}, leave out {name:?}")),
            };
            (why, fix)
        }
        PluginChoice::Namespace(ns) if given => by_flag(
            (Some('n'), "namespace"),
            format!("-n {ns} selects plugin mode (the namespace of an EtcdCluster)"),
            format!("-n {ns}"),
        ),
        PluginChoice::Context(c) if given => by_flag(
            (None, "context"),
            format!("--context {c} selects plugin mode"),
            "--context".into(),
        ),
        PluginChoice::Kubeconfig(k) if given => by_flag(
            (None, "kubeconfig"),
            format!("--kubeconfig {k} selects plugin mode"),
            "--kubeconfig".into(),
        ),
        PluginChoice::AllNamespaces if given => by_flag(
            (Some('A'), "all-namespaces"),
            "-A selects plugin mode (every namespace's EtcdClusters)".into(),
            "-A".into(),
        ),
        PluginChoice::EmptyEndpoints if endpoints == "ETCDCTL_ENDPOINTS" => (
            "ETCDCTL_ENDPOINTS is set but empty, and without endpoints plugin mode is used"
                .to_string(),
            "set ETCDCTL_ENDPOINTS to the members' client URLs, or pass --endpoints URL[,URL…]"
                .to_string(),
        ),
        PluginChoice::EmptyEndpoints => {
            let why = "--endpoints is empty, and without endpoints plugin mode is used".to_string();
            let from_env = env_endpoints.is_some_and(|e| !e.trim().is_empty());
            let line = respell(
                argv,
                &Respell::Flag {
                    short: None,
                    long: "endpoints",
                },
            )
            .filter(|_| from_env);
            let fix = match line {
                Some(line) => format!(
                    "pass --endpoints URL[,URL…], or leave it out to use ETCDCTL_ENDPOINTS: {line}"
                ),
                None => "pass --endpoints URL[,URL…] (the members' client URLs)".to_string(),
            };
            (why, fix)
        }
        _ => return None,
    };
    Some((why, fix))
}

/// Wraps an error from plugin mode with what chose plugin mode and the
/// standalone spelling; the exit code stays that of a usage error.
fn with_choice(error: Error, explained: &Option<(String, String)>) -> Error {
    let Some((why, fix)) = explained else {
        return error;
    };
    let mut chars = fix.chars();
    let fix: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let text = |inner: &dyn std::fmt::Display| format!("{why}; plugin mode failed: {inner}. {fix}");
    match error {
        Error::Usage(m) => Error::Usage(text(&m)),
        other if other.exit_status() == crate::error::ExitStatus::Usage => {
            Error::Resolve(text(&other))
        }
        other => other,
    }
}

pub fn kube_settings(global: &Flags) -> KubeSettings {
    KubeSettings {
        kubeconfig: global.kubeconfig.clone(),
        context: global.context.clone(),
        namespace: global.namespace.clone(),
        impersonate: global.as_user.clone(),
        impersonate_groups: global.as_group.clone(),
        request_timeout: global.request_timeout,
    }
}

/// What a session asks the API server beyond the cluster's objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Beyond {
    Nothing,
    /// A sweep's: other processors' runs, asked before each step.
    Runs,
    /// `status`'s: the runs and policies, read once.
    Activity,
}

/// Opens the one cluster the command line names, in either mode.
pub async fn open(global: &Flags, cluster: Option<&str>) -> Result<Session> {
    open_with(global, cluster, Beyond::Nothing).await
}

/// [`open`] for a sweep: in plugin mode the session also asks the API
/// server about other processors' runs of the cluster (`Session::runs`).
pub async fn open_sweep(global: &Flags, cluster: Option<&str>) -> Result<Session> {
    open_with(global, cluster, Beyond::Runs).await
}

/// [`open`] for `status`: in plugin mode the session also reads the
/// runs and policies of the cluster's namespace (`Session::activity`),
/// without keeping the API server's connection for the rest of the
/// command.
pub async fn open_status(global: &Flags, cluster: Option<&str>) -> Result<Session> {
    open_with(global, cluster, Beyond::Activity).await
}

async fn open_with(global: &Flags, cluster: Option<&str>, beyond: Beyond) -> Result<Session> {
    if !plugin_mode(global, cluster, false) {
        let target = target_from_flags(
            global,
            |path| std::fs::read(path),
            |var| std::env::var(var).ok(),
            |wanted| crate::output::prompt::password(&wanted.user, wanted.named_by),
        )?;
        let clients = EtcdClients::new(&target, global.dial_timeout, global.command_timeout);
        return Ok(Session {
            target,
            clients,
            runs: None,
            activity: None,
            operator: None,
            spec: None,
            placement: None,
            kube: None,
            _forwards: Vec::new(),
        });
    }
    let explained = plugin_choice(global, cluster, false).and_then(|choice| {
        let argv: Vec<String> = std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let env_endpoints = std::env::var("ETCDCTL_ENDPOINTS").ok();
        explain_plugin_choice(&choice, global, &argv, env_endpoints.as_deref())
    });
    let opened = async {
        let (kube, namespace, name) = connect_cluster(global, cluster).await?;
        let source = Source::of(global);
        let connection = Connection::from(global);
        // The namespace's runs and policies beside the cluster's own reads.
        let activity = async {
            match beyond {
                Beyond::Activity => Some(k8s::runs::all_of(&kube, Some(&namespace)).await),
                _ => None,
            }
        };
        let (activity, session) = futures::join!(
            activity,
            open_cluster(source, &kube, &connection, &namespace, &name)
        );
        let mut session = session?;
        session.activity = activity;
        if beyond == Beyond::Runs {
            session.runs = Some(ClusterRuns::new(&kube, &namespace, &name));
        }
        Ok(session)
    };
    let session = opened.await.map_err(|e| with_choice(e, &explained))?;
    if global.endpoints.iter().any(|e| !e.trim().is_empty()) {
        note_plugin_choice(global, cluster);
    }
    Ok(session)
}

/// Says, once plugin mode worked, that it was chosen over the endpoints
/// that were set.
fn note_plugin_choice(global: &Flags, cluster: Option<&str>) {
    let what = match plugin_choice(global, cluster, false) {
        Some(PluginChoice::Cluster(name)) => format!("the CLUSTER argument {name:?}"),
        Some(PluginChoice::Namespace(ns)) => format!("-n {ns}"),
        Some(PluginChoice::Context(c)) => format!("--context {c}"),
        Some(PluginChoice::Kubeconfig(k)) => format!("--kubeconfig {k}"),
        _ => return,
    };
    crate::logging::message(&format!(
        "note: {what} selects plugin mode; {} is not used",
        crate::reach::flags::named(global, "endpoints")
    ));
}

/// Plugin mode's first steps for one cluster: connect to the API server and
/// pick the cluster (the one named, or the namespace's only one).
/// Returns the client, the namespace and the cluster's name.
pub async fn connect_cluster(
    global: &Flags,
    cluster: Option<&str>,
) -> Result<(Kube, String, String)> {
    if global.endpoints.iter().any(|e| !e.trim().is_empty()) {
        tracing::info!("plugin mode: --endpoints/ETCDCTL_ENDPOINTS is ignored");
    }
    let kube = k8s::connect(&kube_settings(global)).await?;
    let (namespace, name) = Source::of(global)
        .choose(&kube, &kube.default_namespace, cluster)
        .await?;
    Ok((kube, namespace, name))
}

/// Reads and resolves one cluster and prepares connections to its members.
pub async fn open_cluster(
    source: Source,
    kube: &Kube,
    connection: &Connection,
    namespace: &str,
    name: &str,
) -> Result<Session> {
    let fetched = source.fetch(kube, namespace, name).await?;
    open_fetched(kube, connection, fetched).await
}

/// Prepares connections to the members of a cluster already read and
/// resolved (port-forwards in that mode).
pub async fn open_fetched(
    kube: &Kube,
    connection: &Connection,
    fetched: Fetched,
) -> Result<Session> {
    let Fetched {
        resolved,
        operator,
        spec,
        placement,
    } = fetched;
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
            probes: m.probes.clone(),
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
        release_hint: operator.as_ref().and_then(|o| o.version.clone()),
        probes_by_name: Vec::new(),
    };
    let clients = EtcdClients::new(&target, connection.dial_timeout, connection.command_timeout);
    Ok(Session {
        target,
        clients,
        runs: None,
        activity: None,
        operator,
        spec,
        placement,
        kube: Some(kube.clone()),
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
                    pod_ip_of: None,
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
                    pod_ip_of: Some(m.pod.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use crate::reach::flags::FromEnv;
    use clap::Parser;

    /// Parses `line`; `env_endpoints` stands for ETCDCTL_ENDPOINTS, merged
    /// as clap would when no --endpoints flag is on the line.
    fn explain(line: &str, env_endpoints: Option<&str>) -> Option<(String, String)> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let mut full = vec!["kubectl-etcd".to_string()];
        full.extend(argv.clone());
        let mut cli = Cli::try_parse_from(full).unwrap_or_else(|e| panic!("{line}: {e}"));
        if let (Some(e), true) = (env_endpoints, cli.global.endpoints.is_empty()) {
            cli.global.endpoints = e.split(',').map(str::to_string).collect();
            cli.global.from_env = FromEnv(vec!["endpoints".into()]);
        }
        let cluster = match &cli.command {
            Command::Status(a) => a.cluster.cluster.clone(),
            Command::MoveLeader(a) => a.cluster.cluster.clone(),
            _ => None,
        };
        let choice = plugin_choice(
            &crate::settings::Global::from(&cli.global).reach,
            cluster.as_deref(),
            false,
        )?;
        explain_plugin_choice(
            &choice,
            &crate::settings::Global::from(&cli.global).reach,
            &argv,
            env_endpoints,
        )
    }

    #[test]
    fn plugin_mode_names_what_chose_it_and_the_standalone_spelling() {
        let env = Some("https://10.0.0.1:2379");
        let cases: &[(&str, Option<&str>, &str, &str)] = &[
            (
                "move-leader d3f98000ede0eca8",
                env,
                "\"d3f98000ede0eca8\" was read as the CLUSTER argument (an EtcdCluster's name), which selects plugin mode, so ETCDCTL_ENDPOINTS was not used",
                "for etcdctl's `move-leader d3f98000ede0eca8` on ETCDCTL_ENDPOINTS, run: kubectl-etcd move-leader --to d3f98000ede0eca8",
            ),
            (
                "status my-etcd",
                env,
                "\"my-etcd\" was read as the CLUSTER argument",
                "to use ETCDCTL_ENDPOINTS, run: kubectl-etcd status",
            ),
            (
                "status -n default",
                env,
                "-n default selects plugin mode (the namespace of an EtcdCluster), so ETCDCTL_ENDPOINTS was not used",
                "to use ETCDCTL_ENDPOINTS, run: kubectl-etcd status",
            ),
            (
                "status -n default --endpoints https://10.0.0.1:2379",
                None,
                "-n default selects plugin mode (the namespace of an EtcdCluster), so --endpoints was not used",
                "to use --endpoints, run: kubectl-etcd status --endpoints https://10.0.0.1:2379",
            ),
            (
                "status --endpoints=",
                env,
                "--endpoints is empty, and without endpoints plugin mode is used",
                "pass --endpoints URL[,URL…], or leave it out to use ETCDCTL_ENDPOINTS: kubectl-etcd status",
            ),
            (
                "status --endpoints=",
                None,
                "--endpoints is empty",
                "pass --endpoints URL[,URL…] (the members' client URLs)",
            ),
            (
                "status",
                Some(""),
                "ETCDCTL_ENDPOINTS is set but empty",
                "set ETCDCTL_ENDPOINTS to the members' client URLs",
            ),
        ];
        for (line, env_endpoints, why, fix) in cases {
            let Some((got_why, got_fix)) = explain(line, *env_endpoints) else {
                panic!("{line}: nothing explained");
            };
            assert!(got_why.contains(why), "{line}: {got_why:?} lacks {why:?}");
            assert!(got_fix.contains(fix), "{line}: {got_fix:?} lacks {fix:?}");
        }
        // Plugin mode as the default, or asked for with nothing else given:
        // nothing to explain.
        assert_eq!(explain("status", None), None);
        assert_eq!(explain("status -n default", None), None);
        assert_eq!(
            explain("status --endpoints https://10.0.0.1:2379", None),
            None
        );
    }
}
