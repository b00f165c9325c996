//! After the sweep: NOSPACE disarm where `plan::alarm` allows it, and the
//! HashKV agreement check. Neither turns a good run into a failure by
//! itself being impossible: a check that cannot be made is reported as such.

use std::time::Duration;

use crate::etcd::{EtcdOps, KvHash, RpcError};
use crate::look::ClusterLook;
use crate::plan::alarm::disarm_decisions;
use crate::report::{AlarmAction, AlarmResult, HashCheck, HashVerdict, MemberHash, Outcome};

/// Disarms what `plan::alarm` allows (NOSPACE on members back under quota,
/// or anything with `force`), per member, and reports every alarm.
pub async fn disarm<O: EtcdOps>(
    ops: &O,
    look: &ClusterLook,
    members: &[String],
    force: bool,
    cluster: Option<&crate::reach::ClusterRef>,
) -> Vec<AlarmAction> {
    let via = look
        .members
        .iter()
        .find(|m| m.status().is_some())
        .and_then(|m| m.dial.clone());
    let mut out = Vec::new();
    for d in disarm_decisions(look, members, force, cluster) {
        let mut denied = false;
        let (result, why) = match (&via, d.disarm) {
            (_, false) => (AlarmResult::Kept, d.why.clone()),
            (None, true) => (AlarmResult::Failed, "no member answered".to_string()),
            (Some(dial), true) => match ops.alarm_disarm(dial, &d.raw).await {
                Ok(()) => (AlarmResult::Disarmed, d.why.clone()),
                Err(e) => {
                    denied = e.cause == crate::failure::FailureCause::PermissionDenied;
                    (AlarmResult::Failed, e.to_string())
                }
            },
        };
        out.push(AlarmAction {
            member: d.member,
            member_id: d.member_id,
            alarm: d.alarm,
            result,
            why,
            denied,
        });
    }
    out
}

/// How many times HashKV at each member's current revision is asked when an
/// explicit revision was refused (writes move the members apart).
const CURRENT_REVISION_TRIES: usize = 5;

/// Whether the voters' key-value stores agree.
///
/// HashKV reads the member's whole key space while holding its backend's
/// read lock, and the backend cannot commit meanwhile: every write applied
/// on that member waits for the hash (measured: about 1.2 s at 1.2 GB in
/// use, docs/benchmarks.md). So each member is hashed once, one member at
/// a time, at the lowest revision every voter had applied when the sweep
/// ended: clients of one member at a time wait, never all at once.
///
/// Whether the sweep changed anything the HashKV check could catch going
/// wrong: a member defragmented, or one whose Defragment failed (it may
/// have run all the same), or a compaction. A sweep that found nothing due
/// touched nothing, and hashing would only stall each member's writes for
/// as long as reading its whole key space takes (about 1.2 s at 1.2 GB)
/// to say what no change could have altered.
pub fn worth_hashing(outcomes: &[Outcome], compacted: bool) -> bool {
    compacted
        || outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Defragmented | Outcome::Failed))
}

/// etcd 3.4 refuses an explicit revision at or below its compaction point
/// (a `--compact` sweep with no write since); the refusal is immediate.
/// Then HashKV with revision 0 (each member's current revision) is asked of
/// every voter at once and compared only when the answers' revisions are
/// equal, which they are when nothing is written. When neither gives
/// comparable answers the check is reported as not possible.
pub async fn hash_check<O: EtcdOps>(ops: &O, look: &ClusterLook) -> Option<HashCheck> {
    let members: Vec<_> = look
        .members
        .iter()
        .filter(|m| !m.is_learner())
        .filter_map(|m| Some((m.name.clone(), m.dial.clone()?, m.status()?.revision)))
        .collect();
    let silent: Vec<&str> = look
        .members
        .iter()
        .filter(|m| !m.is_learner() && (m.dial.is_none() || m.status().is_none()))
        .map(|m| m.name.as_str())
        .collect();
    let lowest = members.iter().map(|(_, _, r)| *r).min()?;
    let check = hash_voters(ops, &members, lowest).await;
    if silent.is_empty() {
        return Some(check);
    }
    // Voters that did not answer Status were not compared: say so.
    let missing = format!("not compared: {} did not answer", silent.join(", "));
    Some(HashCheck {
        note: Some(match check.note {
            Some(n) => format!("{n}; {missing}"),
            None => missing,
        }),
        ..check
    })
}

/// HashKV across `members` (name, dial, applied revision), as described
/// on [`hash_check`].
async fn hash_voters<O: EtcdOps>(
    ops: &O,
    members: &[(String, crate::reach::Dial, i64)],
    lowest: i64,
) -> HashCheck {
    let mut explicit = Vec::with_capacity(members.len());
    for (_, dial, _) in members {
        explicit.push(ops.hash_kv(dial, lowest).await);
    }
    if explicit.iter().all(Result::is_ok) {
        return compare(members, lowest, explicit, None);
    }
    let mut answered = false;
    let silent_in = |answers: &[Result<KvHash, RpcError>]| -> Vec<String> {
        members
            .iter()
            .zip(answers)
            .filter(|(_, a)| a.is_err())
            .map(|((name, _, _), _)| name.clone())
            .collect()
    };
    let mut silent = silent_in(&explicit);
    for attempt in 0..CURRENT_REVISION_TRIES {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let answers =
            futures::future::join_all(members.iter().map(|(_, dial, _)| ops.hash_kv(dial, 0)))
                .await;
        if let Some(revision) = common_revision(&answers) {
            return compare(members, revision, answers, None);
        }
        answered |= answers.iter().all(Result::is_ok);
        if !answers.iter().all(Result::is_ok) {
            silent = silent_in(&answers);
        }
    }
    let note = if answered {
        "writes kept the members at different revisions, and an explicit revision was refused"
            .to_string()
    } else {
        format!(
            "not every member answered HashKV: {} did not",
            silent.join(", ")
        )
    };
    let mut check = compare(members, 0, explicit, Some(note));
    check.agree = None;
    check.verdict = HashVerdict::NotPossible;
    check
}

/// The revision every answer hashed, when they all answered and agree on it.
fn common_revision(answers: &[Result<KvHash, RpcError>]) -> Option<i64> {
    let mut revisions = answers.iter().map(|a| a.as_ref().ok().map(|h| h.revision));
    let first = revisions.next()??;
    revisions.all(|r| r == Some(first)).then_some(first)
}

fn compare(
    members: &[(String, crate::reach::Dial, i64)],
    revision: i64,
    answers: Vec<Result<KvHash, RpcError>>,
    note: Option<String>,
) -> HashCheck {
    let rows: Vec<MemberHash> = members
        .iter()
        .zip(answers)
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
    HashCheck {
        revision,
        agree: Some(agree),
        verdict: if agree {
            HashVerdict::Agree
        } else {
            HashVerdict::Disagree
        },
        note,
        members: rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sweep_that_touched_something_is_hashed() {
        use Outcome::*;
        let cases: [(&[Outcome], bool, bool); 7] = [
            (&[Skipped, Skipped, Skipped], false, false),
            (&[Skipped, Pending, Pending], false, false),
            (&[], false, false),
            (&[Skipped, Skipped, Skipped], true, true),
            (&[Defragmented, Skipped, Skipped], false, true),
            (&[Skipped, Failed, Pending], false, true),
            (&[Defragmented, Defragmented, Defragmented], false, true),
        ];
        for (outcomes, compacted, want) in cases {
            assert_eq!(
                worth_hashing(outcomes, compacted),
                want,
                "{outcomes:?}, compacted {compacted}"
            );
        }
    }
}
