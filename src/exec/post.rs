//! Steps around the sweep: waiting for a member to come back, compaction
//! with settling, NOSPACE disarm, and the HashKV agreement check.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::events::{EventSink, ExecEvent};
use crate::etcd::EtcdOps;
use crate::plan::alarm::disarm_decisions;
use crate::plan::gate::{self, GateOptions, GateReason};
use crate::snapshot::{self, ClusterSnapshot};
use crate::target::{Dial, Target};

/// Waits until member `name` answers Status and the gate has nothing to say
/// about it (answering, has a leader, within the raft-lag bounds). Returns
/// its size on disk, how long that took, and the snapshot that showed it
/// back (fresh enough for the next step's gate).
pub async fn wait_for_member<O: EtcdOps>(
    ops: &O,
    target: &Target,
    gate_options: &GateOptions,
    name: &str,
    dial: &Dial,
    limit: Duration,
    sink: &dyn EventSink,
) -> Result<(u64, Duration, ClusterSnapshot), String> {
    let t0 = Instant::now();
    let mut announced = false;
    loop {
        let last = match ops.status(dial).await {
            Ok(status) => match snapshot::take(ops, target).await {
                Ok(snap) => {
                    let verdict = gate::evaluate(&snap, gate_options);
                    let own: Vec<&GateReason> = verdict
                        .for_member(name)
                        .filter(|r| !matches!(r, GateReason::Alarm { .. }))
                        .collect();
                    if own.is_empty() {
                        return Ok((status.db_size, t0.elapsed(), snap));
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
            return Err(last);
        }
        if !announced && t0.elapsed() > Duration::from_secs(2) {
            sink.event(&ExecEvent::WaitingForMember {
                member: name,
                waited: t0.elapsed(),
            });
            announced = true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Compacts at the current revision (physically, through the leader) and
/// waits until every member's in-use size stops changing: physical
/// compaction runs on each member separately, and defragmenting before it
/// has finished reclaims less.
pub async fn compact_and_settle<O: EtcdOps>(
    ops: &O,
    snap: &ClusterSnapshot,
    sink: &dyn EventSink,
) -> crate::Result<Option<i64>> {
    let answering: Vec<_> = snap
        .members
        .iter()
        .filter_map(|m| Some((m.dial.clone()?, m.status()?.clone())))
        .collect();
    let Some(revision) = answering.iter().map(|(_, s)| s.revision).max() else {
        return Ok(None);
    };
    let leader = answering
        .iter()
        .find(|(_, s)| s.leader == s.member_id)
        .or(answering.first())
        .map(|(d, _)| d.clone());
    let Some(leader) = leader else {
        return Ok(None);
    };
    let t0 = Instant::now();
    if let Err(e) = ops.compact(&leader, revision).await {
        // Already compacted at or past this revision is fine.
        if !e.cause.to_string().contains("compacted") {
            return Err(crate::Error::Etcd(e.to_string()));
        }
    }
    let mut previous: Option<Vec<u64>> = None;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let mut sizes = Vec::new();
        for (dial, _) in &answering {
            sizes.push(
                ops.status(dial)
                    .await
                    .map(|s| s.db_size_in_use)
                    .unwrap_or(0),
            );
        }
        if previous.as_ref() == Some(&sizes) || Instant::now() > deadline {
            break;
        }
        previous = Some(sizes);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    sink.event(&ExecEvent::Compacted {
        revision,
        settled_in: t0.elapsed(),
    });
    Ok(Some(revision))
}

/// The result of disarming alarms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlarmAction {
    pub member: String,
    pub member_id: String,
    pub alarm: String,
    /// `disarmed`, `kept` or `failed`.
    pub result: &'static str,
    pub why: String,
}

/// Disarms what `plan::alarm` allows (NOSPACE on members back under quota,
/// or anything with `force`), per member, and reports every alarm.
pub async fn disarm<O: EtcdOps>(
    ops: &O,
    snap: &ClusterSnapshot,
    members: &[String],
    force: bool,
) -> Vec<AlarmAction> {
    let via = snap
        .members
        .iter()
        .find(|m| m.status().is_some())
        .and_then(|m| m.dial.clone());
    let mut out = Vec::new();
    for d in disarm_decisions(snap, members, force) {
        let (result, why) = match (&via, d.disarm) {
            (_, false) => ("kept", d.why.clone()),
            (None, true) => ("failed", "no member answered".to_string()),
            (Some(dial), true) => match ops.alarm_disarm(dial, &d.raw).await {
                Ok(()) => ("disarmed", d.why.clone()),
                Err(e) => ("failed", e.to_string()),
            },
        };
        out.push(AlarmAction {
            member: d.member,
            member_id: d.member_id,
            alarm: d.alarm,
            result,
            why,
        });
    }
    out
}

/// Whether the members' key-value stores agree (HashKV at one revision).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HashCheck {
    pub revision: i64,
    pub agree: bool,
    pub members: Vec<MemberHash>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberHash {
    pub member: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_revision: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// HashKV on every answering member at the lowest revision they all have
/// applied; they agree when every hash and compact revision is equal.
pub async fn hash_check<O: EtcdOps>(ops: &O, snap: &ClusterSnapshot) -> Option<HashCheck> {
    let members: Vec<_> = snap
        .members
        .iter()
        .filter(|m| !m.is_learner())
        .filter_map(|m| Some((m.name.clone(), m.dial.clone()?, m.status()?.revision)))
        .collect();
    let revision = members.iter().map(|(_, _, r)| *r).min()?;
    let hashes =
        futures::future::join_all(members.iter().map(|(_, d, _)| ops.hash_kv(d, revision))).await;
    let rows: Vec<MemberHash> = members
        .iter()
        .zip(hashes)
        .map(|((name, _, _), h)| match h {
            Ok(h) => MemberHash {
                member: name.clone(),
                hash: Some(h.hash),
                compact_revision: Some(h.compact_revision),
                error: None,
            },
            Err(e) => MemberHash {
                member: name.clone(),
                hash: None,
                compact_revision: None,
                error: Some(e.to_string()),
            },
        })
        .collect();
    let first = rows.first().map(|r| (r.hash, r.compact_revision));
    let agree = rows
        .iter()
        .all(|r| r.error.is_none() && Some((r.hash, r.compact_revision)) == first);
    Some(HashCheck {
        revision,
        agree,
        members: rows,
    })
}
