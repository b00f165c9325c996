//! The engine: one defrag run as a library operation, shared by the
//! one-shot `defrag` command and the `--watch` controller.
//!
//! [`run`] does the whole run: check `--member` names, optionally compact
//! and let sizes settle, sweep one member at a time (re-taking the look
//! and re-running the gate before every step, re-planning from it so a
//! leadership change moves the new leader last), then disarm NOSPACE where
//! a member is back under its quota and check that the members agree. It
//! returns a [`DefragReport`]; once anything may have changed, every problem
//! becomes a typed stop reason in that report, never an error that would
//! lose what was done.
//!
//! Safety invariants, in the order they are enforced:
//! - never two members at once: each step awaits its Defragment and then
//!   waits until that member answers Status again and has caught up, even
//!   when the RPC timed out (the server keeps defragmenting after a client
//!   timeout);
//! - never a step on a cluster the gate refuses (with `--wait-healthy`, wait
//!   with backoff; otherwise stop with the reasons);
//! - a stop request or a passed deadline interrupts every wait, but never a
//!   Defragment in flight: it takes effect once that member has answered.
//!   Only [`RunControl::abandon`] stops waiting for the RPC itself.

pub mod after;
pub mod events;
pub mod signals;
mod sweep;
pub mod usage;
pub mod wait;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use events::{LogObserver, Observer, RunEvent};

use crate::error::{Error, Result};
use crate::etcd::EtcdOps;
use crate::look::{self, ClusterLook};
use crate::plan::defrag::{
    check_selection, choose_leader_handling, order_sweep, recover_nospace, transfer_target,
    Measured, MemberDecision, MoveLeader, Plan, Role,
};
use crate::plan::gate::{GateOptions, GateVerdict, ReasonView};
use crate::plan::rule::DefragRule;
use crate::reach::Target;
use crate::report::{
    DefragReport, LeaderReport, MemberReason, MemberResult, Outcome, StopReason, Stopped,
};

/// How long a member may take to answer again after its Defragment
/// returned or timed out, before the run stops (the operator's Defragment
/// timeout). `--wait-healthy` extends it.
pub const MEMBER_RETURN_LIMIT: Duration = Duration::from_secs(300);

/// What the sweep should do.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    pub rule: DefragRule,
    /// `--member`: only these (empty: all).
    pub selection: Vec<String>,
    pub move_leader: MoveLeader,
    /// `--timeout`: how long to wait for one Defragment RPC.
    pub member_timeout: Duration,
    /// `--wait-healthy`: wait this long for a refusing gate to pass.
    pub wait_healthy: Option<Duration>,
    pub gate: GateOptions,
    /// `--compact`: compact and let in-use sizes settle first.
    pub compact: bool,
    /// With NOSPACE raised, defragment what brings the cluster back under
    /// its quota whatever the rule (`plan::defrag::recover_nospace`): the
    /// one-shot command does; `--watch` keeps the operator's rule.
    pub recover_nospace: bool,
    /// `--allow-probe-restart`: defragment a member even when its Pod's
    /// probe would have the kubelet restart it mid-defrag
    /// (`plan::probes::hold_back`).
    pub allow_probe_restart: bool,
}

/// Other processors' defrags of the cluster (plugin mode: the non-terminal
/// EtcdDefrags that name it, and the policies that stamp them), asked
/// before the first step and again right before each Defragment: a run
/// that appears stops the sweep as a gate refusal would
/// (`plan::gate::others`), and a policy tick due inside the next member's
/// defrag is waited out (`plan::gate::tick_within`). The engine does not
/// know where the answer comes from; `session::ClusterRuns` asks the API
/// server.
pub trait Others: Send + Sync + std::fmt::Debug {
    /// The runs and policies now, or why they could not be read.
    fn active(
        &self,
    ) -> futures::future::BoxFuture<'_, std::result::Result<crate::look::Outside, String>>;
}

/// The room on each member's data volume (`look::Room`), read where it can
/// really be known: plugin mode asks the kubelet's volume statistics
/// through the API server (`session::MemberRooms`). Asked beside every
/// look the sweep takes, so the plan's hold-back (`plan::room`) judges the
/// room as of that step.
pub trait RoomReader: Send + Sync + std::fmt::Debug {
    /// Each member's room, by member name (a member left out: not asked).
    fn read(&self) -> futures::future::BoxFuture<'_, BTreeMap<String, crate::look::Room>>;
}

/// Puts each member's room into the look.
pub fn attach_rooms(look: &mut ClusterLook, mut rooms: BTreeMap<String, crate::look::Room>) {
    for m in &mut look.members {
        if let Some(room) = rooms.remove(&m.name) {
            m.room = Some(room);
        }
    }
}

/// Asks `others` (when there is one) and turns the answer into gate
/// reasons: none when nobody else is defragmenting the cluster.
pub async fn others_refuse(others: Option<&dyn Others>) -> Vec<crate::plan::gate::GateReason> {
    // The runs only: a policy's tick is waited out right before each
    // Defragment, where the member's predicted defrag is known.
    match others {
        Some(o) => crate::plan::gate::others(&o.active().await),
        None => Vec::new(),
    }
}

/// One run's inputs.
#[derive(Debug, Clone)]
pub struct RunInput {
    pub options: SweepOptions,
    /// Members an earlier attempt at this run already handled (a resumed
    /// run): never touched again, reported as they were, first.
    pub finished: Vec<MemberResult>,
    /// The EtcdCluster the run is about, for the report.
    pub cluster: Option<crate::report::ClusterRef>,
    /// A member an earlier attempt sent a Defragment and then stopped
    /// without recording its outcome (`plan::defrag::already_reclaimed`).
    pub interrupted: Option<crate::plan::defrag::InterruptedDefrag>,
    /// Other processors' runs of the same cluster ([`Others`]); `None`
    /// where there is no API server to ask (standalone mode) or the
    /// caller is the processor that serializes the runs (`--watch`).
    pub others: Option<std::sync::Arc<dyn Others>>,
    /// Where each member's free disk space is read ([`RoomReader`]);
    /// `None` where it cannot be known (standalone mode).
    pub rooms: Option<std::sync::Arc<dyn RoomReader>>,
    /// When the cluster is a control plane's own etcd (run in its agent):
    /// what the agent was told of it; the plan says which API server
    /// stalls while each member defragments.
    pub control_plane: Option<crate::reach::AgentFacts>,
}

/// How a caller stops a run, and when it must stop by itself.
#[derive(Debug, Clone, Default)]
pub struct RunControl {
    /// Stop as soon as it is safe: interrupts every wait; a Defragment in
    /// flight is awaited until that member has answered.
    pub cancel: CancellationToken,
    /// Stop now, even waiting for a Defragment in flight (the server goes
    /// on with it). Implies `cancel`.
    pub abandon: CancellationToken,
    /// The run stops with `DeadlineExceeded` once this passes.
    pub deadline: Option<Instant>,
    /// Asked last before each Defragment leaves this process, once its
    /// connection is ready (`--watch`: whether the Lease is still held).
    pub permit: Option<Permit>,
}

/// A last word before each Defragment ([`RunControl::permit`]): `false`
/// and the RPC is not sent.
#[derive(Clone)]
pub struct Permit(std::sync::Arc<dyn Fn() -> bool + Send + Sync>);

impl Permit {
    pub fn new(ask: impl Fn() -> bool + Send + Sync + 'static) -> Permit {
        Permit(std::sync::Arc::new(ask))
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Permit")
    }
}

/// Why a wait ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    Cancelled,
    Abandoned,
    Deadline,
}

impl RunControl {
    /// Requests a stop after the member in flight.
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// Requests a stop now (see [`RunControl::abandon`]).
    pub fn abandon_now(&self) {
        self.abandon.cancel();
        self.cancel.cancel();
    }

    /// Whether a Defragment may leave now: no stop requested, the deadline
    /// not passed, and the permit (if any) given. Synchronous, so that the
    /// RPC can be handed to its connection with nothing awaited between.
    pub fn may_send(&self) -> bool {
        self.halted().is_none() && self.permit.as_ref().is_none_or(|p| (p.0)())
    }

    /// Whether the run must stop, and why.
    pub fn halted(&self) -> Option<Halt> {
        if self.abandon.is_cancelled() {
            Some(Halt::Abandoned)
        } else if self.cancel.is_cancelled() {
            Some(Halt::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Halt::Deadline)
        } else {
            None
        }
    }

    /// Resolves once the run must stop (a stop requested, the deadline
    /// passed), with why: raced against work that only reads, which is
    /// then dropped.
    pub async fn halt(&self) -> Halt {
        loop {
            if let Some(h) = self.halted() {
                return h;
            }
            match self.deadline {
                Some(deadline) => tokio::select! {
                    _ = self.cancel.cancelled() => {}
                    _ = tokio::time::sleep_until(deadline) => {}
                },
                None => self.cancel.cancelled().await,
            }
        }
    }

    /// Sleeps for `d`, or less when a stop is requested or the deadline
    /// passes.
    pub async fn sleep(&self, d: Duration) -> std::result::Result<(), Halt> {
        if let Some(h) = self.halted() {
            return Err(h);
        }
        let wake = Instant::now() + d;
        let until = self.deadline.map_or(wake, |dl| dl.min(wake));
        tokio::select! {
            _ = self.cancel.cancelled() => {}
            _ = tokio::time::sleep_until(until) => {}
        }
        match self.halted() {
            Some(h) => Err(h),
            None => Ok(()),
        }
    }
}

impl Halt {
    /// The stop reason for a halt while waiting for `member` (if any).
    pub fn reason(self, member: Option<&str>) -> StopReason {
        match self {
            Halt::Cancelled => StopReason::Interrupted,
            Halt::Abandoned => StopReason::Abandoned {
                member: member.map(str::to_string),
            },
            Halt::Deadline => StopReason::DeadlineExceeded,
        }
    }
}

/// How long a snapshot may stand in for a new one: long enough to pass one
/// from the step that took it to the next, far shorter than anything a
/// member does.
pub const FRESH_FOR: Duration = Duration::from_millis(500);

/// How old a look may be when a step acts on it, counted from when its
/// first question was asked (`Fresh::age`). A look is one moment only if
/// it came back promptly: one that waited seconds for a member that
/// stopped right after it answered (a hung AlarmList, a `/metrics` read)
/// carries answers from before the stop, and the gate would pass on them.
/// Far above a look's duration on a far network (a few round trips), far
/// below one gate probe (`--command-timeout`, 5 s).
pub const ACT_WITHIN: Duration = Duration::from_secs(2);

/// A look at the members and when it asked them for Status: its answers
/// are no older than `taken`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fresh {
    pub look: ClusterLook,
    pub taken: Instant,
}

impl Fresh {
    /// A look that has just come back, stamped now. For looks whose
    /// taking is not timed (tests); [`Fresh::look`] stamps when it asks.
    pub fn new(look: ClusterLook) -> Fresh {
        Fresh {
            look,
            taken: Instant::now(),
        }
    }

    /// A look that was asked for at `asked`.
    pub fn asked_at(look: ClusterLook, asked: Instant) -> Fresh {
        Fresh { look, taken: asked }
    }

    /// Takes a look, stamped with when it asked the members for Status.
    pub async fn look<O: EtcdOps>(ops: &O, target: &Target) -> Result<Fresh> {
        let (look, asked) = crate::etcd::take::look_timed(ops, target).await?;
        Ok(Fresh::asked_at(look, asked))
    }

    /// Takes a look with each member's room read beside it (when there is
    /// a reader).
    pub async fn look_with_rooms<O: EtcdOps>(
        ops: &O,
        target: &Target,
        rooms: Option<&dyn RoomReader>,
    ) -> Result<Fresh> {
        let Some(reader) = rooms else {
            return Fresh::look(ops, target).await;
        };
        let (taken, rooms) = tokio::join!(Fresh::look(ops, target), reader.read());
        let mut fresh = taken?;
        attach_rooms(&mut fresh.look, rooms);
        Ok(fresh)
    }

    /// How old its oldest answer may be.
    pub fn age(&self) -> Duration {
        self.taken.elapsed()
    }

    /// The look if still fresh; consumes it either way.
    pub fn take(slot: &mut Option<Fresh>) -> Option<Fresh> {
        slot.take().filter(|f| f.age() < FRESH_FOR)
    }
}

/// The members whose feature gates `plan_notes` needs: those the plan
/// from the first look would defragment, on a release that may publish
/// them (`plan::notes::publishes_feature_gates`).
pub fn gates_wanted(look: &ClusterLook, verdict: &GateVerdict, input: &RunInput) -> Vec<String> {
    candidates(look, verdict, input)
        .to_defrag()
        .filter(|m| {
            let version = look
                .members
                .iter()
                .find(|l| l.name == m.name)
                .and_then(|l| l.status())
                .map(|s| s.version.as_str());
            version.is_none_or(crate::plan::notes::publishes_feature_gates)
        })
        .map(|m| m.name.clone())
        .collect()
}

/// What the plan from the first look says about itself
/// (`plan::notes::notes`): the same plan as `preview`'s, with the members'
/// feature gates as read from their `/metrics`.
pub fn plan_notes(
    look: &ClusterLook,
    verdict: &GateVerdict,
    input: &RunInput,
    features: &crate::plan::notes::FeatureGates,
) -> Vec<String> {
    crate::plan::notes::notes(
        &candidates(look, verdict, input),
        look,
        features,
        input.control_plane.as_ref(),
    )
}

/// The members the run may defragment, for the notes about them and the
/// feature gates those need: the first look's plan, or with `--compact`
/// every member the rule may take once the compaction has freed space
/// (decided on the sizes after it, so not known yet). Issue 45: with
/// `--compact` the plan from the first look defragmented nobody, and the
/// known-defect notes vanished.
fn candidates(look: &ClusterLook, verdict: &GateVerdict, input: &RunInput) -> Plan {
    if !input.options.compact {
        return first_plan(look, verdict, input);
    }
    let mut any = input.clone();
    any.options.rule = crate::plan::rule::DefragRule {
        all: true,
        ..crate::plan::rule::DefragRule::default()
    };
    first_plan(look, verdict, &any)
}

/// The plan from the first look, leaving out members already finished.
fn first_plan(look: &ClusterLook, verdict: &GateVerdict, input: &RunInput) -> Plan {
    let done: BTreeSet<String> = input.finished.iter().map(|m| m.name.clone()).collect();
    plan_for(
        look,
        verdict.leader,
        &input.options,
        &done,
        &Measured::default(),
        input.interrupted.as_ref(),
    )
}

/// The sweep's plan from one snapshot: the rule's, plus a NOSPACE
/// recovery when the options ask for it, less the members whose probe
/// would have them restarted mid-defrag (predicted from what `measured`
/// holds) unless the options allow that.
pub(crate) fn plan_for(
    look: &ClusterLook,
    leader: Option<u64>,
    opts: &SweepOptions,
    done: &BTreeSet<String>,
    measured: &Measured,
    interrupted: Option<&crate::plan::defrag::InterruptedDefrag>,
) -> Plan {
    let mut plan = order_sweep(look, leader, &opts.rule, &opts.selection, done);
    if opts.recover_nospace {
        plan = recover_nospace(plan, look);
    }
    plan = crate::plan::defrag::already_reclaimed(plan, interrupted);
    if !opts.allow_probe_restart {
        plan = crate::plan::probes::hold_back(plan, look, measured);
    }
    crate::plan::room::hold_back(plan, look)
}

/// Builds the dry-run view from one snapshot: gate, plan and leader choice;
/// nothing is contacted. Members in `finished` are reported as they were.
pub fn preview(
    look: &ClusterLook,
    verdict: &GateVerdict,
    input: &RunInput,
) -> Result<DefragReport> {
    let opts = &input.options;
    check_selection(look, &opts.selection).map_err(Error::Usage)?;
    let p = first_plan(look, verdict, input);
    let mut members = input.finished.clone();
    let mut leader = None;
    for m in &p.members {
        let (outcome, reason) = match m.decision {
            MemberDecision::Defrag(_) => (Outcome::Pending, None),
            MemberDecision::Skip(r) => (Outcome::Skipped, Some(r.into())),
        };
        if m.role == Role::Leader && matches!(m.decision, MemberDecision::Defrag(_)) {
            let choice = choose_leader_handling(opts.move_leader, m.in_use, &Measured::default());
            let to = if choice.transfer {
                // By the leader's turn every follower before it is done, in
                // plan order.
                let followers: Vec<String> = p
                    .to_defrag()
                    .filter(|x| x.name != m.name)
                    .map(|x| x.name.clone())
                    .collect();
                transfer_target(look, m.id, &BTreeSet::new(), &followers, &BTreeSet::new())
                    .map(|(n, _)| n)
            } else {
                None
            };
            leader = Some(LeaderReport {
                member: m.name.clone(),
                choice,
                transferred_to: to,
                transfer_ms: None,
                transfer_error: None,
            });
        }
        let mut row = MemberResult::planned(m, outcome, reason);
        // With --compact the rule is applied to the sizes after the
        // compaction, which only frees space: a member it takes now is
        // taken then, one below it is decided then, never skipped now.
        if opts.compact && row.reason == Some(MemberReason::BelowThreshold) {
            row.outcome = Outcome::Pending;
            row.reason = None;
            row.detail = Some(
                "decided after the compaction: the rule is applied to the sizes after it".into(),
            );
        }
        members.push(row);
    }
    Ok(DefragReport {
        cluster: input.cluster.clone(),
        dry_run: true,
        rule: opts.rule,
        members,
        leader,
        stopped: None,
        refusal: verdict.reasons.iter().map(ReasonView::from).collect(),
        // `--compact`: the revision it would compact at, as things stand.
        compacted_at: opts.compact.then(|| look.revision()),
        already_compacted: false,
        in_use_not_refreshed: None,
        wall_ms: 0,
        defrag_ms: 0,
        alarms: Vec::new(),
        hash_check: None,
        notes: Vec::new(),
        run: None,
    })
}

/// Runs one defrag: the sweep and the checks after it.
///
/// `first` is a snapshot the caller has just taken (for its own preview or
/// prompt); it stands in for the first step's while fresher than
/// [`FRESH_FOR`], and `--member` names are checked against it.
///
/// Errors only when nothing was touched: no member answered the first look
/// (exit 2), or a `--member` name is unknown (exit 2). From then on the
/// report carries everything, including why the run stopped.
pub async fn run<O: EtcdOps>(
    ops: &O,
    target: &Target,
    input: &RunInput,
    observer: &dyn Observer,
    control: &RunControl,
    first: Option<Fresh>,
) -> Result<DefragReport> {
    let began = std::time::Instant::now();
    let first = match (first, input.rooms.as_deref()) {
        // A look taken without the rooms (nothing says how they were
        // asked): read them now, so the first step's plan judges them.
        (Some(mut f), Some(reader)) if f.look.members.iter().all(|m| m.room.is_none()) => {
            attach_rooms(&mut f.look, reader.read().await);
            f
        }
        (Some(f), _) => f,
        (None, rooms) => Fresh::look_with_rooms(ops, target, rooms).await?,
    };
    check_selection(&first.look, &input.options.selection).map_err(Error::Usage)?;
    let target = look::with_members_as_seeds(target, &first.look);

    let mut sweep = sweep::Sweep::new(ops, target, input, observer, control, first);
    sweep.run().await;
    let outcome = sweep.finish();

    // After the sweep: NOSPACE on members back under quota, and agreement
    // when the sweep touched something (`after::worth_hashing`), from the
    // sweep's last snapshot while it is fresh. Skipped when the
    // caller abandoned the run, and when etcd refused the user permission
    // (HashKV is as privileged as Defragment).
    let mut alarms = Vec::new();
    let mut hash_check = None;
    let denied = matches!(outcome.stopped, Some(StopReason::PermissionDenied { .. }));
    // Stopped (Ctrl-C, SIGTERM) with nothing changed: nothing to disarm or
    // compare, and a look at a member that does not answer would hold the
    // stop for its timeouts.
    let untouched = outcome.compacted_at.is_none()
        && outcome
            .members
            .iter()
            .all(|m| !matches!(m.outcome, Outcome::Defragmented | Outcome::Failed));
    let stopped_untouched = control.halted().is_some() && untouched;
    if control.halted() != Some(Halt::Abandoned) && !denied && !stopped_untouched {
        let after = match outcome.final_view {
            Some(f) if f.age() < FRESH_FOR => Ok(f.look),
            _ => crate::etcd::take::look(ops, &outcome.target).await,
        };
        match after {
            Ok(after) => {
                alarms = after::disarm(ops, &after, &[], false, input.cluster.as_ref()).await;
                let outcomes: Vec<Outcome> = outcome.members.iter().map(|m| m.outcome).collect();
                if after::worth_hashing(&outcomes, outcome.compacted_at.is_some()) {
                    hash_check = after::hash_check(ops, &after).await;
                }
            }
            Err(e) => tracing::warn!("could not check alarms and hashes after the sweep: {e}"),
        }
    }
    Ok(DefragReport {
        cluster: input.cluster.clone(),
        dry_run: false,
        rule: input.options.rule,
        members: outcome.members,
        leader: outcome.leader,
        stopped: outcome.stopped.map(Stopped),
        refusal: outcome.refusal,
        compacted_at: outcome.compacted_at,
        already_compacted: outcome.already_compacted,
        in_use_not_refreshed: outcome.in_use_not_refreshed,
        // The whole run: the checks after the sweep (disarm, hashes) take
        // seconds of their own after a NOSPACE recovery.
        wall_ms: millis(began.elapsed().max(outcome.wall)),
        defrag_ms: millis(outcome.defrag_total),
        alarms,
        hash_check,
        notes: Vec::new(),
        run: None,
    })
}

pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
