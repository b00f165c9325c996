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
            discover: true,
            tls: None,
            credentials: None,
            quota: QuotaFallback::default(),
            cluster: None,
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

fn revision_unavailable(detail: &str) -> FailureCause {
    FailureCause::RevisionUnavailable {
        detail: detail.to_string(),
    }
}

impl EtcdOps for FakeCluster {
    async fn status(&self, dial: &Dial) -> Result<MemberStatus, RpcError> {
        self.call(Op::Status, dial, PROBE_TIMEOUT, |s, i| Ok(s.status_of(i)))
            .await
    }

    async fn member_list(&self, dial: &Dial) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberList, dial, PROBE_TIMEOUT, |s, _| {
            Ok(s.member_list())
        })
        .await
    }

    async fn alarm_list(&self, dial: &Dial) -> Result<Vec<Alarm>, RpcError> {
        self.call(Op::AlarmList, dial, PROBE_TIMEOUT, |s, _| {
            Ok(s.alarms.clone())
        })
        .await
    }

    async fn alarm_disarm(&self, dial: &Dial, alarm: &Alarm) -> Result<(), RpcError> {
        let alarm = alarm.clone();
        self.call(Op::AlarmDisarm, dial, PROBE_TIMEOUT, move |s, _| {
            s.alarms.retain(|a| *a != alarm);
            Ok(())
        })
        .await
    }

    /// Starts the member's defragmentation and waits for it, at most
    /// `limit`; the server finishes it either way.
    async fn defragment(&self, dial: &Dial, limit: Duration) -> Result<(), RpcError> {
        let begun = self.begin(Op::Defragment, dial, limit);
        tokio::time::sleep(begun.wait).await;
        let takes = {
            let now = Instant::now();
            let mut s = self.lock();
            s.tick(now);
            match (begun.fail, begun.member) {
                (Some(cause), _) => {
                    s.end(begun.call, false);
                    return Err(rpc_error(Op::Defragment, dial, cause));
                }
                (None, None) => {
                    s.end(begun.call, false);
                    return Err(rpc_error(Op::Defragment, dial, FailureCause::Refused));
                }
                (None, Some(i)) => {
                    let name = s.members[i].name.clone();
                    let others: Vec<(String, String)> = s
                        .members
                        .iter()
                        .filter(|m| m.busy_until.is_some() && m.name != name)
                        .map(|m| (m.name.clone(), name.clone()))
                        .collect();
                    s.overlaps.extend(others);
                    if s.members[i].id == s.leader {
                        s.led_while_defragmented.push(name.clone());
                    }
                    let takes = s.members[i].defrag_time;
                    s.members[i].busy_until = Some(now + takes);
                    takes
                }
            }
        };
        let left = limit.saturating_sub(begun.wait);
        let answered = takes <= left;
        tokio::time::sleep(if answered { takes } else { left }).await;
        let mut s = self.lock();
        s.tick(Instant::now());
        s.end(begun.call, answered);
        if answered {
            Ok(())
        } else {
            Err(rpc_error(
                Op::Defragment,
                dial,
                FailureCause::Timeout { after: limit },
            ))
        }
    }

    async fn move_leader(&self, leader: &Dial, to: u64) -> Result<(), RpcError> {
        self.call(Op::MoveLeader, leader, PROBE_TIMEOUT, move |s, i| {
            if s.members[i].id != s.leader {
                return Err(FailureCause::Other("etcdserver: not leader".into()));
            }
            let Some(t) = s.members.iter().position(|m| m.id == to && !m.removed) else {
                return Err(FailureCause::Other(
                    "etcdserver: bad leader transferee".into(),
                ));
            };
            let name = s.members[t].name.clone();
            s.apply(Change::LeaderTo(name));
            Ok(())
        })
        .await
    }

    async fn backend_quota(&self, _dial: &Dial) -> Option<u64> {
        self.lock().metrics_quota
    }

    async fn raft_progress(&self, leader: &Dial) -> Result<BTreeMap<u64, String>, String> {
        let s = self.lock();
        let asked = s
            .members
            .iter()
            .find(|m| m.endpoint == leader.endpoint)
            .ok_or("no such member")?;
        if asked.id != s.leader {
            return Err("the member asked is not the leader".into());
        }
        Ok(s.members
            .iter()
            .filter(|m| !m.removed)
            .map(|m| {
                let state = s.progress.get(&m.name).cloned();
                (m.id, state.unwrap_or_else(|| "StateReplicate".into()))
            })
            .collect())
    }

    async fn snapshots_in_flight(&self, dial: &Dial) -> Result<u64, String> {
        let s = self.lock();
        let m = s
            .members
            .iter()
            .find(|m| m.endpoint == dial.endpoint)
            .ok_or("no such member")?;
        Ok(s.snapshots.get(&m.name).copied().unwrap_or(0))
    }

    async fn refresh_sizes(&self, dial: &Dial) -> Result<(), RpcError> {
        self.call(Op::RefreshSizes, dial, PROBE_TIMEOUT, |s, _| {
            // etcd refuses a new Lease while NOSPACE is raised.
            if s.alarms.iter().any(|a| a.kind == AlarmKind::Nospace) {
                return Err(FailureCause::Other(
                    "etcdserver: mvcc: database space exceeded".into(),
                ));
            }
            for m in &mut s.members {
                m.shown_in_use = None;
            }
            Ok(())
        })
        .await
    }

    async fn compact(&self, dial: &Dial, revision: i64, _physical: bool) -> Result<(), RpcError> {
        self.call(Op::Compact, dial, PROBE_TIMEOUT, move |s, _| {
            if revision <= s.compact_revision {
                return Err(revision_unavailable(
                    "mvcc: required revision has been compacted",
                ));
            }
            s.compact_revision = revision;
            Ok(())
        })
        .await
    }

    async fn hash_kv(&self, dial: &Dial, revision: i64) -> Result<KvHash, RpcError> {
        self.call(Op::HashKv, dial, PROBE_TIMEOUT, move |s, i| {
            let m = &s.members[i];
            let hashed = if revision == 0 { m.revision } else { revision };
            // Like etcd 3.4: an explicit revision at or below the
            // compaction point is refused; revision 0 always works.
            if revision != 0 && revision <= s.compact_revision {
                return Err(revision_unavailable(
                    "mvcc: required revision has been compacted",
                ));
            }
            if hashed > m.revision {
                return Err(revision_unavailable(
                    "mvcc: required revision is a future revision",
                ));
            }
            Ok(KvHash {
                hash: m.hash,
                compact_revision: s.compact_revision,
                revision: hashed,
            })
        })
        .await
    }

    /// The fake keeps no keys.
    async fn range_prefix(
        &self,
        dial: &Dial,
        _prefix: &str,
        _revision: i64,
        _limit: i64,
    ) -> Result<Vec<super::StoredKey>, RpcError> {
        self.call(Op::MemberList, dial, PROBE_TIMEOUT, |_, _| Ok(Vec::new()))
            .await
    }

    /// A page of the keys [`FakeCluster::hold_keys`] set.
    async fn range_page(
        &self,
        dial: &Dial,
        start: &[u8],
        end: &[u8],
        _revision: i64,
        limit: i64,
        keys_only: bool,
    ) -> Result<super::RangePage, RpcError> {
        self.call(Op::Range, dial, PROBE_TIMEOUT, |s, _| {
            let mut keys = (0..s.keys)
                .map(|i| format!("/fake/{i:08}").into_bytes())
                .filter(|k| k.as_slice() >= start && (end == [0] || k.as_slice() < end));
            let limit = usize::try_from(limit).unwrap_or(0);
            let page: Vec<super::KeySize> = keys
                .by_ref()
                .take(limit)
                .map(|key| super::KeySize {
                    key,
                    value_len: (!keys_only).then_some(100),
                    create_revision: 1,
                    mod_revision: 1,
                    version: 1,
                    lease: 0,
                })
                .collect();
            Ok(super::RangePage {
                keys: page,
                more: keys.next().is_some(),
                revision: 1,
            })
        })
        .await
    }

    /// The fake keeps no keys: a Watch that sees no write.
    async fn watch_changes(
        &self,
        dial: &Dial,
        _start: &[u8],
        _end: &[u8],
        _from_revision: i64,
    ) -> Result<super::ChangeStream, RpcError> {
        self.call(Op::Watch, dial, PROBE_TIMEOUT, |_, _| Ok(()))
            .await?;
        Ok(Box::pin(futures::stream::pending()))
    }

    /// One chunk naming the member: the fake keeps no backend.
    async fn snapshot(&self, dial: &Dial) -> Result<SnapshotStream, RpcError> {
        let blob = self
            .call(Op::Snapshot, dial, PROBE_TIMEOUT, |s, i| {
                Ok(format!("backend of {}", s.members[i].name).into_bytes())
            })
            .await?;
        let chunk = SnapshotChunk { blob, remaining: 0 };
        Ok(Box::pin(futures::stream::iter([Ok(chunk)])))
    }

    /// Not modelled: membership growth is proven against real etcd only.
    async fn member_add(
        &self,
        dial: &Dial,
        _peer_urls: &[String],
        _learner: bool,
    ) -> Result<(u64, Vec<ListedMember>), RpcError> {
        self.call(Op::MemberAdd, dial, PROBE_TIMEOUT, |_, _| {
            Err(FailureCause::Other(
                "MemberAdd is not modelled by the fake".into(),
            ))
        })
        .await
    }

    async fn member_promote(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberPromote, dial, PROBE_TIMEOUT, move |s, _| {
            let m = s.members.iter_mut().find(|m| m.id == id && !m.removed);
            match m {
                Some(m) => m.learner = false,
                None => return Err(FailureCause::Other("member not found".into())),
            }
            Ok(s.member_list())
        })
        .await
    }

    async fn member_remove(&self, dial: &Dial, id: u64) -> Result<Vec<ListedMember>, RpcError> {
        self.call(Op::MemberRemove, dial, PROBE_TIMEOUT, move |s, _| {
            match s.members.iter_mut().find(|m| m.id == id && !m.removed) {
                Some(m) => m.removed = true,
                None => return Err(FailureCause::Other("member not found".into())),
            }
            Ok(s.member_list())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn snapshot_take_works_unchanged_against_the_fake() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        fake.set_leader("b");
        let snap = crate::etcd::take::look(&fake, &fake.target())
            .await
            .unwrap();
        let names: Vec<&str> = snap.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        for m in &snap.members {
            let s = m.status().unwrap();
            assert_eq!(s.leader, fake.id("b"));
            assert_eq!(Some(s.member_id), m.id);
        }
        assert_eq!(snap.members[0].status().unwrap().db_size, 500 * MI);
    }

    #[tokio::test(start_paused = true)]
    async fn defragment_shrinks_and_blocks_status_until_done() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100), ("c", 300, 100)]);
        fake.defrag_takes("b", Duration::from_secs(60));
        let dial = fake.target().dials[1].clone();
        let t0 = Instant::now();
        let e = fake
            .defragment(&dial, Duration::from_secs(10))
            .await
            .unwrap_err();
        assert_eq!(
            e.cause,
            FailureCause::Timeout {
                after: Duration::from_secs(10)
            }
        );
        assert_eq!(t0.elapsed(), Duration::from_secs(10));
        // Still defragmenting: Status runs into its timeout.
        let e = fake.status(&dial).await.unwrap_err();
        assert!(matches!(e.cause, FailureCause::Timeout { .. }), "{e}");
        assert_eq!(fake.db_size("b"), 400 * MI);
        // Within 5 s of the end, Status waits for it and sees the new size.
        tokio::time::sleep_until(t0 + Duration::from_secs(56)).await;
        let s = fake.status(&dial).await.unwrap();
        assert_eq!(t0.elapsed(), Duration::from_secs(60));
        assert_eq!(s.db_size, 100 * MI);
        assert!(fake.overlaps().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn scripted_failures_changes_leadership_and_hashes() {
        let fake = FakeCluster::new(&[("a", 500, 100), ("b", 400, 100)]);
        let [a, b] = [0, 1].map(|i| fake.target().dials[i].clone());
        fake.fail("a", Op::Status, FailureCause::Refused, 2);
        fake.after_defrags(1, Change::LeaderTo("b".into()));
        fake.after_defrags(1, Change::Remove("a".into()));
        assert!(fake.status(&a).await.is_err());
        assert!(fake.status(&a).await.is_err());
        assert!(fake.status(&a).await.is_ok());

        // MoveLeader only from the leader.
        assert!(fake.move_leader(&b, fake.id("a")).await.is_err());
        fake.move_leader(&a, fake.id("b")).await.unwrap();
        assert_eq!(fake.leader(), "b");
        fake.set_leader("a");

        fake.defragment(&b, Duration::from_secs(5)).await.unwrap();
        assert_eq!(fake.leader(), "b");
        let list = fake.member_list(&b).await.unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(
            fake.status(&a).await.unwrap_err().cause,
            FailureCause::Refused
        );

        fake.set_revision("b", 120);
        fake.set_compacted(110);
        assert_eq!(fake.hash_kv(&b, 0).await.unwrap().revision, 120);
        assert!(matches!(
            fake.hash_kv(&b, 105).await.unwrap_err().cause,
            FailureCause::RevisionUnavailable { .. }
        ));
        assert_eq!(fake.hash_kv(&b, 115).await.unwrap().revision, 115);

        let ops: Vec<(Op, String)> = fake
            .calls()
            .into_iter()
            .map(|c| (c.op, c.member))
            .take(4)
            .collect();
        assert_eq!(
            ops,
            [
                (Op::Status, "a".to_string()),
                (Op::Status, "a".to_string()),
                (Op::Status, "a".to_string()),
                (Op::MoveLeader, "b".to_string()),
            ]
        );

        fake.go_silent();
        let t0 = Instant::now();
        assert!(matches!(
            fake.member_list(&b).await.unwrap_err().cause,
            FailureCause::Timeout { .. }
        ));
        assert_eq!(t0.elapsed(), PROBE_TIMEOUT);
    }
}
