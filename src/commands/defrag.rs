//! `defrag`: validate → resolve → snapshot → gate → plan → (dry run |
//! confirm → execute) → disarm NOSPACE → HashKV check → report.

use std::time::Instant;

use serde::Serialize;

use crate::cli::{DefragArgs, GlobalArgs, MoveLeaderArg, OutputFormat};
use crate::error::{Error, ExitStatus, Result};
use crate::exec::post::{self, AlarmAction, HashCheck};
use crate::exec::{self, StopFlag, SweepOptions, SweepOutcome};
use crate::output;
use crate::plan::defrag::MoveLeader;
use crate::plan::gate::{self, GateOptions};
use crate::plan::rule::DefragRule;
use crate::report::ClusterRef;
use crate::snapshot;

/// The `defrag` result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DefragReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterRef>,
    pub dry_run: bool,
    pub rule: DefragRule,
    #[serde(flatten)]
    pub sweep: SweepOutcome,
    pub alarms: Vec<AlarmAction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_check: Option<HashCheck>,
}

/// Turns the flags into a validated rule and sweep options (pure; exit 2 on
/// any mistake, before anything is contacted).
pub fn options(args: &DefragArgs) -> Result<SweepOptions> {
    let rule = DefragRule {
        all: args.all,
        free_space_above: args.free_space_above,
        quota_usage_above: args.quota_usage_above,
        min_reclaim: args.min_reclaim,
    }
    .validate()
    .map_err(Error::Usage)?;
    if args.timeout.is_zero() {
        return Err(Error::usage("--timeout must be greater than 0"));
    }
    let move_leader = match args.move_leader {
        MoveLeaderArg::Auto => MoveLeader::Auto {
            above: args.move_leader_above,
        },
        MoveLeaderArg::Always => MoveLeader::Always,
        MoveLeaderArg::Never => MoveLeader::Never,
    };
    Ok(SweepOptions {
        rule,
        selection: args.members.clone(),
        move_leader,
        member_timeout: args.timeout,
        wait_healthy: args.wait_healthy,
        gate: GateOptions::from(&args.gate),
        compact: args.compact,
    })
}

pub async fn run(global: &GlobalArgs, args: &DefragArgs) -> Result<ExitStatus> {
    let opts = options(args)?;
    output::prompt::require_consent(args.yes, args.dry_run, "defragment")?;
    let session = super::open(global, args.cluster.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);

    // First look: unknown --member names are a usage error.
    let first = exec::Fresh::new(snapshot::take(ops, target).await?);
    let snap = &first.snapshot;
    let seeded = snapshot::with_members_as_seeds(target, snap);
    let target = &seeded;
    for name in &opts.selection {
        if !snap.members.iter().any(|m| &m.name == name) {
            let mut known: Vec<&str> = snap.members.iter().map(|m| m.name.as_str()).collect();
            known.sort();
            return Err(Error::usage(format!(
                "--member {name}: no such member (members: {})",
                known.join(", ")
            )));
        }
    }
    let verdict = gate::evaluate(snap, &opts.gate);
    let preview = exec::dry_run(snap, &verdict, &opts);
    if args.dry_run {
        let report = DefragReport {
            cluster: target.cluster.clone(),
            dry_run: true,
            rule: opts.rule,
            sweep: preview,
            alarms: Vec::new(),
            hash_check: None,
        };
        render(global, &report)?;
        return Ok(if verdict.passed() {
            ExitStatus::Success
        } else {
            ExitStatus::Failed
        });
    }
    let planned = preview
        .members
        .iter()
        .filter(|m| m.outcome == exec::Outcome::Pending)
        .count();
    if !args.yes {
        crate::logging::message(&format!(
            "plan: {}",
            preview
                .members
                .iter()
                .filter(|m| m.outcome == exec::Outcome::Pending)
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(" → ")
        ));
        let question = format!("Defragment {planned} member(s), one at a time?");
        if !output::prompt::confirm(false, &question)? {
            crate::logging::message("nothing changed");
            return Ok(ExitStatus::Failed);
        }
    }

    let stop = StopFlag::default();
    // Register for SIGINT before the sweep starts, so that an early Ctrl-C is
    // never the default "kill the process mid-defrag".
    let mut interrupts = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| Error::Etcd(format!("cannot watch for Ctrl-C: {e}")))?;
    let watcher = {
        let stop = stop.clone();
        tokio::spawn(async move {
            if interrupts.recv().await.is_some() {
                stop.request();
                crate::logging::message(
                    "interrupted: stopping after the member being defragmented answers again (Ctrl-C again to quit now)",
                );
                if interrupts.recv().await.is_some() {
                    std::process::exit(130);
                }
            }
        })
    };
    let started = Instant::now();
    let sink = crate::output::progress::sink(global.output);
    let sweep = exec::sweep(ops, target, &opts, sink.as_ref(), &stop, Some(first)).await;
    watcher.abort();
    let mut sweep = sweep?;
    tracing::debug!("sweep took {:?}", started.elapsed());

    // After the sweep: NOSPACE on members back under quota, and agreement,
    // from the sweep's last snapshot while it is fresh.
    let after = match exec::Fresh::take(&mut sweep.final_view) {
        Some(snap) => Ok(snap),
        None => snapshot::take(ops, target).await,
    };
    let (alarms, hash_check) = match after {
        Ok(after) => {
            let alarms = post::disarm(ops, &after, &[], false).await;
            (alarms, post::hash_check(ops, &after).await)
        }
        Err(e) => {
            crate::logging::message(&format!(
                "could not check alarms and hashes after the sweep: {e}"
            ));
            (Vec::new(), None)
        }
    };
    let ok = sweep.succeeded()
        && alarms.iter().all(|a| a.result == "disarmed")
        && hash_check.as_ref().is_none_or(|h| h.agree);
    let report = DefragReport {
        cluster: target.cluster.clone(),
        dry_run: false,
        rule: opts.rule,
        sweep,
        alarms,
        hash_check,
    };
    render(global, &report)?;
    if let Some(why) = &report.sweep.stopped {
        crate::logging::message(&format!("stopped: {why}"));
    }
    Ok(if ok {
        ExitStatus::Success
    } else {
        ExitStatus::Failed
    })
}

fn render(global: &GlobalArgs, report: &DefragReport) -> Result<()> {
    let text = match global.output {
        OutputFormat::Table | OutputFormat::Wide => output::table::defrag(report),
        format => output::render_data(report, format)?,
    };
    output::emit(&text)
}
