//! `move-leader`: hand leadership to another voter, through the current
//! leader, after the health gate passes (a `change::Change`).

use super::change::{self, Acted, Change, Decided};
use crate::error::{Error, ExitStatus, Result};
use crate::etcd::EtcdOps;
use crate::exec::signals::{self, Notices};
use crate::exec::{wait, RunControl};
use crate::plan::defrag::transfer_target;
use crate::plan::gate::{self};
use crate::plan::membership::{self, Named};
use crate::reach::Dial;
use crate::report::MoveLeaderReport;
use crate::session::Session;
use crate::settings::command::MoveLeader as MoveLeaderArgs;
use crate::settings::{Consent, Global};

pub async fn run(global: &Global, args: &MoveLeaderArgs) -> Result<ExitStatus> {
    change::run(global, MoveLeader { args }).await
}

struct MoveLeader<'a> {
    args: &'a MoveLeaderArgs,
}

/// The transfer decided on, over the session it was decided on.
struct Transfer {
    session: Session,
    from: String,
    leader: Dial,
    to: String,
    to_id: u64,
    /// The target's own address, to wait until it has applied the log.
    to_dial: Option<Dial>,
}

impl Change for MoveLeader<'_> {
    type Plan = Transfer;
    type Report = MoveLeaderReport;

    fn verb(&self) -> &'static str {
        "move leadership"
    }

    fn consent(&self) -> Consent {
        self.args.consent
    }

    async fn decide(&self, global: &Global) -> Result<Decided<Transfer, MoveLeaderReport>> {
        let args = self.args;
        let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
        let look = crate::etcd::take::look(&session.clients, &session.target).await?;
        let verdict = gate::evaluate(&look, &args.gate);
        super::gate_passes(&verdict)?;
        let leader_id = verdict
            .leader
            .ok_or_else(|| Error::refused("the members agree on no leader"))?;
        let leader = look
            .member_by_id(leader_id)
            .ok_or_else(|| Error::refused("the leader is not in the member list"))?;
        let (to, to_id) = match &args.to {
            Some(name) => match named_target(&look, name, leader_id)? {
                Some(target) => target,
                // Already true: nothing to move, and not an error.
                None => {
                    return Ok(Decided::Nothing(MoveLeaderReport {
                        cluster: session.target.cluster.clone(),
                        dry_run: args.consent.dry_run,
                        from: leader.name.clone(),
                        to: leader.name.clone(),
                        leader_after: Some(leader.name.clone()),
                    }))
                }
            },
            None => transfer_target(
                &look,
                leader_id,
                &Default::default(),
                &[],
                &Default::default(),
            )
            .ok_or_else(|| {
                Error::refused(
                    "no healthy, caught-up voter to hand leadership to (see kubectl etcd status)",
                )
            })?,
        };
        let report = MoveLeaderReport {
            cluster: session.target.cluster.clone(),
            dry_run: args.consent.dry_run,
            from: leader.name.clone(),
            to: to.clone(),
            leader_after: None,
        };
        let leader_dial = leader
            .dial
            .clone()
            .ok_or_else(|| Error::refused("the leader has no client URL to dial"))?;
        let to_dial = look
            .members
            .iter()
            .find(|m| m.name == to)
            .and_then(|m| m.dial.clone());
        let plan = Transfer {
            session,
            from: leader.name.clone(),
            leader: leader_dial,
            to,
            to_id,
            to_dial,
        };
        Ok(Decided::Act { plan, report })
    }

    async fn confirm(&self, plan: &Transfer) -> Result<bool> {
        crate::output::prompt::confirm_async(format!(
            "Move leadership from {} to {}?",
            plan.from, plan.to
        ))
        .await
    }

    // A signal never kills the process mid-transfer: during the wait for
    // the target it moves nothing; once the transfer is sent, it is
    // finished and reported.
    fn notices(&self) -> Notices {
        Notices {
            first: "stopping before leadership is moved, or once a transfer already sent is done"
                .into(),
            hint: Some("to stop waiting for the transfer".into()),
            second: "no longer waiting; leadership may or may not have moved".into(),
        }
    }

    fn untouched(&self, plan: &Transfer) -> String {
        format!("leadership stays with {}; nothing changed", plan.from)
    }

    async fn act(
        &self,
        plan: Transfer,
        report: &mut MoveLeaderReport,
        control: &RunControl,
    ) -> Result<Acted> {
        let session = &plan.session;
        let ops = &session.clients;
        // As in a sweep: hand over once the target holds and has applied
        // the leader's log (up to 5 s, then anyway), since the leader drops
        // every proposal until the target takes over.
        if let Some(to_dial) = &plan.to_dial {
            // Not ready in time: hand over anyway; stopped: checked below.
            let _ = wait::for_transfer_target(
                ops,
                &plan.leader,
                to_dial,
                wait::TRANSFER_READY_LIMIT,
                control,
            )
            .await;
        }
        if control.halted().is_some() {
            return Ok(Acted::StoppedBefore(self.untouched(&plan)));
        }
        let Some(moved) =
            signals::unless_abandoned(control, ops.move_leader(&plan.leader, plan.to_id)).await
        else {
            return Ok(Acted::Abandoned);
        };
        moved.map_err(|e| Error::etcd(format!("move leadership to {}", plan.to), e))?;
        let after = crate::etcd::take::look(ops, &session.target).await?;
        let v = gate::evaluate(&after, &self.args.gate);
        report.leader_after = v.leader.map(|id| after.name_of(id));
        Ok(Acted::Done)
    }
}

/// `--to NAME`: a voter other than the leader, named or by its id;
/// `None` when it is the leader already.
fn named_target(
    look: &crate::look::ClusterLook,
    name: &str,
    leader_id: u64,
) -> Result<Option<(String, u64)>> {
    let m = match membership::find_member(look, name) {
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
                membership::describe_members(look)
            )))
        }
    };
    if m.is_learner() {
        return Err(Error::usage(format!(
            "--to {name}: a learner cannot become leader; pick a voter"
        )));
    }
    if m.id == Some(leader_id) {
        return Ok(None);
    }
    Ok(Some((m.name.clone(), m.id.unwrap_or(0))))
}
