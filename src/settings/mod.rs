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

pub mod usage;

use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::{DefragArgs, GateArgs, GlobalArgs, MoveLeaderArg};
use crate::error::{Error, Result};
use crate::exec::SweepOptions;
use crate::output::OutputFormat;
use crate::plan::defrag::MoveLeader;
use crate::plan::gate::GateOptions;
use crate::plan::rule::DefragRule;
use crate::reach::flags::Flags;

/// What every command takes from the global flags.
#[derive(Debug, Clone)]
pub struct Global {
    /// How to reach the cluster (standalone flags, kubeconfig, `--connect`).
    pub reach: Flags,
    /// How results are written to stdout.
    pub output: OutputFormat,
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
                context: args.context.clone(),
                namespace: args.namespace.clone(),
                as_user: args.as_user.clone(),
                as_group: args.as_group.clone(),
                connect: args.connect,
                from_env: args.from_env.clone(),
            },
            output: args.output,
        }
    }
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
}

/// Consent flags every mode that changes something shares.
#[derive(Debug, Clone, Copy)]
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
    pub lease_duration: Duration,
    pub metrics_address: Option<SocketAddr>,
}

/// Settles `defrag`'s flags into one mode, checking what clap cannot:
/// the order of the checks is the order of the messages a user sees.
pub fn defrag(args: &DefragArgs) -> Result<Defrag> {
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
        return Ok(Defrag::Watch(Watch {
            move_leader: move_leader(args.move_leader, args.move_leader_above),
            member_timeout,
            all_namespaces: args.all_namespaces,
            force_takeover: args.force_takeover,
            lease_duration: args.lease_duration,
            metrics_address: args.metrics_address,
        }));
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
    let rule = DefragRule {
        all: args.all,
        free_space_above: args.free_space_above,
        quota_usage_above: args.quota_usage_above,
        min_reclaim: args.min_reclaim,
    }
    .validate()
    .map_err(Error::Usage)?;
    Ok(SweepOptions {
        rule,
        selection: args.members.clone(),
        move_leader: move_leader(args.move_leader, args.move_leader_above),
        member_timeout: member_timeout(args.timeout)?,
        wait_healthy: args.wait_healthy,
        gate: gate(&args.gate),
        compact: args.compact,
        recover_nospace: true,
    })
}

/// The sweep options of one EtcdDefrag run processed by `--watch`: the
/// rule from its spec, the leader handling and timeout from the watcher's
/// flags. The operator's controller neither compacts, waits for health nor
/// recovers NOSPACE, so neither does a run; it is gated by [`run_gate`].
pub fn sweep_of_run(
    rule: DefragRule,
    move_leader: MoveLeader,
    member_timeout: Duration,
) -> SweepOptions {
    SweepOptions {
        rule,
        selection: Vec::new(),
        move_leader,
        member_timeout,
        wait_healthy: None,
        gate: run_gate(),
        compact: false,
        recover_nospace: false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn defrag_of(line: &str) -> Result<Defrag> {
        let cli = Cli::try_parse_from(line.split_whitespace()).unwrap();
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
        ] {
            assert!(usage_of(line).contains(says), "{line}: {}", usage_of(line));
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
            DefragRule::default(),
            MoveLeader::Always,
            Duration::from_secs(300),
        );
        assert!(run.gate.allow_quorum_loss && !run.compact && !run.recover_nospace);
        assert_eq!(run.gate.max_raft_lag, GateOptions::default().max_raft_lag);
    }
}
