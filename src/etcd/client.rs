//! The real `EtcdOps`: one gRPC channel per member endpoint, built eagerly so
//! that a wrong CA, a missing client certificate or a refused connection is
//! reported as what it is, not as a request that waits forever for a
//! load-balancer to find a ready backend.
//!
//! Connections are made on first use and cached per (endpoint, TLS name);
//! a connection that failed is not cached, so a later probe (for example
//! while waiting for a member to come back) tries again. A dial in progress
//! is shared: a caller that gives up on it (MemberList asks every seed and
//! takes the first answer) leaves it to the next caller instead of throwing
//! a TLS handshake away and dialing the same member again.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use futures::future::{BoxFuture, FutureExt, Shared};
use std::sync::Mutex;
use std::time::Duration;

use etcd_client::{
    AlarmAction, AlarmOptions, AlarmType, Client, CompactionOptions, Member as EtcdMember,
    MemberAddOptions,
};

mod dial;
mod reads;
mod served;

use super::streams;
use super::{
    ChangeStream, EtcdOps, FailureCause, KvHash, RangePage, RpcError, SettingsFrom, SnapshotStream,
    StoredKey,
};
use crate::error::chain_text;
use crate::failure::{classify, AttemptContext};
use crate::look::{Alarm, AlarmKind, ListedMember, MemberStatus, StatusError};
use crate::reach::{Credentials, Dial, Scheme, Target, TlsMaterial};
use reads::Reading;

/// Connection settings plus the per-member connection cache.
pub struct EtcdClients {
    from: SettingsFrom,
    tls: Option<TlsMaterial>,
    credentials: Option<Credentials>,
    dial_timeout: Duration,
    command_timeout: Duration,
    connections: Mutex<HashMap<String, Dialing>>,
    /// Each member's `/metrics`, read once per command (per
    /// `EtcdClients`): its quota, its feature gates and a look's
    /// snapshots in flight all come from the one read.
    metrics: Mutex<HashMap<String, Reading>>,
    /// What the dials have learned, shared by every one of them.
    learned: Arc<Learned>,
}

/// What connections learn about the cluster as they go.
#[derive(Default)]
struct Learned {
    /// Members (by connection key) that have answered a call: a dropped
    /// connection to one of them means it went away.
    answered: Mutex<HashSet<String>>,
    /// A member answered that authentication is not enabled: credentials
    /// are not sent any more (and the warning was given once).
    auth_off: AtomicBool,
}

impl Learned {
    fn answered(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        match self.answered.lock() {
            Ok(set) => set,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// A connection being made, or made: every caller for the same member
/// awaits the same one.
type Dialing = Shared<BoxFuture<'static, Result<Connected, RpcError>>>;

/// A dialed member: the etcd client, and the HTTP/2 channel under it, on
/// which the member's HTTP endpoints (`/metrics`, `/debug/vars`) answer
/// too over TLS: etcd serves a request that is not gRPC on the same
/// connection (`embed/serve.go`, from 3.4 on).
#[derive(Clone)]
struct Connected {
    client: Client,
    channel: tonic::transport::Channel,
    /// The certificate chain the member served in the handshake (empty
    /// over plain HTTP).
    served: served::Served,
}

impl EtcdClients {
    /// Prepares connections for `target`; nothing is dialed yet.
    pub fn new(target: &Target, dial_timeout: Duration, command_timeout: Duration) -> Self {
        EtcdClients {
            from: if target.cluster.is_some() {
                SettingsFrom::Cluster
            } else {
                SettingsFrom::Flags
            },
            tls: target.tls.clone(),
            credentials: target.credentials.clone(),
            dial_timeout,
            command_timeout,
            connections: Mutex::new(HashMap::new()),
            metrics: Mutex::new(HashMap::new()),
            learned: Arc::default(),
        }
    }

    fn key(dial: &Dial) -> String {
        format!(
            "{}|{}",
            dial.endpoint,
            dial.tls_server_name.as_deref().unwrap_or("")
        )
    }

    fn context(&self, dial: &Dial) -> AttemptContext {
        AttemptContext {
            from: self.from,
            ca_origin: self.tls.as_ref().map(|t| t.ca_origin.clone()),
            user: self.credentials.as_ref().map(|c| c.user.clone()),
            tls_host: dial
                .tls_server_name
                .clone()
                .unwrap_or_else(|| dial.endpoint.host_for_tls().to_string()),
            tls: dial.endpoint.scheme == Scheme::Https,
            client_identity: self.tls.as_ref().is_some_and(|t| t.identity.is_some()),
            answered_before: self.learned.answered().contains(&Self::key(dial)),
        }
    }

    fn connections(&self) -> std::sync::MutexGuard<'_, HashMap<String, Dialing>> {
        match self.connections.lock() {
            Ok(map) => map,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Drops the cached connection to `dial`, if it is `attempt` (or any,
    /// without one), so that the next call dials afresh.
    fn forget(&self, dial: &Dial, attempt: Option<&Dialing>) {
        let key = Self::key(dial);
        let mut map = self.connections();
        if attempt.is_none_or(|a| map.get(&key).is_some_and(|cached| cached.ptr_eq(a))) {
            map.remove(&key);
        }
    }

    async fn client(&self, dial: &Dial) -> Result<Connected, RpcError> {
        let attempt = self
            .connections()
            .entry(Self::key(dial))
            .or_insert_with(|| {
                // The dial owns a copy of the settings, so that it can
                // outlive the call that started it.
                let settings = EtcdClients {
                    from: self.from,
                    tls: self.tls.clone(),
                    credentials: self.credentials.clone(),
                    dial_timeout: self.dial_timeout,
                    command_timeout: self.command_timeout,
                    connections: Mutex::new(HashMap::new()),
                    metrics: Mutex::new(HashMap::new()),
                    learned: self.learned.clone(),
                };
                let dial = dial.clone();
                async move { settings.connect(&dial).await }
                    .boxed()
                    .shared()
            })
            .clone();
        let client = attempt.clone().await;
        if client.is_err() {
            self.forget(dial, Some(&attempt));
        }
        client
    }

    /// Runs one RPC on one member within `limit`. A failed or timed-out call
    /// drops the cached connection so the next attempt dials afresh.
    async fn call<T, F, Fut>(
        &self,
        dial: &Dial,
        op: &'static str,
        limit: Duration,
        rpc: F,
    ) -> Result<T, RpcError>
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = Result<T, etcd_client::Error>>,
    {
        self.call_if(dial, op, limit, &|| true, rpc).await
    }

    /// [`Self::call`], asking `may_send` once the connection is ready:
    /// from that answer to the request's first poll nothing is awaited, so
    /// a stop that came while the connection was made sends nothing.
    async fn call_if<T, F, Fut>(
        &self,
        dial: &Dial,
        op: &'static str,
        limit: Duration,
        may_send: &(dyn Fn() -> bool + Sync),
        rpc: F,
    ) -> Result<T, RpcError>
    where
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = Result<T, etcd_client::Error>>,
    {
        let client = self.client(dial).await?.client;
        if !may_send() {
            return Err(RpcError {
                endpoint: dial.endpoint.to_string(),
                op,
                cause: FailureCause::Withheld,
            });
        }
        let outcome = tokio::time::timeout(limit, rpc(client)).await;
        let cause = match outcome {
            Ok(Ok(value)) => {
                self.learned.answered().insert(Self::key(dial));
                return Ok(value);
            }
            Err(_) => FailureCause::Timeout { after: limit },
            // etcd answers OutOfRange for a revision compacted away or
            // not yet written: typed here, from the gRPC code.
            Ok(Err(etcd_client::Error::GRpcStatus(status)))
                if status.code() == tonic::Code::OutOfRange =>
            {
                FailureCause::RevisionUnavailable {
                    detail: status.message().to_string(),
                }
            }
            Ok(Err(e)) => classify(&chain_text(&e), &self.context(dial)),
        };
        self.forget(dial, None);
        Err(RpcError {
            endpoint: dial.endpoint.to_string(),
            op,
            cause,
        })
    }
}

fn listed(members: &[EtcdMember]) -> Vec<ListedMember> {
    members
        .iter()
        .map(|m| ListedMember {
            id: m.id(),
            name: m.name().to_string(),
            peer_urls: m.peer_urls().to_vec(),
            client_urls: m.client_urls().to_vec(),
            is_learner: m.is_learner(),
        })
        .collect()
}

/// How long a Snapshot stream may go without a chunk before it is treated
/// as stalled: a member busy writing a large backend still sends steadily,
/// so silence this long means a dead connection.
const SNAPSHOT_IDLE: Duration = Duration::from_secs(15);

/// The TTL of the Lease `refresh_sizes` grants: it is revoked at once, and
/// expires by itself should the revoke be lost.
const REFRESH_LEASE_TTL: i64 = 30;

fn non_negative(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn alarm_kind(kind: AlarmType) -> Option<AlarmKind> {
    match kind {
        AlarmType::None => None,
        AlarmType::Nospace => Some(AlarmKind::Nospace),
        AlarmType::Corrupt => Some(AlarmKind::Corrupt),
    }
}

impl EtcdOps for EtcdClients {
    async fn status(&self, dial: &Dial) -> Result<MemberStatus, RpcError> {
        let response = self
            .call(dial, "Status", self.command_timeout, |mut c| async move {
                c.status().await
            })
            .await?;
        let quota = non_negative(response.db_size_quota());
        Ok(MemberStatus {
            member_id: response.header().map(|h| h.member_id()).unwrap_or(0),
            version: response.version().to_string(),
            db_size: non_negative(response.db_size()),
            db_size_in_use: non_negative(response.raft_used_db_size()),
            db_size_quota: (quota > 0).then_some(quota),
            leader: response.leader(),
            raft_term: response.raft_term(),
            raft_index: response.raft_index(),
            raft_applied_index: response.raft_applied_index(),
            is_learner: response.is_learner(),
            revision: response.header().map(|h| h.revision()).unwrap_or(0),
            storage_version: Some(response.storage_version().to_string()).filter(|v| !v.is_empty()),
            downgrading_to: response
                .downgrade_info()
                .filter(|d| d.enabled())
                .map(|d| d.target_version().to_string()),
            errors: response
                .errors()
                .iter()
                .map(|e| StatusError::parse(e))
                .collect(),
        })
    }

    async fn member_list(&self, dial: &Dial) -> Result<Vec<ListedMember>, RpcError> {
        let response = self
            .call(
                dial,
                "MemberList",
                self.command_timeout,
                |mut c| async move { c.member_list().await },
            )
            .await?;
        Ok(listed(response.members()))
    }

    async fn alarm_list(&self, dial: &Dial) -> Result<Vec<Alarm>, RpcError> {
        let response = self
            .call(
                dial,
                "AlarmList",
                self.command_timeout,
                |mut c| async move { c.alarm(AlarmAction::Get, AlarmType::None, None).await },
            )
            .await?;
        Ok(response
            .alarms()
            .iter()
            .filter_map(|a| {
                alarm_kind(a.alarm()).map(|kind| Alarm {
                    member_id: a.member_id(),
                    kind,
                })
            })
            .collect())
    }

    async fn alarm_disarm(&self, dial: &Dial, alarm: &Alarm) -> Result<(), RpcError> {
        let kind = match alarm.kind {
            AlarmKind::Nospace => AlarmType::Nospace,
            AlarmKind::Corrupt => AlarmType::Corrupt,
            AlarmKind::Other(_) => {
                return Err(RpcError {
                    endpoint: dial.endpoint.to_string(),
                    op: "AlarmDisarm",
                    cause: FailureCause::Other(format!(
                        "alarm {} is unknown to this client",
                        alarm.kind.as_str()
                    )),
                })
            }
        };
        let member = alarm.member_id;
        self.call(
            dial,
            "AlarmDisarm",
            self.command_timeout,
            |mut c| async move {
                let mut options = AlarmOptions::new();
                options.with_member(member);
                c.alarm(AlarmAction::Deactivate, kind, Some(options)).await
            },
        )
        .await
        .map(|_| ())
    }

    async fn defragment(
        &self,
        dial: &Dial,
        limit: Duration,
        may_send: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), RpcError> {
        self.call_if(dial, "Defragment", limit, may_send, |mut c| async move {
            c.defragment().await
        })
        .await
        .map(|_| ())
    }

    async fn move_leader(&self, leader: &Dial, to: u64) -> Result<(), RpcError> {
        self.call(
            leader,
            "MoveLeader",
            self.command_timeout,
            |mut c| async move { c.move_leader(to).await },
        )
        .await
        .map(|_| ())
    }

    async fn compact(&self, dial: &Dial, revision: i64, physical: bool) -> Result<(), RpcError> {
        // Physical compaction of a large history can take longer than a probe.
        let limit = self.command_timeout.max(Duration::from_secs(60));
        self.call(dial, "Compact", limit, |mut c| async move {
            let options = if physical {
                CompactionOptions::new().with_physical()
            } else {
                CompactionOptions::new()
            };
            c.compact(revision, Some(options)).await
        })
        .await
        .map(|_| ())
    }

    async fn hash_kv(&self, dial: &Dial, revision: i64) -> Result<KvHash, RpcError> {
        let limit = self.command_timeout.max(Duration::from_secs(30));
        let response = self
            .call(dial, "HashKV", limit, |mut c| async move {
                c.hash_kv(revision).await
            })
            .await?;
        Ok(KvHash {
            hash: response.hash(),
            compact_revision: response.compact_version(),
            revision: response.header().map(|h| h.revision()).unwrap_or(revision),
        })
    }

    async fn range_prefix(
        &self,
        dial: &Dial,
        prefix: &str,
        revision: i64,
        limit: i64,
    ) -> Result<Vec<StoredKey>, RpcError> {
        let key = prefix.to_string();
        let response = self
            .call(dial, "Range", self.command_timeout, |mut c| async move {
                let options = etcd_client::GetOptions::new()
                    .with_prefix()
                    .with_revision(revision)
                    .with_limit(limit)
                    .with_serializable();
                c.get(key, Some(options)).await
            })
            .await?;
        Ok(response
            .kvs()
            .iter()
            .map(|kv| StoredKey {
                key: kv.key().to_vec(),
                value: kv.value().to_vec(),
                mod_revision: kv.mod_revision(),
            })
            .collect())
    }

    async fn range_page(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        revision: i64,
        limit: i64,
        keys_only: bool,
    ) -> Result<RangePage, RpcError> {
        let (key, end) = (start.to_vec(), end.to_vec());
        let response = self
            .call(dial, "Range", self.command_timeout, |c| async move {
                let mut options = etcd_client::GetOptions::new()
                    .with_range(end)
                    .with_revision(revision)
                    .with_limit(limit)
                    .with_serializable();
                if keys_only {
                    options = options.with_keys_only();
                }
                // why: a page is sized from the bytes per key seen so far,
                // but one key may hold up to etcd's request limit (1.5 MiB
                // by default, more when raised): tonic's 4 MiB default would
                // refuse a page of a few such keys.
                c.kv_client()
                    .max_decoding_message_size(streams::PAGE_DECODE_LIMIT)
                    .get(key, Some(options))
                    .await
            })
            .await?;
        Ok(RangePage {
            keys: response
                .kvs()
                .iter()
                .map(|kv| streams::key_size(kv, !keys_only))
                .collect(),
            more: response.more(),
            revision: response.header().map(|h| h.revision()).unwrap_or_default(),
        })
    }

    async fn watch_changes(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        from_revision: i64,
    ) -> Result<ChangeStream, RpcError> {
        let (key, end) = (start.to_vec(), end.to_vec());
        let stream = self
            .call(dial, "Watch", self.command_timeout, |c| async move {
                let options = etcd_client::WatchOptions::new()
                    .with_range(end)
                    .with_start_revision(from_revision);
                c.watch_client()
                    .max_decoding_message_size(streams::PAGE_DECODE_LIMIT)
                    .watch(key, Some(options))
                    .await
            })
            .await?;
        Ok(streams::watch_batches(
            stream,
            dial.endpoint.to_string(),
            self.context(dial),
        ))
    }

    async fn snapshot(&self, dial: &Dial) -> Result<SnapshotStream, RpcError> {
        let stream = self
            .call(dial, "Snapshot", self.command_timeout, |mut c| async move {
                c.snapshot().await
            })
            .await?;
        Ok(streams::snapshot_chunks(
            stream,
            dial.endpoint.to_string(),
            self.context(dial),
            self.command_timeout.max(SNAPSHOT_IDLE),
        ))
    }

    async fn member_add(
        &self,
        dial: &Dial,
        peer_urls: &[String],
        learner: bool,
    ) -> Result<(u64, Vec<ListedMember>), RpcError> {
        let urls = peer_urls.to_vec();
        let response = self
            .call(
                dial,
                "MemberAdd",
                self.command_timeout,
                |mut c| async move {
                    let options = learner.then(|| MemberAddOptions::new().with_is_learner());
                    c.member_add(urls, options).await
                },
            )
            .await?;
        let id = response.member().map(|m| m.id()).unwrap_or(0);
        Ok((id, listed(response.member_list())))
    }

    async fn member_promote(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        let response = self
            .call(
                dial,
                "MemberPromote",
                self.command_timeout,
                |mut c| async move { c.member_promote(id).await },
            )
            .await?;
        Ok(listed(response.members()))
    }

    async fn member_remove(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        let response = self
            .call(
                dial,
                "MemberRemove",
                self.command_timeout,
                |mut c| async move { c.member_remove(id).await },
            )
            .await?;
        Ok(listed(response.members()))
    }

    async fn backend_quota(&self, dial: &Dial) -> Option<u64> {
        let body = self
            .metrics_once(dial)
            .await
            .map_err(|e| tracing::debug!("no /metrics from {}: {e}", dial.endpoint))
            .ok()?;
        super::http::parse_metrics(&body, 0.0).quota_bytes
    }

    async fn metrics(&self, dial: &Dial) -> Result<Arc<str>, String> {
        self.metrics_once(dial).await
    }

    async fn raft_progress(&self, leader: &Dial) -> Result<BTreeMap<u64, String>, String> {
        let body = self
            .http_get(leader, "/debug/vars")
            .await
            .map_err(|e| format!("/debug/vars: {e}"))?;
        super::http::parse_raft_progress(&body)
    }

    async fn snapshots_in_flight(&self, dial: &Dial, read: super::Read) -> Result<u64, String> {
        let body = match read {
            super::Read::Once => self.metrics_once(dial).await,
            super::Read::Afresh => self.http_get(dial, "/metrics").await,
        }
        .map_err(|e| format!("/metrics: {e}"))?;
        super::http::parse_snapshots_in_flight(&body)
    }

    async fn refresh_sizes(&self, dial: &Dial) -> Result<(), RpcError> {
        let granted = self
            .call(
                dial,
                "LeaseGrant",
                self.command_timeout,
                |mut c| async move { c.lease_grant(REFRESH_LEASE_TTL, None).await },
            )
            .await?;
        let id = granted.id();
        self.call(
            dial,
            "LeaseRevoke",
            self.command_timeout,
            |mut c| async move { c.lease_revoke(id).await },
        )
        .await
        .map(|_| ())
    }
}
