//! The run's waits, each interruptible through `RunControl`: for a member
//! to answer again and catch up after its defragmentation, and for in-use
//! sizes to settle after a compaction.

use std::time::Duration;

use tokio::time::Instant;

use super::events::{Observer, RunEvent};
use super::{Fresh, Halt, RunControl};
use crate::etcd::{EtcdOps, FailureCause, RpcError};
use crate::look::ClusterLook;
use crate::plan::defrag::ready_for_transfer;
use crate::plan::gate::{self, GateOptions, GateReason};
use crate::reach::{Dial, Target};

/// For a member of a release with the applySnapshot/Defragment race (the
/// look watched it): the leader's progress and the member's snapshots in
/// flight read again, right before the member is touched, since the look
/// may be from before a snapshot started.
pub(super) async fn no_snapshot_on_its_way<O: EtcdOps>(
    ops: &O,
    look: &ClusterLook,
    name: &str,
) -> Result<(), GateReason> {
    let Some(i) = look
        .members
        .iter()
        .position(|m| m.name == name && m.snapshot_watch.is_some())
    else {
        return Ok(());
    };
    let watch = crate::etcd::take::snapshot_watches(ops, &look.members, &[i]).await;
    match watch
        .first()
        .and_then(|w| gate::snapshot_in_flight(&look.members[i], w))
    {
        Some(reason) => Err(reason),
        None => Ok(()),
    }
}

/// A member that answered again: its size on disk, how long that took, and
/// the look that showed it back (fresh enough for the next step's gate).
pub struct Returned {
    pub db_size: u64,
    pub after: Duration,
    pub look: Fresh,
}

/// Why a member was not seen back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotBack {
    /// The wait was interrupted (stop request, deadline).
    Halted(Halt),
    /// `limit` passed; the text is the last thing that was wrong.
    TimedOut(String),
}

/// Waits until member `name` answers Status and the gate has nothing to say
/// about it (answering, has a leader, within the raft-lag bounds).
#[allow(clippy::too_many_arguments)]
pub async fn for_member<O: EtcdOps>(
    ops: &O,
    target: &Target,
    gate_options: &GateOptions,
    name: &str,
    dial: &Dial,
    limit: Duration,
    observer: &dyn Observer,
    control: &RunControl,
) -> Result<Returned, NotBack> {
    let t0 = Instant::now();
    // The reason last shown: shown after 2 s, then again whenever it
    // changes (a broken port-forward, then a member catching up).
    let mut announced: Option<String> = None;
    loop {
        let last = match ops.status(dial).await {
            Ok(status) => match Fresh::look(ops, target).await {
                Ok(Fresh { look, taken }) => {
                    let verdict = gate::evaluate(&look, gate_options);
                    let own: Vec<&GateReason> = verdict
                        .for_member(name)
                        .filter(|r| r.holds_a_returning_member())
                        .collect();
                    if own.is_empty() {
                        return Ok(Returned {
                            db_size: status.db_size,
                            after: t0.elapsed(),
                            look: Fresh::asked_at(look, taken),
                        });
                    }
                    own.iter()
                        .map(|r| r.to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                }
                Err(e) => e.to_string(),
            },
            Err(e) => e.cause.to_string(),
        };
        if t0.elapsed() >= limit {
            return Err(NotBack::TimedOut(last));
        }
        if t0.elapsed() > Duration::from_secs(2) && announced.as_deref() != Some(last.as_str()) {
            observer
                .event(RunEvent::WaitingForMember {
                    member: name.to_string(),
                    waited: t0.elapsed(),
                    why: last.clone(),
                })
                .await;
            announced = Some(last);
        }
        control
            .sleep(Duration::from_millis(200))
            .await
            .map_err(NotBack::Halted)?;
    }
}

/// How long a leadership transfer waits for its target to be ready.
pub const TRANSFER_READY_LIMIT: Duration = Duration::from_secs(5);

/// Waits, at most `limit`, until `target` holds and has applied the
/// leader's log (`ready_for_transfer`), asking both every 50 ms. Returns
/// whether it became ready; a member that does not answer is not ready.
pub async fn for_transfer_target<O: EtcdOps>(
    ops: &O,
    leader: &Dial,
    target: &Dial,
    limit: Duration,
    control: &RunControl,
) -> Result<bool, Halt> {
    let t0 = Instant::now();
    loop {
        if let (Ok(l), Ok(t)) = (ops.status(leader).await, ops.status(target).await) {
            if ready_for_transfer(&l, &t) {
                return Ok(true);
            }
        }
        if t0.elapsed() >= limit {
            return Ok(false);
        }
        control.sleep(Duration::from_millis(50)).await?;
    }
}

/// How a compaction went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compaction {
    /// Compacted (or already compacted: `already`) at `revision`; sizes
    /// settled. `not_refreshed`: why etcd could not be made to refresh its
    /// in-use figures (see [`refresh_and_settle`]); `None` when it was.
    Done {
        revision: i64,
        already: bool,
        not_refreshed: Option<String>,
    },
    /// No member answered with a revision to compact at.
    NothingToCompact,
    Failed(String),
    Halted(Halt),
}

/// Waits (up to two minutes) until the in-use size of every member in
/// `members` stops changing after a compaction: each member compacts its
/// own backend, after the leader. Returns the sizes it settled on (0 for
/// a member that did not answer).
pub async fn settle<O: EtcdOps>(
    ops: &O,
    members: &[Dial],
    control: &RunControl,
) -> Result<Vec<u64>, Halt> {
    let mut previous: Option<Vec<u64>> = None;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let mut sizes = Vec::new();
        for dial in members {
            sizes.push(
                ops.status(dial)
                    .await
                    .map(|s| s.db_size_in_use)
                    .unwrap_or(0),
            );
        }
        if previous.as_ref() == Some(&sizes) || Instant::now() > deadline {
            return Ok(sizes);
        }
        previous = Some(sizes);
        control.sleep(Duration::from_millis(500)).await?;
    }
}

/// Refreshes at most this many times after a compaction.
const REFRESHES: usize = 3;

/// After a compaction: waits until every member's in-use figure stops
/// changing (the compaction has run everywhere), has every member
/// recompute it (`EtcdOps::refresh_sizes` through `via`: a Lease granted
/// and revoked, no key written), then waits for the figures to settle
/// again; and refreshes again while a refresh moved any figure, up to
/// [`REFRESHES`] times.
///
/// etcd computes `dbSizeInUse` when a member commits its backend, so an
/// idle member (or any member while NOSPACE is raised, when no write
/// lands) shows the size from before the compaction until its next write:
/// "stopped changing" alone is not "fresh". A follower compacts in the
/// background once it has applied the compaction; on a loaded machine
/// that ran after the refresh had committed, and the pages it freed were
/// still pending (bbolt frees them at the next commit): the figure moved
/// a little and stayed stale (seen in CI: 67 MiB shown, 3 MiB held). A
/// refresh that moves nothing is the proof the figures are fresh.
/// Returns why the refresh was refused, when it was (NOSPACE refuses new
/// Leases): then a figure that did not move is not known
/// (`plan::compact::not_refreshed`).
pub async fn refresh_and_settle<O: EtcdOps>(
    ops: &O,
    via: &Dial,
    members: &[Dial],
    control: &RunControl,
) -> Result<Option<String>, Halt> {
    let mut sizes = settle(ops, members, control).await?;
    for _ in 0..REFRESHES {
        if let Err(e) = ops.refresh_sizes(via).await {
            return Ok(Some(e.cause.to_string()));
        }
        // Followers apply the grant and the revoke a moment later, and
        // commit within etcd's 100 ms batch interval after.
        applied_everywhere(ops, via, members, control).await?;
        control.sleep(Duration::from_millis(300)).await?;
        let now = settle(ops, members, control).await?;
        if now == sizes {
            break;
        }
        sizes = now;
    }
    Ok(None)
}

/// Waits (up to ten seconds) until every member of `members` has applied
/// the raft index `via` had committed when asked: everything `via` had
/// answered before (the refresh's Lease revoke). On a loaded machine a
/// member applied it later than a fixed wait allowed, and the figures that
/// "stopped changing" were still the stale ones; a member that does not
/// answer is not waited for.
async fn applied_everywhere<O: EtcdOps>(
    ops: &O,
    via: &Dial,
    members: &[Dial],
    control: &RunControl,
) -> Result<(), Halt> {
    let Ok(committed) = ops.status(via).await.map(|s| s.raft_index) else {
        return Ok(());
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut behind = false;
        for dial in members {
            if let Ok(s) = ops.status(dial).await {
                behind |= s.raft_applied_index < committed;
            }
        }
        if !behind || Instant::now() > deadline {
            return Ok(());
        }
        control.sleep(Duration::from_millis(100)).await?;
    }
}

/// Compacts at the current revision (physically, through the leader) and
/// waits until every member's in-use size stops changing: physical
/// compaction runs on each member separately, and defragmenting before it
/// has finished reclaims less.
pub async fn compact_and_settle<O: EtcdOps>(
    ops: &O,
    look: &ClusterLook,
    observer: &dyn Observer,
    control: &RunControl,
) -> Compaction {
    let answering: Vec<_> = look
        .members
        .iter()
        .filter_map(|m| Some((m.dial.clone()?, m.status()?.clone())))
        .collect();
    let Some(revision) = answering.iter().map(|(_, s)| s.revision).max() else {
        return Compaction::NothingToCompact;
    };
    let leader = answering
        .iter()
        .find(|(_, s)| s.leader == s.member_id)
        .or(answering.first())
        .map(|(d, _)| d.clone());
    let Some(leader) = leader else {
        return Compaction::NothingToCompact;
    };
    let t0 = Instant::now();
    let already = match ops.compact(&leader, revision, true).await {
        Ok(()) => false,
        // Already compacted at or past this revision: nothing was
        // compacted now, and the report says so.
        Err(e) if matches!(e.cause, FailureCause::RevisionUnavailable { .. }) => true,
        Err(e) => return Compaction::Failed(e.to_string()),
    };
    let members: Vec<Dial> = answering.into_iter().map(|(d, _)| d).collect();
    let not_refreshed = match refresh_and_settle(ops, &leader, &members, control).await {
        Ok(n) => n,
        Err(h) => return Compaction::Halted(h),
    };
    observer
        .event(RunEvent::Compacted {
            revision,
            settled_in: t0.elapsed(),
        })
        .await;
    Compaction::Done {
        revision,
        already,
        not_refreshed,
    }
}

/// A failed Defragment's detail: the error, and whether (and how soon,
/// with what on disk) the member answered again.
pub(super) fn describe_rpc_failure(
    e: &RpcError,
    back: &Result<(u64, Duration), NotBack>,
) -> String {
    match back {
        Ok((after, recovered)) => format!(
            "{e}; the member answered again {} later with {} on disk",
            crate::quantity::format_duration(*recovered),
            crate::quantity::format_bytes(*after)
        ),
        Err(_) => e.to_string(),
    }
}
