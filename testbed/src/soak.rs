//! The fault soak (issue 25), its pure half: each round's plan drawn from a
//! seed, and the invariants judged from what the servers recorded. The
//! runner (`soak::run`) starts the cluster, the tool and the faults, and
//! turns each member's own log into an [`Observed`].
//!
//! A round is reproducible from `(seed, round)` alone: [`plan_round`] draws
//! everything from a generator seeded with both.

pub mod run;

use std::fmt;

/// splitmix64: small, fast, and the same on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, round: u64) -> Rng {
        Rng(seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// One fault, at a moment counted from the start of the tool's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// SIGSTOP member, SIGCONT after `for_ms`.
    Pause {
        member: usize,
        at_ms: u64,
        for_ms: u64,
    },
    /// SIGKILL member, start it again after `down_ms`.
    KillRestart {
        member: usize,
        at_ms: u64,
        down_ms: u64,
    },
    /// A third party moves leadership to another member.
    MoveLeader { at_ms: u64 },
    /// The tool gets SIGTERM (or SIGINT), and with `twice` again 300 ms later.
    StopTool { at_ms: u64, term: bool, twice: bool },
    /// A third party raises CORRUPT for member, and disarms it after
    /// `for_ms`.
    Corrupt {
        member: usize,
        at_ms: u64,
        for_ms: u64,
    },
    /// A client fills the backend until etcd refuses it with NOSPACE (the
    /// round's members run with a quota just above their fragmented size).
    Nospace { at_ms: u64 },
}

impl Fault {
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Pause { .. } => "pause",
            Fault::KillRestart { .. } => "kill-restart",
            Fault::MoveLeader { .. } => "move-leader",
            Fault::StopTool { .. } => "stop-tool",
            Fault::Corrupt { .. } => "corrupt",
            Fault::Nospace { .. } => "nospace",
        }
    }

    pub fn at_ms(&self) -> u64 {
        match *self {
            Fault::Pause { at_ms, .. }
            | Fault::KillRestart { at_ms, .. }
            | Fault::MoveLeader { at_ms }
            | Fault::StopTool { at_ms, .. }
            | Fault::Corrupt { at_ms, .. }
            | Fault::Nospace { at_ms } => at_ms,
        }
    }
}

/// What one round does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPlan {
    pub seed: u64,
    pub round: u64,
    /// 3, sometimes 5.
    pub members: usize,
    pub faults: Vec<Fault>,
}

impl RoundPlan {
    /// Whether its members run with a small quota (a NOSPACE fault).
    pub fn small_quota(&self) -> bool {
        self.faults
            .iter()
            .any(|f| matches!(f, Fault::Nospace { .. }))
    }
}

/// The plan of round `round` of seed `seed`: one to three faults, each at
/// a moment within the first `span_ms` of the run.
pub fn plan_round(seed: u64, round: u64, span_ms: u64) -> RoundPlan {
    let mut rng = Rng::new(seed, round);
    let members = if rng.chance(20) { 5 } else { 3 };
    let count = rng.between(1, 3);
    let mut faults = Vec::new();
    let (mut stopped_tool, mut filled) = (false, false);
    for _ in 0..count {
        let at_ms = rng.between(0, span_ms);
        let member = rng.between(0, members as u64 - 1) as usize;
        let fault = match rng.between(0, 11) {
            0..=3 => Fault::Pause {
                member,
                at_ms,
                for_ms: rng.between(200, 8000),
            },
            4..=5 => Fault::KillRestart {
                member,
                at_ms,
                down_ms: rng.between(200, 5000),
            },
            6..=7 => Fault::MoveLeader { at_ms },
            8 => Fault::Corrupt {
                member,
                at_ms,
                for_ms: rng.between(200, 5000),
            },
            9 if !filled => {
                filled = true;
                Fault::Nospace { at_ms }
            }
            10..=11 if !stopped_tool => {
                stopped_tool = true;
                Fault::StopTool {
                    at_ms,
                    term: rng.chance(50),
                    twice: rng.chance(30),
                }
            }
            _ => Fault::MoveLeader { at_ms },
        };
        faults.push(fault);
    }
    faults.sort_by_key(Fault::at_ms);
    RoundPlan {
        seed,
        round,
        members,
        faults,
    }
}

/// One fault of a `--watch` round: a member fault, or one done to the
/// watchers or to the EtcdDefrag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchFault {
    Member(Fault),
    /// SIGKILL the Lease holder; start a new watcher after `down_ms`.
    KillWatcher {
        at_ms: u64,
        down_ms: u64,
    },
    /// SIGSTOP the Lease holder past the Lease (a second watcher is
    /// running), SIGCONT after `for_ms`.
    PauseHolder {
        at_ms: u64,
        for_ms: u64,
    },
    /// Another client deletes the EtcdDefrag.
    DeleteRun {
        at_ms: u64,
    },
    /// Another client creates a second EtcdDefrag for the same cluster.
    SecondRun {
        at_ms: u64,
    },
    /// Another client edits the EtcdDefrag's labels (its status writes
    /// then conflict).
    EditRun {
        at_ms: u64,
    },
    /// kube-apiserver SIGKILLed, started again after `down_ms`.
    RestartApiServer {
        at_ms: u64,
        down_ms: u64,
    },
    /// An EtcdDefragPolicy stamping a run every 2 s, suspended after
    /// `for_ms` (never with a deleted run: its runs would act after it).
    Policy {
        at_ms: u64,
        for_ms: u64,
    },
}

impl WatchFault {
    pub fn kind(&self) -> &'static str {
        match self {
            WatchFault::Member(f) => f.kind(),
            WatchFault::KillWatcher { .. } => "kill-watcher",
            WatchFault::PauseHolder { .. } => "pause-holder",
            WatchFault::DeleteRun { .. } => "delete-run",
            WatchFault::SecondRun { .. } => "second-run",
            WatchFault::EditRun { .. } => "edit-run",
            WatchFault::RestartApiServer { .. } => "restart-apiserver",
            WatchFault::Policy { .. } => "policy",
        }
    }

    pub fn at_ms(&self) -> u64 {
        match *self {
            WatchFault::Member(f) => f.at_ms(),
            WatchFault::KillWatcher { at_ms, .. }
            | WatchFault::PauseHolder { at_ms, .. }
            | WatchFault::DeleteRun { at_ms }
            | WatchFault::SecondRun { at_ms }
            | WatchFault::EditRun { at_ms }
            | WatchFault::RestartApiServer { at_ms, .. }
            | WatchFault::Policy { at_ms, .. } => at_ms,
        }
    }
}

/// What one `--watch` round does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchPlan {
    pub seed: u64,
    pub round: u64,
    pub members: usize,
    /// 1, or 2 when the holder is paused past its Lease.
    pub watchers: usize,
    pub faults: Vec<WatchFault>,
}

impl WatchPlan {
    pub fn small_quota(&self) -> bool {
        self.faults
            .iter()
            .any(|f| matches!(f, WatchFault::Member(Fault::Nospace { .. })))
    }

    /// The member faults, for the shared harness.
    pub fn member_faults(&self) -> Vec<Fault> {
        self.faults
            .iter()
            .filter_map(|f| match f {
                WatchFault::Member(m) => Some(*m),
                _ => None,
            })
            .collect()
    }

    /// As a [`RoundPlan`], for the report of a round.
    pub fn as_round(&self) -> RoundPlan {
        RoundPlan {
            seed: self.seed,
            round: self.round,
            members: self.members,
            faults: self.member_faults(),
        }
    }
}

/// The plan of `--watch` round `round` of `seed`: one to three faults
/// within `span_ms` of the EtcdDefrag's creation. A run is deleted, or
/// joined by a second one, not both (a deleted run's successor would act
/// after the deletion, by design).
pub fn plan_watch_round(seed: u64, round: u64, span_ms: u64) -> WatchPlan {
    // A generator of its own, apart from the one-shot rounds'.
    let mut rng = Rng::new(seed ^ 0x5741_5443_4845_5221, round);
    let members = if rng.chance(20) { 5 } else { 3 };
    let count = rng.between(1, 3);
    let (mut watchers, mut run_fault, mut filled) = (1, false, false);
    let mut faults = Vec::new();
    for _ in 0..count {
        let at_ms = rng.between(0, span_ms);
        let member = rng.between(0, members as u64 - 1) as usize;
        let fault = match rng.between(0, 10) {
            0..=1 => WatchFault::Member(Fault::Pause {
                member,
                at_ms,
                for_ms: rng.between(200, 8000),
            }),
            2 => WatchFault::Member(Fault::KillRestart {
                member,
                at_ms,
                down_ms: rng.between(200, 5000),
            }),
            3 => WatchFault::Member(Fault::MoveLeader { at_ms }),
            4 => WatchFault::Member(Fault::Corrupt {
                member,
                at_ms,
                for_ms: rng.between(200, 5000),
            }),
            5 if !filled => {
                filled = true;
                WatchFault::Member(Fault::Nospace { at_ms })
            }
            5..=7 => WatchFault::KillWatcher {
                at_ms,
                down_ms: rng.between(200, 3000),
            },
            8 => {
                watchers = 2;
                WatchFault::PauseHolder {
                    at_ms,
                    for_ms: rng.between(3500, 7000),
                }
            }
            9 if !run_fault => {
                run_fault = true;
                if rng.chance(50) {
                    WatchFault::DeleteRun { at_ms }
                } else {
                    WatchFault::SecondRun { at_ms }
                }
            }
            _ => WatchFault::EditRun { at_ms },
        };
        faults.push(fault);
    }
    // From a stream of its own, so that adding it left the other faults
    // of every round as they were.
    let mut extra = Rng::new(seed ^ 0x4150_4953_4552_5645, round);
    if extra.chance(15) {
        faults.push(WatchFault::RestartApiServer {
            at_ms: extra.between(0, span_ms),
            down_ms: extra.between(500, 4000),
        });
    }
    let deleted = faults
        .iter()
        .any(|f| matches!(f, WatchFault::DeleteRun { .. }));
    if extra.chance(15) && !deleted {
        faults.push(WatchFault::Policy {
            at_ms: extra.between(0, span_ms),
            for_ms: extra.between(2000, 6000),
        });
    }
    faults.sort_by_key(WatchFault::at_ms);
    WatchPlan {
        seed,
        round,
        members,
        watchers,
        faults,
    }
}

/// A defragmentation in a member's own log: its start, and its end when
/// the member logged one (a member killed mid-defrag did not; its defrag
/// lasted until the kill, `cut`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defrag {
    pub member: usize,
    pub start: f64,
    pub end: Option<f64>,
    pub cut: Option<f64>,
}

impl Defrag {
    /// When it stopped holding the member, as far as anyone can tell.
    pub fn until(&self, round_end: f64) -> f64 {
        self.end.or(self.cut).unwrap_or(round_end)
    }
}

/// A span in which a member could not answer: paused or dead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outage {
    pub member: usize,
    pub from: f64,
    pub to: f64,
}

/// What a round left on record: the members' own logs, the faults as
/// injected, and the tool's exit code and rows (only to compare with the
/// logs, never as evidence by themselves).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observed {
    pub defrags: Vec<Defrag>,
    pub outages: Vec<Outage>,
    pub round_end: f64,
    pub exit: i32,
    /// Members the tool's report calls Defragmented.
    pub reported_defragmented: Vec<usize>,
    /// Members of the cluster.
    pub members: usize,
    /// Keys a client had acknowledged writes for, and those found after.
    pub acknowledged: u64,
    pub found: u64,
    /// When the tool was first sent SIGINT or SIGTERM, if it was.
    pub stopped_at: Option<f64>,
    /// Spans in which a member led, from its own raft records ("became
    /// leader" until "became follower/candidate/pre-candidate" or its
    /// death).
    pub leaderships: Vec<Outage>,
    /// Spans in which a third party held CORRUPT raised for a member: from
    /// the raise's answer until the disarm was sent.
    pub corrupt: Vec<Outage>,
    /// A CORRUPT alarm that was already gone when its third party came to
    /// disarm it: someone else disarmed it.
    pub corrupt_cleared_by_other: bool,
    /// When the filler first met NOSPACE, if it did, and the members
    /// AlarmList then named.
    pub nospace_at: Option<f64>,
    pub nospace_raised: Vec<usize>,
    /// NOSPACE alarms raised after the round, and every member's
    /// (size, quota) then, by index.
    pub nospace_left: Vec<usize>,
    pub sizes_after: Vec<Option<(u64, u64)>>,
    /// What was wrong with the cluster after the round, if anything: a
    /// member not answering, no agreed leader, a CORRUPT alarm left.
    pub unhealthy_after: Option<String>,
    /// Whether the tool's output gives a reason for a non-zero exit (a
    /// stop reason, a failed or held-back member, a kept alarm, a hash
    /// disagreement, an error line).
    pub reason_given: bool,
    /// `--watch` only, from the API server's audit log: (when it took
    /// effect, who) for every successful write of the watchers' Lease,
    /// and (when it was received, who) for every write to an EtcdDefrag by
    /// a watcher (its status, or the note before a Defragment).
    pub lease_writes: Vec<(f64, String)>,
    pub run_writes: Vec<(f64, String)>,
    /// With runs one after another (a second EtcdDefrag for the same
    /// cluster): when each run but the last ended, from the API server's
    /// record of its last status write. A defrag belongs to the run whose
    /// span holds its start.
    pub run_bounds: Vec<f64>,
}

impl Observed {
    /// The run a defrag started at `start` belongs to.
    pub fn run_of(&self, start: f64) -> usize {
        self.run_bounds.iter().filter(|b| **b < start).count()
    }
}

/// How long after a stop signal a defrag may still start: the Defragment
/// the tool had already sent when the signal came reaches the member's
/// log a moment later.
pub const STOP_GRACE_SECONDS: f64 = 0.2;

/// A broken invariant.
#[derive(Debug, Clone, PartialEq)]
pub enum Violation {
    TwoAtOnce {
        a: usize,
        b: usize,
        at: f64,
    },
    StartedWhileDown {
        member: usize,
        down: usize,
        at: f64,
    },
    Twice {
        member: usize,
    },
    ReportedNotLogged {
        member: usize,
    },
    ExitZeroNotAllDone {
        missing: Vec<usize>,
    },
    WriteLost {
        acknowledged: u64,
        found: u64,
    },
    StartedAfterStop {
        member: usize,
        after: f64,
    },
    StartedWhileCorrupt {
        member: usize,
        corrupt: usize,
        at: f64,
    },
    CorruptDisarmed,
    LeaderNotLast {
        member: usize,
        at: f64,
    },
    NospaceDisarmedOverQuota {
        member: usize,
        size: u64,
        quota: u64,
    },
    NospaceLeft {
        member: usize,
    },
    ExitTwoButChanged,
    NoReason {
        exit: i32,
    },
    UnhealthyAfter {
        why: String,
    },
    WroteWithoutLease {
        who: String,
        holder: String,
        at: f64,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::TwoAtOnce { a, b, at } => {
                write!(f, "m{a} and m{b} defragmented at once (at {at:.3})")
            }
            Violation::StartedWhileDown { member, down, at } => write!(
                f,
                "m{member} started defragmenting at {at:.3} while m{down} had been down longer than one gate probe"
            ),
            Violation::Twice { member } => write!(f, "m{member} defragmented twice in one run"),
            Violation::ReportedNotLogged { member } => write!(
                f,
                "the report calls m{member} Defragmented, its own log has no finished defrag"
            ),
            Violation::ExitZeroNotAllDone { missing } => {
                write!(f, "exit 0, but no finished defrag in the logs of {missing:?}")
            }
            Violation::WriteLost {
                acknowledged,
                found,
            } => write!(f, "{acknowledged} writes acknowledged, {found} found after"),
            Violation::StartedAfterStop { member, after } => write!(
                f,
                "m{member} started defragmenting {after:.3}s after the tool was told to stop"
            ),
            Violation::StartedWhileCorrupt {
                member,
                corrupt,
                at,
            } => write!(
                f,
                "m{member} started defragmenting at {at:.3} while CORRUPT had been raised for m{corrupt} longer than one gate probe"
            ),
            Violation::CorruptDisarmed => {
                write!(f, "a CORRUPT alarm was disarmed by someone other than its raiser")
            }
            Violation::LeaderNotLast { member, at } => write!(
                f,
                "m{member} started defragmenting at {at:.3} while it led, and another member's defrag came after it"
            ),
            Violation::NospaceDisarmedOverQuota {
                member,
                size,
                quota,
            } => write!(
                f,
                "NOSPACE was disarmed while m{member} holds {size} bytes of its {quota} quota (over 90%)"
            ),
            Violation::NospaceLeft { member } => write!(
                f,
                "NOSPACE raised before the last defrag was left on m{member}, which is back under 90% of its quota"
            ),
            Violation::ExitTwoButChanged => {
                write!(f, "exit 2 (nothing changed), but a member's log has a defrag")
            }
            Violation::NoReason { exit } => {
                write!(f, "exit {exit} without a reason in the tool's output")
            }
            Violation::UnhealthyAfter { why } => write!(f, "after the round: {why}"),
            Violation::WroteWithoutLease { who, holder, at } => write!(
                f,
                "{who} wrote to the EtcdDefrag at {at:.3} while {holder} held the Lease"
            ),
        }
    }
}

/// The invariants over one round. `probe_s`: how long a member must have
/// been down before a step's gate is sure to see it (one Status timeout).
/// Pure.
pub fn check(o: &Observed, probe_s: f64) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, a) in o.defrags.iter().enumerate() {
        for b in &o.defrags[i + 1..] {
            let (a_end, b_end) = (a.until(o.round_end), b.until(o.round_end));
            if a.start < b_end && b.start < a_end {
                out.push(Violation::TwoAtOnce {
                    a: a.member,
                    b: b.member,
                    at: a.start.max(b.start),
                });
            }
        }
        for down in &o.outages {
            if down.member != a.member && down.from + probe_s <= a.start && a.start < down.to {
                out.push(Violation::StartedWhileDown {
                    member: a.member,
                    down: down.member,
                    at: a.start,
                });
            }
        }
    }
    for m in 0..o.members {
        let finished = o
            .defrags
            .iter()
            .filter(|d| d.member == m && d.end.is_some())
            .count();
        let in_one_run = (0..=o.run_bounds.len()).any(|run| {
            o.defrags
                .iter()
                .filter(|d| d.member == m && d.end.is_some() && o.run_of(d.start) == run)
                .count()
                > 1
        });
        if in_one_run {
            out.push(Violation::Twice { member: m });
        }
        if finished == 0 && o.reported_defragmented.contains(&m) {
            out.push(Violation::ReportedNotLogged { member: m });
        }
    }
    if o.exit == 0 {
        let missing: Vec<usize> = (0..o.members)
            .filter(|m| !o.defrags.iter().any(|d| d.member == *m && d.end.is_some()))
            .collect();
        if !missing.is_empty() {
            out.push(Violation::ExitZeroNotAllDone { missing });
        }
    }
    if let Some(stop) = o.stopped_at {
        for d in o
            .defrags
            .iter()
            .filter(|d| d.start > stop + STOP_GRACE_SECONDS)
        {
            out.push(Violation::StartedAfterStop {
                member: d.member,
                after: d.start - stop,
            });
        }
    }
    if o.found < o.acknowledged {
        out.push(Violation::WriteLost {
            acknowledged: o.acknowledged,
            found: o.found,
        });
    }
    out.extend(check_alarms_and_leaders(o, probe_s));
    if o.exit == 2 && !o.defrags.is_empty() {
        out.push(Violation::ExitTwoButChanged);
    }
    if o.exit != 0 && !o.reason_given {
        out.push(Violation::NoReason { exit: o.exit });
    }
    if let Some(why) = &o.unhealthy_after {
        out.push(Violation::UnhealthyAfter { why: why.clone() });
    }
    out.extend(check_fencing(o));
    out
}

/// No watcher writes to a run (and so, by the note it writes first, sends
/// no Defragment) while another holds the Lease: the holder at a moment is
/// whoever last wrote the Lease before it.
fn check_fencing(o: &Observed) -> Vec<Violation> {
    let mut out = Vec::new();
    for (at, who) in &o.run_writes {
        let holder = o
            .lease_writes
            .iter()
            .filter(|(t, _)| t < at)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, h)| h);
        if let Some(holder) = holder.filter(|h| *h != who) {
            out.push(Violation::WroteWithoutLease {
                who: who.clone(),
                holder: holder.clone(),
                at: *at,
            });
        }
    }
    out
}

/// How long a member may have led before a defrag of it started without
/// the tool having had a chance to see it: a third party's handover lands
/// between the tool's last question to the member and its Defragment.
pub const LEADER_GRACE_SECONDS: f64 = 0.5;

/// The alarm and leadership invariants.
fn check_alarms_and_leaders(o: &Observed, probe_s: f64) -> Vec<Violation> {
    let mut out = Vec::new();
    for d in &o.defrags {
        for c in &o.corrupt {
            if c.from + probe_s <= d.start && d.start < c.to {
                out.push(Violation::StartedWhileCorrupt {
                    member: d.member,
                    corrupt: c.member,
                    at: d.start,
                });
            }
        }
        let led = o.leaderships.iter().any(|l| {
            l.member == d.member && l.from + LEADER_GRACE_SECONDS <= d.start && d.start < l.to
        });
        // Another voter after it in its run; the same member again (its
        // defrag cut by a kill and done over: watch seed 28 round 179) is
        // no other voter left waiting.
        let run = o.run_of(d.start);
        if led
            && o.defrags.iter().any(|later| {
                later.member != d.member && later.start > d.start && o.run_of(later.start) == run
            })
        {
            out.push(Violation::LeaderNotLast {
                member: d.member,
                at: d.start,
            });
        }
    }
    if o.corrupt_cleared_by_other {
        out.push(Violation::CorruptDisarmed);
    }
    if let Some(raised) = o.nospace_at {
        // Only the tool disarms NOSPACE: a member's alarm gone means it
        // did, and then that member must have been back under 90% of its
        // quota (members whose alarm was never raised are not its to keep).
        for (member, sizes) in o.sizes_after.iter().enumerate() {
            let Some((size, quota)) = *sizes else {
                continue;
            };
            let over = u128::from(size) * 10 > u128::from(quota) * 9;
            let disarmed = o.nospace_raised.contains(&member) && !o.nospace_left.contains(&member);
            if disarmed && over {
                out.push(Violation::NospaceDisarmedOverQuota {
                    member,
                    size,
                    quota,
                });
            }
            // Raised before the last defrag finished, so the tool's look
            // after the sweep saw it; a member under 90% then (sizes only
            // fall while NOSPACE holds writes) has its alarm disarmed,
            // unless the tool was stopped.
            let last_end = o.defrags.iter().filter_map(|d| d.end).reduce(f64::max);
            if o.nospace_left.contains(&member)
                && !over
                && o.stopped_at.is_none()
                && last_end.is_some_and(|end| raised < end)
            {
                out.push(Violation::NospaceLeft { member });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_is_the_same_from_its_seed_and_number() {
        assert_eq!(plan_round(7, 3, 10_000), plan_round(7, 3, 10_000));
        assert_ne!(plan_round(7, 3, 10_000), plan_round(7, 4, 10_000));
        let mut kinds = std::collections::BTreeSet::new();
        for round in 0..200 {
            let plan = plan_round(42, round, 10_000);
            assert!(matches!(plan.members, 3 | 5));
            assert!((1..=3).contains(&plan.faults.len()));
            assert!(plan.faults.windows(2).all(|w| w[0].at_ms() <= w[1].at_ms()));
            let stops = plan
                .faults
                .iter()
                .filter(|f| matches!(f, Fault::StopTool { .. }))
                .count();
            assert!(stops <= 1);
            for f in &plan.faults {
                kinds.insert(f.kind());
                match *f {
                    Fault::Pause { member, for_ms, .. } => {
                        assert!(member < plan.members && (200..=8000).contains(&for_ms))
                    }
                    Fault::KillRestart {
                        member, down_ms, ..
                    } => {
                        assert!(member < plan.members && (200..=5000).contains(&down_ms))
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(kinds.len(), 6, "{kinds:?}");
    }

    #[test]
    fn a_watch_round_is_the_same_from_its_seed_and_number() {
        assert_eq!(
            plan_watch_round(7, 3, 10_000),
            plan_watch_round(7, 3, 10_000)
        );
        let mut kinds = std::collections::BTreeSet::new();
        for round in 0..300 {
            let plan = plan_watch_round(42, round, 10_000);
            assert!((1..=5).contains(&plan.faults.len()));
            let run_faults = plan
                .faults
                .iter()
                .filter(|f| {
                    matches!(
                        f,
                        WatchFault::DeleteRun { .. } | WatchFault::SecondRun { .. }
                    )
                })
                .count();
            assert!(run_faults <= 1, "{plan:?}");
            let policy = plan
                .faults
                .iter()
                .any(|f| matches!(f, WatchFault::Policy { .. }));
            let deleted = plan
                .faults
                .iter()
                .any(|f| matches!(f, WatchFault::DeleteRun { .. }));
            assert!(!(policy && deleted), "{plan:?}");
            let paused = plan
                .faults
                .iter()
                .any(|f| matches!(f, WatchFault::PauseHolder { .. }));
            assert_eq!(plan.watchers, if paused { 2 } else { 1 });
            kinds.extend(plan.faults.iter().map(WatchFault::kind));
        }
        assert_eq!(kinds.len(), 12, "{kinds:?}");
    }

    fn done(member: usize, start: f64, end: f64) -> Defrag {
        Defrag {
            member,
            start,
            end: Some(end),
            cut: None,
        }
    }

    fn clean() -> Observed {
        Observed {
            defrags: vec![done(1, 1.0, 1.5), done(2, 2.0, 2.4), done(0, 3.0, 3.5)],
            outages: vec![],
            round_end: 10.0,
            exit: 0,
            reported_defragmented: vec![0, 1, 2],
            members: 3,
            acknowledged: 50,
            found: 50,
            stopped_at: None,
            reason_given: true,
            ..Observed::default()
        }
    }

    #[test]
    fn each_invariant_catches_its_violation() {
        assert_eq!(check(&clean(), 1.0), vec![]);

        let mut o = clean();
        o.defrags[1].start = 1.4;
        assert!(matches!(
            check(&o, 1.0)[..],
            [Violation::TwoAtOnce { a: 1, b: 2, .. }]
        ));

        // A defrag cut off by a kill holds its member until the kill.
        let mut o = clean();
        o.defrags[0] = Defrag {
            member: 1,
            start: 1.0,
            end: None,
            cut: Some(2.2),
        };
        o.reported_defragmented = vec![0, 2];
        o.exit = 1;
        assert!(matches!(check(&o, 1.0)[..], [Violation::TwoAtOnce { .. }]));

        // Down 1.5 s before m2 started: the gate should have seen it.
        let mut o = clean();
        o.outages.push(Outage {
            member: 0,
            from: 0.5,
            to: 2.5,
        });
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::StartedWhileDown {
                member: 2,
                down: 0,
                at: 2.0
            }]
        );
        // Down only 0.3 s before: no gate could have known.
        let mut o = clean();
        o.outages.push(Outage {
            member: 0,
            from: 1.8,
            to: 2.5,
        });
        assert_eq!(check(&o, 1.0), vec![]);

        let mut o = clean();
        o.defrags.push(done(1, 5.0, 5.3));
        assert_eq!(check(&o, 1.0), vec![Violation::Twice { member: 1 }]);
        // A second run, after the first ended at 4.0, may take m1 again.
        o.run_bounds = vec![4.0];
        assert_eq!(check(&o, 1.0), vec![]);

        let mut o = clean();
        o.defrags.remove(2);
        o.exit = 1;
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::ReportedNotLogged { member: 0 }]
        );
        o.reported_defragmented = vec![1, 2];
        o.exit = 0;
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::ExitZeroNotAllDone { missing: vec![0] }]
        );

        let mut o = clean();
        o.stopped_at = Some(1.9);
        o.exit = 143;
        o.reported_defragmented = vec![1, 2];
        o.defrags.remove(2);
        assert_eq!(check(&o, 1.0), vec![]);
        o.stopped_at = Some(1.7);
        assert!(matches!(
            check(&o, 1.0)[..],
            [Violation::StartedAfterStop { member: 2, .. }]
        ));

        let mut o = clean();
        o.found = 49;
        assert!(matches!(check(&o, 1.0)[..], [Violation::WriteLost { .. }]));
    }

    fn span(member: usize, from: f64, to: f64) -> Outage {
        Outage { member, from, to }
    }

    #[test]
    fn alarm_leader_exit_and_health_invariants() {
        // CORRUPT raised 1.5 s before m2's defrag: the gate should have
        // seen it; raised 0.3 s before: it could not have.
        let mut o = clean();
        o.corrupt.push(span(0, 0.5, 2.5));
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::StartedWhileCorrupt {
                member: 2,
                corrupt: 0,
                at: 2.0
            }]
        );
        o.corrupt[0].from = 1.7;
        assert_eq!(check(&o, 1.0), vec![]);
        o.corrupt_cleared_by_other = true;
        assert_eq!(check(&o, 1.0), vec![Violation::CorruptDisarmed]);

        // m1 led from 0.2 s and was defragmented first: others came after.
        let mut o = clean();
        o.leaderships.push(span(1, 0.2, 10.0));
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::LeaderNotLast { member: 1, at: 1.0 }]
        );
        // The leader last of its run: a second run's members come after.
        o.run_bounds = vec![1.2];
        assert_eq!(check(&o, 1.0), vec![]);
        // The leader last, its defrag cut by a kill and done over (as a
        // follower by then): no other voter came after it.
        let mut o = clean();
        o.leaderships.push(span(0, 0.2, 3.2));
        o.defrags[2].end = None;
        o.defrags[2].cut = Some(3.2);
        o.outages.push(span(0, 3.2, 3.8));
        o.defrags.push(Defrag {
            member: 0,
            start: 4.0,
            end: Some(4.5),
            cut: None,
        });
        assert_eq!(check(&o, 1.0), vec![]);
        // ... but another voter after the cut one still is.
        o.defrags.push(Defrag {
            member: 1,
            start: 5.0,
            end: Some(5.5),
            cut: None,
        });
        assert!(check(&o, 1.0).contains(&Violation::LeaderNotLast { member: 0, at: 3.0 }));
        // The leader last is the in-place case; a handover that landed
        // just before the defrag is no step of the tool's.
        let mut o = clean();
        o.leaderships.push(span(0, 0.2, 10.0));
        o.leaderships.push(span(1, 0.8, 10.0));
        assert_eq!(check(&o, 1.0), vec![]);

        // NOSPACE met at 1.2 s, before the last defrag (ends 3.5 s).
        let mut o = clean();
        o.nospace_at = Some(1.2);
        o.nospace_raised = vec![0, 1];
        o.sizes_after = vec![Some((50, 100)), Some((95, 100)), Some((96, 100))];
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::NospaceDisarmedOverQuota {
                member: 1,
                size: 95,
                quota: 100
            }]
        );
        o.nospace_left = vec![1];
        assert_eq!(check(&o, 1.0), vec![]);
        o.nospace_left = vec![0, 1];
        assert_eq!(check(&o, 1.0), vec![Violation::NospaceLeft { member: 0 }]);
        // Met after the last defrag: the tool had looked already.
        o.nospace_at = Some(3.6);
        assert_eq!(check(&o, 1.0), vec![]);

        let mut o = clean();
        o.exit = 2;
        assert_eq!(check(&o, 1.0), vec![Violation::ExitTwoButChanged]);
        o.defrags.clear();
        o.reported_defragmented.clear();
        assert_eq!(check(&o, 1.0), vec![]);
        o.reason_given = false;
        assert_eq!(check(&o, 1.0), vec![Violation::NoReason { exit: 2 }]);

        // A wrote the Lease at 1, B took it over at 5: A's write at 4 is
        // its own, at 6 it is not.
        let mut o = clean();
        o.lease_writes = vec![(1.0, "a".into()), (3.0, "a".into()), (5.0, "b".into())];
        o.run_writes = vec![(2.0, "a".into()), (4.0, "a".into()), (5.5, "b".into())];
        assert_eq!(check(&o, 1.0), vec![]);
        o.run_writes.push((6.0, "a".into()));
        assert_eq!(
            check(&o, 1.0),
            vec![Violation::WroteWithoutLease {
                who: "a".into(),
                holder: "b".into(),
                at: 6.0
            }]
        );

        let mut o = clean();
        o.unhealthy_after = Some("m1 did not answer".into());
        assert!(matches!(
            check(&o, 1.0)[..],
            [Violation::UnhealthyAfter { .. }]
        ));
    }
}
