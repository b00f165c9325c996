//! `alarm list` and `alarm disarm`. Disarm clears NOSPACE per member and
//! only once that member is back under its quota; CORRUPT needs `--force`
//! and a typed confirmation (or `--confirm-corrupt MEMBER`).

use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::{after, RunControl};
use crate::look::AlarmKind;
use crate::output;
use crate::plan::alarm::disarm_decisions;
use crate::report::{AlarmAction, AlarmDisarmReport, AlarmListReport, AlarmResult, AlarmRow};
use crate::settings::command::{AlarmDisarm as AlarmDisarmArgs, OneCluster as AlarmListArgs};
use crate::settings::Global;

pub async fn list(global: &Global, args: &AlarmListArgs) -> Result<ExitStatus> {
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let look = crate::etcd::take::look(&session.clients, &session.target).await?;
    let report = AlarmListReport {
        cluster: session.target.cluster.clone(),
        alarms: AlarmRow::all(&look),
    };
    output::print(&report, global.output)?;
    Ok(ExitStatus::Success)
}

pub async fn disarm(global: &Global, args: &AlarmDisarmArgs) -> Result<ExitStatus> {
    output::prompt::require_consent(args.consent.yes, args.consent.dry_run, "disarm alarms")?;
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let look = crate::etcd::take::look(&session.clients, &session.target).await?;
    for name in &args.members {
        if !look.members.iter().any(|m| &m.name == name) {
            return Err(Error::usage(format!("--member {name}: no such member")));
        }
    }
    let decisions = disarm_decisions(
        &look,
        &args.members,
        args.force,
        session.target.cluster.as_ref(),
    );
    // CORRUPT (or unknown) alarms are cleared only with a typed confirmation.
    let dangerous: Vec<_> = decisions
        .iter()
        .filter(|d| d.disarm && d.raw.kind != AlarmKind::Nospace)
        .collect();
    if !args.consent.dry_run {
        for d in &dangerous {
            let confirmed = match &args.confirm_corrupt {
                Some(typed) => typed == &d.member,
                None if output::prompt::interactive() => {
                    output::prompt::typed_confirmation_async(
                        d.member.clone(),
                        format!(
                            "Clearing {} on {} hides possible data damage; etcd will accept writes again.",
                            d.alarm, d.member
                        ),
                    )
                    .await?
                }
                None => false,
            };
            if !confirmed {
                return Err(Error::usage(format!(
                    "not clearing {} on {}: it needs a typed confirmation (on a terminal, or --confirm-corrupt {})",
                    d.alarm, d.member, d.member
                )));
            }
        }
    }
    let mut signal = None;
    let actions = if args.consent.dry_run {
        decisions
            .iter()
            .map(|d| AlarmAction {
                member: d.member.clone(),
                member_id: d.member_id.clone(),
                alarm: d.alarm.clone(),
                result: if d.disarm {
                    AlarmResult::WouldDisarm
                } else {
                    AlarmResult::Kept
                },
                why: d.why.clone(),
            })
            .collect()
    } else {
        if !args.consent.yes && decisions.iter().any(|d| d.disarm) {
            let n = decisions.iter().filter(|d| d.disarm).count();
            if !output::prompt::confirm_async(format!("Disarm {n} alarm(s)?")).await? {
                return Err(Error::refused("not confirmed; nothing changed"));
            }
        }
        // A signal never cuts a disarm short: the disarms are made and
        // reported; a second signal stops waiting for them.
        let control = RunControl::default();
        let watch = SignalWatch::start(
            &control,
            Notices {
                first: "reporting once the alarms in flight are disarmed".into(),
                hint: Some("to stop waiting for them".into()),
                second: "no longer waiting; alarms may or may not have been disarmed: list the alarms to see".into(),
            },
            crate::logging::message,
        )?;
        let disarmed = signals::unless_abandoned(
            &control,
            after::disarm(
                &session.clients,
                &look,
                &args.members,
                args.force,
                session.target.cluster.as_ref(),
            ),
        )
        .await;
        signal = watch.finish();
        match disarmed {
            Some(actions) => actions,
            None => {
                return Ok(signals::exit_status(
                    signal,
                    ExitStatus::Failed,
                    ExitStatus::Interrupted,
                ))
            }
        }
    };
    let report = AlarmDisarmReport {
        cluster: session.target.cluster.clone(),
        dry_run: args.consent.dry_run,
        alarms: actions,
    };
    output::print(&report, global.output)?;
    let remaining: Vec<String> = report
        .alarms
        .iter()
        .filter(|a| matches!(a.result, AlarmResult::Kept | AlarmResult::Failed))
        .map(|a| format!("{} on {}: {}", a.alarm, a.member, a.why))
        .collect();
    let status = if remaining.is_empty() {
        ExitStatus::Success
    } else {
        super::unfinished(format!(
            "{} alarm(s) remain: {}",
            remaining.len(),
            remaining.join("; ")
        ))
    };
    Ok(signals::exit_status(
        signal,
        status,
        ExitStatus::Interrupted,
    ))
}
