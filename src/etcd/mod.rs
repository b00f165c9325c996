//! The seam between decisions and etcd: plain data types for what etcd
//! answers, `EtcdOps` (exactly the RPCs the tool uses, addressed to one
//! member's endpoint), and the classification of connection failures into
//! causes an operator can act on.
//!
//! Every RPC names the member it goes to. The real implementation keeps one
//! gRPC channel per member endpoint, never a load-balanced one: a Status or
//! Defragment that landed on a different member would be silently wrong.

pub mod classify;
pub mod client;

use std::future::Future;

use serde::Serialize;

pub use classify::{ConnectFailure, FailureCause};
pub use client::EtcdClients;

use crate::target::Dial;

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
    /// `errors`: alarms (`memberID:<decimal> alarm:<TYPE> `) and conditions
    /// such as `etcdserver: no leader`.
    pub errors: Vec<String>,
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

/// Parses an alarm out of a Status `errors` entry such as
/// `memberID:10501334649042878790 alarm:NOSPACE ` (decimal id, trailing
/// space). Returns `None` for entries that are not alarms.
pub fn parse_alarm_entry(entry: &str) -> Option<Alarm> {
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

/// A failed RPC: where it went, what it was, and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub endpoint: String,
    pub op: &'static str,
    pub cause: FailureCause,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}: {}", self.op, self.endpoint, self.cause)
    }
}

impl std::error::Error for RpcError {}

/// The etcd RPCs the tool issues, each addressed to one member's endpoint.
///
/// Implementations apply their own probe timeout, so a member that does not
/// answer yields an error in bounded time instead of hanging the command.
pub trait EtcdOps: Send + Sync {
    /// `Maintenance.Status` on exactly this member.
    fn status(&self, dial: &Dial) -> impl Future<Output = Result<MemberStatus, RpcError>> + Send;

    /// `Cluster.MemberList`, asked of this member.
    fn member_list(
        &self,
        dial: &Dial,
    ) -> impl Future<Output = Result<Vec<ListedMember>, RpcError>> + Send;

    /// `Maintenance.Alarm` GET, asked of this member (alarms are cluster-wide).
    fn alarm_list(&self, dial: &Dial) -> impl Future<Output = Result<Vec<Alarm>, RpcError>> + Send;

    /// `Maintenance.Alarm` DEACTIVATE of one alarm, sent to this member.
    fn alarm_disarm(
        &self,
        dial: &Dial,
        alarm: &Alarm,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `Maintenance.Defragment` on exactly this member, waiting at most
    /// `limit`. A timeout does not stop the server's defragmentation.
    fn defragment(
        &self,
        dial: &Dial,
        limit: std::time::Duration,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `Maintenance.MoveLeader`, sent to the current leader.
    fn move_leader(
        &self,
        leader: &Dial,
        to: u64,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `KV.Compact` at `revision` (physical: wait until the member that
    /// received it has compacted its backend).
    fn compact(
        &self,
        dial: &Dial,
        revision: i64,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `Maintenance.HashKV` at `revision` on exactly this member.
    fn hash_kv(
        &self,
        dial: &Dial,
        revision: i64,
    ) -> impl Future<Output = Result<KvHash, RpcError>> + Send;
}

/// A member's HashKV answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvHash {
    pub hash: u32,
    pub compact_revision: i64,
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
    }
}
