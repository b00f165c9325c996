//! The settings stage: the parsed command line (`cli`, clap's raw types)
//! becomes validated settings, once, before anything is contacted.
//!
//! ripgrep's `HiArgs::from_low_args` is the model: parsing only reads
//! words; combinations, defaults that depend on other flags and the
//! conversions into the types the lower modules own (`reach::flags::Flags`,
//! `plan::gate::GateOptions`, `plan::defrag::MoveLeader`, `exec::SweepOptions`)
//! happen here, so every rule is written once and a mistake is a usage error
//! (exit 2) that names the flag. An EtcdDefrag spec is settled here too
//! (`sweep_of_run`), so the one-shot command and `--watch` cannot drift.
//!
//! Nothing below `commands` imports `cli`; they import what this stage made.
//! `usage` is the other side of the same stage: what a command line that
//! could not be settled (a clap error) says to its user.

pub mod command;
pub mod compat;
pub mod usage;

pub use command::{Command, Invocation};

use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::{DefragArgs, GateArgs, GlobalArgs, MoveLeaderArg};
use crate::error::{Error, Result};
use crate::exec::SweepOptions;
use crate::k8s::crd::DefragRuleSpec;
use crate::output::OutputFormat;
use crate::plan::defrag::MoveLeader;
use crate::plan::gate::GateOptions;
use crate::plan::rule::parse_percent;
use crate::plan::rule::DefragRule;
use crate::quantity::parse_bytes;
use crate::reach::flags::Flags;

/// What every command takes from the global flags.
#[derive(Debug, Clone)]
pub struct Global {
    /// How to reach the cluster (standalone flags, kubeconfig, `--connect`).
    pub reach: Flags,
    /// How results are written to stdout.
    pub output: OutputFormat,
    /// Where a control plane's etcd is reached from (`crate::agent`).
    pub agent: AgentSettings,
}

/// Where the agent runs and with which image (`--agent-image`,
/// `--agent-namespace`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub image: String,
    pub namespace: String,
    /// In an agent's Pod whose command serves its answer on a port of the
    /// node (`snapshot save`): the SHA-256 of the token it serves.
    pub serve_key: Option<String>,
}

impl From<&GlobalArgs> for Global {
    fn from(args: &GlobalArgs) -> Self {
        Global {
            reach: Flags {
                endpoints: args.endpoints.clone(),
                cacert: args.cacert.clone(),
                cert: args.cert.clone(),
                key: args.key.clone(),
                user: args.user.clone(),
                password: args.password.clone(),
                no_discover: args.no_discover,
                dial_timeout: args.dial_timeout,
                command_timeout: args.command_timeout,
                quota_backend_bytes: args.quota_backend_bytes,
                kubeconfig: args.kubeconfig.clone(),
                context: args.context.first().cloned(),
                contexts: crate::reach::flags::Contexts::of(&args.context, args.all_contexts),
                namespace: args.namespace.clone(),
                as_user: args.as_user.clone(),
                as_group: args.as_group.clone(),
                request_timeout: args.request_timeout,
                connect: args.connect,
                kind: args.kind,
                agent_of: args.agent.agent_of.as_deref().and_then(|c| {
                    c.split_once('/')
                        .map(|(ns, name)| crate::reach::ClusterRef::new(ns, name))
                }),
                agent_facts: agent_facts(args.agent.facts.as_deref()),
                from_env: args.from_env.clone(),
            },
            output: args.output,
            agent: AgentSettings {
                image: args.agent.agent_image.clone(),
                namespace: args.agent.agent_namespace.clone(),
                serve_key: args.agent.serve_key.clone(),
            },
        }
    }
}

/// The facts an agent was handed (`reach::AgentFacts`); none when they do
/// not read (a tool of another release started it: the command runs
/// without them, as it would on the node by hand).
fn agent_facts(json: Option<&str>) -> crate::reach::AgentFacts {
    let Some(json) = json else {
        return crate::reach::AgentFacts::default();
    };
    serde_json::from_str(json).unwrap_or_else(|e| {
        tracing::warn!("the agent's facts do not read ({e}); going on without them");
        crate::reach::AgentFacts::default()
    })
}

/// The health gate as the flags set it.
pub fn gate(args: &GateArgs) -> GateOptions {
    GateOptions {
        allow_quorum_loss: args.allow_quorum_loss,
        max_raft_lag: args.max_raft_lag,
    }
}

/// The gate without its quorum margin (one or two voters), everything else
/// as given: for a compaction, which takes no member out of service, and
/// for an EtcdDefrag run, whose contract is the operator's controller's
/// (it checks health, not the margin).
pub fn gate_without_quorum_margin(gate: GateOptions) -> GateOptions {
    GateOptions {
        allow_quorum_loss: true,
        ..gate
    }
}

/// The gate of an EtcdDefrag run, its first look and every step alike.
pub fn run_gate() -> GateOptions {
    gate_without_quorum_margin(GateOptions::default())
}

/// `--move-leader` with its `--move-leader-above` threshold.
pub fn move_leader(arg: MoveLeaderArg, above: Duration) -> MoveLeader {
    match arg {
        MoveLeaderArg::Auto => MoveLeader::Auto { above },
        MoveLeaderArg::Always => MoveLeader::Always,
        MoveLeaderArg::Never => MoveLeader::Never,
    }
}

/// The Defragment RPC timeout: zero would fail every member at once.
fn member_timeout(timeout: Duration) -> Result<Duration> {
    if timeout.is_zero() {
        return Err(Error::usage("--timeout must be greater than 0"));
    }
    Ok(timeout)
}

/// `defrag`, in one of its three modes.
#[derive(Debug, Clone)]
pub enum Defrag {
    /// One cluster (the CLUSTER argument, the namespace's only one, or the
    /// endpoints).
    One(OneCluster),
    /// Every EtcdCluster (`-A`) or those a label selector picks (`-l`).
    Fleet(Fleet),
    /// `--watch`: process EtcdDefrag objects until stopped.
    Watch(Watch),
    /// `--via-operator`: one EtcdDefrag for the operator's controller,
    /// followed until it ends.
    ViaOperator(Handover),
}

/// `defrag --via-operator`.
#[derive(Debug, Clone)]
pub struct Handover {
    pub cluster: Option<String>,
    /// The run's `spec.rule`, checked like the CRD's own rules.
    pub rule: DefragRule,
    /// `spec.ttlSecondsAfterFinished`.
    pub ttl_seconds: i32,
    /// How long a run nobody takes up is waited for.
    pub claim_timeout: Duration,
    pub consent: Consent,
}

/// `--ttl-after-finished` when not given: a day, so that `status` and
/// `doctor` still see yesterday's run and a daily CronJob's runs do not
/// pile up.
pub const DEFAULT_RUN_TTL: Duration = Duration::from_secs(24 * 3600);

/// `--claim-timeout` when not given.
pub const DEFAULT_CLAIM_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a `defrag` flag cannot go with `--via-operator`: the operator's
/// EtcdDefrag has no field for it. `id` is clap's id of the flag. Pure.
pub fn not_for_operator(id: &str) -> Option<(&'static str, &'static str)> {
    Some(match id {
        "move_leader" | "move_leader_above" => (
            if id == "move_leader" { "--move-leader" } else { "--move-leader-above" },
            "the operator never moves leadership: it defragments the leader in place, last",
        ),
        "compact" => (
            "--compact",
            "the operator never compacts (compact first: `kubectl etcd compact CLUSTER --keep 10000`)",
        ),
        "members" => (
            "--member",
            "an EtcdDefrag names no members: the operator's rule decides for every member",
        ),
        "timeout" => (
            "--timeout",
            "the operator's Defragment timeout is its own (5 minutes per member)",
        ),
        "wait_healthy" => (
            "--wait-healthy",
            "the operator waits by itself: a run on an unhealthy cluster stays Pending until its 30-minute deadline",
        ),
        "allow_probe_restart" => (
            "--allow-probe-restart",
            "the operator reads no probes, so nothing is held back to lift",
        ),
        "allow_quorum_loss" => (
            "--allow-quorum-loss",
            "the operator's health gate has no such setting",
        ),
        "max_raft_lag" => (
            "--max-raft-lag",
            "the operator's health gate has no such setting",
        ),
        _ => return None,
    })
}

/// `--via-operator`'s settings; a flag the operator has no field for is
/// refused by name (the first one given, in `given`'s order).
fn handover(args: &DefragArgs, consent: Consent) -> Result<Handover> {
    if let Some((flag, why)) = args.given.iter().find_map(|id| not_for_operator(id)) {
        return Err(Error::usage(format!(
            "{flag} cannot be used with --via-operator: {why}; drop --via-operator to have this tool sweep the cluster itself"
        )));
    }
    let rule = rule_flags(args)?;
    let ttl = args.ttl_after_finished.unwrap_or(DEFAULT_RUN_TTL);
    if ttl.subsec_nanos() != 0 {
        return Err(Error::usage(
            "--ttl-after-finished is kept in whole seconds (ttlSecondsAfterFinished), e.g. 90s or 24h",
        ));
    }
    let ttl_seconds = i32::try_from(ttl.as_secs()).map_err(|_| {
        Error::usage(format!(
            "--ttl-after-finished must be at most {}s (ttlSecondsAfterFinished is a 32-bit number of seconds)",
            i32::MAX
        ))
    })?;
    let claim_timeout = args.claim_timeout.unwrap_or(DEFAULT_CLAIM_TIMEOUT);
    if claim_timeout < Duration::from_secs(1) {
        return Err(Error::usage("--claim-timeout must be at least 1s"));
    }
    Ok(Handover {
        cluster: args.cluster.cluster.clone(),
        rule,
        ttl_seconds,
        claim_timeout,
        consent,
    })
}

/// Consent flags every mode that changes something shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Consent {
    pub dry_run: bool,
    pub yes: bool,
}

/// `defrag CLUSTER` (or on endpoints).
#[derive(Debug, Clone)]
pub struct OneCluster {
    pub cluster: Option<String>,
    pub sweep: SweepOptions,
    pub consent: Consent,
}

/// `defrag -A` / `defrag -l SELECTOR`.
#[derive(Debug, Clone)]
pub struct Fleet {
    pub sweep: SweepOptions,
    pub consent: Consent,
    /// Every namespace, or the kubeconfig's (`-n`) only.
    pub all_namespaces: bool,
    /// The label selector, trimmed and never empty.
    pub selector: Option<String>,
    /// How many clusters are swept at once.
    pub max_concurrent: usize,
}

/// `--max-concurrent` when not given.
pub const DEFAULT_MAX_CONCURRENT: u16 = 2;

/// `defrag --watch`.
#[derive(Debug, Clone)]
pub struct Watch {
    pub move_leader: MoveLeader,
    pub member_timeout: Duration,
    pub all_namespaces: bool,
    pub force_takeover: bool,
    /// `--recheck-processors`: how often a running watcher asks again
    /// whether another processor has been installed.
    pub recheck_processors: Duration,
    pub lease_duration: Duration,
    pub metrics_address: Option<SocketAddr>,
    /// `--allow-probe-restart`, for every run.
    pub allow_probe_restart: bool,
    /// The gate of every run: [`run_gate`] with `--max-raft-lag`.
    pub gate: GateOptions,
}

/// The flags only `--watch` reads: clap's id and the flag. clap's
/// `requires = "watch"` is dropped when a flag that conflicts with
/// `--watch` is given too (`--dry-run`, `--via-operator`), so the settings
/// check them again.
const WATCH_ONLY: &[(&str, &str)] = &[
    ("force_takeover", "--force-takeover"),
    ("recheck_processors", "--recheck-processors"),
    ("lease_duration", "--lease-duration"),
    ("metrics_address", "--metrics-address"),
];

/// Settles `defrag`'s flags into one mode, checking what clap cannot:
/// the order of the checks is the order of the messages a user sees.
pub fn defrag(args: &DefragArgs) -> Result<Defrag> {
    let watch_only = WATCH_ONLY
        .iter()
        .find(|(id, _)| args.given.iter().any(|g| g == id));
    if let (false, Some((_, flag))) = (args.watch, watch_only) {
        return Err(Error::usage(format!(
            "{flag} is for --watch, which processes EtcdDefrag objects; this command does not: drop {flag}"
        )));
    }
    let fleet = !args.watch && (args.all_namespaces || args.selector.is_some());
    if args.max_concurrent.is_some() && !fleet {
        return Err(Error::usage(
            "--max-concurrent is for fleet sweeps: add -A (every EtcdCluster) or -l SELECTOR, without --watch",
        ));
    }
    let consent = Consent {
        dry_run: args.dry_run,
        yes: args.yes,
    };
    if args.watch {
        if args.cluster.cluster.is_some() {
            return Err(Error::usage(
                "--watch processes EtcdDefrag objects; it takes no CLUSTER (create an EtcdDefrag naming it instead)",
            ));
        }
        let member_timeout = member_timeout(args.timeout)?;
        if args.lease_duration < Duration::from_secs(1) {
            return Err(Error::usage("--lease-duration must be at least 1s"));
        }
        if args.recheck_processors < Duration::from_secs(1) {
            return Err(Error::usage("--recheck-processors must be at least 1s"));
        }
        if args.gate.allow_quorum_loss {
            return Err(Error::usage(
                "--allow-quorum-loss has no effect with --watch: an EtcdDefrag run is gated as the operator's controller gates it, on health without the quorum margin, so a cluster of one or two voters is already processed; drop --allow-quorum-loss",
            ));
        }
        return Ok(Defrag::Watch(Watch {
            move_leader: move_leader(args.move_leader, args.move_leader_above),
            member_timeout,
            all_namespaces: args.all_namespaces,
            force_takeover: args.force_takeover,
            recheck_processors: args.recheck_processors,
            lease_duration: args.lease_duration,
            metrics_address: args.metrics_address,
            allow_probe_restart: args.allow_probe_restart,
            gate: GateOptions {
                max_raft_lag: args.gate.max_raft_lag,
                ..run_gate()
            },
        }));
    }
    if args.via_operator {
        return Ok(Defrag::ViaOperator(handover(args, consent)?));
    }
    if fleet {
        if !args.members.is_empty() {
            return Err(Error::usage(
                "--member names members of one cluster; it cannot be combined with a fleet sweep (-A or -l): name the cluster instead",
            ));
        }
        let sweep = sweep(args)?;
        let selector = args.selector.as_deref().map(str::trim);
        if selector == Some("") {
            return Err(Error::usage(
                "-l needs a label selector (e.g. tier=prod); use -A alone for every EtcdCluster",
            ));
        }
        return Ok(Defrag::Fleet(Fleet {
            sweep,
            consent,
            all_namespaces: args.all_namespaces,
            selector: selector.map(str::to_string),
            max_concurrent: usize::from(args.max_concurrent.unwrap_or(DEFAULT_MAX_CONCURRENT)),
        }));
    }
    Ok(Defrag::One(OneCluster {
        cluster: args.cluster.cluster.clone(),
        sweep: sweep(args)?,
        consent,
    }))
}

/// The rule and sweep options of a one-shot or fleet `defrag`.
fn sweep(args: &DefragArgs) -> Result<SweepOptions> {
    Ok(SweepOptions {
        rule: rule_flags(args)?,
        selection: args.members.clone(),
        move_leader: move_leader(args.move_leader, args.move_leader_above),
        member_timeout: member_timeout(args.timeout)?,
        wait_healthy: args.wait_healthy,
        gate: gate(&args.gate),
        compact: args.compact,
        recover_nospace: true,
        allow_probe_restart: args.allow_probe_restart,
    })
}

/// The rule flags, checked as the CRD's CEL rules check `spec.rule`.
fn rule_flags(args: &DefragArgs) -> Result<DefragRule> {
    DefragRule {
        all: args.all,
        free_space_above: args.free_space_above,
        quota_usage_above: args.quota_usage_above,
        min_reclaim: args.min_reclaim,
    }
    .validate()
    .map_err(Error::Usage)
}

/// The sweep options of one EtcdDefrag run processed by `--watch`: the
/// rule from its spec ([`rule_of`]), the leader handling and timeout from
/// the watcher's flags. The operator's controller neither compacts, waits
/// for health nor recovers NOSPACE, so neither does a run; it is gated by
/// `gate` (the watcher's: [`run_gate`] with its `--max-raft-lag`).
/// `allow_probe_restart` is the watcher's flag. A size in the spec that
/// does not parse is the error.
pub fn sweep_of_run(
    spec: Option<&DefragRuleSpec>,
    move_leader: MoveLeader,
    member_timeout: Duration,
    allow_probe_restart: bool,
    gate: GateOptions,
) -> std::result::Result<SweepOptions, String> {
    Ok(SweepOptions {
        rule: rule_of(spec)?,
        selection: Vec::new(),
        move_leader,
        member_timeout,
        wait_healthy: None,
        gate,
        compact: false,
        recover_nospace: false,
        allow_probe_restart,
    })
}

/// `spec.rule` as the engine's rule. Sizes convert like `Quantity.Value()`;
/// a `quotaUsageAbove` that does not parse as 1%..100% turns the quota arm
/// off, as in the operator. Combination rules are the CRD's CEL, already
/// enforced by the API server, so they are not checked again.
pub fn rule_of(spec: Option<&DefragRuleSpec>) -> std::result::Result<DefragRule, String> {
    let Some(spec) = spec else {
        return Ok(DefragRule::default());
    };
    let quantity = |field: &str, text: &Option<String>| {
        text.as_deref()
            .map(parse_bytes)
            .transpose()
            .map_err(|e| format!("spec.rule.{field}: {e}"))
    };
    Ok(DefragRule {
        all: spec.all.unwrap_or(false),
        free_space_above: quantity("freeSpaceAbove", &spec.free_space_above)?,
        quota_usage_above: spec
            .quota_usage_above
            .as_deref()
            .and_then(|p| parse_percent(p).ok()),
        min_reclaim: quantity("minReclaim", &spec.min_reclaim)?,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::cli::Command;

    fn defrag_of(line: &str) -> Result<Defrag> {
        let cli = crate::cli::parse(line.split_whitespace()).unwrap();
        let Command::Defrag(args) = &cli.command else {
            panic!("not defrag: {line}")
        };
        defrag(args)
    }

    fn usage_of(line: &str) -> String {
        match defrag_of(line) {
            Err(Error::Usage(text)) => text,
            other => panic!("{line}: not a usage error: {other:?}"),
        }
    }

    /// Issue 45: a spec the CRD accepts but no rule can be built from
    /// names the field and the value (the reconciler fails the run with it).
    #[test]
    fn a_rule_spec_that_cannot_be_read_names_its_field() {
        let spec = |free: Option<&str>, min: Option<&str>| DefragRuleSpec {
            free_space_above: free.map(str::to_string),
            min_reclaim: min.map(str::to_string),
            quota_usage_above: min.map(|_| "80%".to_string()),
            ..DefragRuleSpec::default()
        };
        for (s, field, value) in [
            (spec(Some("100Ei"), None), "freeSpaceAbove", "100Ei"),
            (spec(None, Some("1e400")), "minReclaim", "1e400"),
            (spec(Some("-1Mi"), None), "freeSpaceAbove", "-1Mi"),
        ] {
            let why = rule_of(Some(&s)).unwrap_err();
            assert!(
                why.starts_with(&format!("spec.rule.{field}: ")) && why.contains(value),
                "{why}"
            );
        }
        assert!(rule_of(Some(&spec(Some("200Mi"), Some("32Mi")))).is_ok());
        assert!(rule_of(None).is_ok());
    }

    #[test]
    fn each_defrag_mode_is_settled_from_its_flags() {
        assert!(
            matches!(defrag_of("k defrag c --all -y"), Ok(Defrag::One(OneCluster { cluster: Some(c), .. })) if c == "c")
        );
        let Ok(Defrag::Fleet(f)) = defrag_of("k defrag -A --all -y") else {
            panic!("fleet")
        };
        assert_eq!(
            (f.all_namespaces, f.selector, f.max_concurrent),
            (true, None, 2)
        );
        let Ok(Defrag::Fleet(f)) = defrag_of("k defrag -l tier=prod --all --max-concurrent 5")
        else {
            panic!("fleet")
        };
        assert_eq!(
            (f.selector.as_deref(), f.max_concurrent),
            (Some("tier=prod"), 5)
        );
        let Ok(Defrag::Watch(w)) = defrag_of("k defrag --watch --timeout 1m --move-leader never")
        else {
            panic!("watch")
        };
        assert_eq!(
            (w.member_timeout, w.move_leader),
            (Duration::from_secs(60), MoveLeader::Never)
        );
        // Issue 38: --max-raft-lag is honoured by every run a watcher
        // processes (it was accepted and ignored); the run's gate keeps
        // the operator's: health, not the quorum margin.
        assert_eq!(w.gate.max_raft_lag, GateOptions::default().max_raft_lag);
        let Ok(Defrag::Watch(w)) = defrag_of("k defrag --watch --max-raft-lag 10") else {
            panic!("watch")
        };
        assert_eq!(w.gate.max_raft_lag, 10);
        assert!(w.gate.allow_quorum_loss);
    }

    #[test]
    fn mistakes_are_usage_errors_naming_the_flag() {
        for (line, says) in [
            (
                "k defrag c --all --max-concurrent 3",
                "--max-concurrent is for fleet sweeps",
            ),
            (
                "k defrag --watch --max-concurrent 3",
                "--max-concurrent is for fleet sweeps",
            ),
            ("k defrag c --watch", "it takes no CLUSTER"),
            (
                "k defrag --watch --timeout 0s",
                "--timeout must be greater than 0",
            ),
            (
                "k defrag c --all --timeout 0s",
                "--timeout must be greater than 0",
            ),
            (
                "k defrag -A --all --timeout 0s",
                "--timeout must be greater than 0",
            ),
            (
                "k defrag --watch --lease-duration 500ms",
                "--lease-duration must be at least 1s",
            ),
            (
                "k defrag -A --all --member m1",
                "--member names members of one cluster",
            ),
            (
                "k defrag --watch --allow-quorum-loss",
                "--allow-quorum-loss has no effect with --watch",
            ),
        ] {
            assert!(usage_of(line).contains(says), "{line}: {}", usage_of(line));
        }
    }

    #[test]
    fn via_operator_takes_the_rule_and_refuses_what_the_operator_has_no_field_for() {
        let Ok(Defrag::ViaOperator(h)) =
            defrag_of("k defrag c --via-operator --quota-usage-above 80% --min-reclaim 1Mi -y")
        else {
            panic!("not a handover")
        };
        assert_eq!(h.cluster.as_deref(), Some("c"));
        assert_eq!(h.rule.quota_usage_above, Some(80));
        assert_eq!(h.rule.min_reclaim, Some(1 << 20));
        assert_eq!(h.ttl_seconds, 86_400);
        assert_eq!(h.claim_timeout, Duration::from_secs(60));
        let Ok(Defrag::ViaOperator(h)) =
            defrag_of("k defrag --via-operator --ttl-after-finished 0s")
        else {
            panic!("not a handover")
        };
        assert_eq!(h.ttl_seconds, 0);
        for (line, says) in [
            ("k defrag c --via-operator --move-leader never", "--move-leader cannot be used with --via-operator: the operator never moves leadership"),
            ("k defrag c --via-operator --move-leader-above 1s", "--move-leader-above cannot be used with --via-operator"),
            ("k defrag c --via-operator --compact", "--compact cannot be used with --via-operator: the operator never compacts"),
            ("k defrag c --via-operator --member m1", "--member cannot be used with --via-operator"),
            ("k defrag c --via-operator --timeout 5m", "--timeout cannot be used with --via-operator"),
            ("k defrag c --via-operator --wait-healthy 1m", "--wait-healthy cannot be used"),
            ("k defrag c --via-operator --allow-probe-restart", "--allow-probe-restart cannot be used"),
            ("k defrag c --via-operator --allow-quorum-loss", "--allow-quorum-loss cannot be used"),
            ("k defrag c --via-operator --max-raft-lag 5", "--max-raft-lag cannot be used"),
            ("k defrag c --via-operator --all --free-space-above 1Mi", "--all"),
            ("k defrag c --via-operator --min-reclaim 1Mi", "--min-reclaim"),
            ("k defrag c --via-operator --ttl-after-finished 1500ms", "whole seconds"),
            ("k defrag c --via-operator --ttl-after-finished 700000h", "at most 2147483647s"),
            ("k defrag c --via-operator --claim-timeout 10ms", "--claim-timeout must be at least 1s"),
        ] {
            assert!(usage_of(line).contains(says), "{line}: {}", usage_of(line));
        }
        // Each refusal ends with what to do instead.
        assert!(usage_of("k defrag c --via-operator --compact")
            .ends_with("drop --via-operator to have this tool sweep the cluster itself"));
        // Modes that cannot go together are clap's own errors (exit 2).
        for line in [
            "k defrag --via-operator --watch",
            "k defrag --via-operator -A",
            "k defrag --via-operator -l a=b",
            "k defrag c --ttl-after-finished 1h",
        ] {
            assert!(
                crate::cli::parse(line.split_whitespace()).is_err(),
                "{line}"
            );
        }
    }

    #[test]
    fn gates_for_flags_and_for_steps_that_take_no_member_out() {
        let args = GateArgs {
            allow_quorum_loss: false,
            max_raft_lag: 7,
        };
        assert_eq!(gate(&args).max_raft_lag, 7);
        let relaxed = gate_without_quorum_margin(gate(&args));
        assert!(relaxed.allow_quorum_loss);
        assert_eq!(relaxed.max_raft_lag, 7);
        let run = sweep_of_run(
            None,
            MoveLeader::Always,
            Duration::from_secs(300),
            false,
            run_gate(),
        )
        .unwrap();
        assert!(run.gate.allow_quorum_loss && !run.compact && !run.recover_nospace);
        assert_eq!(run.gate.max_raft_lag, GateOptions::default().max_raft_lag);
    }

    #[test]
    fn rule_from_spec() {
        let spec = |all, free: Option<&str>, pct: Option<&str>, min: Option<&str>| DefragRuleSpec {
            all,
            free_space_above: free.map(Into::into),
            quota_usage_above: pct.map(Into::into),
            min_reclaim: min.map(Into::into),
        };
        assert_eq!(rule_of(None), Ok(DefragRule::default()));
        assert_eq!(
            rule_of(Some(&spec(None, None, None, None))),
            Ok(DefragRule::default())
        );
        assert_eq!(
            rule_of(Some(&spec(Some(true), None, None, None))).unwrap(),
            DefragRule {
                all: true,
                ..Default::default()
            }
        );
        assert_eq!(
            rule_of(Some(&spec(None, Some("200Mi"), Some("80%"), Some("1000")))).unwrap(),
            DefragRule {
                all: false,
                free_space_above: Some(209_715_200),
                quota_usage_above: Some(80),
                min_reclaim: Some(1000),
            }
        );
        // 100% is legal under the oldest CRD; garbage turns the arm off.
        assert_eq!(
            rule_of(Some(&spec(None, None, Some("100%"), None)))
                .unwrap()
                .quota_usage_above,
            Some(100)
        );
        assert_eq!(
            rule_of(Some(&spec(None, None, Some("lots"), None)))
                .unwrap()
                .quota_usage_above,
            None
        );
        let err = rule_of(Some(&spec(None, Some("big"), None, None))).unwrap_err();
        assert!(err.starts_with("spec.rule.freeSpaceAbove"), "{err}");
    }
}

#[cfg(test)]
mod decided {
    use super::not_for_operator;

    /// A `defrag` flag added later must be decided for `--via-operator`:
    /// handed to the operator's EtcdDefrag (this list, read with
    /// `handover`), or refused by `not_for_operator`. Without the decision
    /// it would be accepted and silently not passed on.
    #[test]
    fn every_defrag_flag_is_handed_over_or_refused_with_via_operator() {
        use clap::CommandFactory;
        let cli = crate::cli::Cli::command();
        let Some(defrag) = cli.find_subcommand("defrag") else {
            panic!("no defrag subcommand");
        };
        // Read by `handover`, or meaning the same to the operator.
        let handed_over: &[&str] = &[
            "cluster",
            "all",
            "free_space_above",
            "quota_usage_above",
            "min_reclaim",
            "dry_run",
            "yes",
            "via_operator",
            "ttl_after_finished",
            "claim_timeout",
        ];
        // Refused with --via-operator by clap (conflicts) or by the
        // settings, tested below: the fleet's and the watcher's flags.
        let other_modes = ["watch", "all_namespaces", "selector", "max_concurrent"];
        let watch_only = super::WATCH_ONLY.iter().map(|(id, _)| *id);
        let mut undecided = Vec::new();
        for arg in defrag.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_global_set()
                || handed_over.contains(&id)
                || other_modes.contains(&id)
                || watch_only.clone().any(|w| w == id)
            {
                continue;
            }
            if not_for_operator(id).is_none() {
                undecided.push(id.to_string());
            }
        }
        assert!(undecided.is_empty(), "{undecided:?}");
    }

    /// The watcher's flags outside `--watch` are refused by name, also
    /// beside a flag that drops clap's `requires` (`--dry-run`,
    /// `--via-operator`); the fleet's flags never reach `--via-operator`.
    #[test]
    fn the_watchers_and_the_fleets_flags_are_refused_elsewhere() {
        for (line, named) in [
            (
                "defrag etcd --force-takeover --dry-run",
                "--force-takeover is for --watch",
            ),
            (
                "defrag etcd --via-operator --lease-duration 30s",
                "--lease-duration is for --watch",
            ),
            (
                "defrag etcd --via-operator --recheck-processors 1m --yes",
                "--recheck-processors is for --watch",
            ),
            (
                "defrag --all --dry-run --metrics-address 127.0.0.1:9090 etcd",
                "--metrics-address is for --watch",
            ),
            (
                "defrag etcd --via-operator --max-concurrent 2",
                "--max-concurrent",
            ),
            ("defrag -A --via-operator", "--via-operator"),
            ("defrag -l a=b --via-operator", "--via-operator"),
        ] {
            let words = std::iter::once("kubectl-etcd").chain(line.split_whitespace());
            let message = match crate::cli::parse(words) {
                Err(e) => e.to_string(),
                Ok(cli) => match &cli.command {
                    crate::cli::Command::Defrag(args) => match super::defrag(args) {
                        Err(e) => {
                            assert_eq!(e.exit_status(), crate::error::ExitStatus::Usage, "{line}");
                            e.to_string()
                        }
                        Ok(_) => panic!("{line}: accepted"),
                    },
                    _ => panic!("{line}: not defrag"),
                },
            };
            assert!(message.contains(named), "{line}: {message}");
        }
        // With --watch, the same flags are the watcher's.
        let words = "kubectl-etcd defrag --watch --force-takeover --lease-duration 30s";
        let Ok(cli) = crate::cli::parse(words.split_whitespace()) else {
            panic!("{words}: not parsed");
        };
        let crate::cli::Command::Defrag(args) = &cli.command else {
            panic!("not defrag");
        };
        assert!(matches!(super::defrag(args), Ok(super::Defrag::Watch(_))));
    }
}
