//! The seam between decisions and etcd: `EtcdOps` (exactly the RPCs the
//! tool uses, addressed to one member's endpoint), its real implementation,
//! a scripted fake for tests, and `take` (the look at every member through
//! it). What etcd answers is plain data owned by `look`, and what went wrong
//! by `failure`, so that decisions never depend on this module.
//!
//! Every RPC names the member it goes to. The real implementation keeps one
//! gRPC channel per member endpoint, never a load-balanced one: a Status or
//! Defragment that landed on a different member would be silently wrong.

pub mod bolt;
pub mod client;
pub mod clock;
#[cfg(test)]
pub mod fake;
pub mod http;
mod streams;
pub mod take;

use std::collections::BTreeMap;
use std::future::Future;

pub use crate::failure::{ConnectFailure, FailureCause, RpcError, SettingsFrom};
pub use client::EtcdClients;

use crate::look::{Alarm, ListedMember, MemberStatus};
use crate::reach::Dial;

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
    /// `may_send` is asked once the member's connection is ready, and the
    /// request handed to it with nothing awaited between: `false` sends
    /// nothing and answers `FailureCause::Withheld`.
    fn defragment(
        &self,
        dial: &Dial,
        limit: std::time::Duration,
        may_send: &(dyn Fn() -> bool + Sync),
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `Maintenance.MoveLeader`, sent to the current leader.
    fn move_leader(
        &self,
        leader: &Dial,
        to: u64,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `KV.Compact` at `revision`; `physical`: answer only once the member
    /// that received it has compacted its backend.
    fn compact(
        &self,
        dial: &Dial,
        revision: i64,
        physical: bool,
    ) -> impl Future<Output = Result<(), RpcError>> + Send;

    /// `Maintenance.HashKV` at `revision` (0: the member's current
    /// revision) on exactly this member.
    fn hash_kv(
        &self,
        dial: &Dial,
        revision: i64,
    ) -> impl Future<Output = Result<KvHash, RpcError>> + Send;

    /// `KV.Range` of every key under `prefix` as of `revision`, at most
    /// `limit` of them (serializable: this member's own view).
    fn range_prefix(
        &self,
        dial: &Dial,
        prefix: &str,
        revision: i64,
        limit: i64,
    ) -> impl Future<Output = Result<Vec<StoredKey>, RpcError>> + Send;

    /// `KV.Range` of one page of `[start, end)` as of `revision` (0: the
    /// member's current one), at most `limit` keys, serializable (this
    /// member's own view, no round trip to the leader); values are reduced
    /// to their length, or not sent at all with `keys_only`.
    fn range_page(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        revision: i64,
        limit: i64,
        keys_only: bool,
    ) -> impl Future<Output = Result<RangePage, RpcError>> + Send;

    /// `Watch` of `[start, end)` on exactly this member, from
    /// `from_revision`: every write as it is applied there, in batches,
    /// until the stream is dropped.
    fn watch_changes(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        from_revision: i64,
    ) -> impl Future<Output = Result<ChangeStream, RpcError>> + Send;

    /// `Maintenance.Snapshot` from exactly this member: its backend as a
    /// stream of chunks, ending with the SHA-256 etcd appends. The stream
    /// fails when no chunk arrives within the implementation's inactivity
    /// limit, never because the whole transfer takes long.
    fn snapshot(
        &self,
        dial: &Dial,
    ) -> impl Future<Output = Result<SnapshotStream, RpcError>> + Send;

    /// `Cluster.MemberAdd`, asked of this member: a new voter or learner
    /// with these peer URLs. Answers the new id and the list after.
    fn member_add(
        &self,
        dial: &Dial,
        peer_urls: &[String],
        learner: bool,
    ) -> impl Future<Output = Result<(u64, Vec<ListedMember>), RpcError>> + Send;

    /// `Cluster.MemberPromote` of a learner, asked of this member.
    fn member_promote(
        &self,
        dial: &Dial,
        id: u64,
    ) -> impl Future<Output = Result<Vec<ListedMember>, RpcError>> + Send;

    /// `Cluster.MemberRemove`, asked of this member.
    fn member_remove(
        &self,
        dial: &Dial,
        id: u64,
    ) -> impl Future<Output = Result<Vec<ListedMember>, RpcError>> + Send;

    /// The member's backend quota as its `/metrics` report it
    /// (`etcd_server_quota_backend_bytes`, present from etcd 3.4 on), for
    /// members whose Status does not carry it. `None` when the metrics
    /// cannot be read (another metrics port, a proxy in the way): the
    /// caller then has no figure of the member's own.
    fn backend_quota(&self, dial: &Dial) -> impl Future<Output = Option<u64>> + Send;

    /// The member's `/metrics` text, read once per command (its quota and
    /// feature gates come from the one read): over TLS on the member's gRPC
    /// connection, else on a connection of its own.
    fn metrics(
        &self,
        dial: &Dial,
    ) -> impl Future<Output = Result<std::sync::Arc<str>, String>> + Send;

    /// The leader's raft progress for each member (member id → `StateReplicate`,
    /// `StateProbe` or `StateSnapshot`), from its `/debug/vars`. Only the
    /// leader tracks progress: asked of another member it is an error.
    fn raft_progress(
        &self,
        leader: &Dial,
    ) -> impl Future<Output = Result<BTreeMap<u64, String>, String>> + Send;

    /// Snapshots this member is receiving or applying now, from its
    /// `/metrics`: the command's one read of them (`Read::Once`, a look),
    /// or a read of its own (`Read::Afresh`, right before a member is
    /// touched).
    fn snapshots_in_flight(
        &self,
        dial: &Dial,
        read: Read,
    ) -> impl Future<Output = Result<u64, String>> + Send;

    /// Makes every member recompute its in-use size without writing a key:
    /// a Lease is granted and revoked through this member. etcd computes
    /// `dbSizeInUse` only when a member commits its backend, so after a
    /// compaction an idle member keeps showing the size from before it;
    /// the grant and the revoke are backend commits on every member. The
    /// revision does not move. Refused while NOSPACE is raised (etcd
    /// refuses new Leases then), which is when the figures stay stale.
    fn refresh_sizes(&self, dial: &Dial) -> impl Future<Output = Result<(), RpcError>> + Send;
}

/// Whether a read of a member's `/metrics` may be the command's one read
/// of them, or must be taken now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// The read the command made already, or makes now for every caller.
    Once,
    /// A read of its own, taken now.
    Afresh,
}

/// A key and its value as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKey {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub mod_revision: i64,
}

/// A key as a Range or a Watch returns it, its value reduced to a length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySize {
    pub key: Vec<u8>,
    /// `None` for a keys-only Range.
    pub value_len: Option<u64>,
    pub create_revision: i64,
    pub mod_revision: i64,
    pub version: i64,
    pub lease: i64,
}

/// One page of a Range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangePage {
    pub keys: Vec<KeySize>,
    /// More keys follow in the range.
    pub more: bool,
    /// The member's revision when it answered (the header's).
    pub revision: i64,
}

/// One write a Watch reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub record: KeySize,
    pub deleted: bool,
}

/// A Watch in progress: batches of writes, in revision order.
pub type ChangeStream = futures::stream::BoxStream<'static, Result<Vec<Change>, RpcError>>;

/// One piece of a Snapshot stream: the bytes, and how many the member says
/// are still to come (so the first chunk gives the total).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotChunk {
    pub blob: Vec<u8>,
    pub remaining: u64,
}

/// A Snapshot transfer in progress.
pub type SnapshotStream = futures::stream::BoxStream<'static, Result<SnapshotChunk, RpcError>>;

/// A member's HashKV answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvHash {
    pub hash: u32,
    pub compact_revision: i64,
    /// The revision that was hashed (the answer's header revision; with a
    /// requested revision of 0, the member's current one).
    pub revision: i64,
}
