//! The sweep, as named steps: pass the gate, hand over leadership, defragment
//! one member, wait for its return. `Sweep::run` strings them together; each
//! step is small enough to read on one screen.

mod beside;
mod handover;

use std::collections::BTreeSet;
use std::time::Duration;

use tokio::time::Instant;

use super::events::{Observer, RunEvent};
use super::wait::{self, Compaction, NotBack};
use super::{Fresh, Halt, RunControl, RunInput, SweepOptions, MEMBER_RETURN_LIMIT};
use crate::etcd::EtcdOps;
use crate::look::{self, ClusterLook};
use crate::plan::defrag::{Measured, MemberDecision, Plan, PlannedMember, Role};
use crate::plan::gate::{self, GateVerdict, ReasonView};
use crate::plan::moment;
use crate::reach::{Dial, Target};
use crate::report::{LeaderReport, MemberReason, MemberResult, NotRefreshed, Outcome, StopReason};

/// What the sweep leaves for the checks after it and the report.
pub(super) struct SweepOutcome {
    pub members: Vec<MemberResult>,
    pub leader: Option<LeaderReport>,
    pub stopped: Option<StopReason>,
    pub refusal: Vec<ReasonView>,
    pub compacted_at: Option<i64>,
    pub already_compacted: bool,
    pub in_use_not_refreshed: Option<NotRefreshed>,
    pub wall: Duration,
    pub defrag_total: Duration,
    /// The snapshot the sweep ended on, and the target with every member
    /// as a seed.
    pub final_view: Option<Fresh>,
    pub target: Target,
}

/// The result of passing the gate.
enum Gated {
    Pass(Fresh, GateVerdict),
    Stop(StopReason),
}

pub(super) struct Sweep<'a, O> {
    ops: &'a O,
    target: Target,
    opts: &'a SweepOptions,
    observer: &'a dyn Observer,
    control: &'a RunControl,
    started: Instant,
    carried: Option<Fresh>,
    done: BTreeSet<String>,
    results: Vec<MemberResult>,
    measured: Measured,
    leader: Option<LeaderReport>,
    /// The members the first plan meant to defragment: one that disappears
    /// from the cluster is reported as gone, not silently dropped.
    first_planned: Vec<PlannedMember>,
    last_plan: Plan,
    announced: bool,
    stopped: Option<StopReason>,
    refusal: Vec<ReasonView>,
    compacted_at: Option<i64>,
    already_compacted: bool,
    in_use_not_refreshed: Option<NotRefreshed>,
    defrag_total: Duration,
    final_view: Option<Fresh>,
    /// The caller's first look: the members to report if no gate ever
    /// passed (a run refused at its first step still lists them).
    first_view: ClusterLook,
    /// Steps in a row whose member no longer saw what the look showed.
    changed_in_a_row: u32,
    /// Steps in a row whose look had aged past `ACT_WITHIN` by the step.
    aged_in_a_row: u32,
    /// `RunInput::interrupted`.
    interrupted: Option<crate::plan::defrag::InterruptedDefrag>,
    /// `RunInput::others`.
    others: Option<std::sync::Arc<dyn super::Others>>,
    /// `RunInput::rooms`.
    rooms: Option<std::sync::Arc<dyn super::RoomReader>>,
}

/// Looks taken again at once, within one gate, when the look was not one
/// moment (`moment::one_moment`), before that refuses.
const MAX_RELOOKS: u32 = 5;

/// Steps in a row given up because the member had changed since the look
/// (`moment::still_as_looked`), before the run stops: leadership that keeps
/// moving is no time for maintenance.
const MAX_CHANGED_IN_A_ROW: u32 = 3;

/// The pause before looking again: a heartbeat (100 ms) carries a new
/// term to every member.
const RELOOK_PAUSE: Duration = Duration::from_millis(200);

impl<'a, O: EtcdOps> Sweep<'a, O> {
    pub(super) fn new(
        ops: &'a O,
        target: Target,
        input: &'a RunInput,
        observer: &'a dyn Observer,
        control: &'a RunControl,
        first: Fresh,
    ) -> Self {
        let mut measured = Measured::default();
        for m in &input.finished {
            if let (Outcome::Defragmented, Role::Follower, Some(ms)) =
                (m.outcome, m.role, m.duration_ms)
            {
                measured.add(&m.name, m.db_size_in_use, Duration::from_millis(ms));
            }
        }
        Sweep {
            ops,
            target,
            opts: &input.options,
            observer,
            control,
            started: Instant::now(),
            done: input.finished.iter().map(|m| m.name.clone()).collect(),
            results: input.finished.clone(),
            measured,
            leader: None,
            first_planned: Vec::new(),
            last_plan: Plan::default(),
            announced: false,
            stopped: None,
            refusal: Vec::new(),
            compacted_at: None,
            already_compacted: false,
            in_use_not_refreshed: None,
            defrag_total: Duration::ZERO,
            final_view: None,
            first_view: first.look.clone(),
            carried: Some(first),
            changed_in_a_row: 0,
            aged_in_a_row: 0,
            interrupted: input.interrupted.clone(),
            others: input.others.clone(),
            rooms: input.rooms.clone(),
        }
    }

    /// Compacts when asked, then takes one member per step until the plan is
    /// empty or something stops the run.
    pub(super) async fn run(&mut self) {
        if self.opts.compact {
            if let Err(reason) = self.compact().await {
                return self.stop(reason).await;
            }
        }
        loop {
            if let Some(h) = self.control.halted() {
                return self.stop(h.reason(None)).await;
            }
            // Done is done: once every member the plans meant to
            // defragment is finished, the run is complete whatever the
            // cluster looks like now (that is the checks' after the sweep
            // to report), so no gate is asked just to learn nothing is left.
            if self.nothing_left() {
                self.final_view = self.carried.take();
                return;
            }
            let (fresh, verdict) = match self.pass_gate().await {
                Gated::Pass(f, v) => (f, v),
                Gated::Stop(reason) => return self.stop(reason).await,
            };
            let look = &fresh.look;
            // Taking the snapshot can take seconds: a stop or a deadline
            // that came meanwhile wins over the step it would start.
            if let Some(h) = self.control.halted() {
                return self.stop(h.reason(None)).await;
            }
            let p = super::plan_for(
                look,
                verdict.leader,
                self.opts,
                &self.done,
                &self.measured,
                self.interrupted.as_ref(),
            );
            if !self.announced {
                self.announce(&p).await;
            }
            self.last_plan = p.clone();
            self.skip_held_back(&p).await;
            if let Some(gone) = self.gone_member(look) {
                self.finish_member(gone).await;
                self.carried = Some(fresh);
                continue;
            }
            let Some(next) = p.next().cloned() else {
                self.final_view = Some(fresh);
                return;
            };
            // The look may be older than the step: ask the member itself,
            // right before touching it, whether it still sees the leader
            // and term the plan was made on.
            match self.still_as_looked(look, &verdict, &next).await {
                Ok(()) => self.changed_in_a_row = 0,
                Err(reason) => match self.give_up_step(reason).await {
                    Ok(()) => continue,
                    Err(stop) => return self.stop(stop).await,
                },
            }
            if next.role == Role::Leader && self.leader.is_none() {
                match self.hand_over_leadership(look, &p, &next).await {
                    // Re-snapshot: the old leader is now a follower.
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(h) => return self.stop(h.reason(None)).await,
                }
            }
            // The gate passed on the look's answers, not on the cluster
            // now: a look that came back late, or steps that took long
            // since (the member's own check, a handover that fell back to
            // in-place), may hide a member that stopped after it
            // answered. Older than ACT_WITHIN, it is taken again.
            if fresh.age() > super::ACT_WITHIN {
                let reason = gate::GateReason::LookAged {
                    age: fresh.age(),
                    bound: super::ACT_WITHIN,
                };
                self.aged_in_a_row += 1;
                if self.aged_in_a_row > MAX_RELOOKS {
                    return self
                        .stop(StopReason::GateRefused {
                            reasons: vec![reason],
                        })
                        .await;
                }
                tracing::info!("looking again: {reason}");
                continue;
            }
            self.aged_in_a_row = 0;
            if let Err(reason) = self.defragment(look, &next).await {
                return self.stop(reason).await;
            }
        }
    }

    /// Keeps the first plan's members to defragment as the ones the run
    /// means to do (`first_planned`), and tells the observer the order and
    /// every member's line as planned. Only the first plan is announced:
    /// a later plan is kept as `last_plan`, and its members' lines reach
    /// the observer as each one finishes.
    async fn announce(&mut self, p: &Plan) {
        self.announced = true;
        self.first_planned = p.to_defrag().cloned().collect();
        let order = p.to_defrag().map(|m| m.name.clone()).collect();
        let members = p.members.iter().map(planned_line).collect();
        self.observer
            .event(RunEvent::Planned { order, members })
            .await;
    }

    /// Finishes, as skipped for their probe (`ProbeBudget`) or their disk
    /// (`NoDiskRoom`), the members the plan holds back that are not done
    /// yet. A member held back stays held back for the run: a faster rate
    /// measured on other members' disks does not free it, while a slower
    /// one can still hold back a member the first plan let through.
    async fn skip_held_back(&mut self, p: &Plan) {
        let held: Vec<PlannedMember> = p.held_back(&self.done).cloned().collect();
        for m in held {
            let reason = match m.decision {
                MemberDecision::Skip(r) => MemberReason::from(r),
                MemberDecision::Defrag(_) => MemberReason::ProbeBudget,
            };
            let result = MemberResult::planned(&m, Outcome::Skipped, Some(reason));
            self.finish_member(result).await;
        }
    }

    /// Gives up a step whose member no longer saw what the look showed
    /// (`reason`): `Ok` once the refusal is told and the pause before
    /// looking again is over, so the step is planned again on a new look;
    /// the reason to stop instead when that happened more than
    /// `MAX_CHANGED_IN_A_ROW` steps in a row, or a stop came during the
    /// pause.
    async fn give_up_step(&mut self, reason: gate::GateReason) -> Result<(), StopReason> {
        self.changed_in_a_row += 1;
        if self.changed_in_a_row > MAX_CHANGED_IN_A_ROW {
            return Err(StopReason::GateRefused {
                reasons: vec![reason],
            });
        }
        self.observer
            .event(RunEvent::GateRefused {
                reasons: vec![reason],
                retry_in: Some(RELOOK_PAUSE),
            })
            .await;
        self.control
            .sleep(RELOOK_PAUSE)
            .await
            .map_err(|h| h.reason(None))
    }

    /// `--compact`: compact behind a passing gate and let sizes settle.
    async fn compact(&mut self) -> Result<(), StopReason> {
        let look = match self.pass_gate().await {
            Gated::Pass(fresh, _) => fresh.look,
            Gated::Stop(StopReason::GateRefused { reasons }) => {
                return Err(StopReason::GateRefusedBeforeCompaction { reasons })
            }
            Gated::Stop(other) => return Err(other),
        };
        match wait::compact_and_settle(self.ops, &look, self.observer, self.control).await {
            Compaction::Done {
                revision,
                already,
                not_refreshed,
            } => {
                self.compacted_at = Some(revision);
                self.already_compacted = already;
                if let Some(why) = not_refreshed {
                    // Which figures did not move: those are not known.
                    // The look is kept for the first step's gate.
                    let after =
                        Fresh::look_with_rooms(self.ops, &self.target, self.rooms.as_deref())
                            .await
                            .map_err(|e| StopReason::CompactionFailed {
                                detail: format!("no look at the members after the compaction: {e}"),
                            })?;
                    let members = crate::plan::compact::not_refreshed(&look, &after.look);
                    if !members.is_empty() {
                        self.in_use_not_refreshed = Some(NotRefreshed { members, why });
                    }
                    self.carried = Some(after);
                }
                Ok(())
            }
            Compaction::NothingToCompact => Ok(()),
            Compaction::Failed(detail) => Err(StopReason::CompactionFailed { detail }),
            Compaction::Halted(h) => Err(h.reason(None)),
        }
    }

    /// Takes a snapshot (or uses the one carried from the last step, while
    /// fresh) and runs the gate; with `--wait-healthy`, retries a refusing
    /// gate, or a cluster that does not answer, with backoff (0.5 s doubling
    /// to 5 s) until it passes or the time is up.
    async fn pass_gate(&mut self) -> Gated {
        let started = Instant::now();
        let mut backoff = Duration::from_millis(500);
        let mut relooks = 0;
        loop {
            let taken = match Fresh::take(&mut self.carried) {
                Some(fresh) => Ok(fresh),
                // A look only reads: a stop (SIGTERM while --wait-healthy
                // waits on a member that does not answer) ends it at once
                // rather than after its timeouts.
                None => {
                    let look =
                        Fresh::look_with_rooms(self.ops, &self.target, self.rooms.as_deref());
                    tokio::select! {
                        taken = look => taken,
                        h = self.control.halt() => return Gated::Stop(h.reason(None)),
                    }
                }
            };
            let refused = match taken {
                Ok(fresh) => {
                    let look = &fresh.look;
                    let mut verdict = gate::evaluate(look, &self.opts.gate);
                    // A step acts on the look as one moment: answers far
                    // apart, or from different raft terms, may straddle an
                    // election, and then neither its agreement on a leader
                    // nor its disagreement is true of any moment. Look
                    // again at once, a few times, before that refuses.
                    let moment = moment::one_moment(look, moment::ONE_MOMENT);
                    if !moment.is_empty() && relooks < MAX_RELOOKS {
                        relooks += 1;
                        tracing::info!(
                            "looking again: {}",
                            moment
                                .iter()
                                .map(|r| r.to_string())
                                .collect::<Vec<_>>()
                                .join("; ")
                        );
                        if let Err(h) = self.control.sleep(RELOOK_PAUSE).await {
                            return Gated::Stop(h.reason(None));
                        }
                        continue;
                    }
                    verdict.reasons.extend(moment);
                    verdict
                        .reasons
                        .extend(super::others_refuse(self.others.as_deref()).await);
                    if verdict.passed() {
                        self.target = look::with_members_as_seeds(&self.target, look);
                        return Gated::Pass(fresh, verdict);
                    }
                    StopReason::GateRefused {
                        reasons: verdict.reasons,
                    }
                }
                Err(e) => StopReason::ClusterUnreachable {
                    detail: e.to_string(),
                },
            };
            let remaining = self
                .opts
                .wait_healthy
                .and_then(|w| w.checked_sub(started.elapsed()))
                .filter(|r| !r.is_zero());
            if let StopReason::GateRefused { reasons } = &refused {
                self.observer
                    .event(RunEvent::GateRefused {
                        reasons: reasons.clone(),
                        retry_in: remaining.map(|r| r.min(backoff)),
                    })
                    .await;
            }
            let Some(remaining) = remaining else {
                return Gated::Stop(refused);
            };
            if let Err(h) = self.control.sleep(remaining.min(backoff)).await {
                return Gated::Stop(h.reason(None));
            }
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    }

    /// Defragments one member and waits for it to answer again and catch
    /// up. The Defragment RPC in flight is never abandoned for a stop
    /// request — only for `abandon`.
    async fn defragment(
        &mut self,
        look: &ClusterLook,
        next: &PlannedMember,
    ) -> Result<(), StopReason> {
        let Some(dial) = dial_of(look, &next.name) else {
            let result = MemberResult {
                detail: Some("no client URL to dial".into()),
                ..MemberResult::planned(next, Outcome::Failed, Some(MemberReason::NoEndpoint))
            };
            self.finish_member(result).await;
            return Ok(());
        };
        // Another processor's run that appeared since the gate (a policy's
        // tick, someone's `kubectl apply`) stops the sweep here, as close
        // to the Defragment as an outside tool can ask; a policy's tick due
        // while this member would defragment is waited out first.
        let others = self.outside(next).await?;
        if !others.is_empty() {
            self.observer
                .event(RunEvent::GateRefused {
                    reasons: others.clone(),
                    retry_in: None,
                })
                .await;
            return Err(StopReason::GateRefused { reasons: others });
        }
        self.observer
            .event(RunEvent::DefragStarted {
                member: next.clone(),
            })
            .await;
        // The observer may have stopped the run (a controller that lost its
        // Lease fences here): nothing is sent then. Asked again once the
        // connection is ready, right before the request leaves.
        if self.control.halted().is_some() {
            return Err(self.withheld(&next.name).await);
        }
        let t0 = Instant::now();
        let rpc = self.send_defragment(&dial).await;
        if let Some(Err(e)) = &rpc {
            if e.cause == crate::etcd::FailureCause::Withheld {
                return Err(self.withheld(&next.name).await);
            }
        }
        let took = t0.elapsed();
        self.defrag_total += took;
        let mut result = MemberResult::planned(next, Outcome::Defragmented, None);
        result.duration_ms = Some(super::millis(took));
        let Some(rpc) = rpc else {
            result.outcome = Outcome::Failed;
            result.reason = Some(MemberReason::RpcError);
            result.detail =
                Some("abandoned while defragmenting; the member may still be at it".into());
            self.finish_member(result).await;
            return Err(Halt::Abandoned.reason(Some(&next.name)));
        };
        // Refused for lack of permission: this member was not touched, and
        // every other one would refuse the same user.
        if let Err(e) = &rpc {
            if e.cause == crate::etcd::FailureCause::PermissionDenied {
                result.outcome = Outcome::Failed;
                result.reason = Some(MemberReason::RpcError);
                result.detail = Some(e.to_string());
                self.finish_member(result).await;
                return Err(StopReason::PermissionDenied {
                    member: next.name.clone(),
                    op: e.op.to_string(),
                    user: self.target.credentials.as_ref().map(|c| c.user.clone()),
                });
            }
        }
        // Whatever the RPC said, nobody else is touched until this member
        // answers again and has caught up.
        let back = self.wait_for_return(&next.name, &dial).await;
        match &back {
            Ok((after, recovered)) => {
                result.db_size_after = Some(*after);
                result.reclaimed_bytes = next.db_size.checked_sub(*after);
                result.recovered_ms = Some(super::millis(*recovered));
            }
            Err(_) => result.reason = Some(MemberReason::AfterSizeUnavailable),
        }
        match &rpc {
            Err(e) => {
                result.outcome = Outcome::Failed;
                result.reason = Some(MemberReason::RpcError);
                result.detail = Some(wait::describe_rpc_failure(e, &back));
            }
            Ok(()) if next.role == Role::Follower => {
                self.measured.add(&next.name, next.in_use, took)
            }
            Ok(()) => {}
        }
        self.finish_member(result).await;
        match back {
            Ok(_) => Ok(()),
            Err(NotBack::Halted(h)) => Err(h.reason(Some(&next.name))),
            Err(NotBack::TimedOut(why)) => Err(StopReason::MemberDidNotReturn {
                member: next.name.clone(),
                limit: self.return_limit(),
                why,
            }),
        }
    }

    /// The Defragment announced for `member` never left (the run was
    /// halted, or its permit withheld as it was about to): the run stops as
    /// asked, and the observer is told, so that word of it in flight
    /// (`--watch`'s note for the next holder) is taken back rather than
    /// read as a Defragment that may have run. The stop's reason.
    async fn withheld(&self, member: &str) -> StopReason {
        let halt = self.control.halted().unwrap_or(Halt::Cancelled);
        self.control.stop();
        self.observer
            .event(RunEvent::DefragWithheld {
                member: member.to_string(),
            })
            .await;
        halt.reason(None)
    }

    /// Sends the member its Defragment, the run's control asked last, once
    /// the connection is ready (`RunControl::may_send`); `None` when the
    /// run was abandoned while it was in flight.
    async fn send_defragment(&self, dial: &Dial) -> Option<Result<(), crate::etcd::RpcError>> {
        let control = self.control;
        let may_send = move || control.may_send();
        tokio::select! {
            rpc = self.ops.defragment(dial, self.opts.member_timeout, &may_send) => Some(rpc),
            _ = self.control.abandon.cancelled() => None,
        }
    }

    /// Waits for the member just defragmented; the look that shows it
    /// back is carried to the next step's gate.
    async fn wait_for_return(
        &mut self,
        name: &str,
        dial: &Dial,
    ) -> Result<(u64, Duration), NotBack> {
        let returned = wait::for_member(
            self.ops,
            &self.target,
            &self.opts.gate,
            name,
            dial,
            self.return_limit(),
            self.observer,
            self.control,
        )
        .await?;
        self.carried = Some(returned.look);
        Ok((returned.db_size, returned.after))
    }

    fn return_limit(&self) -> Duration {
        self.opts
            .wait_healthy
            .map_or(MEMBER_RETURN_LIMIT, |w| w.max(MEMBER_RETURN_LIMIT))
    }

    /// Whether every member the plans meant to defragment is finished: the
    /// first plan's and the last one's (a plan is only known once a gate
    /// has passed, so the first step always asks the gate).
    fn nothing_left(&self) -> bool {
        self.announced
            && self
                .first_planned
                .iter()
                .chain(self.last_plan.to_defrag())
                .all(|m| self.done.contains(&m.name))
    }

    /// Asks `next` for its Status and checks that it still sees the leader
    /// and term of the look the step was planned on.
    async fn still_as_looked(
        &self,
        look: &ClusterLook,
        verdict: &GateVerdict,
        next: &PlannedMember,
    ) -> Result<(), gate::GateReason> {
        let (Some(dial), Some(leader)) = (dial_of(look, &next.name), verdict.leader) else {
            return Ok(());
        };
        match self.ops.status(&dial).await {
            Ok(now) => match moment::still_as_looked(look, leader, &next.name, &now) {
                None => super::wait::no_snapshot_on_its_way(self.ops, look, &next.name).await,
                Some(reason) => Err(reason),
            },
            Err(e) => Err(gate::GateReason::MemberUnreachable {
                member: next.name.clone(),
                cause: e.cause.to_string(),
            }),
        }
    }

    /// A member the first plan meant to defragment that is no longer in the
    /// cluster, as its report line.
    fn gone_member(&self, look: &ClusterLook) -> Option<MemberResult> {
        self.first_planned
            .iter()
            .filter(|m| !self.done.contains(&m.name))
            .find(|m| !look.members.iter().any(|s| s.id == Some(m.id)))
            .map(|m| MemberResult {
                detail: Some("no longer a member of the cluster".into()),
                ..MemberResult::planned(m, Outcome::Failed, Some(MemberReason::MemberGone))
            })
    }

    /// The members this sweep has defragmented, in the order they were
    /// done (a resumed run's earlier members first).
    fn defragmented_in_order(&self) -> Vec<String> {
        self.results
            .iter()
            .filter(|m| m.outcome == Outcome::Defragmented)
            .map(|m| m.name.clone())
            .collect()
    }

    /// Records a member's final line and tells the observer, which may
    /// persist it before the run goes on.
    async fn finish_member(&mut self, result: MemberResult) {
        self.done.insert(result.name.clone());
        self.results.push(result.clone());
        self.observer
            .event(RunEvent::MemberFinished { result })
            .await;
    }

    async fn stop(&mut self, reason: StopReason) {
        if let StopReason::GateRefused { reasons }
        | StopReason::GateRefusedBeforeCompaction { reasons } = &reason
        {
            self.refusal = reasons.iter().map(ReasonView::from).collect();
        }
        self.observer
            .event(RunEvent::Stopping {
                reason: reason.clone(),
            })
            .await;
        self.stopped = Some(reason);
    }

    /// Adds the members planned but not reached, and the skipped ones.
    pub(super) fn finish(mut self) -> SweepOutcome {
        if !self.announced {
            let verdict = gate::evaluate(&self.first_view, &self.opts.gate);
            self.last_plan = super::plan_for(
                &self.first_view,
                verdict.leader,
                self.opts,
                &self.done,
                &self.measured,
                self.interrupted.as_ref(),
            );
        }
        for m in &self.last_plan.members {
            if self.done.contains(&m.name) {
                continue;
            }
            self.done.insert(m.name.clone());
            self.results.push(planned_line(m));
        }
        // Planned at first, then neither reached nor in the last plan.
        for m in &self.first_planned {
            if !self.done.contains(&m.name) {
                self.results
                    .push(MemberResult::planned(m, Outcome::Pending, None));
            }
        }
        SweepOutcome {
            members: self.results,
            leader: self.leader,
            stopped: self.stopped,
            refusal: self.refusal,
            compacted_at: self.compacted_at,
            already_compacted: self.already_compacted,
            in_use_not_refreshed: self.in_use_not_refreshed,
            wall: self.started.elapsed(),
            defrag_total: self.defrag_total,
            final_view: self.final_view,
            target: self.target,
        }
    }
}

/// A member's line as its plan has it, before any step: `Skipped` with
/// the plan's reason, or `Pending` when it is to be defragmented.
fn planned_line(m: &PlannedMember) -> MemberResult {
    match m.decision {
        MemberDecision::Skip(r) => MemberResult::planned(m, Outcome::Skipped, Some(r.into())),
        MemberDecision::Defrag(_) => MemberResult::planned(m, Outcome::Pending, None),
    }
}

fn dial_of(look: &ClusterLook, name: &str) -> Option<Dial> {
    look.members
        .iter()
        .find(|m| m.name == name)
        .and_then(|m| m.dial.clone())
}
