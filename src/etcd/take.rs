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
use futures::future::Either;
use futures::stream::{FuturesUnordered, StreamExt};

use crate::defects::{self, APPLY_SNAPSHOT_DURING_DEFRAG};
use crate::error::{Error, Result};
use crate::etcd::{EtcdOps, Read};
use crate::failure::{ConnectFailure, RpcError};
use crate::look::{
    dial_for_listed, member_row, Alarm, ClusterLook, ListedMember, MemberLook, MemberStatus, Probe,
    SnapshotWatch, StatusError,
};
use crate::reach::{Dial, KnownMember, QuotaFallback, QuotaSource, Target};

/// Asks the seeds for MemberList, concurrently; the first seed to answer
/// wins (every member returns the same list), so a hung seed costs nothing
/// when another answers. When none answers, the error lists every seed with
/// its cause (exit 2: nothing could be inspected).
pub async fn member_list<O: EtcdOps>(
    ops: &O,
    target: &Target,
) -> Result<(Dial, Vec<ListedMember>)> {
    let nothing = |_: &Dial| futures::future::ready(());
    let (dial, list, ()) = member_list_with(ops, target, nothing, None).await?;
    Ok((dial, list))
}

/// [`member_list`], with `beside` asked of each seed on the same
/// connection at the same time; the winner's answer to it comes back too.
/// Within `grace` of the winner's MemberList, when one is given (a hung
/// `beside` does not hold the look up; `None` comes back instead), else
/// whenever it answers.
async fn member_list_with<O, F, Fut, T>(
    ops: &O,
    target: &Target,
    beside: F,
    grace: Option<Duration>,
) -> Result<(Dial, Vec<ListedMember>, T)>
where
    O: EtcdOps,
    F: Fn(&Dial) -> Fut,
    Fut: std::future::Future<Output = T>,
    T: Default,
{
    let mut pending: FuturesUnordered<_> = target
        .dials
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let (list, other) = (ops.member_list(d), beside(d));
            async move {
                futures::pin_mut!(list, other);
                match futures::future::select(list, other).await {
                    Either::Left((list, other)) => {
                        let other = match (&list, grace) {
                            (Err(_), _) => T::default(),
                            (Ok(_), Some(g)) => {
                                tokio::time::timeout(g, other).await.unwrap_or_default()
                            }
                            (Ok(_), None) => other.await,
                        };
                        (i, list, other)
                    }
                    Either::Right((other, list)) => (i, list.await, other),
                }
            }
        })
        .collect();
    let mut failures: Vec<(usize, ConnectFailure)> = Vec::new();
    while let Some((i, answer, other)) = pending.next().await {
        match answer {
            Ok(members) => return Ok((target.dials[i].clone(), members, other)),
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

/// How long after the winning seed's MemberList its Status, asked at the
/// same time on the same connection, is waited for: it tells the release
/// (and the leader) before the other members are asked, and it almost
/// always answers first (MemberList is a linearizable read from 3.5 on,
/// Status is not). Missing it costs a round trip on 3.4 and 3.5, never an
/// answer.
const SEED_STATUS_GRACE: Duration = Duration::from_millis(20);

/// Takes a snapshot of the cluster `target` points at.
///
/// With discovery, the seeds are asked for MemberList and every listed member
/// is probed at its advertised client URL (a seed that matches that URL is
/// reused as is). Without discovery, exactly the seeds are probed and
/// MemberList only supplies names and the voter set.
pub async fn look<O: EtcdOps>(ops: &O, target: &Target) -> Result<ClusterLook> {
    Ok(look_timed(ops, target).await?.0)
}

/// [`look`], reading every member's `/metrics` beside its Status whatever
/// its release, for a command that reads them after the look anyway
/// (`status -o wide`'s feature gates): the read it makes then is the one
/// made here, at no round trip of its own.
pub async fn look_with_metrics<O: EtcdOps>(ops: &O, target: &Target) -> Result<ClusterLook> {
    Ok(look_reading(ops, target, true).await?.0)
}

/// [`look`], and when it asked the members for their Status: no answer in
/// the look is older than that (MemberList, asked before, only names the
/// members).
///
/// Round trips: with discovery, the seeds' MemberList (and each seed's
/// Status, which tells the release and the leader), then every listed
/// member's Status with the HTTP reads its release needs beside it
/// ([`reads_beside_status`]) and AlarmList on the winning seed. Without
/// discovery every address is known before any dial, so MemberList and
/// AlarmList on each seed and every member's Status go out at once. A read
/// the release hint did not foresee (a member of another release) follows
/// its member's Status.
pub async fn look_timed<O: EtcdOps>(
    ops: &O,
    target: &Target,
) -> Result<(ClusterLook, tokio::time::Instant)> {
    look_reading(ops, target, false).await
}

/// [`look_timed`]; `metrics`: every member's `/metrics` is read beside its
/// Status.
async fn look_reading<O: EtcdOps>(
    ops: &O,
    target: &Target,
    metrics: bool,
) -> Result<(ClusterLook, tokio::time::Instant)> {
    let (list, rows, asked, answers, alarm_answer) = if target.discover {
        let seed_status = |d: &Dial| {
            let d = d.clone();
            async move { ops.status(&d).await.ok() }
        };
        let (list_dial, list, seed) =
            member_list_with(ops, target, seed_status, Some(SEED_STATUS_GRACE)).await?;
        let rows = whom_to_probe(target, &list);
        let hint = target
            .release_hint
            .clone()
            .or_else(|| seed.as_ref().map(|s| s.version.clone()));
        let leader = seed.map(|s| s.leader).filter(|l| *l != 0);
        let asked = tokio::time::Instant::now();
        let dials: Vec<Option<(Dial, Option<u64>)>> = rows
            .iter()
            .map(|r| r.dial.clone().map(|d| (d, r.listed.as_ref().map(|m| m.id))))
            .collect();
        let (answers, alarms) = futures::join!(
            ask_members(ops, &dials, hint.as_deref(), leader, metrics, asked),
            ops.alarm_list(&list_dial)
        );
        (list, rows, asked, answers, alarms)
    } else {
        let asked = tokio::time::Instant::now();
        let dials: Vec<Option<(Dial, Option<u64>)>> = target
            .dials
            .iter()
            .map(|d| {
                let known = target.known.iter().find(|k| &k.dial == d);
                Some((d.clone(), known.and_then(|k| k.id)))
            })
            .collect();
        let seed_alarms = |d: &Dial| {
            let d = d.clone();
            async move { Some(ops.alarm_list(&d).await) }
        };
        let (listed, answers) = futures::join!(
            member_list_with(ops, target, seed_alarms, None),
            ask_members(
                ops,
                &dials,
                target.release_hint.as_deref(),
                None,
                metrics,
                asked
            )
        );
        let (_, list, alarms) = listed?;
        let alarms = alarms.unwrap_or_else(|| Ok(Vec::new()));
        let rows = whom_to_probe(target, &list);
        (list, rows, asked, answers, alarms)
    };

    // A member whose Status carried no quota and whose /metrics was not
    // read beside it: read now (over TLS on its gRPC connection; plain, on
    // a connection of its own, as etcd serves HTTP/2 there to gRPC only),
    // so no quota is assumed where the member can say.
    let metrics_quotas = join_all(rows.iter().zip(&answers).map(|(row, answer)| async move {
        let answer = answer.as_ref()?;
        let lacks_quota = matches!(
            answer.status,
            Ok(MemberStatus {
                db_size_quota: None,
                ..
            })
        );
        match (&row.dial, lacks_quota, answer.beside.metrics) {
            (_, false, _) => None,
            (_, true, true) => answer.metrics_quota,
            (Some(d), true, false) => ops.backend_quota(d).await,
            (None, true, false) => None,
        }
    }))
    .await;

    let mut early: Vec<Early> = Vec::with_capacity(answers.len());
    let mut members: Vec<MemberLook> = Vec::with_capacity(rows.len());
    for ((row, answer), metrics_quota) in rows.into_iter().zip(answers).zip(metrics_quotas) {
        let (status, read) = match answer {
            Some(a) => (Some((a.status, a.took)), a.early),
            None => (None, Early::default()),
        };
        members.push(member_look(row, status, metrics_quota, &list, target.quota));
        early.push(read);
    }
    if !target.discover {
        // Voters the user left out still count for the gate.
        let left_out = left_out_voters(target, &list, &members);
        members.extend(left_out);
    }

    watch_snapshots(ops, &mut members, &early).await;

    let (alarms, alarm_list_error) = alarms_raised(alarm_answer, &members);
    let look = ClusterLook {
        members,
        member_list_known: true,
        alarms,
        alarm_list_error,
    };
    Ok((look, asked))
}

/// What a member is asked over HTTP beside its Status, decided from the
/// release its members are said or seen to run before any of them is
/// asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Beside {
    /// Its `/metrics`, for the quota (not in Status before 3.6) or for
    /// whatever the command reads of them after the look.
    metrics: bool,
    /// Its snapshots in flight, from the same read of its `/metrics` (on
    /// releases with the applySnapshot race).
    in_flight: bool,
    /// Its `/debug/vars`, for the leader's raft progress (on releases with
    /// the applySnapshot race): asked of the leader when it is known, else
    /// of every member.
    progress: bool,
}

/// The reads of [`Beside`] for a member of `release` (`None`: not known,
/// nothing read that may not be needed); `leader`: whether the member is
/// known to lead (`None`: the leader is not known yet). Pure.
fn reads_beside_status(release: Option<&str>, leader: Option<bool>) -> Beside {
    let racy = release.is_some_and(racy_release);
    Beside {
        metrics: !quota_in_status(release),
        in_flight: racy,
        progress: racy && leader != Some(false),
    }
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

/// What one member answered in the look's Status round.
struct Answer {
    status: std::result::Result<MemberStatus, RpcError>,
    /// How long after the asking Status answered.
    took: Duration,
    /// What was read beside Status.
    beside: Beside,
    /// The quota its `/metrics`, read beside Status, report.
    metrics_quota: Option<u64>,
    /// The snapshot reads made beside Status.
    early: Early,
}

/// The snapshot reads made of a member beside its Status, for the look's
/// snapshot watch: `None` where none was made.
#[derive(Default)]
struct Early {
    progress: Option<std::result::Result<std::collections::BTreeMap<u64, String>, String>>,
    in_flight: Option<std::result::Result<u64, String>>,
}

/// Asks each member of `dials` (a dial and its member id when known;
/// `None`: not dialed) for its Status, with what [`reads_beside_status`]
/// says for `release` beside it, all at once. `leader`: the leader's id
/// when a seed named it.
async fn ask_members<O: EtcdOps>(
    ops: &O,
    dials: &[Option<(Dial, Option<u64>)>],
    release: Option<&str>,
    leader: Option<u64>,
    metrics: bool,
    asked: tokio::time::Instant,
) -> Vec<Option<Answer>> {
    join_all(dials.iter().map(|dial| async move {
        let (d, id) = dial.as_ref()?;
        let leads = leader.and_then(|l| id.map(|id| id == l));
        let mut beside = reads_beside_status(release, leads);
        beside.metrics |= metrics;
        let status = async { (ops.status(d).await, asked.elapsed()) };
        let quota = async {
            match beside.metrics {
                true => ops.backend_quota(d).await,
                false => None,
            }
        };
        let in_flight = async {
            match beside.in_flight {
                true => Some(ops.snapshots_in_flight(d, Read::Once).await),
                false => None,
            }
        };
        let progress = async {
            match beside.progress {
                true => Some(ops.raft_progress(d).await),
                false => None,
            }
        };
        let ((status, took), metrics_quota, in_flight, progress) =
            futures::join!(status, quota, in_flight, progress);
        Some(Answer {
            status,
            took,
            beside,
            metrics_quota,
            early: Early {
                progress,
                in_flight,
            },
        })
    }))
    .await
}

/// Whether `release` has the applySnapshot/Defragment race. Pure.
fn racy_release(release: &str) -> bool {
    defects::has(release, APPLY_SNAPSHOT_DURING_DEFRAG).is_some()
}

/// Whom to probe: a row per MemberList entry, with the dial of its
/// advertised client URL or why there is none (with discovery); else a row
/// per seed, with the member known behind it before any dial and its
/// MemberList entry when that is known by id or name.
fn whom_to_probe(target: &Target, list: &[ListedMember]) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    if target.discover {
        for member in list {
            let mut row = match dial_for_listed(member, &target.dials) {
                Ok(dial) => Row::listed(member, Some(dial), None),
                Err(why) => Row::listed(member, None, Some(why)),
            };
            // Its Pod's probes, when they were handed over by name.
            let probes = target
                .probes_by_name
                .iter()
                .find(|(n, _)| *n == member.name);
            if let (Some((_, probes)), Some(dial)) = (probes, &row.dial) {
                row.known = Some(KnownMember {
                    name: member.name.clone(),
                    id: Some(member.id),
                    dial: dial.clone(),
                    probes: Some(probes.clone()),
                });
            }
            rows.push(row);
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
/// leader could be reaching them, from what was read beside Status
/// (`early`, by member) where that was read, else read now (the command's
/// one read of each `/metrics`). Members of fixed releases cost nothing.
async fn watch_snapshots<O: EtcdOps>(ops: &O, members: &mut [MemberLook], early: &[Early]) {
    let affected: Vec<usize> = members
        .iter()
        .enumerate()
        .filter(|(_, m)| m.status().is_some_and(|s| racy_release(&s.version)))
        .map(|(i, _)| i)
        .collect();
    if affected.is_empty() {
        return;
    }
    let watches = watches_of(ops, members, &affected, early, Read::Once).await;
    for (i, watch) in affected.into_iter().zip(watches) {
        members[i].snapshot_watch = Some(watch);
    }
}

/// The `SnapshotWatch` of each member `which` indexes in `members` (a
/// look's members, which name the leader and how to dial it). The leader's
/// `/debug/vars` is read once and each member's `/metrics` once, all at
/// the same time, afresh: the sweep asks right before it touches a member.
pub async fn snapshot_watches<O: EtcdOps>(
    ops: &O,
    members: &[MemberLook],
    which: &[usize],
) -> Vec<SnapshotWatch> {
    watches_of(ops, members, which, &[], Read::Afresh).await
}

/// [`snapshot_watches`], taking what `early` (by member) already holds
/// where it holds an answer (a failed early read is read again), and
/// reading each `/metrics` as `read` says.
async fn watches_of<O: EtcdOps>(
    ops: &O,
    members: &[MemberLook],
    which: &[usize],
    early: &[Early],
    read: Read,
) -> Vec<SnapshotWatch> {
    // The leader the answering members name; when they disagree the gate
    // refuses on that already.
    let leader = members
        .iter()
        .filter_map(|m| m.status())
        .map(|s| s.leader)
        .find(|l| *l != 0);
    let leader_at = leader.and_then(|id| members.iter().position(|m| m.id == Some(id)));
    let known_progress = leader_at
        .and_then(|i| early.get(i))
        .and_then(|e| e.progress.clone())
        .and_then(|p| p.ok());
    let leader_dial = leader_at.and_then(|i| members[i].dial.clone());
    // Whom a failure names: the leader by name, so that a hung leader is
    // not read as a snapshot on its way to each healthy follower.
    let leader_name = leader_at.map(|i| members[i].name.clone());
    let leader_silent = leader_at.is_some_and(|i| members[i].status().is_none());
    let progress = async {
        match (known_progress, &leader_dial, &leader_name) {
            (Some(map), _, _) => Ok(map),
            // Its Status went unanswered in this look: a second wait on
            // the same member would only add its timeout.
            (None, _, Some(name)) if leader_silent => Err(format!(
                "the leader, {name}, did not answer, so its raft progress for this member is unknown"
            )),
            (None, Some(dial), name) => ops.raft_progress(dial).await.map_err(|e| {
                format!(
                    "the leader's raft progress ({} {e})",
                    name.as_deref().unwrap_or("its")
                )
            }),
            (None, None, _) => Err("no leader could be asked for its raft progress".to_string()),
        }
    };
    let in_flight = join_all(which.iter().map(|&i| {
        let dial = members.get(i).and_then(|m| m.dial.clone());
        let known = early
            .get(i)
            .and_then(|e| e.in_flight.clone())
            .and_then(|n| n.ok());
        async move {
            match (known, dial) {
                (Some(n), _) => Ok(n),
                (None, Some(d)) => ops.snapshots_in_flight(&d, read).await,
                (None, None) => Err("it was not dialed".to_string()),
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
/// time is absent. Each is the command's one read of the member's
/// `/metrics` (made beside Status when the look foresaw it, else a round
/// trip now), so callers ask only for the members they need.
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
    use super::{look_timed, quota_in_status, reads_beside_status, Beside, SEED_STATUS_GRACE};
    use crate::etcd::fake::{FakeCluster, Op};
    use crate::failure::FailureCause;
    use std::time::Duration;

    #[test]
    fn what_goes_out_beside_status_follows_the_release_and_the_leader() {
        let b = |metrics, in_flight, progress| Beside {
            metrics,
            in_flight,
            progress,
        };
        for (release, leads, want) in [
            // Quota in /metrics, and the applySnapshot race.
            (Some("3.4.23"), None, b(true, true, true)),
            (Some("3.4.23"), Some(true), b(true, true, true)),
            (Some("3.4.23"), Some(false), b(true, true, false)),
            (Some("3.5.22"), Some(false), b(true, true, false)),
            // Quota in /metrics only.
            (Some("3.5.23"), None, b(true, false, false)),
            (Some("3.5.35"), Some(true), b(true, false, false)),
            // The race only.
            (Some("3.6.4"), Some(true), b(false, true, true)),
            (Some("3.6.4"), Some(false), b(false, true, false)),
            // Neither: nothing beside Status.
            (Some("3.6.5"), None, b(false, false, false)),
            (Some("3.7.3"), Some(true), b(false, false, false)),
            (None, None, b(false, false, false)),
            (Some("not a release"), None, b(false, false, false)),
        ] {
            assert_eq!(
                reads_beside_status(release, leads),
                want,
                "{release:?} leads {leads:?}"
            );
        }
    }

    /// The seeds are asked for their Status beside MemberList, to learn
    /// the release before the others are asked; a seed whose Status hangs
    /// holds the look up by no more than the grace, and is asked again with
    /// the others.
    #[tokio::test(start_paused = true)]
    async fn a_seed_whose_status_hangs_holds_the_look_up_by_the_grace_only() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        let mut target = fake.target();
        target.dials.truncate(1);
        fake.fail(
            "a",
            Op::Status,
            FailureCause::Timeout {
                after: Duration::from_secs(5),
            },
            1,
        );
        let t0 = tokio::time::Instant::now();
        let (look, asked) = look_timed(&fake, &target).await.expect("look");
        assert!(asked - t0 <= SEED_STATUS_GRACE, "{:?}", asked - t0);
        assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
        assert!(look.members.iter().all(|m| m.status().is_some()));
        let status_calls: Vec<String> = fake
            .calls_of(Op::Status)
            .into_iter()
            .map(|c| c.member)
            .collect();
        assert_eq!(status_calls, ["a", "a", "b", "c"]);
    }

    /// With discovery the seed's Status goes out with its MemberList, and
    /// the others' Status after; without it (every member's address known
    /// before any dial, as in plugin mode) MemberList, AlarmList and every
    /// Status go out at once.
    #[tokio::test(start_paused = true)]
    async fn without_discovery_every_question_goes_out_at_once() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        fake.delay("a", Op::MemberList, Duration::from_millis(300));
        let mut target = fake.target();
        target.dials.truncate(1);
        let t0 = tokio::time::Instant::now();
        look_timed(&fake, &target).await.expect("look");
        let late = |op| {
            fake.calls_of(op)
                .into_iter()
                .filter(|c| c.started > t0)
                .map(|c| c.member)
                .collect::<Vec<_>>()
        };
        assert_eq!(late(Op::Status), ["a", "b", "c"]);
        assert_eq!(late(Op::AlarmList), ["a"]);

        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        fake.delay("a", Op::MemberList, Duration::from_millis(300));
        let mut target = fake.target();
        target.discover = false;
        let t0 = tokio::time::Instant::now();
        let look = look_timed(&fake, &target).await.expect("look").0;
        assert!(look.members.iter().all(|m| m.status().is_some()));
        assert_eq!(look.members.len(), 3);
        for call in fake.calls() {
            assert_eq!(call.started, t0, "{call:?}");
        }
        assert_eq!(fake.calls_of(Op::Status).len(), 3);
    }

    /// A leader that did not answer this look is named as what keeps each
    /// follower's snapshot watch unread, not asked again (its timeout
    /// would only add up), and not taken for a snapshot on its way.
    #[tokio::test(start_paused = true)]
    async fn a_silent_leader_is_named_in_each_followers_watch() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        fake.version("3.4.23");
        let mut look = super::look(&fake, &fake.target()).await.expect("look");
        let leader = fake.leader();
        let at = look
            .members
            .iter()
            .position(|m| m.name == leader)
            .expect("the leader");
        look.members[at].probe = crate::look::Probe::timed_out_for_test();
        let followers: Vec<usize> = (0..3).filter(|i| *i != at).collect();
        let watches = super::snapshot_watches(&fake, &look.members, &followers).await;
        assert_eq!(watches.len(), 2);
        for watch in watches {
            assert!(!watch.quiet());
            let why = watch.why_not_quiet();
            assert!(
                why.contains(&format!(
                    "the leader, {leader}, did not answer, so its raft progress for this member is unknown"
                )),
                "{why}"
            );
            assert!(!why.contains("sending it a snapshot"), "{why}");
        }
    }

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
