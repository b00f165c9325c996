//! A scripted etcd cluster behind `EtcdOps`, for testing the engine without
//! servers (style P7, P14 layer 2).
//!
//! Members have names, ids, sizes, a revision and a KV hash; one of them is
//! the leader. Every call is recorded in order (op, member, when, whether it
//! was answered) so a test can assert what was touched and when. Time is
//! `tokio::time`, so tests run with `#[tokio::test(start_paused = true)]`:
//! a 5-minute wait costs nothing.
//!
//! How it behaves, like real etcd where it matters to the engine:
//! - Defragment takes the member's `defrag_takes` time; while it runs the
//!   member answers nothing (a call waits for the end of the defrag when
//!   that is within the call's limit, else times out), and the server goes
//!   on even when the caller's limit passes. When it finishes, the member's
//!   db size shrinks to its in-use size.
//! - MoveLeader, sent to the leader, makes the target the leader.
//! - HashKV at revision 0 hashes the member's current revision; an explicit
//!   revision at or below the compaction point (as etcd 3.4 does) or past
//!   the member's revision is refused with `RevisionUnavailable`.
//! - Scripted trouble: per-member, per-op failures for the next N calls
//!   (`fail`), per-call delays (`delay`), and changes applied once the Nth
//!   defragmentation has finished (`after_defrags`): a member going silent
//!   or coming back, leaving the member list, leadership moving, the whole
//!   cluster going silent.
//!
//! A silent member (or cluster) lets every call run into the caller's limit
//! and fail with `Timeout`; a removed member refuses connections.
//!
//! It also notes any Defragment that starts while another member is still
//! defragmenting (`overlaps`): the engine must never do that.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

use super::{EtcdOps, FailureCause, KvHash, RpcError, SnapshotChunk, SnapshotStream};
use crate::look::{Alarm, AlarmKind, ListedMember, MemberStatus, StatusError};
use crate::reach::{Dial, Endpoint, QuotaFallback, Scheme, Target};

/// One MiB, the unit of the sizes given to [`FakeCluster::new`].
pub const MI: u64 = 1024 * 1024;

/// How long the fake lets a call other than Defragment go unanswered before
/// it fails with `Timeout` (the real client's default `--command-timeout`).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a Defragment takes unless `defrag_takes` says otherwise.
pub const DEFAULT_DEFRAG_TIME: Duration = Duration::from_secs(1);

/// The RPCs of `EtcdOps`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Status,
    MemberList,
    AlarmList,
    AlarmDisarm,
    Defragment,
    MoveLeader,
    Compact,
    HashKv,
    Snapshot,
    MemberAdd,
    MemberPromote,
    MemberRemove,
    RefreshSizes,
    Range,
    Watch,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Status => "Status",
            Op::MemberList => "MemberList",
            Op::AlarmList => "AlarmList",
            Op::AlarmDisarm => "AlarmDisarm",
            Op::Defragment => "Defragment",
            Op::MoveLeader => "MoveLeader",
            Op::Compact => "Compact",
            Op::HashKv => "HashKV",
            Op::Snapshot => "Snapshot",
            Op::MemberAdd => "MemberAdd",
            Op::MemberPromote => "MemberPromote",
            Op::MemberRemove => "MemberRemove",
            Op::RefreshSizes => "LeaseGrant+LeaseRevoke",
            Op::Range => "Range",
            Op::Watch => "Watch",
        }
    }
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub op: Op,
    /// The member dialed (the endpoint, when it is no member's).
    pub member: String,
    pub started: Instant,
    /// When it returned; `None` while in flight.
    pub ended: Option<Instant>,
    /// Whether it was answered; `None` while in flight.
    pub ok: Option<bool>,
}

/// Something that happens to the cluster (see [`FakeCluster::after_defrags`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The member stops answering anything.
    Silence(String),
    /// A silenced member answers again.
    Revive(String),
    /// The member leaves the member list; its endpoint refuses connections.
    Remove(String),
    /// Leadership moves to this member.
    LeaderTo(String),
    /// No member answers anything any more.
    ClusterSilent,
}

struct Member {
    name: String,
    id: u64,
    endpoint: Endpoint,
    db_size: u64,
    in_use: u64,
    revision: i64,
    hash: u32,
    learner: bool,
    removed: bool,
    silent: bool,
    defrag_time: Duration,
    /// Defragmenting until then.
    busy_until: Option<Instant>,
    /// Committed entries not yet applied.
    apply_lag: u64,
    /// The in-use size Status shows instead of `in_use` until the member
    /// next commits its backend (a refresh or its own defrag), as etcd
    /// does after a compaction on an idle member.
    shown_in_use: Option<u64>,
    /// Whether the stale figure outlives the next refresh, moving by a few
    /// MiB only: a compaction that ran on the member after the refresh
    /// had committed, its freed pages still pending until the next commit
    /// (as seen in CI: 70 MiB shown, then 67, with 3 held).
    late_compaction: bool,
    /// Frozen (SIGSTOP) until then, with the leader and term it saw when
    /// frozen: calls that arrive meanwhile are answered at the thaw, from
    /// that view.
    frozen: Option<(Instant, u64, u64)>,
}

/// A failure for the next `remaining` calls of `op` on `member`, once
/// `skip` more of them have been answered.
struct Scripted {
    member: String,
    op: Op,
    cause: FailureCause,
    skip: usize,
    remaining: usize,
}

struct State {
    members: Vec<Member>,
    leader: u64,
    term: u64,
    raft_index: u64,
    compact_revision: i64,
    alarms: Vec<Alarm>,
    silent: bool,
    in_use_churn: bool,
    /// What every member's `/metrics` says its quota is (`None`: no
    /// metrics to read).
    metrics_quota: Option<u64>,
    /// The release every member reports in Status.
    version: String,
    /// The leader's raft progress state for a member, by name, where it is
    /// not `StateReplicate`.
    progress: BTreeMap<String, String>,
    /// Snapshots a member is receiving or applying, by name.
    snapshots: BTreeMap<String, u64>,
    failures: Vec<Scripted>,
    /// How many keys Range pages serve (`/fake/00000000`, …), all at
    /// revision 1 with 100-byte values.
    keys: usize,
    delays: Vec<(String, Op, Duration)>,
    script: Vec<(usize, Change)>,
    defrags_done: usize,
    calls: Vec<Call>,
    overlaps: Vec<(String, String)>,
    /// The members whose Defragment started while they led, in order.
    led_while_defragmented: Vec<String>,
}

/// A scripted cluster. Configure it with the `&self` methods, before or
/// during a run (from an observer, or a task racing the run).
pub struct FakeCluster {
    state: Mutex<State>,
}

/// How a call goes, decided when it arrives.
struct Begun {
    call: usize,
    member: Option<usize>,
    /// How long until it is answered or fails.
    wait: Duration,
    fail: Option<FailureCause>,
    /// The (leader, term) a frozen member answers from.
    view: Option<(u64, u64)>,
}

impl FakeCluster {
    /// A healthy cluster of voters `(name, db size MiB, in use MiB)`, with
    /// ids 1, 2, … in that order; the first is the leader. Every member is
    /// at revision 100 with the same KV hash, nothing compacted.
    pub fn new(members: &[(&str, u64, u64)]) -> FakeCluster {
        let members: Vec<Member> = members
            .iter()
            .zip(1u64..)
            .map(|(&(name, size, used), id)| Member {
                name: name.to_string(),
                id,
                endpoint: Endpoint {
                    scheme: Scheme::Http,
                    host: format!("{name}.fake"),
                    port: 2379,
                },
                db_size: size * MI,
                in_use: used * MI,
                revision: 100,
                hash: 0xC0FF_EE00,
                learner: false,
                removed: false,
                silent: false,
                defrag_time: DEFAULT_DEFRAG_TIME,
                busy_until: None,
                apply_lag: 0,
                shown_in_use: None,
                late_compaction: false,
                frozen: None,
            })
            .collect();
        let leader = members.first().map_or(0, |m| m.id);
        FakeCluster {
            state: Mutex::new(State {
                members,
                leader,
                term: 2,
                raft_index: 1000,
                compact_revision: 0,
                alarms: Vec::new(),
                silent: false,
                in_use_churn: false,
                metrics_quota: None,
                version: "3.5.17".into(),
                progress: BTreeMap::new(),
                snapshots: BTreeMap::new(),
                failures: Vec::new(),
                keys: 0,
                delays: Vec::new(),
                script: Vec::new(),
                defrags_done: 0,
                calls: Vec::new(),
                overlaps: Vec::new(),
                led_while_defragmented: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// A standalone-style target (like `--endpoints` listing every member,
    /// with discovery, plaintext), whose endpoints are the client URLs the
    /// fake's MemberList advertises, so `take::look` works unchanged.
    pub fn target(&self) -> Target {
        Target {
            dials: self
                .lock()
                .members
                .iter()
                .map(|m| Dial::new(m.endpoint.clone()))
                .collect(),
            known: vec![],
            probes_by_name: vec![],
            discover: true,
            tls: None,
            credentials: None,
            quota: QuotaFallback::default(),
            cluster: None,
            release_hint: None,
        }
    }

    // ----- configuration -----

    /// Makes `name` the leader.
    pub fn set_leader(&self, name: &str) {
        self.apply(Change::LeaderTo(name.to_string()));
    }

    /// Makes `name` a learner (in MemberList and in its own Status).
    pub fn set_learner(&self, name: &str) {
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].learner = true;
    }

    /// How long a Defragment of `name` takes on the server.
    pub fn defrag_takes(&self, name: &str, d: Duration) {
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].defrag_time = d;
    }

    /// Every `op` on `name` takes `d` longer to answer.
    pub fn delay(&self, name: &str, op: Op, d: Duration) {
        self.lock().delays.push((name.to_string(), op, d));
    }

    /// The next `times` calls of `op` on `name` fail with `cause` (a
    /// `Timeout { after }` takes that long to fail). `usize::MAX`: always.
    pub fn fail(&self, name: &str, op: Op, cause: FailureCause, times: usize) {
        self.fail_after(name, op, 0, cause, times);
    }

    /// As [`FakeCluster::fail`], once `skip` calls of `op` on `name` have
    /// been answered.
    pub fn fail_after(&self, name: &str, op: Op, skip: usize, cause: FailureCause, times: usize) {
        self.lock().failures.push(Scripted {
            member: name.to_string(),
            op,
            cause,
            skip,
            remaining: times,
        });
    }

    /// Range pages serve `n` keys.
    pub fn hold_keys(&self, n: usize) {
        self.lock().keys = n;
    }

    /// Applies `change` once the `n`th defragmentation (counted over the
    /// whole cluster, as the server finishes them) is done.
    pub fn after_defrags(&self, n: usize, change: Change) {
        self.lock().script.push((n, change));
    }

    /// Applies `change` now.
    pub fn apply(&self, change: Change) {
        self.lock().apply(change);
    }

    /// From now on no member answers anything.
    pub fn go_silent(&self) {
        self.apply(Change::ClusterSilent);
    }

    /// Sets the revision `name` has applied (its Status header revision
    /// and what HashKV at revision 0 hashes).
    pub fn set_revision(&self, name: &str, revision: i64) {
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].revision = revision;
    }

    /// Sets how many committed entries `name` has not applied yet.
    pub fn set_apply_lag(&self, name: &str, lag: u64) {
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].apply_lag = lag;
    }

    /// Sets the KV hash `name` answers.
    pub fn set_hash(&self, name: &str, hash: u32) {
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].hash = hash;
    }

    /// Sets the cluster's compaction point.
    pub fn set_compacted(&self, revision: i64) {
        self.lock().compact_revision = revision;
    }

    /// Raises an alarm on `name` (listed by AlarmList and in every Status).
    pub fn raise_alarm(&self, name: &str, kind: AlarmKind) {
        let mut s = self.lock();
        let member_id = s.members[s.index(name)].id;
        s.alarms.push(Alarm { member_id, kind });
    }

    /// With `true`, every Status answer shows the member's in-use size one
    /// byte smaller than the last: sizes never settle.
    pub fn churn_in_use(&self, on: bool) {
        self.lock().in_use_churn = on;
    }

    /// Every member reports this release in Status.
    pub fn version(&self, version: &str) {
        self.lock().version = version.to_string();
    }

    /// The leader's raft progress state for `name` (`StateSnapshot`,
    /// `StateProbe`; `StateReplicate` is the default), and the snapshots
    /// `name` is receiving or applying.
    pub fn snapshot_to(&self, name: &str, progress: &str, in_flight: u64) {
        let mut s = self.lock();
        s.progress.insert(name.to_string(), progress.to_string());
        s.snapshots.insert(name.to_string(), in_flight);
    }

    /// Every member's `/metrics` reports this quota (`None`: unreadable).
    pub fn metrics_quota(&self, quota: Option<u64>) {
        self.lock().metrics_quota = quota;
    }

    /// A compaction that left `name` holding `in_use_mib` while its Status
    /// still shows the old figure, until a refresh or its defrag.
    pub fn stale_in_use(&self, name: &str, in_use_mib: u64) {
        let mut s = self.lock();
        let i = s.index(name);
        let m = &mut s.members[i];
        m.shown_in_use = Some(m.in_use);
        m.in_use = in_use_mib * MI;
    }

    /// As [`Self::stale_in_use`], for a member whose compaction ran late:
    /// the next refresh moves its figure by 3 MiB only, the one after
    /// shows the truth.
    pub fn late_compaction(&self, name: &str, in_use_mib: u64) {
        self.stale_in_use(name, in_use_mib);
        let mut s = self.lock();
        let i = s.index(name);
        s.members[i].late_compaction = true;
    }

    /// Freezes `name` for `d`, as SIGSTOP does: it answers nothing until
    /// then, and what arrived meanwhile is answered at the thaw from the
    /// leader and term it saw when frozen (a stopped leader that resumes
    /// still says it leads, for a moment), whatever happened since.
    pub fn freeze(&self, name: &str, d: Duration) {
        let mut s = self.lock();
        let i = s.index(name);
        let (leader, term) = (s.leader, s.term);
        s.members[i].frozen = Some((Instant::now() + d, leader, term));
    }

    // ----- inspection -----

    /// The members whose Defragment started while they were the leader,
    /// in order.
    pub fn led_while_defragmented(&self) -> Vec<String> {
        self.lock().led_while_defragmented.clone()
    }

    /// Every call so far, in the order they arrived.
    pub fn calls(&self) -> Vec<Call> {
        self.lock().calls.clone()
    }

    /// The members Defragment was sent to, in order.
    pub fn defrag_order(&self) -> Vec<String> {
        self.calls_of(Op::Defragment)
            .into_iter()
            .map(|c| c.member)
            .collect()
    }

    /// The calls of one op, in order.
    pub fn calls_of(&self, op: Op) -> Vec<Call> {
        self.lock()
            .calls
            .iter()
            .filter(|c| c.op == op)
            .cloned()
            .collect()
    }

    /// `(still defragmenting, started)` for every Defragment that started
    /// while another member was still defragmenting. Must stay empty.
    pub fn overlaps(&self) -> Vec<(String, String)> {
        self.lock().overlaps.clone()
    }

    /// The member's db size now.
    pub fn db_size(&self, name: &str) -> u64 {
        let s = self.lock();
        s.members[s.index(name)].db_size
    }

    /// The member's id.
    pub fn id(&self, name: &str) -> u64 {
        let s = self.lock();
        s.members[s.index(name)].id
    }

    /// The current leader's name.
    pub fn leader(&self) -> String {
        let s = self.lock();
        s.members
            .iter()
            .find(|m| m.id == s.leader)
            .map(|m| m.name.clone())
            .unwrap_or_default()
    }

    /// Alarms still raised.
    pub fn alarms(&self) -> Vec<Alarm> {
        self.lock().alarms.clone()
    }

    // ----- the call machinery -----

    /// Records the call and decides how it goes.
    fn begin(&self, op: Op, dial: &Dial, limit: Duration) -> Begun {
        let now = Instant::now();
        let mut s = self.lock();
        s.tick(now);
        let member = s.members.iter().position(|m| m.endpoint == dial.endpoint);
        let name = member.map_or_else(|| dial.endpoint.to_string(), |i| s.members[i].name.clone());
        s.calls.push(Call {
            op,
            member: name.clone(),
            started: now,
            ended: None,
            ok: None,
        });
        let call = s.calls.len() - 1;
        let timeout = (limit, Some(FailureCause::Timeout { after: limit }));
        let (wait, fail) = match member {
            _ if s.silent => timeout,
            None => (Duration::ZERO, Some(FailureCause::Refused)),
            Some(i) if s.members[i].removed => (Duration::ZERO, Some(FailureCause::Refused)),
            Some(i) if s.members[i].silent => timeout,
            Some(i) => match s.take_failure(&name, op) {
                Some(FailureCause::Timeout { after }) => {
                    (after, Some(FailureCause::Timeout { after }))
                }
                Some(cause) => (Duration::ZERO, Some(cause)),
                None => {
                    // A defragmenting member answers once it is done; a
                    // frozen one once it thaws.
                    let busy = s.members[i]
                        .busy_until
                        .map_or(Duration::ZERO, |t| t.saturating_duration_since(now));
                    let frozen = s.members[i]
                        .frozen
                        .map_or(Duration::ZERO, |(t, _, _)| t.saturating_duration_since(now));
                    let busy = busy.max(frozen);
                    let delay: Duration = s
                        .delays
                        .iter()
                        .filter(|(m, o, _)| *m == name && *o == op)
                        .map(|(_, _, d)| *d)
                        .sum();
                    let wait = busy + delay;
                    if wait > limit {
                        timeout
                    } else {
                        (wait, None)
                    }
                }
            },
        };
        let view = member
            .and_then(|i| s.members[i].frozen)
            .filter(|(until, _, _)| *until > now)
            .map(|(_, leader, term)| (leader, term));
        Begun {
            call,
            member,
            wait,
            fail,
            view,
        }
    }

    /// One call: waits as decided, then answers from the state at that time.
    async fn call<T>(
        &self,
        op: Op,
        dial: &Dial,
        limit: Duration,
        answer: impl FnOnce(&mut State, usize) -> Result<T, FailureCause> + Send,
    ) -> Result<T, RpcError> {
        let begun = self.begin(op, dial, limit);
        tokio::time::sleep(begun.wait).await;
        let result = {
            let mut s = self.lock();
            s.tick(Instant::now());
            let result = match (begun.fail, begun.member) {
                (Some(cause), _) => Err(cause),
                (None, Some(i)) => match begun.view {
                    // Answered from what it saw when it froze.
                    Some((leader, term)) => {
                        let now = (s.leader, s.term);
                        (s.leader, s.term) = (leader, term);
                        let result = answer(&mut s, i);
                        (s.leader, s.term) = now;
                        result
                    }
                    None => answer(&mut s, i),
                },
                (None, None) => Err(FailureCause::Refused),
            };
            s.end(begun.call, result.is_ok());
            result
        };
        result.map_err(|cause| rpc_error(op, dial, cause))
    }
}

fn rpc_error(op: Op, dial: &Dial, cause: FailureCause) -> RpcError {
    RpcError {
        endpoint: dial.endpoint.to_string(),
        op: op.name(),
        cause,
    }
}

impl State {
    fn index(&self, name: &str) -> usize {
        self.members
            .iter()
            .position(|m| m.name == name)
            .unwrap_or_else(|| panic!("the fake has no member {name:?}"))
    }

    fn take_failure(&mut self, member: &str, op: Op) -> Option<FailureCause> {
        let f = self
            .failures
            .iter_mut()
            .find(|f| f.member == member && f.op == op && f.remaining > 0)?;
        if f.skip > 0 {
            f.skip -= 1;
            return None;
        }
        f.remaining -= 1;
        Some(f.cause.clone())
    }

    fn end(&mut self, call: usize, ok: bool) {
        let c = &mut self.calls[call];
        c.ended = Some(Instant::now());
        c.ok = Some(ok);
    }

    /// Finishes every defragmentation due by `now`, in the order they end,
    /// and applies the changes scripted after each.
    fn tick(&mut self, now: Instant) {
        loop {
            let due = self
                .members
                .iter()
                .enumerate()
                .filter_map(|(i, m)| Some((m.busy_until?, i)))
                .filter(|(t, _)| *t <= now)
                .min();
            let Some((_, i)) = due else { return };
            let m = &mut self.members[i];
            m.busy_until = None;
            m.db_size = m.in_use;
            m.shown_in_use = None;
            m.late_compaction = false;
            self.defrags_done += 1;
            let changes: Vec<Change> = self
                .script
                .iter()
                .filter(|(n, _)| *n == self.defrags_done)
                .map(|(_, c)| c.clone())
                .collect();
            for c in changes {
                self.apply(c);
            }
        }
    }

    fn apply(&mut self, change: Change) {
        match change {
            Change::Silence(name) => {
                let i = self.index(&name);
                self.members[i].silent = true;
            }
            Change::Revive(name) => {
                let i = self.index(&name);
                self.members[i].silent = false;
            }
            Change::Remove(name) => {
                let i = self.index(&name);
                self.members[i].removed = true;
            }
            Change::LeaderTo(name) => {
                let i = self.index(&name);
                self.leader = self.members[i].id;
                self.term += 1;
            }
            Change::ClusterSilent => self.silent = true,
        }
    }

    fn status_of(&mut self, i: usize) -> MemberStatus {
        if self.in_use_churn {
            let m = &mut self.members[i];
            m.in_use = m.in_use.saturating_sub(1);
        }
        let m = &self.members[i];
        MemberStatus {
            member_id: m.id,
            version: self.version.clone(),
            db_size: m.db_size,
            db_size_in_use: m.shown_in_use.unwrap_or(m.in_use),
            db_size_quota: None,
            leader: self.leader,
            raft_term: self.term,
            raft_index: self.raft_index,
            raft_applied_index: self.raft_index.saturating_sub(m.apply_lag),
            is_learner: m.learner,
            revision: m.revision,
            storage_version: None,
            downgrading_to: None,
            errors: self
                .alarms
                .iter()
                .map(|a| StatusError::Alarm(a.clone()))
                .collect(),
        }
    }

    fn member_list(&self) -> Vec<ListedMember> {
        self.members
            .iter()
            .filter(|m| !m.removed)
            .map(|m| ListedMember {
                id: m.id,
                name: m.name.clone(),
                peer_urls: vec![format!("http://{}:2380", m.endpoint.host)],
                client_urls: vec![m.endpoint.url()],
                is_learner: m.learner,
            })
            .collect()
    }
}

mod ops;
#[cfg(test)]
mod tests;
