//! The health gate (docs/cli.md#the-health-gate): may maintenance touch this cluster?
//!
//! Invariants: every failing reason is reported, not just the first; a
//! NOSPACE alarm never refuses (it is why people defragment); anything that
//! leaves the voter set or the leader in doubt refuses. The same gate serves
//! `status --check`, the defrag sweep before every step, and `--watch`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::look::{AlarmKind, ClusterLook, MemberLook, Outside, Probe, SnapshotWatch, StatusError};

/// Default bound on raft lag, in entries. etcd itself stops accepting
/// proposals at a 5000-entry gap between commit and apply; a healthy member
/// under load stays within a few dozen.
pub const DEFAULT_MAX_RAFT_LAG: u64 = 1000;

/// Tunables of the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateOptions {
    /// Accept a cluster where losing one voter loses quorum (1 or 2 voters).
    pub allow_quorum_loss: bool,
    /// Bound for both apply lag and distance behind the leader.
    pub max_raft_lag: u64,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            allow_quorum_loss: false,
            max_raft_lag: DEFAULT_MAX_RAFT_LAG,
        }
    }
}

/// One reason the gate refuses. `code()` is a stable string for JSON and
/// scripts; `Display` is the sentence shown to people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateReason {
    /// A voting member did not answer Status.
    MemberUnreachable { member: String, cause: String },
    /// A voting member was not dialed (no client URL, or left out).
    MemberNotProbed { member: String, why: String },
    /// An endpoint given with `--no-discover` answered as a member that
    /// MemberList does not hold: another cluster's member, or one removed.
    NotAMember { endpoint: String, id: u64 },
    /// A member reports leader 0.
    NoLeader { member: String },
    /// Members name different leaders.
    LeaderDisagreement { views: Vec<(String, String)> },
    /// The agreed leader is not in MemberList.
    LeaderNotMember { leader: String },
    /// A CORRUPT or unknown alarm is raised.
    Alarm { member: String, alarm: String },
    /// A Status `errors` entry that is not an alarm.
    MemberError { member: String, entry: StatusError },
    /// committed − applied is over the bound.
    ApplyLag {
        member: String,
        lag: u64,
        bound: u64,
    },
    /// The member's index is too far behind the leader's.
    BehindLeader {
        member: String,
        behind: u64,
        bound: u64,
    },
    /// MemberList and the member disagree on learner status: a promotion
    /// is in flight.
    LearnerPromoting { member: String },
    /// Taking one voter out would lose quorum, and no consent was given.
    QuorumMargin { voters: usize },
    /// A member's Status answer came so late that the look may straddle a
    /// leader election (`one_moment`).
    SlowAnswer { member: String, took: Duration },
    /// Members answered from different raft terms: an election was under
    /// way while the look was taken (`one_moment`).
    TermDisagreement { views: Vec<(String, u64)> },
    /// The member runs a release whose Defragment can race a snapshot
    /// from the leader and corrupt its data
    /// (`defects::APPLY_SNAPSHOT_DURING_DEFRAG`), and a snapshot could be
    /// on its way or being applied (`look::SnapshotWatch`).
    SnapshotInFlight {
        member: String,
        version: String,
        why: String,
        /// `upgrade to 3.4.38 or later (etcd PR 20659)`.
        advice: String,
    },
    /// The look the gate passed had aged past `bound` by the time of the
    /// step (counted from its first question): a member may have stopped
    /// after it answered.
    LookAged { age: Duration, bound: Duration },
    /// The member about to be touched no longer sees the leader and term
    /// the step was planned on (`still_as_looked`).
    ChangedSinceLook {
        member: String,
        looked: String,
        now: String,
    },
    /// A non-terminal EtcdDefrag targets the cluster: another processor
    /// (the operator's controller, a `--watch`) runs or will run a sweep
    /// of its own, and two sweeps can defragment two members at once.
    DefragRunActive {
        run: String,
        phase: String,
        driver: String,
    },
    /// The EtcdDefrags of the cluster could not be read, so whether
    /// another processor is defragmenting it is not known.
    DefragRunsUnknown { detail: String },
    /// A policy of the cluster keeps ticking inside the next member's
    /// predicted defrag, after the sweep waited out its ticks a few times
    /// (`exec`'s wait): its processor would start a sweep beside ours.
    PolicyTickDue {
        policy: String,
        at: jiff::Timestamp,
        window: Duration,
        /// The tick its processor has not acted on yet, when one is
        /// already due (`at` is then the moment of asking).
        overdue: Option<jiff::Timestamp>,
    },
}

impl GateReason {
    /// Stable identifier, identical in tables, JSON and EtcdDefrag status.
    pub fn code(&self) -> &'static str {
        match self {
            GateReason::MemberUnreachable { .. } => "MemberUnreachable",
            GateReason::MemberNotProbed { .. } => "MemberNotProbed",
            GateReason::NotAMember { .. } => "NotAMember",
            GateReason::NoLeader { .. } => "NoLeader",
            GateReason::LeaderDisagreement { .. } => "LeaderDisagreement",
            GateReason::LeaderNotMember { .. } => "LeaderNotMember",
            GateReason::Alarm { .. } => "AlarmRaised",
            GateReason::MemberError { .. } => "MemberError",
            GateReason::ApplyLag { .. } => "ApplyLag",
            GateReason::BehindLeader { .. } => "BehindLeader",
            GateReason::LearnerPromoting { .. } => "LearnerPromoting",
            GateReason::QuorumMargin { .. } => "QuorumMargin",
            GateReason::SlowAnswer { .. } => "SlowAnswer",
            GateReason::TermDisagreement { .. } => "TermDisagreement",
            GateReason::ChangedSinceLook { .. } => "ChangedSinceLook",
            GateReason::LookAged { .. } => "LookAged",
            GateReason::SnapshotInFlight { .. } => "SnapshotInFlight",
            GateReason::DefragRunActive { .. } => "DefragRunActive",
            GateReason::DefragRunsUnknown { .. } => "DefragRunsUnknown",
            GateReason::PolicyTickDue { .. } => "PolicyTickDue",
        }
    }

    /// The member a reason is about, if it is about one.
    pub fn member(&self) -> Option<&str> {
        match self {
            GateReason::MemberUnreachable { member, .. }
            | GateReason::MemberNotProbed { member, .. }
            | GateReason::NotAMember {
                endpoint: member, ..
            }
            | GateReason::NoLeader { member }
            | GateReason::Alarm { member, .. }
            | GateReason::MemberError { member, .. }
            | GateReason::ApplyLag { member, .. }
            | GateReason::BehindLeader { member, .. }
            | GateReason::LearnerPromoting { member }
            | GateReason::SlowAnswer { member, .. }
            | GateReason::SnapshotInFlight { member, .. }
            | GateReason::ChangedSinceLook { member, .. } => Some(member),
            GateReason::LeaderDisagreement { .. }
            | GateReason::LeaderNotMember { .. }
            | GateReason::QuorumMargin { .. }
            | GateReason::LookAged { .. }
            | GateReason::TermDisagreement { .. }
            | GateReason::DefragRunActive { .. }
            | GateReason::DefragRunsUnknown { .. }
            | GateReason::PolicyTickDue { .. } => None,
        }
    }

    /// Whether a member back from its defrag is still waited for while this
    /// reason names it (`exec::wait::for_member`). Whatever says the member
    /// is not itself yet holds it; an alarm does not: NOSPACE or CORRUPT is
    /// the cluster's, and the re-gate before the next step decides on it.
    /// Reasons about no member never name the one waited for. Exhaustive,
    /// so a new reason decides here how the wait treats it.
    pub fn holds_a_returning_member(&self) -> bool {
        match self {
            GateReason::Alarm { .. } => false,
            GateReason::MemberUnreachable { .. }
            | GateReason::MemberNotProbed { .. }
            | GateReason::NotAMember { .. }
            | GateReason::NoLeader { .. }
            | GateReason::MemberError { .. }
            | GateReason::ApplyLag { .. }
            | GateReason::BehindLeader { .. }
            | GateReason::LearnerPromoting { .. }
            | GateReason::SlowAnswer { .. }
            | GateReason::SnapshotInFlight { .. }
            | GateReason::ChangedSinceLook { .. } => true,
            GateReason::LeaderDisagreement { .. }
            | GateReason::LeaderNotMember { .. }
            | GateReason::QuorumMargin { .. }
            | GateReason::LookAged { .. }
            | GateReason::TermDisagreement { .. }
            | GateReason::DefragRunActive { .. }
            | GateReason::DefragRunsUnknown { .. }
            | GateReason::PolicyTickDue { .. } => true,
        }
    }

    /// A short label for a member's verdict cell.
    pub fn short(&self) -> String {
        match self {
            GateReason::MemberUnreachable { .. } => "unreachable".into(),
            GateReason::MemberNotProbed { .. } => "not probed".into(),
            GateReason::NotAMember { .. } => "not a member".into(),
            GateReason::NoLeader { .. } => "no leader".into(),
            GateReason::Alarm { alarm, .. } => format!("alarm {alarm}"),
            GateReason::MemberError { .. } => "error".into(),
            GateReason::ApplyLag { lag, .. } => format!("apply lag {lag}"),
            GateReason::BehindLeader { behind, .. } => format!("{behind} behind leader"),
            GateReason::LearnerPromoting { .. } => "promoting".into(),
            GateReason::SlowAnswer { took, .. } => {
                format!("answered in {}", crate::quantity::format_duration(*took))
            }
            GateReason::ChangedSinceLook { .. } => "changed since the look".into(),
            GateReason::SnapshotInFlight { .. } => "snapshot in flight".into(),
            other => other.code().into(),
        }
    }
}

impl fmt::Display for GateReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateReason::MemberUnreachable { member, cause } => {
                write!(f, "member {member} is unreachable: {cause}")
            }
            GateReason::MemberNotProbed { member, why } => {
                write!(f, "member {member} was not probed: {why}")
            }
            GateReason::NotAMember { endpoint, id } => write!(
                f,
                "{endpoint} is not a member of this cluster: it answered as member {id:016x}, which the cluster's member list does not hold (another cluster's member, or one removed); leave it out of the endpoints"
            ),
            GateReason::NoLeader { member } => write!(f, "member {member} reports no leader"),
            GateReason::LeaderDisagreement { views } => {
                let views: Vec<String> = views.iter().map(|(m, l)| format!("{m}→{l}")).collect();
                write!(f, "members disagree on the leader ({})", views.join(", "))
            }
            GateReason::LeaderNotMember { leader } => {
                write!(f, "the leader {leader} is not in the member list")
            }
            GateReason::Alarm { member, alarm } => write!(
                f,
                "alarm {alarm} is raised on member {member}; inspect the member before any maintenance (only NOSPACE is tolerated)"
            ),
            GateReason::MemberError { member, entry } => {
                write!(f, "member {member} reports: {entry}")
            }
            GateReason::ApplyLag { member, lag, bound } => write!(
                f,
                "member {member} has {lag} committed entries not yet applied (bound {bound})"
            ),
            GateReason::BehindLeader { member, behind, bound } => write!(
                f,
                "member {member} is {behind} entries behind the leader (bound {bound})"
            ),
            GateReason::LearnerPromoting { member } => write!(
                f,
                "member {member} is being promoted from learner (member list and member disagree)"
            ),
            GateReason::QuorumMargin { voters } => write!(
                f,
                "the cluster has {voters} voting member{}: taking one out for maintenance loses quorum; pass --allow-quorum-loss to accept that",
                if *voters == 1 { "" } else { "s" }
            ),
            GateReason::SlowAnswer { member, took } => write!(
                f,
                "member {member} took {} to answer Status, far longer than the others: answers that far apart may straddle a leader election",
                crate::quantity::format_duration(*took)
            ),
            GateReason::TermDisagreement { views } => {
                let views: Vec<String> = views.iter().map(|(m, t)| format!("{m} {t}")).collect();
                write!(
                    f,
                    "members answered from different raft terms ({}): a leader election is under way",
                    views.join(", ")
                )
            }
            GateReason::SnapshotInFlight {
                member,
                version,
                why,
                advice,
            } => write!(
                f,
                "member {member} runs etcd {version}, where a snapshot from the leader applied during Defragment can corrupt its data, and {why}; wait until it has caught up, or {advice}"
            ),
            GateReason::LookAged { age, bound } => write!(
                f,
                "the look at the members was {} old by the step (bound {}): a member may have stopped after it answered (one was slow to answer AlarmList, MemberList or /metrics)",
                crate::quantity::format_duration(*age),
                crate::quantity::format_duration(*bound)
            ),
            GateReason::ChangedSinceLook { member, looked, now } => write!(
                f,
                "member {member} now reports {now}; the look showed {looked}"
            ),
            GateReason::DefragRunActive { run, phase, driver } => {
                let (namespace, name) = run.split_once('/').unwrap_or(("", run));
                write!(
                    f,
                    "EtcdDefrag {run} is {phase} ({driver}): two sweeps could defragment two members at once; wait for it to finish (kubectl get etcddefrag {name} -n {namespace} -w) or delete it (kubectl delete etcddefrag {name} -n {namespace})"
                )
            }
            GateReason::DefragRunsUnknown { detail } => write!(
                f,
                "could not read the cluster's EtcdDefrags, so a defrag another processor runs could not be ruled out: {detail}"
            ),
            GateReason::PolicyTickDue {
                policy,
                at,
                window,
                overdue,
            } => policy_tick_due(f, policy, at, *window, overdue.as_ref()),
        }
    }
}

/// `PolicyTickDue`'s words: when the tick comes (or that one is overdue),
/// and the patch that suspends the policy for the sweep.
fn policy_tick_due(
    f: &mut fmt::Formatter<'_>,
    policy: &str,
    at: &jiff::Timestamp,
    window: Duration,
    overdue: Option<&jiff::Timestamp>,
) -> fmt::Result {
    let (namespace, name) = policy.split_once('/').unwrap_or(("", policy));
    match overdue {
        Some(tick) => write!(
            f,
            "EtcdDefragPolicy {policy} has had a tick due since {tick} that its processor has not acted on (its status says so): it may stamp a run at any moment, and that run's sweep would start beside this one"
        )?,
        None => write!(
            f,
            "EtcdDefragPolicy {policy} ticks again at {at}, inside the next member's defrag (about {}): its processor would start a sweep beside this one",
            crate::quantity::format_duration(window)
        )?,
    }
    write!(
        f,
        "; suspend it for the sweep (kubectl patch etcddefragpolicy {name} -n {namespace} --type merge -p '{{\"spec\":{{\"suspend\":true}}}}') and resume it after"
    )
}

/// The gate's answer: passes when `reasons` is empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GateVerdict {
    pub reasons: Vec<GateReason>,
    /// The leader every answering member agrees on, when they do.
    pub leader: Option<u64>,
}

impl GateVerdict {
    pub fn passed(&self) -> bool {
        self.reasons.is_empty()
    }

    /// The reasons that name this member.
    pub fn for_member<'a>(&'a self, member: &'a str) -> impl Iterator<Item = &'a GateReason> + 'a {
        self.reasons
            .iter()
            .filter(move |r| r.member() == Some(member))
    }
}

/// A serialisable view of one reason (stable `code`, optional `member`,
/// human `message`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonView {
    pub code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    pub message: String,
}

impl From<&GateReason> for ReasonView {
    fn from(r: &GateReason) -> Self {
        ReasonView {
            code: r.code(),
            member: r.member().map(str::to_string),
            message: r.to_string(),
        }
    }
}

/// What other processors' runs say about a step, as read right before it
/// (`k8s::active_defrags`): a reason per non-terminal run, or one when
/// they could not be read (unknown is not safe). Pure.
pub fn others(read: &Result<Outside, String>) -> Vec<GateReason> {
    match read {
        Ok(outside) => outside
            .runs
            .iter()
            .map(|r| GateReason::DefragRunActive {
                run: r.run.clone(),
                phase: r.phase.clone(),
                driver: r.driver.clone(),
            })
            .collect(),
        Err(detail) => vec![GateReason::DefragRunsUnknown {
            detail: detail.clone(),
        }],
    }
}

/// The earliest tick, within `window` of `now`, of a policy of the cluster
/// (each counted as its processor counts: from its last scheduled tick, a
/// tick already due is due `now`): (policy, tick). A schedule that does
/// not parse stamps nothing. Pure.
pub fn tick_within(outside: &Outside, now: jiff::Timestamp, window: Duration) -> Option<DueTick> {
    use crate::plan::schedule::{Due, Schedule};
    let end = now
        .checked_add(jiff::SignedDuration::try_from(window).ok()?)
        .ok()?;
    outside
        .policies
        .iter()
        .filter_map(|p| {
            let schedule = Schedule::parse(&p.schedule).ok()?;
            let (at, overdue) = match schedule.due(p.earliest.unwrap_or(now), now) {
                Due::Tick { at, .. } => (now, Some(at)),
                Due::NotYet { next } => (next, None),
                Due::Never => return None,
            };
            (at <= end).then(|| DueTick {
                policy: p.policy.clone(),
                at,
                overdue,
            })
        })
        .min_by_key(|t| t.at)
}

/// A policy's tick inside a window ([`tick_within`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueTick {
    /// `namespace/name`.
    pub policy: String,
    /// When it falls: `now` for a tick already due.
    pub at: jiff::Timestamp,
    /// The tick already due that its processor has not acted on.
    pub overdue: Option<jiff::Timestamp>,
}

/// Evaluates the gate over a snapshot. Pure.
///
/// Voters are the members MemberList does not mark as learners; learners are
/// neither required to answer nor counted for quorum, but a learner whose own
/// Status disagrees with MemberList (a promotion in flight) refuses.
pub fn evaluate(look: &ClusterLook, options: &GateOptions) -> GateVerdict {
    let mut reasons = Vec::new();
    // Check 0: endpoints that are not members of this cluster (given with
    // `--no-discover`) are said as such; what they answered (their own
    // cluster's leader, term and index) is no view of this cluster, so
    // the other checks judge the members alone.
    let strangers = not_members(look);
    let members_only;
    let look = if strangers.is_empty() {
        look
    } else {
        members_only = ClusterLook {
            members: look
                .members
                .iter()
                .filter(|m| !is_stranger(look, m))
                .cloned()
                .collect(),
            ..look.clone()
        };
        reasons.extend(strangers);
        &members_only
    };
    voters_answered(look, &mut reasons);
    let leader = agreed_leader(look, &mut reasons);
    alarms_and_errors(look, &mut reasons);
    raft_progress(look, leader, options, &mut reasons);
    // 4b. On a release with the applySnapshot/Defragment race, no raft
    // snapshot may be on its way to a member or being applied by it.
    for m in &look.members {
        if let Some(watch) = &m.snapshot_watch {
            reasons.extend(snapshot_in_flight(m, watch));
        }
    }
    promotions(look, &mut reasons);
    quorum_margin(look, options, &mut reasons);
    GateVerdict { reasons, leader }
}

/// Whether `m` answered Status as a member MemberList does not hold (only
/// a probed endpoint can: with discovery every row is a listed member).
fn is_stranger(look: &ClusterLook, m: &crate::look::MemberLook) -> bool {
    look.member_list_known && m.listed.is_none() && m.status().is_some()
}

/// Check 0: a `NotAMember` for each endpoint that answered as a member
/// MemberList does not hold.
fn not_members(look: &ClusterLook) -> Vec<GateReason> {
    look.members
        .iter()
        .filter(|m| is_stranger(look, m))
        .filter_map(|m| {
            Some(GateReason::NotAMember {
                endpoint: m.name.clone(),
                id: m.status()?.member_id,
            })
        })
        .collect()
}

/// Check 1: Every voting member answered.
fn voters_answered(look: &ClusterLook, reasons: &mut Vec<GateReason>) {
    for m in look.members.iter().filter(|m| !m.is_learner()) {
        match &m.probe {
            Probe::Answered(_) => {}
            Probe::Failed(e) => reasons.push(GateReason::MemberUnreachable {
                member: m.name.clone(),
                cause: unreachable_cause(e, m.dial.as_ref()),
            }),
            Probe::NotProbed(why) => reasons.push(GateReason::MemberNotProbed {
                member: m.name.clone(),
                why: why.clone(),
            }),
        }
    }
}

/// Why a member did not answer, and, when its address is a Pod's
/// `status.podIP` and nothing answered there, where the address came from:
/// a Pod recreated since may have another one. Pure.
fn unreachable_cause(e: &crate::failure::RpcError, dial: Option<&crate::reach::Dial>) -> String {
    use crate::failure::FailureCause;
    let nothing_there = matches!(
        e.cause,
        FailureCause::Refused | FailureCause::Timeout { .. }
    );
    match dial.and_then(|d| d.pod_ip_of.as_deref()) {
        Some(pod) if nothing_there => format!(
            "{} ({} is Pod {pod}'s status.podIP as the API server gave it: if the Pod was just recreated that address may be stale, so run again; --connect port-forward reaches the Pod by name)",
            e.cause,
            dial.map(|d| d.endpoint.host.as_str()).unwrap_or_default()
        ),
        _ => e.cause.to_string(),
    }
}

/// Check 2: One non-zero leader that everyone agrees on and that is a member:
/// the leader's id, when there is one.
fn agreed_leader(look: &ClusterLook, reasons: &mut Vec<GateReason>) -> Option<u64> {
    let mut views: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for m in &look.members {
        if let Some(s) = m.status() {
            if s.leader == 0 {
                reasons.push(GateReason::NoLeader {
                    member: m.name.clone(),
                });
            } else {
                views.entry(s.leader).or_default().push(m.name.clone());
            }
        }
    }
    let mut leader = None;
    if views.len() > 1 {
        let mut pairs = Vec::new();
        for m in &look.members {
            if let Some(s) = m.status() {
                let seen = if s.leader == 0 {
                    "none".to_string()
                } else {
                    look.name_of(s.leader)
                };
                pairs.push((m.name.clone(), seen));
            }
        }
        reasons.push(GateReason::LeaderDisagreement { views: pairs });
    } else if let Some((&id, _)) = views.iter().next() {
        if look.member_list_known && look.member_by_id(id).is_none() {
            reasons.push(GateReason::LeaderNotMember {
                leader: format!("{id:016x}"),
            });
        } else {
            leader = Some(id);
        }
    }
    leader
}

/// Check 3: No alarm other than NOSPACE; no other error entries.
fn alarms_and_errors(look: &ClusterLook, reasons: &mut Vec<GateReason>) {
    for alarm in &look.alarms {
        if alarm.kind != AlarmKind::Nospace {
            reasons.push(GateReason::Alarm {
                member: look.name_of(alarm.member_id),
                alarm: alarm.kind.as_str().to_string(),
            });
        }
    }
    for m in &look.members {
        if let Some(s) = m.status() {
            for entry in &s.errors {
                // Alarms are judged above, from the merged list; "no leader"
                // is the NoLeader reason when the member reports leader 0.
                let judged = match entry {
                    StatusError::Alarm(_) => true,
                    StatusError::NoLeader => s.leader == 0,
                    StatusError::Other(_) => false,
                };
                if !judged {
                    reasons.push(GateReason::MemberError {
                        member: m.name.clone(),
                        entry: entry.clone(),
                    });
                }
            }
        }
    }
}

/// Check 4: Raft progress within bounds: applied close to committed, and close
/// to the leader's index.
fn raft_progress(
    look: &ClusterLook,
    leader: Option<u64>,
    options: &GateOptions,
    reasons: &mut Vec<GateReason>,
) {
    let leader_index = leader
        .and_then(|id| look.member_by_id(id))
        .and_then(|m| m.status())
        .map(|s| s.raft_index);
    for m in &look.members {
        if let Some(s) = m.status() {
            let lag = s.raft_index.saturating_sub(s.raft_applied_index);
            if lag > options.max_raft_lag {
                reasons.push(GateReason::ApplyLag {
                    member: m.name.clone(),
                    lag,
                    bound: options.max_raft_lag,
                });
            }
            if let Some(li) = leader_index {
                let behind = li.saturating_sub(s.raft_index);
                if behind > options.max_raft_lag {
                    reasons.push(GateReason::BehindLeader {
                        member: m.name.clone(),
                        behind,
                        bound: options.max_raft_lag,
                    });
                }
            }
        }
    }
}

/// Check 5: No learner mid-promotion.
fn promotions(look: &ClusterLook, reasons: &mut Vec<GateReason>) {
    for m in &look.members {
        if let (Some(listed), Some(s)) = (&m.listed, m.status()) {
            if listed.is_learner != s.is_learner {
                reasons.push(GateReason::LearnerPromoting {
                    member: m.name.clone(),
                });
            }
        }
    }
}

/// Check 6: Quorum margin: with one voter out, the rest must still be a quorum.
fn quorum_margin(look: &ClusterLook, options: &GateOptions, reasons: &mut Vec<GateReason>) {
    let voters = look.members.iter().filter(|m| !m.is_learner()).count();
    let quorum = voters / 2 + 1;
    if voters.saturating_sub(1) < quorum && !options.allow_quorum_loss {
        reasons.push(GateReason::QuorumMargin { voters });
    }
}

/// `SnapshotInFlight` for `member` when its `watch` is not quiet. Pure;
/// the gate asks it of every watched member of a look, and the sweep again
/// of the member it is about to touch, with a watch read right then.
pub fn snapshot_in_flight(member: &MemberLook, watch: &SnapshotWatch) -> Option<GateReason> {
    if watch.quiet() {
        return None;
    }
    let version = member
        .status()
        .map(|s| s.version.clone())
        .unwrap_or_default();
    let advice = crate::defects::has(&version, crate::defects::APPLY_SNAPSHOT_DURING_DEFRAG)
        .zip(crate::defects::Release::parse(&version))
        .map(|(hit, running)| hit.advice(running))
        .unwrap_or_else(|| "upgrade etcd".into());
    Some(GateReason::SnapshotInFlight {
        member: member.name.clone(),
        version,
        why: watch.why_not_quiet(),
        advice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::look::{Alarm, MemberLook, MemberStatus};
    use crate::plan::moment::{one_moment, still_as_looked, ONE_MOMENT};

    /// A policy's tick counts when it falls within the window, counted as
    /// its processor counts: from its last scheduled tick, a tick already
    /// passed being due now; the earliest of several is named.
    #[test]
    fn a_policy_tick_counts_within_the_window() {
        let at = |s: i64| jiff::Timestamp::from_second(s).unwrap();
        let policy =
            |name: &str, schedule: &str, earliest: Option<i64>| crate::look::PolicySchedule {
                policy: format!("ns/{name}"),
                schedule: schedule.into(),
                earliest: earliest.map(at),
            };
        // 1_700_000_040 is 22:14:00 UTC, a minute boundary.
        let minute = 1_700_000_040;
        let window = Duration::from_secs(10);
        type Case = (
            &'static str,
            Vec<crate::look::PolicySchedule>,
            i64,
            Option<(&'static str, i64)>,
        );
        let cases: Vec<Case> = vec![
            ("no policy", vec![], minute + 55, None),
            (
                "the next minute is 5 s away",
                vec![policy("minutely", "* * * * *", Some(minute))],
                minute + 55,
                Some(("ns/minutely", minute + 60)),
            ),
            (
                "the next minute is 30 s away",
                vec![policy("minutely", "* * * * *", Some(minute))],
                minute + 30,
                None,
            ),
            (
                "a tick passed and not yet scheduled is due now",
                vec![policy("minutely", "* * * * *", Some(minute - 120))],
                minute + 30,
                Some(("ns/minutely", minute + 30)),
            ),
            (
                "no status: counted from now",
                vec![policy("hourly", "@hourly", None)],
                minute + 30,
                None,
            ),
            (
                "a schedule that does not parse stamps nothing",
                vec![policy("broken", "not a schedule", Some(minute))],
                minute + 55,
                None,
            ),
            (
                "the earliest of two",
                vec![
                    policy("slow", "* * * * *", Some(minute)),
                    policy("fast", "@every 2s", Some(minute + 50)),
                ],
                minute + 51,
                Some(("ns/fast", minute + 52)),
            ),
        ];
        for (name, policies, now, want) in cases {
            let outside = crate::look::Outside {
                runs: vec![],
                policies,
            };
            let got = tick_within(&outside, at(now), window).map(|t| (t.policy, t.at));
            assert_eq!(got, want.map(|(p, t)| (p.to_string(), at(t))), "{name}");
        }
        // A tick already due names the tick its processor has not acted on.
        let overdue = tick_within(
            &crate::look::Outside {
                runs: vec![],
                policies: vec![policy("minutely", "* * * * *", Some(minute - 120))],
            },
            at(minute + 30),
            window,
        );
        assert_eq!(overdue.and_then(|t| t.overdue), Some(at(minute)));
    }

    /// A healthy 3-member cluster whose leader is member 1.
    /// A member dialed at its Pod's IP that nothing answers says where
    /// the address came from; other causes, and other addresses, are said
    /// as they are.
    #[test]
    fn an_unanswered_pod_ip_is_said_to_be_the_pods_status() {
        use crate::failure::{FailureCause, RpcError};
        use crate::reach::{Dial, Endpoint, Scheme};
        let pod_dial = Dial {
            pod_ip_of: Some("etcd-abcde".into()),
            ..Dial::new(Endpoint {
                scheme: Scheme::Https,
                host: "10.1.0.5".into(),
                port: 2379,
            })
        };
        let plain = Dial::new(Endpoint {
            scheme: Scheme::Https,
            host: "10.1.0.5".into(),
            port: 2379,
        });
        let failed = |cause| RpcError {
            endpoint: "https://10.1.0.5:2379".into(),
            op: "Status",
            cause,
        };
        let stale = "10.1.0.5 is Pod etcd-abcde's status.podIP as the API server gave it";
        for (cause, dial, says) in [
            (FailureCause::Refused, Some(&pod_dial), true),
            (
                FailureCause::Timeout {
                    after: std::time::Duration::from_secs(5),
                },
                Some(&pod_dial),
                true,
            ),
            (FailureCause::ConnectionLost, Some(&pod_dial), false),
            (FailureCause::Refused, Some(&plain), false),
            (FailureCause::Refused, None, false),
        ] {
            let text = unreachable_cause(&failed(cause.clone()), dial);
            assert!(text.starts_with(&cause.to_string()), "{text}");
            assert_eq!(text.contains(stale), says, "{cause:?} {dial:?}: {text}");
        }
    }

    fn healthy(n: u64) -> ClusterLook {
        let members = (1..=n)
            .map(|id| {
                MemberLook::listed_for_test(
                    &format!("m{id}"),
                    id,
                    false,
                    Probe::Answered(MemberStatus {
                        member_id: id,
                        leader: 1,
                        raft_term: 2,
                        raft_index: 100,
                        raft_applied_index: 100,
                        db_size: 1 << 20,
                        db_size_in_use: 1 << 19,
                        ..Default::default()
                    }),
                )
            })
            .collect();
        ClusterLook {
            members,
            member_list_known: true,
            alarms: vec![],
            alarm_list_error: None,
        }
    }

    fn status_mut(s: &mut ClusterLook, i: usize) -> &mut MemberStatus {
        match &mut s.members[i].probe {
            Probe::Answered(st) => st,
            _ => panic!("member {i} has no status"),
        }
    }

    fn codes(s: &ClusterLook, o: GateOptions) -> Vec<&'static str> {
        evaluate(s, &o).reasons.iter().map(|r| r.code()).collect()
    }

    #[test]
    fn gate_table() {
        type Edit = fn(&mut ClusterLook);
        let cases: Vec<(&str, u64, Edit, Vec<&str>)> = vec![
            ("healthy 3 members passes", 3, |_| {}, vec![]),
            ("healthy 5 members passes", 5, |_| {}, vec![]),
            ("1 voter needs consent", 1, |_| {}, vec!["QuorumMargin"]),
            ("2 voters need consent", 2, |_| {}, vec!["QuorumMargin"]),
            (
                "unreachable voter",
                3,
                |s| s.members[2].probe = Probe::timed_out_for_test(),
                vec!["MemberUnreachable"],
            ),
            (
                "unreachable learner is tolerated",
                4,
                |s| {
                    if let Some(l) = s.members[2].listed.as_mut() {
                        l.is_learner = true;
                    }
                    s.members[2].probe = Probe::NotProbed("x".into());
                },
                vec![],
            ),
            (
                "not probed voter",
                3,
                |s| s.members[1].probe = Probe::NotProbed("left out".into()),
                vec!["MemberNotProbed"],
            ),
            (
                "no leader",
                3,
                |s| status_mut(s, 0).leader = 0,
                vec!["NoLeader"],
            ),
            (
                // --no-discover with an endpoint of another cluster: said
                // as not a member, and its own leader, term and index are
                // no disagreement with this cluster's.
                "an endpoint of another cluster",
                3,
                |s| {
                    let mut stranger = s.members[0].clone();
                    stranger.listed = None;
                    stranger.name = "https://10.9.9.9:2379".into();
                    stranger.id = Some(99);
                    s.members.push(stranger);
                    let other = status_mut(s, 3);
                    other.member_id = 99;
                    other.leader = 99;
                    other.raft_term = 9;
                    other.raft_index = 1;
                },
                vec!["NotAMember"],
            ),
            (
                "disagreement",
                3,
                |s| status_mut(s, 2).leader = 2,
                vec!["LeaderDisagreement"],
            ),
            (
                "leader not a member",
                3,
                |s| {
                    for i in 0..3 {
                        status_mut(s, i).leader = 99;
                    }
                },
                vec!["LeaderNotMember"],
            ),
            (
                "NOSPACE tolerated",
                3,
                |s| {
                    s.alarms.push(Alarm {
                        member_id: 2,
                        kind: AlarmKind::Nospace,
                    })
                },
                vec![],
            ),
            (
                "CORRUPT refuses",
                3,
                |s| {
                    s.alarms.push(Alarm {
                        member_id: 2,
                        kind: AlarmKind::Corrupt,
                    })
                },
                vec!["AlarmRaised"],
            ),
            (
                "unknown alarm refuses",
                3,
                |s| {
                    s.alarms.push(Alarm {
                        member_id: 2,
                        kind: AlarmKind::Other("X".into()),
                    })
                },
                vec!["AlarmRaised"],
            ),
            (
                "alarm entry in status errors is not a MemberError",
                3,
                |s| {
                    status_mut(s, 1)
                        .errors
                        .push(StatusError::parse("memberID:2 alarm:NOSPACE "))
                },
                vec![],
            ),
            (
                "other status error refuses",
                3,
                |s| {
                    status_mut(s, 1)
                        .errors
                        .push(StatusError::parse("etcdserver: something odd"))
                },
                vec!["MemberError"],
            ),
            (
                "no leader entry with leader 0 is one NoLeader",
                3,
                |s| {
                    let st = status_mut(s, 2);
                    st.leader = 0;
                    st.errors.push(StatusError::parse("etcdserver: no leader"));
                },
                vec!["NoLeader"],
            ),
            (
                "no leader entry while naming a leader is an error",
                3,
                |s| {
                    status_mut(s, 2)
                        .errors
                        .push(StatusError::parse("etcdserver: no leader"))
                },
                vec!["MemberError"],
            ),
            (
                "apply lag over bound",
                3,
                |s| status_mut(s, 1).raft_applied_index = 99,
                vec!["ApplyLag"],
            ),
            (
                "apply lag at bound passes",
                3,
                |s| status_mut(s, 1).raft_applied_index = 100,
                vec![],
            ),
            (
                "behind leader",
                3,
                |s| {
                    status_mut(s, 0).raft_index = 5000;
                    status_mut(s, 0).raft_applied_index = 5000;
                },
                vec!["BehindLeader", "BehindLeader"],
            ),
            (
                "learner mid-promotion",
                3,
                |s| status_mut(s, 2).is_learner = true,
                vec!["LearnerPromoting"],
            ),
            (
                "learner does not count as voter",
                3,
                |s| {
                    if let Some(l) = s.members[2].listed.as_mut() {
                        l.is_learner = true;
                    }
                    status_mut(s, 2).is_learner = true;
                },
                vec!["QuorumMargin"],
            ),
        ];
        for (name, n, edit, want) in cases {
            let mut s = healthy(n);
            // Give the "apply lag" cases room.
            for i in 0..s.members.len() {
                status_mut(&mut s, i).raft_index = 1100;
                status_mut(&mut s, i).raft_applied_index = 1100;
            }
            edit(&mut s);
            assert_eq!(codes(&s, GateOptions::default()), want, "{name}");
        }
    }

    #[test]
    fn a_snapshot_that_could_reach_an_affected_member_refuses() {
        use crate::look::SnapshotWatch;
        fn watch(progress: Option<&str>, in_flight: Option<u64>, unread: &[&str]) -> SnapshotWatch {
            SnapshotWatch {
                leader_progress: progress.map(str::to_string),
                in_flight,
                unread: unread.iter().map(|u| u.to_string()).collect(),
            }
        }
        let cases: Vec<(&str, SnapshotWatch, Vec<&str>, &str)> = vec![
            (
                "streaming, nothing in flight",
                watch(Some("StateReplicate"), Some(0), &[]),
                vec![],
                "",
            ),
            (
                "the leader sends a snapshot",
                watch(Some("StateSnapshot"), Some(0), &[]),
                vec!["SnapshotInFlight"],
                "the leader is sending it a snapshot",
            ),
            (
                "the leader probes",
                watch(Some("StateProbe"), Some(0), &[]),
                vec!["SnapshotInFlight"],
                "StateProbe",
            ),
            (
                "the member applies one",
                watch(Some("StateReplicate"), Some(1), &[]),
                vec!["SnapshotInFlight"],
                "receiving or applying 1 snapshot",
            ),
            (
                "the leader's progress unread",
                watch(
                    None,
                    Some(0),
                    &["the leader's raft progress (m0 /debug/vars: connect: refused)"],
                ),
                vec!["SnapshotInFlight"],
                "the leader's raft progress (m0 /debug/vars",
            ),
        ];
        for (name, w, want, says) in cases {
            let mut s = healthy(3);
            status_mut(&mut s, 1).version = "3.4.23".into();
            s.members[1].snapshot_watch = Some(w);
            let verdict = evaluate(&s, &GateOptions::default());
            let codes: Vec<&str> = verdict.reasons.iter().map(|r| r.code()).collect();
            assert_eq!(codes, want, "{name}");
            if let Some(r) = verdict.reasons.first() {
                let text = r.to_string();
                assert_eq!(r.member(), Some("m2"), "{name}");
                assert!(text.contains(says), "{name}: {text}");
                assert!(text.contains("etcd 3.4.23"), "{name}: {text}");
                assert!(
                    text.contains("upgrade to 3.4.38 or later (etcd PR 20659)"),
                    "{name}: {text}"
                );
            }
        }
    }

    #[test]
    fn consent_lifts_only_the_quorum_reason() {
        let mut s = healthy(1);
        assert_eq!(codes(&s, GateOptions::default()), vec!["QuorumMargin"]);
        let consent = GateOptions {
            allow_quorum_loss: true,
            ..Default::default()
        };
        assert!(codes(&s, consent).is_empty());
        s.alarms.push(Alarm {
            member_id: 1,
            kind: AlarmKind::Corrupt,
        });
        assert_eq!(codes(&s, consent), vec!["AlarmRaised"]);
    }

    #[test]
    fn every_failing_reason_is_listed_with_its_member() {
        let mut s = healthy(3);
        s.members[1].probe = Probe::NotProbed("x".into());
        s.alarms.push(Alarm {
            member_id: 3,
            kind: AlarmKind::Corrupt,
        });
        let verdict = evaluate(&s, &GateOptions::default());
        assert!(!verdict.passed());
        assert_eq!(verdict.reasons.len(), 2);
        assert_eq!(verdict.for_member("m2").count(), 1);
        assert_eq!(verdict.for_member("m3").count(), 1);
        assert_eq!(verdict.leader, Some(1));
        let text: Vec<String> = verdict.reasons.iter().map(|r| r.to_string()).collect();
        assert!(
            text[1].contains("CORRUPT") && text[1].contains("m3"),
            "{text:?}"
        );
    }

    #[test]
    fn one_moment_table() {
        type Edit = fn(&mut ClusterLook);
        fn ms(n: u64) -> Duration {
            Duration::from_millis(n)
        }
        let cases: Vec<(&str, Edit, Vec<&str>)> = vec![
            ("no timings (tests, old looks) pass", |_| {}, vec![]),
            (
                "answers within the bound of the fastest pass",
                |s| {
                    for (m, t) in s.members.iter_mut().zip([5, 300, 505]) {
                        m.answered_in = Some(ms(t));
                    }
                },
                vec![],
            ),
            (
                "a far network slows every answer alike and passes",
                |s| {
                    for (m, t) in s.members.iter_mut().zip([900, 1100, 1300]) {
                        m.answered_in = Some(ms(t));
                    }
                },
                vec![],
            ),
            (
                "one answer far behind the rest (a frozen member)",
                |s| {
                    for (m, t) in s.members.iter_mut().zip([2500, 4, 6]) {
                        m.answered_in = Some(ms(t));
                    }
                },
                vec!["SlowAnswer"],
            ),
            (
                "a member not answering is the gate's, not this check's",
                |s| {
                    s.members[0].probe = Probe::timed_out_for_test();
                    s.members[1].answered_in = Some(ms(3));
                    s.members[2].answered_in = Some(ms(4));
                },
                vec![],
            ),
            (
                "an answer from another raft term",
                |s| status_mut(s, 2).raft_term = 3,
                vec!["TermDisagreement"],
            ),
        ];
        for (name, edit, want) in cases {
            let mut s = healthy(3);
            edit(&mut s);
            let got: Vec<&str> = one_moment(&s, ONE_MOMENT)
                .iter()
                .map(|r| r.code())
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn still_as_looked_table() {
        let looked = healthy(3);
        let now = |leader: u64, term: u64| MemberStatus {
            member_id: 2,
            leader,
            raft_term: term,
            ..Default::default()
        };
        let cases = [
            ("same leader, same term", now(1, 2), None),
            (
                "it leads now",
                now(2, 3),
                Some("member m2 now reports leader m2 in term 3; the look showed leader m1 in term 2"),
            ),
            (
                "same leader, elected again in a later term",
                now(1, 4),
                Some("member m2 now reports leader m1 in term 4; the look showed leader m1 in term 2"),
            ),
            (
                "an election under way",
                now(0, 3),
                Some("member m2 now reports no leader in term 3; the look showed leader m1 in term 2"),
            ),
        ];
        for (name, status, want) in cases {
            let got = still_as_looked(&looked, 1, "m2", &status).map(|r| r.to_string());
            assert_eq!(got.as_deref(), want, "{name}");
        }
        // A member the look has no answer from is not judged here.
        assert_eq!(still_as_looked(&looked, 1, "m9", &now(2, 3)), None);
    }

    /// Issue 38: how a wait for a returning member treats each reason is
    /// decided on the reason (`holds_a_returning_member`), not in a filter.
    #[test]
    fn a_returning_member_is_held_by_its_own_state_not_by_an_alarm() {
        let m = || "m1".to_string();
        for (reason, holds) in [
            (
                GateReason::Alarm {
                    member: m(),
                    alarm: "NOSPACE".into(),
                },
                false,
            ),
            (
                GateReason::ApplyLag {
                    member: m(),
                    lag: 5000,
                    bound: 1000,
                },
                true,
            ),
            (GateReason::NoLeader { member: m() }, true),
            (
                GateReason::MemberUnreachable {
                    member: m(),
                    cause: "refused".into(),
                },
                true,
            ),
            (GateReason::LearnerPromoting { member: m() }, true),
        ] {
            assert_eq!(reason.holds_a_returning_member(), holds, "{reason}");
        }
    }

    #[test]
    fn a_policy_tick_says_the_patch_that_suspends_it() {
        let at: jiff::Timestamp = "2026-12-05T10:00:00Z".parse().unwrap();
        let reason = GateReason::PolicyTickDue {
            policy: "db/nightly".into(),
            at,
            window: Duration::from_secs(90),
            overdue: None,
        };
        let text = reason.to_string();
        assert!(
            text.contains("ticks again at 2026-12-05T10:00:00Z"),
            "{text}"
        );
        assert!(
            text.ends_with("(kubectl patch etcddefragpolicy nightly -n db --type merge -p '{\"spec\":{\"suspend\":true}}') and resume it after"),
            "{text}"
        );
    }
}
