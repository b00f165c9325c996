//! The executor: runs the defrag sweep one member at a time against
//! `EtcdOps`, re-taking the snapshot and re-running the gate before every
//! step, and re-planning from that snapshot (so a leadership change moves the
//! new leader last).
//!
//! Safety invariants, in the order they are enforced:
//! - never two members at once: each step awaits its Defragment and then
//!   waits until that member answers Status again and has caught up, even
//!   when the RPC timed out (the server keeps defragmenting after a client
//!   timeout);
//! - never a step on a cluster the gate refuses (with `--wait-healthy`, wait
//!   with backoff; otherwise stop with the reasons);
//! - a stop request (Ctrl-C) is honoured between steps, never mid-defrag.
//!
//! The same executor serves the one-shot command and, later, `--watch`;
//! progress is reported through `EventSink`.

pub mod events;
pub mod post;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

pub use events::{EventSink, ExecEvent};

use crate::etcd::{EtcdOps, RpcError};
use crate::plan::defrag::{
    choose_leader_handling, plan, transfer_target, Decision, LeaderChoice, Measured, MoveLeader,
    Plan, PlannedMember, Role,
};
use crate::plan::gate::{self, GateOptions, GateReason, GateVerdict};
use crate::plan::rule::DefragRule;
use crate::snapshot::{self, ClusterSnapshot};
use crate::target::{Dial, Target};

/// How long a member may take to answer again after its Defragment
/// returned or timed out, before the sweep stops (the operator's Defragment
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
}

/// A stop request shared with a signal handler.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A member's outcome (the EtcdDefrag `outcome` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// Not reached (the sweep stopped first), or planned in a dry run.
    Pending,
    Skipped,
    Defragmented,
    Failed,
}

/// One member's line in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberResult {
    pub name: String,
    pub id: String,
    pub role: Role,
    pub outcome: Outcome,
    /// Stable reason string (`BelowThreshold`, `Learner`, `RPCError`, …) or empty.
    pub reason: String,
    /// A sentence with details, when there is more to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub db_size_before: u64,
    pub db_size_in_use: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_size_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reclaimed_bytes: Option<u64>,
    /// Predicted reclaim (size − in use) when planned.
    pub predicted_reclaim: u64,
    /// How long the Defragment RPC took (or until it timed out), ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// How long until the member answered again and had caught up, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovered_ms: Option<u64>,
}

impl MemberResult {
    fn planned(m: &PlannedMember, outcome: Outcome, reason: &str) -> Self {
        MemberResult {
            name: m.name.clone(),
            id: format!("{:x}", m.id),
            role: m.role,
            outcome,
            reason: reason.to_string(),
            detail: None,
            db_size_before: m.db_size,
            db_size_in_use: m.in_use,
            db_size_after: None,
            reclaimed_bytes: None,
            predicted_reclaim: m.predicted_reclaim(),
            duration_ms: None,
            recovered_ms: None,
        }
    }
}

/// How the leader was handled.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderReport {
    /// The leader when its turn came.
    pub member: String,
    #[serde(flatten)]
    pub choice: LeaderChoice,
    /// Where leadership went, when it was transferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transferred_to: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_ms: Option<u64>,
    /// Why a wanted transfer did not happen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_error: Option<String>,
}

/// Everything the sweep did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SweepOutcome {
    pub members: Vec<MemberResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leader: Option<LeaderReport>,
    /// Why the sweep stopped early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Gate reasons behind a stop, as codes and messages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refusal: Vec<crate::plan::gate::ReasonView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted_at: Option<i64>,
    /// Wall time of the whole sweep, and the sum of Defragment durations.
    pub wall_ms: u64,
    pub defrag_ms: u64,
    /// The snapshot the sweep ended on (for the checks after it).
    #[serde(skip)]
    pub final_view: Option<Fresh>,
}

impl SweepOutcome {
    /// Whether every planned member ended well and nothing stopped the run.
    pub fn succeeded(&self) -> bool {
        self.stopped.is_none() && self.members.iter().all(|m| m.outcome != Outcome::Failed)
    }
}

enum Gated {
    Pass(ClusterSnapshot, GateVerdict),
    Refused(Vec<GateReason>),
    Stopped,
}

/// Takes a snapshot (or uses `carried`, one taken a moment ago) and runs
/// the gate; with `wait_healthy`, retries a refusing gate with backoff
/// (0.5 s doubling to 5 s) on new snapshots until it passes or the time is
/// up.
async fn gated<O: EtcdOps>(
    ops: &O,
    target: &Target,
    opts: &SweepOptions,
    sink: &dyn EventSink,
    stop: &StopFlag,
    mut carried: Option<ClusterSnapshot>,
) -> crate::Result<Gated> {
    let started = Instant::now();
    let mut backoff = Duration::from_millis(500);
    loop {
        let snap = match carried.take() {
            Some(snap) => snap,
            None => snapshot::take(ops, target).await?,
        };
        let verdict = gate::evaluate(&snap, &opts.gate);
        if verdict.passed() {
            return Ok(Gated::Pass(snap, verdict));
        }
        let remaining = opts
            .wait_healthy
            .and_then(|w| w.checked_sub(started.elapsed()))
            .filter(|r| !r.is_zero());
        sink.event(&ExecEvent::GateRefused {
            reasons: &verdict.reasons,
            retry_in: remaining.map(|r| r.min(backoff)),
        });
        match remaining {
            Some(r) if !stop.requested() => {
                tokio::time::sleep(r.min(backoff)).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
            _ if stop.requested() => return Ok(Gated::Stopped),
            _ => return Ok(Gated::Refused(verdict.reasons)),
        }
    }
}

/// Builds the dry-run view: gate, plan and leader choice from one snapshot.
pub fn dry_run(snap: &ClusterSnapshot, verdict: &GateVerdict, opts: &SweepOptions) -> SweepOutcome {
    let p = plan(
        snap,
        verdict.leader,
        &opts.rule,
        &opts.selection,
        &BTreeSet::new(),
    );
    let mut members = Vec::new();
    let mut leader = None;
    for m in &p.members {
        let (outcome, reason) = match m.decision {
            Decision::Defrag(_) => (Outcome::Pending, ""),
            Decision::Skip(r) => (Outcome::Skipped, r.as_str()),
        };
        if m.role == Role::Leader && matches!(m.decision, Decision::Defrag(_)) {
            let choice = choose_leader_handling(opts.move_leader, m.in_use, &Measured::default());
            let to = if choice.transfer {
                let pending: BTreeSet<String> = p.to_defrag().map(|x| x.name.clone()).collect();
                transfer_target(snap, m.id, &pending).map(|(n, _)| n)
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
        members.push(MemberResult::planned(m, outcome, reason));
    }
    SweepOutcome {
        members,
        leader,
        stopped: None,
        refusal: verdict.reasons.iter().map(Into::into).collect(),
        compacted_at: None,
        wall_ms: 0,
        defrag_ms: 0,
        final_view: None,
    }
}

/// Runs the sweep.
///
/// `initial` is a snapshot the caller has just taken; it stands in for the
/// first step's own snapshot while it is younger than [`FRESH_FOR`].
pub async fn sweep<O: EtcdOps>(
    ops: &O,
    target: &Target,
    opts: &SweepOptions,
    sink: &dyn EventSink,
    stop: &StopFlag,
    initial: Option<Fresh>,
) -> crate::Result<SweepOutcome> {
    let started = Instant::now();
    let mut carried = initial;
    let mut target = target.clone();
    let target = &mut target;
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut results: Vec<MemberResult> = Vec::new();
    let mut measured = Measured::default();
    let mut leader_report: Option<LeaderReport> = None;
    let mut stopped: Option<String> = None;
    let mut refusal = Vec::new();
    let mut compacted_at = None;
    let mut last_plan = Plan::default();
    let mut defrag_total = Duration::ZERO;
    let mut final_view = None;

    if opts.compact {
        match gated(ops, target, opts, sink, stop, Fresh::take(&mut carried)).await? {
            Gated::Pass(snap, _) => {
                compacted_at = post::compact_and_settle(ops, &snap, sink).await?;
            }
            Gated::Refused(reasons) => {
                refusal = reasons.iter().map(Into::into).collect();
                stopped = Some("the health gate refused before compaction".into());
            }
            Gated::Stopped => stopped = Some("interrupted".into()),
        }
    }

    while stopped.is_none() {
        if stop.requested() {
            stopped = Some("interrupted".into());
            break;
        }
        let (snap, verdict) =
            match gated(ops, target, opts, sink, stop, Fresh::take(&mut carried)).await? {
                Gated::Pass(s, v) => {
                    *target = snapshot::with_members_as_seeds(target, &s);
                    (s, v)
                }
                Gated::Refused(reasons) => {
                    refusal = reasons.iter().map(Into::into).collect();
                    stopped = Some(format!(
                        "the health gate refused: {}",
                        reasons
                            .iter()
                            .map(|r| r.to_string())
                            .collect::<Vec<_>>()
                            .join("; ")
                    ));
                    break;
                }
                Gated::Stopped => {
                    stopped = Some("interrupted".into());
                    break;
                }
            };
        let p = plan(&snap, verdict.leader, &opts.rule, &opts.selection, &done);
        if results.is_empty() && done.is_empty() {
            sink.event(&ExecEvent::Planned { plan: &p });
        }
        let Some(next) = p.next().cloned() else {
            last_plan = p;
            final_view = Some(Fresh::new(snap));
            break;
        };
        last_plan = p.clone();

        // The leader's turn: decide once whether to hand leadership over.
        if next.role == Role::Leader && leader_report.is_none() {
            let choice = choose_leader_handling(opts.move_leader, next.in_use, &measured);
            sink.event(&ExecEvent::LeaderDecision {
                member: &next.name,
                choice: &choice,
            });
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
                    transfer_target(&snap, next.id, &pending),
                    dial_of(&snap, &next.name),
                ) {
                    (Some((to_name, to_id)), Some(leader_dial)) => {
                        let t0 = Instant::now();
                        match ops.move_leader(&leader_dial, to_id).await {
                            Ok(()) => {
                                report.transferred_to = Some(to_name.clone());
                                report.transfer_ms = Some(millis(t0.elapsed()));
                                sink.event(&ExecEvent::LeaderTransferred {
                                    from: &next.name,
                                    to: &to_name,
                                    took: t0.elapsed(),
                                });
                            }
                            Err(e) => {
                                report.transfer_error =
                                    Some(format!("{e}; defragmenting in place"));
                            }
                        }
                    }
                    _ => {
                        report.transfer_error = Some(
                            "no healthy, caught-up voter to take over; defragmenting in place"
                                .into(),
                        )
                    }
                }
            }
            let moved = report.transferred_to.is_some();
            leader_report = Some(report);
            if moved {
                // Re-snapshot: the old leader is now a follower.
                continue;
            }
        }

        let Some(dial) = dial_of(&snap, &next.name) else {
            results.push(MemberResult {
                detail: Some("no endpoint to dial".into()),
                ..MemberResult::planned(&next, Outcome::Failed, "RPCError")
            });
            done.insert(next.name.clone());
            continue;
        };
        sink.event(&ExecEvent::DefragStarted { member: &next });
        let t0 = Instant::now();
        let rpc = ops.defragment(&dial, opts.member_timeout).await;
        let took = t0.elapsed();
        defrag_total += took;
        // Whatever the RPC said, nobody else is touched until this member
        // answers again and has caught up.
        let limit = opts
            .wait_healthy
            .map_or(MEMBER_RETURN_LIMIT, |w| w.max(MEMBER_RETURN_LIMIT));
        let back =
            post::wait_for_member(ops, target, &opts.gate, &next.name, &dial, limit, sink).await;
        let mut result = MemberResult::planned(&next, Outcome::Defragmented, "");
        result.duration_ms = Some(millis(took));
        let back = back.map(|(after, recovered, snap)| {
            // The snapshot that showed the member back is the next step's.
            carried = Some(Fresh::new(snap));
            (after, recovered)
        });
        match &back {
            Ok((after, recovered)) => {
                result.db_size_after = Some(*after);
                result.reclaimed_bytes = next.db_size.checked_sub(*after);
                result.recovered_ms = Some(millis(*recovered));
            }
            Err(_) => result.reason = "AfterSizeUnavailable".into(),
        }
        if let Err(e) = &rpc {
            result.outcome = Outcome::Failed;
            result.reason = "RPCError".into();
            result.detail = Some(describe_rpc_failure(e, &back));
        } else if next.role == Role::Follower {
            measured.add(next.in_use, took);
        }
        sink.event(&ExecEvent::DefragFinished { result: &result });
        results.push(result);
        done.insert(next.name.clone());
        if let Err(why) = back {
            stopped = Some(format!(
                "member {} did not answer and catch up within {} after its defragmentation ({why}); no other member was touched",
                next.name,
                crate::quantity::format_duration(limit)
            ));
        }
    }

    // Members planned but not reached, and the skipped ones.
    for m in &last_plan.members {
        if done.contains(&m.name) {
            continue;
        }
        let entry = match m.decision {
            Decision::Skip(r) => MemberResult::planned(m, Outcome::Skipped, r.as_str()),
            Decision::Defrag(_) => MemberResult::planned(m, Outcome::Pending, ""),
        };
        results.push(entry);
    }
    Ok(SweepOutcome {
        members: results,
        leader: leader_report,
        stopped,
        refusal,
        compacted_at,
        wall_ms: millis(started.elapsed()),
        defrag_ms: millis(defrag_total),
        final_view,
    })
}

/// How long a snapshot may stand in for a new one: long enough to pass one
/// from the step that took it to the next, far shorter than anything a
/// member does.
pub const FRESH_FOR: Duration = Duration::from_millis(500);

/// A snapshot and when it was taken.
#[derive(Debug, Clone, PartialEq)]
pub struct Fresh {
    pub snapshot: ClusterSnapshot,
    pub taken: Instant,
}

impl Fresh {
    pub fn new(snapshot: ClusterSnapshot) -> Fresh {
        Fresh {
            snapshot,
            taken: Instant::now(),
        }
    }

    /// The snapshot if still fresh; consumes it either way.
    pub fn take(slot: &mut Option<Fresh>) -> Option<ClusterSnapshot> {
        slot.take()
            .filter(|f| f.taken.elapsed() < FRESH_FOR)
            .map(|f| f.snapshot)
    }
}

fn describe_rpc_failure(e: &RpcError, back: &Result<(u64, Duration), String>) -> String {
    match back {
        Ok((after, recovered)) => format!(
            "{e}; the member answered again {} later with {} on disk",
            crate::quantity::format_duration(*recovered),
            crate::quantity::format_bytes(*after)
        ),
        Err(_) => e.to_string(),
    }
}

fn dial_of(snap: &ClusterSnapshot, name: &str) -> Option<Dial> {
    snap.members
        .iter()
        .find(|m| m.name == name)
        .and_then(|m| m.dial.clone())
}

pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
