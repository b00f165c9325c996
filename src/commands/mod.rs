//! One module per command: each opens its cluster (`reach::session`), takes
//! what it needs from etcd, calls the pure stages or the engine (`exec`),
//! asks for consent, and hands a report to `output`.

pub mod alarm;
mod change;
pub mod compact;
pub mod complete;
pub mod defrag;
pub mod doctor;
pub mod fleet;
pub mod members;
pub mod move_leader;
pub mod snapshot;
pub mod status;
pub mod traffic;
pub mod usage;
pub mod via_operator;
pub mod watch;

use crate::error::{ExitStatus, Result};
use crate::settings::{Command, Defrag, Global, Invocation};

/// Runs a parsed command line: looks up `-p POD` when given, settles the
/// command (`settings`), then dispatches to the one command (and, for
/// `defrag`, the one mode) asked.
pub async fn run(invocation: Invocation) -> Result<ExitStatus> {
    invocation.refuse_habits()?;
    let global = invocation.global().clone();
    let global = &global;
    let pod = match invocation.pod() {
        Some(pod) => Some(pod_member(global, pod).await?),
        None => None,
    };
    let (command, note) = invocation.settle(pod.as_ref())?;
    if let Some(note) = note {
        crate::logging::message(&format!("note: {note}"));
    }
    // Decided before the command is handed on, for the case its cluster
    // turns out to be a control plane's etcd.
    let route = through_agent(&command);
    match dispatch(global, command).await {
        Err(crate::error::Error::OnNode { namespace, name }) => {
            let cluster = crate::reach::ClusterRef::new(namespace, name);
            on_the_node(global, route, &cluster).await
        }
        other => other,
    }
}

/// Runs the one command (and, for `defrag`, the one mode) asked.
async fn dispatch(global: &Global, command: Command) -> Result<ExitStatus> {
    match command {
        Command::Status(s) => status::run(global, &s).await,
        Command::Members(s) => members::run(global, &s).await,
        Command::Doctor(s) => doctor::run(global, &s).await,
        Command::MemberAdd(s) => members::add(global, &s).await,
        Command::MemberPromote(s) => members::promote(global, &s).await,
        Command::MemberRemove(s) => members::remove(global, &s).await,
        Command::Defrag(Defrag::One(one)) => defrag::run(global, &one).await,
        Command::Defrag(Defrag::Fleet(fleet)) => fleet::run(global, &fleet).await,
        Command::Defrag(Defrag::Watch(watch)) => watch::run(global, &watch).await,
        Command::Defrag(Defrag::ViaOperator(handover)) => {
            via_operator::run(global, &handover).await
        }
        Command::AlarmList(s) => alarm::list(global, &s).await,
        Command::AlarmDisarm(s) => alarm::disarm(global, &s).await,
        Command::MoveLeader(s) => move_leader::run(global, &s).await,
        Command::Compact(s) => compact::run(global, &s).await,
        Command::SnapshotSave(s) => match &global.agent.serve_key {
            // In an agent's Pod: served to the tool that made the agent.
            Some(key) => snapshot::serve(global, &s, key).await,
            None => snapshot::save(global, &s).await,
        },
        Command::SnapshotStatus(file) => snapshot::status(global, &file).await,
        Command::SnapshotUsage(s) => usage::snapshot(global, &s).await,
        Command::Usage(s) => usage::run(global, &s).await,
        Command::TrafficShow(s) => traffic::show(global, &s).await,
        Command::TrafficSet(s) => traffic::set(global, &s).await,
        Command::TrafficClear(s) => traffic::clear(global, &s).await,
        Command::Print(text) => {
            crate::output::emit(&text)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// How a command about a control plane's etcd runs through its agent.
#[derive(Debug, Clone)]
enum Route {
    /// Its output relayed from the agent's log; with its consent flags
    /// when it changes something.
    Relay(Option<crate::settings::Consent>),
    /// `snapshot save`: the bytes come through a port-forward.
    Snapshot(crate::settings::command::SnapshotSave),
}

/// Whether `command` runs through a control plane's agent, and how; or
/// why not. Pure.
fn through_agent(command: &Command) -> std::result::Result<Route, &'static str> {
    Ok(Route::Relay(match command {
        Command::Status(_)
        | Command::Members(_)
        | Command::Doctor(_)
        | Command::Usage(_)
        | Command::AlarmList(_) => None,
        Command::Defrag(Defrag::One(one)) => Some(one.consent),
        Command::Compact(c) => Some(c.consent),
        Command::AlarmDisarm(a) => Some(a.consent),
        Command::MoveLeader(m) => Some(m.consent),
        Command::MemberAdd(_) | Command::MemberPromote(_) | Command::MemberRemove(_) => {
            return Err("its membership is kubeadm's (kubeadm join, kubeadm reset on the node)");
        }
        Command::TrafficShow(_) | Command::TrafficSet(_) | Command::TrafficClear(_) => {
            return Err("it has no client Service; its clients dial it on its nodes");
        }
        Command::SnapshotSave(s) => return Ok(Route::Snapshot(s.clone())),
        _ => return Err("this command does not run through the agent"),
    }))
}

/// A command about a control plane's etcd: run in an agent on one of its
/// nodes (`crate::agent`), for the commands that can (`route`, from
/// [`through_agent`]); the others are refused, saying why.
async fn on_the_node(
    global: &Global,
    route: std::result::Result<Route, &'static str>,
    cluster: &crate::reach::ClusterRef,
) -> Result<ExitStatus> {
    let label = cluster.label();
    let refuse = |why: &str| {
        Err(crate::error::Error::usage(format!(
            "{label} is a control plane's etcd (its static Pods): {why}"
        )))
    };
    let route = match route {
        Ok(route) => route,
        Err(why) => return refuse(why),
    };
    if global.reach.user.is_some() || global.reach.password.is_some() {
        return refuse("a password is not handed to the agent (it would be written into its Job); its clients authenticate with the node's certificates");
    }
    let mut args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // The agent's environment is its Job's: a format read from
    // ETCDCTL_WRITE_OUT here goes on its command line.
    if global.reach.from_env.has("output") {
        use clap::ValueEnum;
        if let Some(format) = global.output.to_possible_value() {
            args.push(format!("--output={}", format.get_name()));
        }
    }
    let kube = crate::k8s::connect(&crate::session::kube_settings(&global.reach)).await?;
    // Its static Pods, read again: where its agent runs, with which files.
    let on_node =
        crate::source::controlplane::fetch(&kube, &cluster.namespace, &cluster.name, true).await?;
    let consent = match route {
        Route::Relay(consent) => consent,
        Route::Snapshot(save) => {
            return snapshot::via_agent(global, &save, args, &kube, &on_node).await;
        }
    };
    let ask_first = consent
        .filter(|c| !c.yes && !c.dry_run && crate::output::prompt::interactive())
        .map(|_| "Run it on the node?".to_string());
    crate::agent::run(
        &kube,
        &global.agent,
        &on_node,
        crate::agent::AgentCommand { args, ask_first },
    )
    .await
}

/// The etcd-operator plugin's `-p POD`: the Pod's EtcdCluster and member
/// in the kubeconfig's namespace (`settings::compat` applies them).
async fn pod_member(global: &Global, pod: &str) -> Result<crate::settings::compat::PodMember> {
    let kube = crate::k8s::connect(&crate::session::kube_settings(&global.reach)).await?;
    let namespace = kube.default_namespace.clone();
    let (cluster, member) = crate::source::Source::of(&global.reach)
        .member_of_pod(&kube, &namespace, pod)
        .await?;
    Ok(crate::settings::compat::PodMember {
        namespace,
        cluster,
        member,
    })
}

/// Ends a command that acted but left something undone with exit 1,
/// saying why on stderr in one line, whatever the output format (so a
/// CronJob's log tells why). A refusal, where nothing was done, is
/// `Error::Refused` instead.
pub(crate) fn unfinished(why: impl std::fmt::Display) -> ExitStatus {
    crate::logging::failed(&why.to_string());
    ExitStatus::Failed
}

/// Whether opening the cluster failed because a Secret may not be read
/// (403): the identity has a read-only role (`deploy/view`).
pub(crate) fn secret_forbidden(e: &crate::error::Error) -> bool {
    matches!(
        e,
        crate::error::Error::Kube { action, source, .. }
            if action.starts_with("get Secret ")
                && matches!(source.as_ref(), kube::Error::Api(s) if s.code == 403)
    )
}

/// A refusal listing every reason when the health gate refuses.
pub(crate) fn gate_passes(verdict: &crate::plan::gate::GateVerdict) -> Result<()> {
    if verdict.passed() {
        return Ok(());
    }
    let reasons: Vec<String> = verdict.reasons.iter().map(|r| r.to_string()).collect();
    Err(crate::error::Error::refused(format!(
        "health gate refused: {}",
        reasons.join("; ")
    )))
}

/// The member a read goes to (`snapshot save`, `usage`), as
/// `plan::backup` picks it: the most caught-up healthy follower unless
/// `member` names one. A member that does not exist is a usage error.
pub(crate) fn read_source<'a>(
    look: &'a crate::look::ClusterLook,
    member: Option<&str>,
) -> Result<ReadSource<'a>> {
    let leader =
        crate::plan::gate::evaluate(look, &crate::plan::gate::GateOptions::default()).leader;
    let source = match crate::plan::backup::source(look, leader, member) {
        Ok(source) => source,
        Err(refusal) if refusal.is_usage() => return Err(crate::error::Error::usage(refusal)),
        Err(refusal) => return Err(crate::error::Error::refused(refusal)),
    };
    let name = source.name.clone();
    match ReadSource::of(look, source) {
        Some(picked) => Ok(picked),
        None if look.members.iter().any(|m| m.name == name) => Err(crate::error::Error::Refused(
            format!("{name} has no client URL to dial"),
        )),
        None => Err(crate::error::Error::Refused(format!(
            "{name} is not in the member list"
        ))),
    }
}

/// What `read_source` picked.
pub(crate) struct ReadSource<'a> {
    pub source: crate::plan::backup::Source,
    pub member: &'a crate::look::MemberLook,
    pub dial: crate::reach::Dial,
}

impl<'a> ReadSource<'a> {
    /// The member `source` names in `look`, with its dial; `None` when it
    /// is not listed or has no client URL.
    pub(crate) fn of(
        look: &'a crate::look::ClusterLook,
        source: crate::plan::backup::Source,
    ) -> Option<ReadSource<'a>> {
        let member = look.members.iter().find(|m| m.name == source.name)?;
        let dial = member.dial.clone()?;
        Some(ReadSource {
            source,
            member,
            dial,
        })
    }
}

/// How a `defrag` run ends, direct or through the operator: 0 when it did
/// everything; 130 when abandoned by a second Ctrl-C; 2 when etcd refused
/// the user permission (nothing changed); else 1, with the reason on
/// stderr whatever the output format. (A run stopped by SIGTERM or SIGHUP
/// ends with 143 or 129 instead: `signals::exit_status`.)
pub(crate) fn defrag_exit_status(report: &crate::report::DefragReport) -> ExitStatus {
    use crate::report::StopReason;
    if report.succeeded() {
        return ExitStatus::Success;
    }
    let status = unfinished(report.problems().join("; "));
    match report.stop_reason() {
        Some(StopReason::Abandoned { .. }) => ExitStatus::Interrupted,
        // Nothing was changed, and only other credentials can change that.
        Some(StopReason::PermissionDenied { .. }) => ExitStatus::Usage,
        _ => status,
    }
}

/// Writes a `defrag` report in the chosen format.
pub(crate) fn render_defrag(
    global: &Global,
    report: &crate::report::DefragReport,
) -> crate::error::Result<()> {
    crate::output::print(report, global.output)
}
