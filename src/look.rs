//! `ClusterLook`: one consistent-enough look at every member (its
//! Status, the MemberList, the AlarmList), as plain data. What etcd answers
//! (`MemberStatus`, `ListedMember`, `Alarm`) is owned here too, so that the
//! decisions in `plan` read it without depending on the I/O that takes it
//! (`etcd::take`).
//!
//! "Snapshot" means three other things in etcd and the operator, so this
//! one is called a look: the backup file (`snapshot save`, `plan::backup`,
//! `etcd::SnapshotChunk`) and the operator's EtcdSnapshot object (which an
//! EtcdDefrag run waits for: `controller::phase::EtcdSnapshots`).

use std::time::Duration;

use serde::Serialize;

use crate::failure::RpcError;
use crate::kubelet::PodProbes;
use crate::reach::{Dial, Endpoint, QuotaFallback, QuotaSource, Scheme, Target};

/// What one member said about itself in `Maintenance.Status`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberStatus {
    /// `header.member_id`: who actually answered.
    pub member_id: u64,
    pub version: String,
    /// `dbSize`: the backend file size in bytes.
    pub db_size: u64,
    /// `dbSizeInUse`: bytes actually used; the rest is reclaimable by defrag.
    pub db_size_in_use: u64,
    /// `dbSizeQuota` (etcd 3.6+); `None` when the member does not report it.
    pub db_size_quota: Option<u64>,
    /// The leader this member believes in; 0 means none.
    pub leader: u64,
    pub raft_term: u64,
    /// The member's raft committed index.
    pub raft_index: u64,
    pub raft_applied_index: u64,
    pub is_learner: bool,
    /// `header.revision`: the store revision this member has applied.
    pub revision: i64,
    /// `storageVersion` (etcd 3.6+): the schema of its backend; `None`
    /// when it does not report one.
    pub storage_version: Option<String>,
    /// `downgradeInfo` (etcd 3.6+): the version a downgrade in progress
    /// goes to.
    pub downgrading_to: Option<String>,
    /// `errors`, parsed where they arrive: alarms
    /// (`memberID:<decimal> alarm:<TYPE> `), `etcdserver: no leader`, and
    /// anything else kept as text.
    pub errors: Vec<StatusError>,
}

impl MemberStatus {
    /// The release the member reports (`3.5.35`), read the one way every
    /// check reads it (`defects::Release::parse`); `None` when it is not a
    /// release number.
    pub fn release(&self) -> Option<crate::defects::Release> {
        crate::defects::Release::parse(&self.version)
    }

    /// The release line (`3.5`) the member runs; the reported text when it
    /// is not a release number.
    pub fn line(&self) -> String {
        self.release().map_or_else(
            || self.version.clone(),
            |r| format!("{}.{}", r.major, r.minor),
        )
    }
}

/// What one member's `/metrics` said.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MemberMetrics {
    /// `etcd_server_leader_changes_seen_total`.
    pub leader_changes: u64,
    /// Seconds since the member's process started
    /// (`process_start_time_seconds` against the check's clock).
    pub uptime_seconds: f64,
    /// The 99th percentile of `etcd_disk_wal_fsync_duration_seconds`,
    /// interpolated in its histogram buckets; `None` before any fsync.
    pub wal_fsync_p99_seconds: Option<f64>,
    /// How many WAL fsyncs that percentile is over.
    pub wal_fsyncs: u64,
    /// `etcd_server_quota_backend_bytes`: the member's own backend quota,
    /// reported by every release (3.4 included), unlike Status, which
    /// carries it from 3.6 on. `None` when absent or not positive.
    pub quota_bytes: Option<u64>,
    /// Leadership transfers this member carried out on request: the
    /// MoveLeader calls it answered with OK (`grpc_server_handled_total`;
    /// only the leader can carry one out, so the sum over the members
    /// counts each requested transfer once).
    pub move_leader_requests: u64,
    /// `etcd_debugging_mvcc_keys_total`: the keys the member's index holds
    /// (every release since 3.4).
    pub keys: Option<u64>,
    /// Compactions the member finished since its process started
    /// (`etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count`).
    pub compactions: Option<u64>,
    /// The cluster version the member works at (`etcd_cluster_version`,
    /// `3.6`): the lowest minor every member runs, once decided; as
    /// (major, minor).
    pub cluster_version: Option<(u32, u32)>,
}

/// One entry of `Cluster.MemberList`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedMember {
    pub id: u64,
    /// Empty for a member that was added but has not started yet.
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

/// An alarm type as etcd names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AlarmKind {
    Nospace,
    Corrupt,
    /// Anything else etcd may add; the gate treats it like CORRUPT.
    Other(String),
}

impl AlarmKind {
    /// etcd's upper-case name (`NOSPACE`, `CORRUPT`).
    pub fn as_str(&self) -> &str {
        match self {
            AlarmKind::Nospace => "NOSPACE",
            AlarmKind::Corrupt => "CORRUPT",
            AlarmKind::Other(s) => s,
        }
    }

    /// Parses etcd's name; unknown names are kept, not dropped.
    pub fn from_name(name: &str) -> AlarmKind {
        match name {
            "NOSPACE" => AlarmKind::Nospace,
            "CORRUPT" => AlarmKind::Corrupt,
            other => AlarmKind::Other(other.to_string()),
        }
    }
}

/// One raised alarm: which member, which kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Alarm {
    pub member_id: u64,
    pub kind: AlarmKind,
}

/// One entry of a Status `errors` list, parsed once where it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatusError {
    /// `memberID:<decimal> alarm:<TYPE> `: etcd lists every cluster-wide
    /// alarm on every member.
    Alarm(Alarm),
    /// `etcdserver: no leader`.
    NoLeader,
    /// Anything else, as etcd wrote it.
    Other(String),
}

impl StatusError {
    /// Parses one entry as etcd writes it.
    pub fn parse(entry: &str) -> StatusError {
        if let Some(alarm) = parse_alarm_entry(entry) {
            StatusError::Alarm(alarm)
        } else if entry.trim() == "etcdserver: no leader" {
            StatusError::NoLeader
        } else {
            StatusError::Other(entry.trim().to_string())
        }
    }
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StatusError::Alarm(a) => {
                write!(f, "memberID:{} alarm:{}", a.member_id, a.kind.as_str())
            }
            StatusError::NoLeader => f.write_str("etcdserver: no leader"),
            StatusError::Other(text) => f.write_str(text),
        }
    }
}

/// Parses an alarm out of a Status `errors` entry such as
/// `memberID:10501334649042878790 alarm:NOSPACE ` (decimal id, trailing
/// space). Returns `None` for entries that are not alarms.
fn parse_alarm_entry(entry: &str) -> Option<Alarm> {
    let mut member = None;
    let mut kind = None;
    for word in entry.split_whitespace() {
        if let Some(id) = word.strip_prefix("memberID:") {
            member = id.parse::<u64>().ok();
        } else if let Some(k) = word.strip_prefix("alarm:") {
            kind = Some(AlarmKind::from_name(k));
        }
    }
    Some(Alarm {
        member_id: member?,
        kind: kind?,
    })
}

/// What probing one member produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// The member answered Status.
    Answered(MemberStatus),
    /// The member was dialed and failed or timed out.
    Failed(RpcError),
    /// The member was not dialed; the text says why.
    NotProbed(String),
}

/// One member as the look saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberLook {
    /// The member's name in MemberList; the endpoint when it is unknown.
    pub name: String,
    /// Member id from MemberList or from the Status header.
    pub id: Option<u64>,
    /// Where it was dialed.
    pub dial: Option<Dial>,
    /// Its MemberList entry, when MemberList answered and lists it.
    pub listed: Option<ListedMember>,
    pub probe: Probe,
    /// The quota that applies to it, and where that figure came from.
    pub quota_bytes: u64,
    pub quota_source: QuotaSource,
    /// How long its Status took to answer, from when the look asked every
    /// member at once: an answer is the member's view as of some moment in
    /// that span, so a slow one may be from another moment than the rest
    /// (`plan::moment::one_moment`). `None` when it did not answer.
    pub answered_in: Option<Duration>,
    /// Whether a snapshot from the leader could be reaching this member,
    /// read only for members whose release has the applySnapshot/Defragment
    /// race (`defects::APPLY_SNAPSHOT_DURING_DEFRAG`). `None`: not read.
    pub snapshot_watch: Option<SnapshotWatch>,
    /// The probes its Pod's etcd container has, read from the API server
    /// when the cluster was resolved (plugin mode). `None`: not known.
    pub probes: Option<PodProbes>,
    /// The room on its data volume, read beside the look (`exec::RoomReader`).
    /// `None`: nobody could ask (standalone mode, or the look was taken
    /// without a reader).
    pub room: Option<Room>,
}

/// What is known of the room on a member's data volume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "known")]
pub enum Room {
    /// Read where the tool can really know it.
    #[serde(rename = "read")]
    Read(DiskRoom),
    /// Asked for, and not known: why, and what would make it known.
    #[serde(rename = "unknown")]
    Unknown { why: String },
}

/// The free space on a member's data volume, and where the figure came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskRoom {
    pub free_bytes: u64,
    pub capacity_bytes: Option<u64>,
    /// E.g. `the kubelet's statistics of volume data on node n1`.
    pub source: String,
}

/// What says whether a snapshot from the leader could be on its way to a
/// member, or being applied by it. etcd's leader sends a whole snapshot to
/// a follower whose log it no longer holds; the follower saves it, then
/// swaps its backend for it (`applySnapshot`), which on the affected
/// releases may run while a Defragment rewrites the same backend.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SnapshotWatch {
    /// The leader's raft progress state for this member, from the leader's
    /// `/debug/vars` (`raft.status.progress`): `StateReplicate` when it
    /// streams entries, `StateProbe` while it looks for where the member's
    /// log ends, `StateSnapshot` while a snapshot is being sent.
    pub leader_progress: Option<String>,
    /// Snapshots the member is receiving or applying now, from its own
    /// `/metrics` (`etcd_network_snapshot_receive_inflights_total` plus
    /// `etcd_server_snapshot_apply_in_progress_total`, both from 3.4).
    pub in_flight: Option<u64>,
    /// What could not be read, and why.
    pub unread: Vec<String>,
}

impl SnapshotWatch {
    /// Whether nothing says a snapshot is coming or being applied: the
    /// leader streams entries to the member and the member has no
    /// snapshot in flight. Anything unread counts as a possible snapshot.
    pub fn quiet(&self) -> bool {
        self.unread.is_empty()
            && self.leader_progress.as_deref() == Some("StateReplicate")
            && self.in_flight == Some(0)
    }

    /// Why it is not quiet, in words.
    pub fn why_not_quiet(&self) -> String {
        let mut why = Vec::new();
        match self.leader_progress.as_deref() {
            Some("StateReplicate") | None => {}
            Some("StateSnapshot") => why.push("the leader is sending it a snapshot".to_string()),
            Some(state) => why.push(format!(
                "the leader's raft progress for it is {state}, not StateReplicate (it may need a snapshot)"
            )),
        }
        if let Some(n) = self.in_flight.filter(|n| *n > 0) {
            why.push(format!("it is receiving or applying {n} snapshot(s)"));
        }
        why.extend(self.unread.iter().cloned());
        why.join("; ")
    }
}

#[cfg(test)]
impl Probe {
    /// For tests: a member that did not answer within 5 s.
    pub(crate) fn timed_out_for_test() -> Probe {
        Probe::Failed(RpcError {
            endpoint: "http://127.0.0.1:2379".into(),
            op: "Status",
            cause: crate::failure::FailureCause::Timeout {
                after: std::time::Duration::from_secs(5),
            },
        })
    }

    /// For tests: a member whose port refused the connection.
    pub(crate) fn refused_for_test() -> Probe {
        Probe::Failed(RpcError {
            endpoint: "http://127.0.0.1:2379".into(),
            op: "Status",
            cause: crate::failure::FailureCause::Refused,
        })
    }
}

#[cfg(test)]
impl MemberLook {
    /// For tests: a member MemberList lists as `name`/`id`, whose probe is
    /// `probe`, with etcd's default 2 GiB quota (struct update to change it).
    pub(crate) fn listed_for_test(
        name: &str,
        id: u64,
        is_learner: bool,
        probe: Probe,
    ) -> MemberLook {
        MemberLook {
            name: name.into(),
            id: Some(id),
            dial: None,
            listed: Some(ListedMember {
                id,
                name: name.into(),
                peer_urls: vec![],
                client_urls: vec![],
                is_learner,
            }),
            probe,
            quota_bytes: 2 << 30,
            quota_source: QuotaSource::Default,
            answered_in: None,
            snapshot_watch: None,
            probes: None,
            room: None,
        }
    }
}

impl MemberLook {
    /// The Status answer, if any.
    pub fn status(&self) -> Option<&MemberStatus> {
        match &self.probe {
            Probe::Answered(s) => Some(s),
            _ => None,
        }
    }

    /// Whether MemberList (or, failing that, the member itself) says learner.
    pub fn is_learner(&self) -> bool {
        match (&self.listed, self.status()) {
            (Some(l), _) => l.is_learner,
            (None, Some(s)) => s.is_learner,
            (None, None) => false,
        }
    }
}

/// A defrag of the same cluster that another processor runs or will run:
/// a non-terminal EtcdDefrag naming it, as the API server showed it right
/// before a step (plugin mode only). Plain data; `k8s::active_defrags`
/// reads it, the gate refuses on it (`gate::others`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherDefrag {
    /// `namespace/name` of the EtcdDefrag.
    pub run: String,
    /// Its `status.phase`, `Pending` when none was written yet.
    pub phase: String,
    /// Who drives it, as far as the object tells: the field manager of its
    /// last status write, or that nobody has written one yet.
    pub driver: String,
}

/// An EtcdDefragPolicy of the same cluster that is not suspended: its
/// processor stamps a run on every tick (plugin mode only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicySchedule {
    /// `namespace/name` of the EtcdDefragPolicy.
    pub policy: String,
    /// Its `spec.schedule`, as written.
    pub schedule: String,
    /// Where its processor counts ticks from: `status.lastScheduleTime`,
    /// else its creation.
    pub earliest: Option<jiff::Timestamp>,
}

/// What other processors of the cluster are doing and will do, as the API
/// server showed it right before a step.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outside {
    pub runs: Vec<OtherDefrag>,
    pub policies: Vec<PolicySchedule>,
}

/// Everything a decision needs, taken at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterLook {
    /// In MemberList order (then any probed endpoint MemberList did not list).
    pub members: Vec<MemberLook>,
    /// Whether MemberList answered; without it the voter set is unknown.
    pub member_list_known: bool,
    /// Alarms from AlarmList and from every member's Status errors, merged.
    pub alarms: Vec<Alarm>,
    /// Why AlarmList failed, when it did.
    pub alarm_list_error: Option<String>,
}

impl ClusterLook {
    /// (name, version) of every member that answered Status, for
    /// `defects::among`.
    pub fn versions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.members
            .iter()
            .filter_map(|m| m.status().map(|s| (m.name.as_str(), s.version.as_str())))
    }

    /// The member with this id.
    pub fn member_by_id(&self, id: u64) -> Option<&MemberLook> {
        self.members.iter().find(|m| m.id == Some(id))
    }

    /// The cluster's current revision: the highest any member reports.
    pub fn revision(&self) -> i64 {
        self.members
            .iter()
            .filter_map(|m| m.status().map(|s| s.revision))
            .max()
            .unwrap_or(0)
    }

    /// A readable name for a member id (its name, else the hex id).
    pub fn name_of(&self, id: u64) -> String {
        self.member_by_id(id)
            .map(|m| m.name.clone())
            .unwrap_or_else(|| format!("{id:016x}"))
    }
}

/// Adds every member's dial to the target's seeds (with discovery on), so
/// that later snapshots still work when the endpoint first given goes down —
/// a sweep must survive its seed being stopped or defragmented.
pub fn with_members_as_seeds(target: &Target, snapshot: &ClusterLook) -> Target {
    let mut target = target.clone();
    if target.discover {
        for dial in snapshot.members.iter().filter_map(|m| m.dial.clone()) {
            if !target.dials.contains(&dial) {
                target.dials.push(dial);
            }
        }
    }
    target
}

pub(crate) fn member_row(
    listed: Option<ListedMember>,
    dial: Option<Dial>,
    probe: Probe,
    fallback: QuotaFallback,
) -> MemberLook {
    let status_id = match &probe {
        Probe::Answered(s) if s.member_id != 0 => Some(s.member_id),
        _ => None,
    };
    let id = listed.as_ref().map(|l| l.id).or(status_id);
    let name = match (&listed, &dial) {
        (Some(l), _) if !l.name.is_empty() => l.name.clone(),
        (Some(l), _) => format!("(unstarted {:016x})", l.id),
        (None, Some(d)) => d.endpoint.to_string(),
        (None, None) => "(unknown)".into(),
    };
    let (quota_bytes, quota_source) = match &probe {
        Probe::Answered(MemberStatus {
            db_size_quota: Some(q),
            ..
        }) => (*q, QuotaSource::Member),
        _ => (fallback.bytes, fallback.source),
    };
    MemberLook {
        name,
        id,
        dial,
        listed,
        probe,
        quota_bytes,
        quota_source,
        answered_in: None,
        snapshot_watch: None,
        probes: None,
        room: None,
    }
}

/// Picks where to dial a listed member: a seed that is one of its client
/// URLs (keeping that seed's TLS name), else its first client URL.
pub(crate) fn dial_for_listed(
    member: &ListedMember,
    seeds: &[Dial],
) -> std::result::Result<Dial, String> {
    if member.client_urls.is_empty() {
        return Err("member has no client URL yet (added but not started)".into());
    }
    let mut first_error = None;
    let mut first_parsed = None;
    for url in &member.client_urls {
        match Endpoint::parse(url, Scheme::Http) {
            Ok(endpoint) => {
                if let Some(seed) = seeds.iter().find(|s| s.endpoint == endpoint) {
                    return Ok(seed.clone());
                }
                if first_parsed.is_none() {
                    first_parsed = Some(endpoint);
                }
            }
            Err(e) => {
                if first_error.is_none() {
                    first_error = Some(format!("advertised client URL {url:?} is unusable: {e}"));
                }
            }
        }
    }
    match first_parsed {
        Some(endpoint) => Ok(Dial::new(endpoint)),
        None => Err(first_error.unwrap_or_else(|| "no usable client URL".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_error_entries_parse_into_alarms() {
        assert_eq!(
            parse_alarm_entry("memberID:10501334649042878790 alarm:NOSPACE "),
            Some(Alarm {
                member_id: 10501334649042878790,
                kind: AlarmKind::Nospace
            })
        );
        assert_eq!(
            parse_alarm_entry("memberID:1 alarm:CORRUPT"),
            Some(Alarm {
                member_id: 1,
                kind: AlarmKind::Corrupt
            })
        );
        assert_eq!(
            parse_alarm_entry("memberID:2 alarm:FUTURE"),
            Some(Alarm {
                member_id: 2,
                kind: AlarmKind::Other("FUTURE".into())
            })
        );
        assert_eq!(parse_alarm_entry("etcdserver: no leader"), None);
        assert_eq!(
            StatusError::parse("etcdserver: no leader"),
            StatusError::NoLeader
        );
        assert_eq!(
            StatusError::parse("memberID:1 alarm:CORRUPT "),
            StatusError::Alarm(Alarm {
                member_id: 1,
                kind: AlarmKind::Corrupt
            })
        );
        assert_eq!(
            StatusError::parse("etcdserver: something else "),
            StatusError::Other("etcdserver: something else".into())
        );
    }
}

/// What the operator's EtcdCluster status says of the cluster (plugin
/// mode), as plain data for `plan::operator` to hold against the members.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorSays {
    /// The `Available` condition: status, reason, message.
    pub available: Option<(bool, String, String)>,
    /// `status.readyMembers`.
    pub ready_members: Option<i32>,
    /// `status.observed.replicas`: the members the operator works toward.
    pub replicas: Option<i32>,
    /// `status.observed.version`, else `spec.version`.
    pub version: Option<String>,
}
