//! Taking the look at the members (`look::ClusterLook`): Status of
//! each member concurrently, MemberList, AlarmList, all through `EtcdOps`.
//!
//! This is the only I/O stage before a decision; the gate, the plan and the
//! reports are pure functions over what it returns. A member that does not
//! answer becomes a row with the failure, never an aborted command; only
//! when no endpoint at all can be used is the look an error (exit 2).

use std::collections::BTreeSet;
use std::time::Duration;

use futures::future::join_all;
use futures::stream::{FuturesUnordered, StreamExt};

use crate::defects::{self, APPLY_SNAPSHOT_DURING_DEFRAG};
use crate::error::{Error, Result};
use crate::etcd::EtcdOps;
use crate::failure::{ConnectFailure, RpcError};
use crate::look::{
    dial_for_listed, member_row, Alarm, ClusterLook, ListedMember, MemberLook, MemberStatus, Probe,
    SnapshotWatch, StatusError,
};
use crate::reach::{Dial, KnownMember, QuotaFallback, QuotaSource, Scheme, Target};

/// Asks the seeds for MemberList, concurrently; the first seed to answer
/// wins (every member returns the same list), so a hung seed costs nothing
/// when another answers. When none answers, the error lists every seed with
/// its cause (exit 2: nothing could be inspected).
pub async fn member_list<O: EtcdOps>(
    ops: &O,
    target: &Target,
) -> Result<(Dial, Vec<ListedMember>)> {
    let mut pending: FuturesUnordered<_> = target
        .dials
        .iter()
        .enumerate()
        .map(|(i, d)| async move { (i, ops.member_list(d).await) })
        .collect();
    let mut failures: Vec<(usize, ConnectFailure)> = Vec::new();
    while let Some((i, answer)) = pending.next().await {
        match answer {
            Ok(members) => return Ok((target.dials[i].clone(), members)),
            Err(e) => failures.push((
                i,
                ConnectFailure {
                    endpoint: target.dials[i].endpoint.to_string(),
                    cause: e.cause,
                },
            )),
        }
    }
    failures.sort_by_key(|(i, _)| *i);
    Err(Error::NoEndpointAnswered(
        failures.into_iter().map(|(_, f)| f).collect(),
    ))
}

/// Takes a snapshot of the cluster `target` points at.
///
/// With discovery, the seeds are asked for MemberList and every listed member
/// is probed at its advertised client URL (a seed that matches that URL is
/// reused as is). Without discovery, exactly the seeds are probed and
/// MemberList only supplies names and the voter set.
pub async fn look<O: EtcdOps>(ops: &O, target: &Target) -> Result<ClusterLook> {
    Ok(look_timed(ops, target).await?.0)
}

/// [`look`], and when it asked the members for their Status: no answer in
/// the look is older than that (MemberList, asked before, only names the
/// members).
pub async fn look_timed<O: EtcdOps>(
    ops: &O,
    target: &Target,
) -> Result<(ClusterLook, tokio::time::Instant)> {
    let (list_dial, list) = member_list(ops, target).await?;

    // Decide whom to probe: (MemberList entry, dial, why not dialed,
    // the member known behind the dial before any dial).
    let rows = whom_to_probe(target, &list);

    // Round 2: Status of every member and AlarmList, concurrently.
    let asked = tokio::time::Instant::now();
    // Over TLS a member's /metrics rides its gRPC connection: when the
    // members are said to run a release whose Status carries no quota
    // (before 3.6), it is asked beside Status, at no round trip of its
    // own; what else reads /metrics in this command (a plan's feature
    // gates) gets the same read.
    let beside = !quota_in_status(target.release_hint.as_deref());
    let asking = join_all(rows.iter().map(|row| async move {
        let d = row.dial.as_ref()?;
        let status = async { (ops.status(d).await, asked.elapsed()) };
        let early = async {
            match (d.endpoint.scheme, beside) {
                (Scheme::Https, true) => ops.backend_quota(d).await,
                _ => None,
            }
        };
        let (status, early) = futures::join!(status, early);
        Some((status, early))
    }));
    let (asked_all, alarm_answer) = futures::join!(asking, ops.alarm_list(&list_dial));
    let (statuses, early): (Vec<StatusAnswer>, Vec<Option<u64>>) = asked_all
        .into_iter()
        .map(|answer| match answer {
            Some((status, early)) => (Some(status), early),
            None => (None, None),
        })
        .unzip();
    // A member whose Status carried no quota and whose /metrics was not
    // read beside it: read now (over TLS on its gRPC connection; plain, on
    // a connection of its own, as etcd serves HTTP/2 there to gRPC only),
    // so no quota is assumed where the member can say.
    let metrics_quotas = join_all(rows.iter().zip(&statuses).zip(early).map(
        |((row, status), early)| async move {
            let lacks_quota = matches!(
                status,
                Some((
                    Ok(MemberStatus {
                        db_size_quota: None,
                        ..
                    }),
                    _
                ))
            );
            match (&row.dial, lacks_quota, early) {
                (_, false, _) => None,
                (_, true, Some(quota)) => Some(quota),
                (Some(d), true, None) => ops.backend_quota(d).await,
                _ => None,
            }
        },
    ))
    .await;

    let mut members: Vec<MemberLook> = rows
        .into_iter()
        .zip(statuses)
        .zip(metrics_quotas)
        .map(|((row, status), metrics_quota)| {
            member_look(row, status, metrics_quota, &list, target.quota)
        })
        .collect();
    if !target.discover {
        // Voters the user left out still count for the gate.
        let left_out = left_out_voters(target, &list, &members);
        members.extend(left_out);
    }

    watch_snapshots(ops, &mut members).await;

    let (alarms, alarm_list_error) = alarms_raised(alarm_answer, &members);
    let look = ClusterLook {
        members,
        member_list_known: true,
        alarms,
        alarm_list_error,
    };
    Ok((look, asked))
}

/// Whether members of `release` (as said before any is asked) report
/// their quota in Status (3.6 on); an unknown release is taken to, so that
/// nothing is read that may not be needed. Pure.
fn quota_in_status(release: Option<&str>) -> bool {
    match release.and_then(defects::Release::parse) {
        Some(r) => (r.major, r.minor) >= (3, 6),
        None => true,
    }
}

/// Whom to probe: a row per MemberList entry, with the dial of its
/// advertised client URL or why there is none (with discovery); else a row
/// per seed, with the member known behind it before any dial and its
/// MemberList entry when that is known by id or name.
fn whom_to_probe(target: &Target, list: &[ListedMember]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    if target.discover {
        for member in list {
            match dial_for_listed(member, &target.dials) {
                Ok(dial) => rows.push(Row::listed(member, Some(dial), None)),
                Err(why) => rows.push(Row::listed(member, None, Some(why))),
            }
        }
    } else {
        for dial in &target.dials {
            let known = target.known.iter().find(|k| &k.dial == dial);
            let listed = known
                .and_then(|k| k.id)
                .and_then(|id| list.iter().find(|m| m.id == id))
                .or_else(|| known.and_then(|k| list.iter().find(|m| m.name == k.name)));
            rows.push(Row {
                listed: listed.cloned(),
                dial: Some(dial.clone()),
                not_probed: None,
                known: known.cloned(),
            });
        }
    }
    rows
}

/// One member's Status answer and how long after the asking it came;
/// `None` for a member that was not dialed.
type StatusAnswer = Option<(std::result::Result<MemberStatus, RpcError>, Duration)>;

/// The look at the member of `row`, from its Status answer and the quota
/// its `/metrics` gave (`metrics_quota`, else `quota`, the target's): its
/// MemberList entry, the answer or why there is none, and what was known
/// of it before the dial.
fn member_look(
    row: Row,
    status: StatusAnswer,
    metrics_quota: Option<u64>,
    list: &[ListedMember],
    quota: QuotaFallback,
) -> MemberLook {
    let answered_in = match &status {
        Some((Ok(_), took)) => Some(*took),
        _ => None,
    };
    let probe = match (status, row.not_probed) {
        (Some((Ok(s), _)), _) => Probe::Answered(s),
        (Some((Err(e), _)), _) => Probe::Failed(e),
        (None, why) => Probe::NotProbed(why.unwrap_or_else(|| "not dialed".into())),
    };
    // Without discovery, match the probed endpoint to MemberList by the
    // id in the Status header.
    let listed_member = row.listed.or_else(|| match &probe {
        Probe::Answered(s) => list.iter().find(|m| m.id == s.member_id).cloned(),
        _ => None,
    });
    let fallback = match metrics_quota {
        Some(bytes) => QuotaFallback {
            bytes,
            source: QuotaSource::Metrics,
        },
        None => quota,
    };
    let mut member = member_row(listed_member, row.dial, probe, fallback);
    member.answered_in = answered_in;
    if let Some(known) = row.known {
        member.probes = known.probes;
        if member.listed.is_none() {
            member.name = known.name;
            member.id = member.id.or(known.id);
        }
    }
    member
}

/// Without discovery, a row for each voter of MemberList that no probed
/// member stands for, saying why it was not probed: the voters the user
/// left out still count for the gate.
fn left_out_voters(
    target: &Target,
    list: &[ListedMember],
    members: &[MemberLook],
) -> Vec<MemberLook> {
    let probed: BTreeSet<u64> = members.iter().filter_map(|m| m.id).collect();
    let why = if target.known.is_empty() {
        "not in --endpoints and --no-discover is set"
    } else {
        "in the member list, but no running EtcdMember of the cluster stands for it"
    };
    list.iter()
        .filter(|m| !probed.contains(&m.id))
        .map(|member| {
            member_row(
                Some(member.clone()),
                None,
                Probe::NotProbed(why.into()),
                target.quota,
            )
        })
        .collect()
}

/// The alarms raised, each once and in order: what AlarmList answered and
/// what each member's Status reports; and why AlarmList failed, when it did
/// (the members' Status alarms are then all the look has).
fn alarms_raised(
    alarm_answer: std::result::Result<Vec<Alarm>, RpcError>,
    members: &[MemberLook],
) -> (Vec<Alarm>, Option<String>) {
    let mut alarms: BTreeSet<Alarm> = BTreeSet::new();
    let alarm_list_error = match alarm_answer {
        Ok(list) => {
            alarms.extend(list);
            None
        }
        Err(e) => Some(e.to_string()),
    };
    for m in members {
        if let Some(s) = m.status() {
            alarms.extend(s.errors.iter().filter_map(|e| match e {
                StatusError::Alarm(a) => Some(a.clone()),
                _ => None,
            }));
        }
    }
    (alarms.into_iter().collect(), alarm_list_error)
}

/// For the members whose release has the applySnapshot/Defragment race
/// (`defects::APPLY_SNAPSHOT_DURING_DEFRAG`): whether a snapshot from the
/// leader could be reaching them. Members of fixed releases cost nothing.
async fn watch_snapshots<O: EtcdOps>(ops: &O, members: &mut [MemberLook]) {
    let affected: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.status()
                .is_some_and(|s| defects::has(&s.version, APPLY_SNAPSHOT_DURING_DEFRAG).is_some())
        })
        .map(|(i, _)| i)
        .collect();
    if affected.is_empty() {
        return;
    }
    let watches = snapshot_watches(ops, members, &affected).await;
    for (i, watch) in affected.into_iter().zip(watches) {
        members[i].snapshot_watch = Some(watch);
    }
}

/// The `SnapshotWatch` of each member `which` indexes in `members` (a
/// look's members, which name the leader and how to dial it). The leader's
/// `/debug/vars` is read once and each member's `/metrics` once, all at
/// the same time. The sweep asks again right before it touches a member.
pub async fn snapshot_watches<O: EtcdOps>(
    ops: &O,
    members: &[MemberLook],
    which: &[usize],
) -> Vec<SnapshotWatch> {
    // The leader the answering members name; when they disagree the gate
    // refuses on that already.
    let leader = members
        .iter()
        .filter_map(|m| m.status())
        .map(|s| s.leader)
        .find(|l| *l != 0);
    let leader_dial = leader
        .and_then(|id| members.iter().find(|m| m.id == Some(id)))
        .and_then(|m| m.dial.clone());
    let progress = async {
        match &leader_dial {
            Some(dial) => ops.raft_progress(dial).await,
            None => Err("no leader could be asked for its raft progress".to_string()),
        }
    };
    let in_flight = join_all(which.iter().map(|&i| {
        let dial = members.get(i).and_then(|m| m.dial.clone());
        async move {
            match dial {
                Some(d) => ops.snapshots_in_flight(&d).await,
                None => Err("it was not dialed".to_string()),
            }
        }
    }));
    let (progress, in_flight) = futures::join!(progress, in_flight);
    which
        .iter()
        .zip(in_flight)
        .map(|(&i, in_flight)| {
            let mut watch = SnapshotWatch::default();
            match (&progress, members.get(i).and_then(|m| m.id)) {
                (Ok(map), Some(id)) => match map.get(&id) {
                    Some(state) => watch.leader_progress = Some(state.clone()),
                    None => watch
                        .unread
                        .push("the leader tracks no raft progress for it".into()),
                },
                (Ok(_), None) => watch.unread.push("its member id is not known".into()),
                (Err(e), _) => watch.unread.push(e.clone()),
            }
            match in_flight {
                Ok(n) => watch.in_flight = Some(n),
                Err(e) => watch.unread.push(format!("its snapshots in flight: {e}")),
            }
            watch
        })
        .collect()
}

/// One member to probe, before the probe.
struct Row {
    listed: Option<ListedMember>,
    dial: Option<Dial>,
    not_probed: Option<String>,
    known: Option<KnownMember>,
}

impl Row {
    fn listed(member: &ListedMember, dial: Option<Dial>, not_probed: Option<String>) -> Row {
        Row {
            listed: Some(member.clone()),
            dial,
            not_probed,
            known: None,
        }
    }
}

/// The cluster's current revision (the highest any member reports) and the
/// one compacted up to, from `leader`'s HashKV (0: never compacted).
pub async fn revisions<O: EtcdOps>(
    ops: &O,
    look: &ClusterLook,
    leader: &Dial,
) -> Result<(i64, i64)> {
    let compacted = ops
        .hash_kv(leader, 0)
        .await
        .map_err(|e| Error::etcd("read the compacted revision (HashKV)", e))?
        .compact_revision
        // etcd says -1 before the first compaction.
        .max(0);
    Ok((look.revision(), compacted))
}

/// How long a feature-gate read waits for a member's `/metrics`: a
/// `status -o wide` or a defrag plan is not held up for long by a metrics
/// port that does not answer.
pub const FEATURES_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The feature gates of the members named in `names`, from each one's
/// `/metrics` (etcd 3.6 and later publish them as
/// `etcd_server_feature_enabled`), read at once, each within
/// [`FEATURES_LIMIT`]: member name → gate → on (empty for a release that
/// publishes none: 3.4, 3.5). A member whose metrics could not be read in
/// time is absent. Each read is a connection of its own (TCP, TLS, one
/// GET: three round trips), so callers ask only for the members they need.
pub async fn feature_gates<O: EtcdOps>(
    ops: &O,
    look: &ClusterLook,
    names: &[&str],
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, bool>> {
    let wanted = look
        .members
        .iter()
        .filter(|m| names.contains(&m.name.as_str()));
    let answers = join_all(wanted.filter_map(|m| {
        let dial = m.dial.clone()?;
        Some(async move {
            let body = tokio::time::timeout(FEATURES_LIMIT, ops.metrics(&dial))
                .await
                .ok()?
                .ok()?;
            Some((m.name.clone(), super::http::parse_feature_gates(&body)))
        })
    }))
    .await;
    answers.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::quota_in_status;

    #[test]
    fn only_a_release_said_to_be_before_3_6_has_its_metrics_read_beside_status() {
        for (release, in_status) in [
            (Some("3.4.23"), false),
            (Some("3.5.35"), false),
            (Some("v3.5.9"), false),
            (Some("3.6.0"), true),
            (Some("3.7.3"), true),
            (Some("4.0.0"), true),
            (Some("not a release"), true),
            (None, true),
        ] {
            assert_eq!(quota_in_status(release), in_status, "{release:?}");
        }
    }
}
