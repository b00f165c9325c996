//! `move-leader`: hand leadership to another voter, through the current
//! leader, after the health gate passes.

use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdOps;
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::{wait, RunControl};
use crate::output;
use crate::plan::defrag::transfer_target;
use crate::plan::gate::{self};
use crate::plan::membership::{self, Named};
use crate::report::MoveLeaderReport;
use crate::settings::command::MoveLeader as MoveLeaderArgs;
use crate::settings::Global;

pub async fn run(global: &Global, args: &MoveLeaderArgs) -> Result<ExitStatus> {
    output::prompt::require_consent(args.consent.yes, args.consent.dry_run, "move leadership")?;
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let look = crate::etcd::take::look(ops, target).await?;
    let verdict = gate::evaluate(&look, &args.gate);
    super::gate_passes(&verdict)?;
    let leader_id = verdict
        .leader
        .ok_or_else(|| Error::Refused("the members agree on no leader".into()))?;
    let leader = look
        .member_by_id(leader_id)
        .ok_or_else(|| Error::Refused("the leader is not in the member list".into()))?;
    let (to_name, to_id) = match &args.to {
        Some(name) => {
            let m = match membership::find_member(&look, name) {
                Named::One(i) => &look.members[i],
                Named::Ambiguous(found) => {
                    let both: Vec<String> = found
                        .iter()
                        .map(|&i| look.members[i].name.clone())
                        .collect();
                    return Err(Error::usage(format!(
                        "--to {name}: reads as the id of more than one member ({}); give the name",
                        both.join(", ")
                    )));
                }
                Named::None => {
                    return Err(Error::usage(format!(
                        "--to {name}: no such member (members: {})",
                        membership::describe_members(&look)
                    )))
                }
            };
            if m.is_learner() {
                return Err(Error::usage(format!(
                    "--to {name}: a learner cannot become leader; pick a voter"
                )));
            }
            if m.id == Some(leader_id) {
                return Err(Error::usage(format!("--to {name}: already the leader")));
            }
            (m.name.clone(), m.id.unwrap_or(0))
        }
        None => transfer_target(
            &look,
            leader_id,
            &Default::default(),
            &[],
            &Default::default(),
        )
        .ok_or_else(|| {
            Error::Refused(
                "no healthy, caught-up voter to hand leadership to (see kubectl etcd status)"
                    .into(),
            )
        })?,
    };
    let mut report = MoveLeaderReport {
        cluster: target.cluster.clone(),
        dry_run: args.consent.dry_run,
        from: leader.name.clone(),
        to: to_name.clone(),
        leader_after: None,
    };
    let mut signal = None;
    if !args.consent.dry_run {
        if !args.consent.yes
            && !output::prompt::confirm_async(format!(
                "Move leadership from {} to {to_name}?",
                leader.name
            ))
            .await?
        {
            return Err(Error::refused("not confirmed; nothing changed"));
        }
        let dial = leader
            .dial
            .clone()
            .ok_or_else(|| Error::Refused("the leader has no client URL to dial".into()))?;
        // From here a signal never kills the process mid-transfer: during
        // the wait for the target it moves nothing; once the transfer is
        // sent, it is finished and reported.
        let control = RunControl::default();
        let watch = SignalWatch::start(
            &control,
            Notices {
                first:
                    "stopping before leadership is moved, or once a transfer already sent is done"
                        .into(),
                hint: Some("to stop waiting for the transfer".into()),
                second: "no longer waiting; leadership may or may not have moved".into(),
            },
            crate::logging::message,
        )?;
        // As in a sweep: hand over once the target holds and has applied
        // the leader's log (up to 5 s, then anyway), since the leader drops
        // every proposal until the target takes over.
        if let Some(to_dial) = look
            .members
            .iter()
            .find(|m| m.name == to_name)
            .and_then(|m| m.dial.clone())
        {
            // Not ready in time: hand over anyway; stopped: checked below.
            let _ = wait::for_transfer_target(
                ops,
                &dial,
                &to_dial,
                wait::TRANSFER_READY_LIMIT,
                &control,
            )
            .await;
        }
        if control.halted().is_some() {
            crate::logging::message(&format!(
                "leadership stays with {}; nothing changed",
                leader.name
            ));
            return Ok(signals::exit_status(
                watch.finish(),
                ExitStatus::Failed,
                ExitStatus::Interrupted,
            ));
        }
        let moved = signals::unless_abandoned(&control, ops.move_leader(&dial, to_id)).await;
        let Some(moved) = moved else {
            return Ok(signals::exit_status(
                watch.finish(),
                ExitStatus::Failed,
                ExitStatus::Interrupted,
            ));
        };
        signal = watch.finish();
        moved.map_err(|e| Error::etcd(format!("move leadership to {to_name}"), e))?;
        let after = crate::etcd::take::look(ops, target).await?;
        let v = gate::evaluate(&after, &args.gate);
        report.leader_after = v.leader.map(|id| after.name_of(id));
    }
    output::print(&report, global.output)?;
    Ok(signals::exit_status(
        signal,
        ExitStatus::Success,
        ExitStatus::Interrupted,
    ))
}
