//! One module per command: each opens its cluster (`reach::session`), takes
//! what it needs from etcd, calls the pure stages or the engine (`exec`),
//! asks for consent, and hands a report to `output`.

pub mod alarm;
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

use crate::cli::{AlarmCommand, Cli, Command, MemberCommand, SnapshotCommand, TrafficCommand};
use crate::error::{ExitStatus, Result};
use crate::settings::{self, Defrag, Global};

/// Runs the parsed command line: settles the flags (`settings`), then
/// dispatches to the one command (and, for `defrag`, the one mode) asked.
pub async fn run(mut cli: Cli) -> Result<ExitStatus> {
    let global = Global::from(&cli.global);
    let global = &global;
    plugin_habits(&mut cli, global).await?;
    match &cli.command {
        Command::Status(args) => status::run(global, args).await,
        Command::Members(args) => members::run(global, args).await,
        Command::Doctor(args) => doctor::run(global, args).await,
        Command::Member(MemberCommand::List(args)) => members::run(global, args).await,
        Command::Member(MemberCommand::Add(args)) => members::add(global, args).await,
        Command::Member(MemberCommand::Promote(args)) => members::promote(global, args).await,
        Command::Member(MemberCommand::Remove(args)) | Command::RemoveMember(args) => {
            members::remove(global, args).await
        }
        // Turned into `member remove` by `plugin_habits`, or refused there.
        Command::Leave(_) | Command::AddMember { .. } => Err(crate::error::Error::usage(
            "leave needs -p POD: the etcd member Pod whose member to remove",
        )),
        Command::Defrag(args) => match settings::defrag(args)? {
            Defrag::One(one) => defrag::run(global, &one).await,
            Defrag::Fleet(fleet) => fleet::run(global, &fleet).await,
            Defrag::Watch(watch) => watch::run(global, &watch).await,
            Defrag::ViaOperator(handover) => via_operator::run(global, &handover).await,
        },
        Command::Alarm(AlarmCommand::List(args)) => alarm::list(global, args).await,
        Command::Alarm(AlarmCommand::Disarm(args)) => alarm::disarm(global, args).await,
        Command::MoveLeader(args) => move_leader::run(global, args).await,
        Command::Compact(args) => compact::run(global, args).await,
        Command::Snapshot(SnapshotCommand::Save(args)) => snapshot::save(global, args).await,
        Command::Snapshot(SnapshotCommand::Status(args)) => snapshot::status(global, args).await,
        Command::Snapshot(SnapshotCommand::Usage(args)) => usage::snapshot(global, args).await,
        Command::Usage(args) => usage::run(global, args).await,
        Command::Traffic(TrafficCommand::Show(args)) => traffic::show(global, args).await,
        Command::Traffic(TrafficCommand::Set(args)) => traffic::set(global, args).await,
        Command::Traffic(TrafficCommand::Clear(args)) => traffic::clear(global, args).await,
        Command::Completion { shell } => {
            // bash asks the completion engine itself (`__complete`), which
            // knows member names and where a file is wanted; the others are
            // clap's static scripts.
            let script = if *shell == clap_complete::Shell::Bash {
                crate::complete::BASH_SCRIPT.to_string()
            } else {
                let mut command = <Cli as clap::CommandFactory>::command();
                let mut out = Vec::new();
                clap_complete::generate(*shell, &mut command, "kubectl-etcd", &mut out);
                String::from_utf8_lossy(&out).into_owned()
            };
            crate::output::emit(&script)?;
            Ok(ExitStatus::Success)
        }
        Command::Version => {
            crate::output::emit(&format!("kubectl-etcd {}\n", env!("CARGO_PKG_VERSION")))?;
            Ok(ExitStatus::Success)
        }
    }
}

/// The etcd-operator's own plugin's spellings (`settings::compat`): its
/// `-p POD` resolved to the Pod's EtcdCluster and member, its `leave` as
/// `member remove`, and what means something else here refused (exit 2,
/// with the command that does it).
async fn plugin_habits(cli: &mut Cli, global: &Global) -> Result<()> {
    use crate::cli::{ClusterArg, MemberChangeArgs};
    use settings::compat;
    if let Some(secret) = &cli.global.credentials_secret {
        return Err(compat::credentials_secret_refusal(secret));
    }
    if let Command::AddMember { url } = &cli.command {
        return Err(compat::add_member_refusal(url));
    }
    let Some(pod) = cli.global.pod.clone() else {
        return Ok(());
    };
    let kube = crate::k8s::connect(&crate::session::kube_settings(&global.reach)).await?;
    let namespace = kube.default_namespace.clone();
    let (cluster, member) = crate::k8s::member_of_pod(&kube, &namespace, &pod).await?;
    let at = compat::PodMember {
        namespace,
        cluster,
        member,
    };
    let note = compat::apply_pod(&mut cli.command, &pod, &at)?;
    crate::logging::message(&format!("note: {note}"));
    if let Command::Leave(args) = &cli.command {
        cli.command = Command::Member(MemberCommand::Remove(MemberChangeArgs {
            member: at.member,
            cluster: ClusterArg {
                cluster: Some(at.cluster),
            },
            change: args.change.clone(),
        }));
    }
    Ok(())
}

/// Ends a command with exit 1, saying why on stderr in one line, whatever
/// the output format (so a CronJob's log tells why it failed).
pub(crate) fn failed(why: impl std::fmt::Display) -> ExitStatus {
    crate::logging::message(&why.to_string());
    ExitStatus::Failed
}

/// Whether opening the cluster failed because a Secret may not be read
/// (403): the identity has a read-only role (`deploy/rbac-view.yaml`).
pub(crate) fn secret_forbidden(e: &crate::error::Error) -> bool {
    matches!(
        e,
        crate::error::Error::Kube { action, source, .. }
            if action.starts_with("get Secret ")
                && matches!(source.as_ref(), kube::Error::Api(s) if s.code == 403)
    )
}

/// Exit 1 when the health gate refuses, listing every reason on stderr;
/// `None` when it passes.
pub(crate) fn gate_refusal(verdict: &crate::plan::gate::GateVerdict) -> Option<ExitStatus> {
    if verdict.passed() {
        return None;
    }
    let reasons: Vec<String> = verdict.reasons.iter().map(|r| r.to_string()).collect();
    Some(failed(format!(
        "health gate refused: {}",
        reasons.join("; ")
    )))
}

/// The member a read goes to (`snapshot save`, `usage`), as
/// `plan::backup` picks it: the most caught-up healthy follower unless
/// `member` names one. A member that does not exist is a usage error; a
/// refusal is `Err(exit 1)`, said on stderr.
pub(crate) fn read_source<'a>(
    snap: &'a crate::look::ClusterLook,
    member: Option<&str>,
) -> Result<std::result::Result<ReadSource<'a>, ExitStatus>> {
    let leader =
        crate::plan::gate::evaluate(snap, &crate::plan::gate::GateOptions::default()).leader;
    let source = match crate::plan::backup::source(snap, leader, member) {
        Ok(source) => source,
        Err(refusal) if refusal.is_usage() => return Err(crate::error::Error::usage(refusal)),
        Err(refusal) => return Ok(Err(failed(refusal))),
    };
    let name = source.name.clone();
    match ReadSource::of(snap, source) {
        Some(picked) => Ok(Ok(picked)),
        None if snap.members.iter().any(|m| m.name == name) => Err(crate::error::Error::Refused(
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
    pub look: &'a crate::look::MemberLook,
    pub dial: crate::reach::Dial,
}

impl<'a> ReadSource<'a> {
    /// The member `source` names in `snap`, with its dial; `None` when it
    /// is not listed or has no client URL.
    pub(crate) fn of(
        snap: &'a crate::look::ClusterLook,
        source: crate::plan::backup::Source,
    ) -> Option<ReadSource<'a>> {
        let look = snap.members.iter().find(|m| m.name == source.name)?;
        let dial = look.dial.clone()?;
        Some(ReadSource { source, look, dial })
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
    let status = failed(report.problems().join("; "));
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
    use crate::output::{self, OutputFormat};
    let text = match global.output {
        OutputFormat::Table | OutputFormat::Wide => output::table::defrag(report),
        format => output::render_data(report, format)?,
    };
    output::emit(&text)
}
