//! The leader's turn of the sweep: whether to hand leadership over, to
//! whom, and the handover itself (a child of `sweep`, so it reaches the
//! sweep's own state).

use std::collections::BTreeSet;

use tokio::time::Instant;

use super::super::events::RunEvent;
use super::super::{wait, Halt};
use super::{dial_of, Sweep};
use crate::etcd::EtcdOps;
use crate::look::ClusterLook;
use crate::plan::defrag::{choose_leader_handling, transfer_target, Plan, PlannedMember};
use crate::report::LeaderReport;

impl<O: EtcdOps> Sweep<'_, O> {
    /// The leader's turn: decides once whether to hand leadership over, and
    /// does it. Returns whether leadership moved; a stop that comes while
    /// waiting for the target to be ready ends the run before anything is
    /// sent.
    pub(super) async fn hand_over_leadership(
        &mut self,
        look: &ClusterLook,
        p: &Plan,
        next: &PlannedMember,
    ) -> Result<bool, Halt> {
        let choice = choose_leader_handling(self.opts.move_leader, next.in_use, &self.measured);
        self.observer
            .event(RunEvent::LeaderDecision {
                member: next.name.clone(),
                choice: choice.clone(),
            })
            .await;
        let mut report = LeaderReport {
            member: next.name.clone(),
            choice: choice.clone(),
            transferred_to: None,
            transfer_ms: None,
            transfer_error: None,
        };
        if choice.transfer {
            let pending: BTreeSet<String> = p
                .to_defrag()
                .filter(|m| m.name != next.name)
                .map(|m| m.name.clone())
                .collect();
            match (
                transfer_target(
                    look,
                    next.id,
                    &pending,
                    &self.defragmented_in_order(),
                    &self.measured.outliers(),
                ),
                dial_of(look, &next.name),
            ) {
                (Some((to_name, to_id)), Some(leader_dial)) => {
                    // Hand over only to a target that holds and has applied
                    // the leader's log: raft drops every proposal until the
                    // target has caught up, so a lagging one widens the
                    // window in which writes are lost. Not ready in time:
                    // hand over anyway (raft catches it up).
                    if let Some(to_dial) = dial_of(look, &to_name) {
                        if let Err(h) = wait::for_transfer_target(
                            self.ops,
                            &leader_dial,
                            &to_dial,
                            wait::TRANSFER_READY_LIMIT,
                            self.control,
                        )
                        .await
                        {
                            self.leader = Some(report);
                            return Err(h);
                        }
                    }
                    let t0 = Instant::now();
                    match self.ops.move_leader(&leader_dial, to_id).await {
                        Ok(()) => {
                            report.transferred_to = Some(to_name.clone());
                            report.transfer_ms = Some(super::super::millis(t0.elapsed()));
                            self.observer
                                .event(RunEvent::LeaderTransferred {
                                    from: next.name.clone(),
                                    to: to_name,
                                    took: t0.elapsed(),
                                })
                                .await;
                        }
                        Err(e) => {
                            report.transfer_error = Some(format!("{e}; defragmenting in place"));
                        }
                    }
                }
                _ => {
                    report.transfer_error = Some(
                        "no healthy, caught-up voter to take over; defragmenting in place".into(),
                    )
                }
            }
        }
        let moved = report.transferred_to.is_some();
        self.leader = Some(report);
        Ok(moved)
    }
}
