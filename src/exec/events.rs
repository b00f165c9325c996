//! What a run tells its caller while it goes: owned, typed events, each
//! awaited before the run goes on. That is what lets `--watch` persist a
//! member's row in EtcdDefrag status before the next member is touched, and
//! the terminal show a spinner per member; both are `Observer`s.

use std::time::Duration;

use futures::future::BoxFuture;

use crate::plan::defrag::{LeaderChoice, PlannedMember};
use crate::plan::gate::GateReason;
use crate::report::{MemberResult, StopReason};

/// Something the run did or decided.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// The first plan: the members to defragment, in order, and every
    /// member's planned line (`Pending`, or `Skipped` with its reason) —
    /// what `--watch` writes as the run's status rows.
    Planned {
        order: Vec<String>,
        members: Vec<MemberResult>,
    },
    /// The gate refused; `retry_in` when waiting (`--wait-healthy`).
    GateRefused {
        reasons: Vec<GateReason>,
        retry_in: Option<Duration>,
    },
    Compacted {
        revision: i64,
        settled_in: Duration,
    },
    LeaderDecision {
        member: String,
        choice: LeaderChoice,
    },
    LeaderTransferred {
        from: String,
        to: String,
        took: Duration,
    },
    /// A Defragment RPC is about to be sent.
    DefragStarted {
        member: PlannedMember,
    },
    /// The Defragment `DefragStarted` announced was not sent after all:
    /// the run stopped (a signal, a lost Lease, its deadline) before it
    /// left, so the member was not touched.
    DefragWithheld {
        member: String,
    },
    /// The member has not answered or caught up yet after its defrag.
    WaitingForMember {
        member: String,
        waited: Duration,
        /// What is still wrong (the last probe's error or gate reason).
        why: String,
    },
    /// A member is done with (defragmented, failed, or gone). The run
    /// touches no other member until the observer has returned.
    MemberFinished {
        result: MemberResult,
    },
    /// The run stops early.
    Stopping {
        reason: StopReason,
    },
}

/// Receives a run's events. The run awaits each call before it goes on, so
/// an observer may persist what it is told; it should not take long.
pub trait Observer: Send + Sync {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()>;
}

impl RunEvent {
    /// One line for a person, shared by the log and the progress display.
    pub fn describe(&self) -> String {
        use crate::quantity::{format_bytes, format_duration};
        match self {
            RunEvent::Planned { order, .. } => {
                if order.is_empty() {
                    "plan: nothing to defragment".to_string()
                } else {
                    format!("plan: defragment {}", order.join(" → "))
                }
            }
            RunEvent::GateRefused { reasons, retry_in } => {
                let text: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
                match retry_in {
                    Some(d) => format!(
                        "health gate refused ({}); retrying in {}",
                        text.join("; "),
                        format_duration(*d)
                    ),
                    None => format!("health gate refused: {}", text.join("; ")),
                }
            }
            RunEvent::Compacted {
                revision,
                settled_in,
            } => format!(
                "compacted at revision {revision}; in-use sizes settled after {}",
                format_duration(*settled_in)
            ),
            RunEvent::LeaderDecision { member, choice } => format!(
                "leader {member}: {} ({})",
                if choice.transfer {
                    "transferring leadership first"
                } else {
                    "defragmenting in place"
                },
                choice.why
            ),
            RunEvent::LeaderTransferred { from, to, took } => format!(
                "leadership moved from {from} to {to} in {}",
                format_duration(*took)
            ),
            RunEvent::DefragStarted { member } => format!(
                "defragmenting {} ({:?}, {} on disk, {} in use)",
                member.name,
                member.role,
                format_bytes(member.db_size),
                format_bytes(member.in_use)
            ),
            RunEvent::DefragWithheld { member } => {
                format!("{member}: Defragment not sent, the run stopped before it left")
            }
            RunEvent::WaitingForMember {
                member,
                waited,
                why,
            } => format!(
                "waiting for {member} to answer and catch up ({}): {why}",
                format_duration(*waited)
            ),
            RunEvent::MemberFinished { result } => format!(
                "member {} {:?}{}{}",
                result.name,
                result.outcome,
                result.reason.map(|r| format!(" ({r})")).unwrap_or_default(),
                match (result.db_size_after, result.duration_ms) {
                    (Some(after), Some(ms)) => format!(
                        ": {} → {} in {}",
                        format_bytes(result.db_size_before),
                        format_bytes(after),
                        format_duration(Duration::from_millis(ms))
                    ),
                    _ => String::new(),
                }
            ),
            RunEvent::Stopping { reason } => format!("stopping: {reason}"),
        }
    }
}

/// Writes each event as a log line (info level, refusals as warnings; `-v`
/// shows them).
pub struct LogObserver;

impl Observer for LogObserver {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        match &event {
            RunEvent::GateRefused { .. } => tracing::warn!("{}", event.describe()),
            _ => tracing::info!("{}", event.describe()),
        }
        Box::pin(async {})
    }
}
