//! Every command settled once: the parsed command line becomes one
//! [`Command`], a value per command, before anything is contacted. The
//! commands match on that alone and never see clap's types.
//!
//! The one thing settling waits for is `-p POD` (the etcd-operator plugin's
//! habit): the Pod is looked up by the caller, then [`Invocation::settle`]
//! applies it (`compat::apply_pod`) and settles what it became.

use std::path::PathBuf;
use std::time::Duration;

use super::compat::{self, PodMember};
use super::{defrag, gate, Consent, Defrag, Global};
use crate::cli::{self, AlarmCommand, Cli, MemberCommand, SnapshotCommand, TrafficCommand};
use crate::contract::TrafficValue;
use crate::error::{Error, Result};
use crate::plan::doctor::Severity;
use crate::plan::gate::GateOptions;
use crate::reach::flags::Contexts;

/// A parsed command line waiting to be settled: its global flags are
/// already read; the command is settled once `-p POD` (if given) is known.
#[derive(Debug)]
pub struct Invocation {
    cli: Cli,
    global: Global,
}

impl From<Cli> for Invocation {
    fn from(cli: Cli) -> Self {
        let global = Global::from(&cli.global);
        Invocation { cli, global }
    }
}

impl Invocation {
    /// What every command takes from the global flags.
    pub fn global(&self) -> &Global {
        &self.global
    }

    /// The etcd-operator plugin's habits that mean something else here,
    /// refused before anything is looked up: `--credentials-secret` and
    /// `add-member URL`.
    pub fn refuse_habits(&self) -> Result<()> {
        if let Some(secret) = &self.cli.global.credentials_secret {
            return Err(compat::credentials_secret_refusal(secret));
        }
        if let cli::Command::AddMember { url } = &self.cli.command {
            return Err(compat::add_member_refusal(url));
        }
        Ok(())
    }

    /// The Pod `-p` names, whose EtcdCluster and member the caller looks up.
    pub fn pod(&self) -> Option<&str> {
        self.cli.global.pod.as_deref()
    }

    /// The command, with the Pod's place applied when `-p` was given; the
    /// second value is the note that says what `-p` was read as.
    pub fn settle(mut self, pod: Option<&PodMember>) -> Result<(Command, Option<String>)> {
        let mut note = None;
        if let (Some(at), Some(name)) = (pod, self.cli.global.pod.clone()) {
            note = Some(compat::apply_pod(&mut self.cli.command, &name, at)?);
            if let cli::Command::Leave(args) = &self.cli.command {
                let remove = MemberChange {
                    cluster: Some(at.cluster.clone()),
                    member: at.member.clone(),
                    change: membership(&args.change),
                };
                return Ok((Command::MemberRemove(remove), note));
            }
        }
        let command = command(&self.cli.command)?;
        over_contexts(&command, &self.global.reach.contexts)?;
        serve_flags(&command, &self.global)?;
        Ok((command, note))
    }
}

/// `doctor --serve` prints nothing, so an output format on the command
/// line is refused (`ETCDCTL_WRITE_OUT`, set for etcdctl, is not); and
/// `--serve-as` names the cluster that `--endpoints` reach: in plugin
/// mode every cluster is served under its own name. Pure.
pub fn serve_flags(command: &Command, global: &super::Global) -> Result<()> {
    let Command::Doctor(Doctor {
        serve: Some(serve), ..
    }) = command
    else {
        return Ok(());
    };
    let output_given =
        global.output != crate::output::OutputFormat::Table && !global.reach.from_env.has("output");
    if output_given {
        return Err(Error::usage(
            "the argument '--serve <ADDR>' cannot be used with '--output <OUTPUT>': doctor --serve prints no report, it serves its findings as metrics",
        ));
    }
    let Some(named) = &serve.serve_as else {
        return Ok(());
    };
    if global.reach.endpoints.is_empty() {
        return Err(Error::usage(format!(
            "--serve-as {}/{}: names the cluster --endpoints reach (a control plane's etcd examined on its node); without --endpoints each cluster is served under its own name: drop --serve-as",
            named.namespace, named.name
        )));
    }
    Ok(())
}

/// Several contexts (`--context` more than once, `--all-contexts`) go
/// with the commands over many clusters only: `status -A`, `doctor -A`,
/// `defrag -A`/`-l`. Anything else is a usage error naming the flag and
/// what to do. Pure.
pub fn over_contexts(command: &Command, contexts: &Contexts) -> Result<()> {
    if !contexts.several() {
        return Ok(());
    }
    let (name, over_many) = match command {
        Command::Status(s) => ("status", s.all_namespaces),
        Command::Doctor(d) => ("doctor", d.all_namespaces),
        Command::Defrag(Defrag::Fleet(_)) => ("defrag", true),
        Command::Defrag(Defrag::One(_)) => ("defrag", false),
        Command::Defrag(Defrag::Watch(_)) => {
            return Err(Error::usage(format!(
                "{}: defrag --watch serves one context; run one watcher per context (--context NAME)",
                contexts.flag()
            )))
        }
        _ => {
            return Err(Error::usage(format!(
                "{}: only status -A, doctor -A and defrag -A (or -l) go over several contexts; give this command one --context",
                contexts.flag()
            )))
        }
    };
    if over_many {
        return Ok(());
    }
    let add = match name {
        "defrag" => "add -A (every namespace) or -l SELECTOR",
        _ => "add -A",
    };
    Err(Error::usage(format!(
        "{}: {name} goes over several contexts with every cluster in them: {add}, or give one --context for one cluster",
        contexts.flag()
    )))
}

/// The global settings of words typed after the program name (completion
/// reads the global flags a half-typed line carries).
pub fn global_of_words(words: Vec<String>) -> Result<Global> {
    let cli =
        <Cli as clap::Parser>::try_parse_from(words).map_err(|e| Error::usage(e.to_string()))?;
    Ok(Global::from(&cli.global))
}

/// Every command, settled.
#[derive(Debug, Clone)]
pub enum Command {
    Status(Status),
    Members(OneCluster),
    Doctor(Doctor),
    MemberAdd(MemberAdd),
    MemberPromote(MemberChange),
    MemberRemove(MemberChange),
    Defrag(Defrag),
    AlarmList(OneCluster),
    AlarmDisarm(AlarmDisarm),
    MoveLeader(MoveLeader),
    Compact(Compact),
    SnapshotSave(SnapshotSave),
    SnapshotStatus(PathBuf),
    SnapshotUsage(SnapshotUsage),
    Usage(Usage),
    TrafficShow(OneCluster),
    TrafficSet(TrafficSet),
    TrafficClear(TrafficClear),
    /// Text printed as it is (`completion SHELL`, `version`).
    Print(String),
}

/// A command that reads one cluster and takes nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneCluster {
    pub cluster: Option<String>,
}

/// `status`.
#[derive(Debug, Clone)]
pub struct Status {
    pub cluster: Option<String>,
    pub all_namespaces: bool,
    /// `--check`: exit 1 when the gate refuses.
    pub check: bool,
    pub gate: GateOptions,
}

/// `doctor`.
#[derive(Debug, Clone)]
pub struct Doctor {
    pub cluster: Option<String>,
    pub all_namespaces: bool,
    /// Exit 1 when a finding is at least this severe; `None` never.
    pub fail_on: Option<Severity>,
    /// How long writes are counted to name the churning prefix (zero: not).
    pub churn_window: Duration,
    pub gate: GateOptions,
    /// `--upgrade-to`: the release whose upgrade is checked too.
    pub upgrade_to: Option<crate::plan::doctor::upgrade::UpgradeTarget>,
    /// `--serve`: keep examining and serve the findings as metrics.
    pub serve: Option<DoctorServe>,
    /// `--acknowledge`: check ids whose findings are acknowledged.
    pub acknowledge: Vec<String>,
}

/// `doctor --serve`: where, and at what pace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorServe {
    pub address: std::net::SocketAddr,
    /// How often each cluster is examined.
    pub interval: Duration,
    /// How long one examination may take.
    pub examine_timeout: Duration,
    /// Clusters examined at once.
    pub max_concurrent: usize,
    /// `--serve-as`: the name the one cluster the standalone flags reach
    /// is served under.
    pub serve_as: Option<crate::reach::ClusterRef>,
}

/// How a membership change is consented to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// Act on an operator-managed cluster, or past a refusal that can be
    /// overridden (what to type is asked, or given to `confirm`).
    pub force: bool,
    pub confirm: Option<String>,
    pub consent: Consent,
}

/// `member add`.
#[derive(Debug, Clone)]
pub struct MemberAdd {
    pub cluster: Option<String>,
    /// The new member's name, never blank.
    pub name: String,
    /// Its peer URLs, each http(s) with a host and a port.
    pub peer_urls: Vec<String>,
    pub learner: bool,
    pub change: Membership,
}

/// `member promote` and `member remove`.
#[derive(Debug, Clone)]
pub struct MemberChange {
    pub cluster: Option<String>,
    /// The member, by name or hex id.
    pub member: String,
    pub change: Membership,
}

/// `alarm disarm`.
#[derive(Debug, Clone)]
pub struct AlarmDisarm {
    pub cluster: Option<String>,
    /// Only these members' alarms (all when empty).
    pub members: Vec<String>,
    pub force: bool,
    pub confirm_corrupt: Option<String>,
    pub consent: Consent,
}

/// `move-leader`.
#[derive(Debug, Clone)]
pub struct MoveLeader {
    pub cluster: Option<String>,
    /// The member to hand leadership to; the most caught-up voter when
    /// `None`.
    pub to: Option<String>,
    pub consent: Consent,
    pub gate: GateOptions,
}

/// Where `compact` keeps history from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactAt {
    /// `--revision N`: keep N and later.
    Revision(i64),
    /// `--keep N`: keep the N revisions before the current one.
    Last(i64),
    /// `--keep-duration`: keep what was written in the last `age`, dated
    /// by the Lease objects under `leases_prefix`.
    Within {
        age: Duration,
        leases_prefix: String,
    },
}

/// `compact`.
#[derive(Debug, Clone)]
pub struct Compact {
    pub cluster: Option<String>,
    pub at: CompactAt,
    pub physical: bool,
    pub consent: Consent,
    /// The gate without its quorum margin: a compaction takes no member
    /// out of service.
    pub gate: GateOptions,
}

/// `snapshot save`.
#[derive(Debug, Clone)]
pub struct SnapshotSave {
    pub cluster: Option<String>,
    pub file: PathBuf,
    pub member: Option<String>,
    /// Replace a file that exists.
    pub force: bool,
}

/// How `usage` and `snapshot usage` group keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouping {
    pub prefix: String,
    pub depth: Option<usize>,
    pub top: usize,
}

/// `usage`.
#[derive(Debug, Clone)]
pub struct Usage {
    pub cluster: Option<String>,
    pub grouping: Grouping,
    /// How long writes are counted.
    pub window: Duration,
    pub member: Option<String>,
    pub keys_only: bool,
}

/// `snapshot usage`.
#[derive(Debug, Clone)]
pub struct SnapshotUsage {
    pub file: PathBuf,
    pub grouping: Grouping,
}

/// `traffic set`.
#[derive(Debug, Clone)]
pub struct TrafficSet {
    pub cluster: Option<String>,
    pub value: TrafficValue,
    /// Write the value as given, whatever the API server calls it.
    pub exact: bool,
    /// Field managers whose value may be taken.
    pub take_from: Vec<String>,
    pub consent: Consent,
}

/// `traffic clear`.
#[derive(Debug, Clone)]
pub struct TrafficClear {
    pub cluster: Option<String>,
    pub consent: Consent,
}

fn one(arg: &cli::ClusterArg) -> Option<String> {
    arg.cluster.clone()
}

fn consent(dry_run: bool, yes: bool) -> Consent {
    Consent { dry_run, yes }
}

fn membership(args: &cli::MembershipArgs) -> Membership {
    Membership {
        force: args.force,
        confirm: args.confirm.clone(),
        consent: consent(args.dry_run, args.yes),
    }
}

fn grouping(args: &cli::GroupingArgs) -> Grouping {
    Grouping {
        prefix: args.prefix.clone(),
        depth: args.depth.map(usize::from),
        top: usize::from(args.top),
    }
}

/// A peer URL etcd will accept: http or https, a host and a port.
fn peer_url(text: &str) -> Result<String> {
    let bad = |why: &str| Error::usage(format!("--peer-urls {text}: {why}"));
    let url = url::Url::parse(text).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("use http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) || url.port().is_none() {
        return Err(bad("give a host and a port, e.g. https://10.0.0.4:2380"));
    }
    Ok(text.to_string())
}

/// `compact`'s choice of revision: exactly one of the three (clap's group
/// makes it required; this names all three if it ever is not).
fn compact_at(args: &cli::CompactArgs) -> Result<CompactAt> {
    Ok(match (args.revision, args.keep, args.keep_duration) {
        (Some(r), None, None) => CompactAt::Revision(r),
        (None, Some(n), None) => CompactAt::Last(n),
        (None, None, Some(age)) => CompactAt::Within {
            age,
            leases_prefix: args.leases_prefix.clone(),
        },
        _ => {
            return Err(Error::usage(
                "pass one of --revision N, --keep N or --keep-duration DURATION",
            ))
        }
    })
}

fn traffic_value(arg: cli::TrafficValueArg) -> TrafficValue {
    match arg {
        cli::TrafficValueArg::PreferClose => TrafficValue::PreferClose,
        cli::TrafficValueArg::PreferSameZone => TrafficValue::PreferSameZone,
        cli::TrafficValueArg::PreferSameNode => TrafficValue::PreferSameNode,
    }
}

/// Text for `completion SHELL`: bash asks the completion engine itself
/// (`__complete`), which knows member names and where a file is wanted;
/// the others are clap's static scripts.
fn completion_script(shell: clap_complete::Shell) -> String {
    if shell == clap_complete::Shell::Bash {
        return crate::complete::BASH_SCRIPT.to_string();
    }
    let mut command = command_tree();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "kubectl-etcd", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The definition of every command and flag, as the completion engine
/// walks it.
pub fn command_tree() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

fn command(parsed: &cli::Command) -> Result<Command> {
    use cli::Command as C;
    Ok(match parsed {
        C::Status(a) => Command::Status(Status {
            cluster: one(&a.cluster),
            all_namespaces: a.all_namespaces,
            check: a.check,
            gate: gate(&a.gate),
        }),
        C::Members(a) | C::Member(MemberCommand::List(a)) => Command::Members(OneCluster {
            cluster: one(&a.cluster),
        }),
        C::Doctor(a) => Command::Doctor(Doctor {
            cluster: one(&a.cluster),
            all_namespaces: a.all_namespaces,
            fail_on: match a.fail_on {
                cli::FailOn::Warning => Some(Severity::Warning),
                cli::FailOn::Critical => Some(Severity::Critical),
                cli::FailOn::Never => None,
            },
            churn_window: a.churn_window,
            gate: gate(&a.gate),
            acknowledge: a.acknowledge.clone(),
            serve: a.serve.map(|address| DoctorServe {
                address,
                interval: a.interval,
                examine_timeout: a.examine_timeout,
                max_concurrent: usize::from(a.max_concurrent),
                serve_as: a
                    .serve_as
                    .as_ref()
                    .map(|(namespace, name)| crate::reach::ClusterRef::new(namespace, name)),
            }),
            upgrade_to: match &a.upgrade_to {
                None => None,
                Some(text) => Some(crate::plan::doctor::upgrade::UpgradeTarget::parse(text).ok_or_else(
                    || {
                        Error::usage(format!(
                            "--upgrade-to {text:?}: not an etcd 3 release; give a minor release (3.6) or an exact one (3.6.16)"
                        ))
                    },
                )?),
            },
        }),
        C::Member(MemberCommand::Add(a)) => member_add(a)?,
        C::Member(MemberCommand::Promote(a)) => Command::MemberPromote(member_change(a)),
        C::Member(MemberCommand::Remove(a)) | C::RemoveMember(a) => {
            Command::MemberRemove(member_change(a))
        }
        // Turned into `member remove` by `-p POD`, or refused there.
        C::Leave(_) | C::AddMember { .. } => {
            return Err(Error::usage(
                "leave needs -p POD: the etcd member Pod whose member to remove",
            ))
        }
        C::Defrag(a) => Command::Defrag(defrag(a)?),
        C::Alarm(AlarmCommand::List(a)) => Command::AlarmList(OneCluster {
            cluster: one(&a.cluster),
        }),
        C::Alarm(AlarmCommand::Disarm(a)) => Command::AlarmDisarm(AlarmDisarm {
            cluster: one(&a.cluster),
            members: a.members.clone(),
            force: a.force,
            confirm_corrupt: a.confirm_corrupt.clone(),
            consent: consent(a.dry_run, a.yes),
        }),
        C::MoveLeader(a) => Command::MoveLeader(MoveLeader {
            cluster: one(&a.cluster),
            to: a.to.clone(),
            consent: consent(a.dry_run, a.yes),
            gate: gate(&a.gate),
        }),
        C::Compact(a) => Command::Compact(Compact {
            cluster: one(&a.cluster),
            at: compact_at(a)?,
            physical: a.physical,
            consent: consent(a.dry_run, a.yes),
            gate: super::gate_without_quorum_margin(gate(&a.gate)),
        }),
        C::Snapshot(c) => snapshot(c),
        C::Usage(a) => Command::Usage(Usage {
            cluster: one(&a.cluster),
            grouping: grouping(&a.grouping),
            window: a.window,
            member: a.member.clone(),
            keys_only: a.keys_only,
        }),
        C::Traffic(t) => traffic(t),
        C::Completion { shell } => Command::Print(completion_script(*shell)),
        C::Version => Command::Print(format!("kubectl-etcd {}\n", env!("CARGO_PKG_VERSION"))),
    })
}

fn member_add(a: &cli::MemberAddArgs) -> Result<Command> {
    if a.name.trim().is_empty() {
        return Err(Error::usage("NAME: give the new member's name"));
    }
    Ok(Command::MemberAdd(MemberAdd {
        cluster: one(&a.cluster),
        name: a.name.clone(),
        peer_urls: a
            .peer_urls
            .iter()
            .map(|u| peer_url(u))
            .collect::<Result<_>>()?,
        learner: a.learner,
        change: membership(&a.change),
    }))
}

fn traffic(parsed: &TrafficCommand) -> Command {
    match parsed {
        TrafficCommand::Show(a) => Command::TrafficShow(OneCluster {
            cluster: one(&a.cluster),
        }),
        TrafficCommand::Set(a) => Command::TrafficSet(TrafficSet {
            cluster: one(&a.cluster),
            value: traffic_value(a.value),
            exact: a.exact,
            take_from: a.take_from.clone(),
            consent: consent(a.write.dry_run, a.write.yes),
        }),
        TrafficCommand::Clear(a) => Command::TrafficClear(TrafficClear {
            cluster: one(&a.cluster),
            consent: consent(a.write.dry_run, a.write.yes),
        }),
    }
}

fn snapshot(parsed: &SnapshotCommand) -> Command {
    match parsed {
        SnapshotCommand::Save(a) => Command::SnapshotSave(SnapshotSave {
            cluster: one(&a.cluster),
            file: a.file.clone(),
            member: a.member.clone(),
            force: a.force,
        }),
        SnapshotCommand::Status(a) => Command::SnapshotStatus(a.file.clone()),
        SnapshotCommand::Usage(a) => Command::SnapshotUsage(SnapshotUsage {
            file: a.file.clone(),
            grouping: grouping(&a.grouping),
        }),
    }
}

fn member_change(a: &cli::MemberChangeArgs) -> MemberChange {
    MemberChange {
        cluster: one(&a.cluster),
        member: a.member.clone(),
        change: membership(&a.change),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn settled(line: &str) -> Result<Command> {
        command(&crate::cli::parse(line.split_whitespace()).unwrap().command)
    }

    fn usage_of(line: &str) -> String {
        match settled(line) {
            Err(Error::Usage(text)) => text,
            other => panic!("{line}: not a usage error: {other:?}"),
        }
    }

    #[test]
    fn several_contexts_go_with_the_commands_over_many_clusters() {
        let two = Contexts::Named(vec!["a".into(), "b".into()]);
        let cases: &[(&str, &Contexts, Option<&str>)] = &[
            ("k status -A", &two, None),
            ("k doctor -A", &Contexts::All, None),
            ("k defrag -A --dry-run", &two, None),
            ("k defrag -l app=x -y", &Contexts::All, None),
            ("k status c", &Contexts::One, None),
            ("k members c", &Contexts::One, None),
            ("k status", &two, Some("--context a --context b: status goes over several contexts with every cluster in them: add -A")),
            ("k doctor c", &Contexts::All, Some("--all-contexts: doctor goes over several contexts")),
            ("k defrag c -y", &Contexts::All, Some("add -A (every namespace) or -l SELECTOR")),
            ("k defrag --watch", &two, Some("one watcher per context")),
            ("k members", &Contexts::All, Some("--all-contexts: only status -A, doctor -A and defrag -A (or -l) go over several contexts")),
            ("k compact c --keep 10", &two, Some("give this command one --context")),
        ];
        for (line, contexts, refused) in cases {
            let command = settled(line).unwrap();
            match (over_contexts(&command, contexts), refused) {
                (Ok(()), None) => {}
                (Err(Error::Usage(text)), Some(part)) => {
                    assert!(text.contains(part), "{line}: {text}")
                }
                (other, _) => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn contexts_are_read_from_the_flags_each_once() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(Contexts::of(&[], false), Contexts::One);
        assert_eq!(Contexts::of(&names(&["a"]), false), Contexts::One);
        assert_eq!(Contexts::of(&names(&["a", "a"]), false), Contexts::One);
        assert_eq!(
            Contexts::of(&names(&["b", "a", "b"]), false),
            Contexts::Named(names(&["b", "a"]))
        );
        assert_eq!(Contexts::of(&[], true), Contexts::All);
        assert_eq!(
            Contexts::Named(names(&["b", "a"])).flag(),
            "--context b --context a"
        );
    }

    #[test]
    fn each_command_is_settled_from_its_flags() {
        let Ok(Command::Status(s)) = settled("k status c --check --max-raft-lag 9") else {
            panic!("status")
        };
        assert_eq!((s.cluster.as_deref(), s.check), (Some("c"), true));
        assert_eq!(s.gate.max_raft_lag, 9);
        assert!(!s.gate.allow_quorum_loss);
        let Ok(Command::Doctor(d)) = settled("k doctor -A --fail-on never --churn-window 0s")
        else {
            panic!("doctor")
        };
        assert_eq!(
            (d.all_namespaces, d.fail_on, d.churn_window),
            (true, None, Duration::ZERO)
        );
        let Ok(Command::Doctor(d)) = settled("k doctor c --fail-on warning") else {
            panic!("doctor")
        };
        assert_eq!(d.fail_on, Some(Severity::Warning));
        let Ok(Command::MoveLeader(m)) = settled("k move-leader c --to m2 --dry-run") else {
            panic!("move-leader")
        };
        assert_eq!((m.to.as_deref(), m.consent.dry_run), (Some("m2"), true));
        let Ok(Command::TrafficSet(t)) =
            settled("k traffic set PreferSameZone c --take-from argocd -y")
        else {
            panic!("traffic set")
        };
        assert_eq!(
            (t.value, t.take_from, t.consent.yes),
            (
                TrafficValue::PreferSameZone,
                vec!["argocd".to_string()],
                true
            )
        );
        let Ok(Command::Usage(u)) = settled("k usage c --prefix /registry/ --depth 2 --top 5")
        else {
            panic!("usage")
        };
        assert_eq!(
            u.grouping,
            Grouping {
                prefix: "/registry/".into(),
                depth: Some(2),
                top: 5
            }
        );
        let Ok(Command::MemberRemove(r)) = settled("k member remove m1 c --force --confirm m1")
        else {
            panic!("member remove")
        };
        assert_eq!(
            (
                r.member.as_str(),
                r.change.force,
                r.change.confirm.as_deref()
            ),
            ("m1", true, Some("m1"))
        );
        assert!(
            matches!(settled("k version"), Ok(Command::Print(v)) if v.starts_with("kubectl-etcd "))
        );
    }

    #[test]
    fn compact_keeps_exactly_what_one_flag_says() {
        for (line, at) in [
            ("k compact c --revision 5", CompactAt::Revision(5)),
            ("k compact c --keep 0", CompactAt::Last(0)),
            (
                "k compact c --keep-duration 6h",
                CompactAt::Within {
                    age: Duration::from_secs(6 * 3600),
                    leases_prefix: crate::etcd::clock::LEASES_PREFIX.into(),
                },
            ),
        ] {
            let Ok(Command::Compact(c)) = settled(line) else {
                panic!("{line}")
            };
            assert_eq!(c.at, at, "{line}");
            // No member goes out of service: the quorum margin is not asked.
            assert!(c.gate.allow_quorum_loss, "{line}");
        }
        // clap's group names every way to choose; settling never sees none.
        assert!(crate::cli::parse("k compact c".split_whitespace()).is_err());
        let none = compact_at(&cli::CompactArgs {
            cluster: cli::ClusterArg { cluster: None },
            revision: None,
            keep: None,
            keep_duration: None,
            leases_prefix: String::new(),
            physical: false,
            dry_run: false,
            yes: false,
            gate: cli::GateArgs {
                allow_quorum_loss: false,
                max_raft_lag: 0,
            },
        });
        let Err(Error::Usage(why)) = none else {
            panic!("{none:?}")
        };
        assert!(
            why.contains("--revision N, --keep N or --keep-duration DURATION"),
            "{why}"
        );
    }

    #[test]
    fn mistakes_are_usage_errors_naming_the_argument() {
        for (line, says) in [
            (
                "k member add m3 --peer-urls ftp://a:1",
                "--peer-urls ftp://a:1: use http:// or https://",
            ),
            (
                "k member add m3 --peer-urls http://a",
                "--peer-urls http://a: give a host and a port",
            ),
            (
                "k member add m3 --peer-urls nonsense",
                "--peer-urls nonsense",
            ),
            ("k leave", "leave needs -p POD"),
        ] {
            assert!(usage_of(line).contains(says), "{line}: {}", usage_of(line));
        }
    }

    #[test]
    fn peer_urls_need_a_scheme_host_and_port() {
        assert!(peer_url("https://10.0.0.4:2380").is_ok());
        assert!(peer_url("http://[::1]:2380").is_ok());
        for bad in [
            "10.0.0.4:2380",
            "https://10.0.0.4",
            "unix:///x",
            "https://:2380",
        ] {
            let e = peer_url(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("--peer-urls {bad}: ")), "{e}");
        }
    }

    #[test]
    fn a_pod_becomes_its_cluster_and_leave_becomes_member_remove() {
        let at = PodMember {
            namespace: "ns".into(),
            cluster: "etcd".into(),
            member: "etcd-1".into(),
        };
        let line = |l: &str| Invocation::from(crate::cli::parse(l.split_whitespace()).unwrap());
        let (leave, note) = line("k leave -p etcd-1 --force -y")
            .settle(Some(&at))
            .unwrap();
        let Command::MemberRemove(r) = leave else {
            panic!("{leave:?}")
        };
        assert_eq!(
            (r.cluster.as_deref(), r.member.as_str()),
            (Some("etcd"), "etcd-1")
        );
        assert!(r.change.force && r.change.consent.yes);
        assert!(note.is_some_and(|n| n.contains("member remove etcd-1")));
        let (status, _) = line("k status -p etcd-1").settle(Some(&at)).unwrap();
        assert!(matches!(status, Command::Status(Status { cluster: Some(c), .. }) if c == "etcd"));
        let refused = line("k status --credentials-secret s").refuse_habits();
        assert!(matches!(refused, Err(Error::Usage(_))), "{refused:?}");
    }
}
