//! Progress events of a sweep, consumed by the terminal display, logs, and
//! (later) the `--watch` controller.

use std::time::Duration;

use crate::exec::MemberResult;
use crate::plan::defrag::{LeaderChoice, Plan, PlannedMember};
use crate::plan::gate::GateReason;

/// Something the sweep did or decided.
#[derive(Debug)]
pub enum ExecEvent<'a> {
    /// The first plan.
    Planned {
        plan: &'a Plan,
    },
    /// The gate refused; `retry_in` when waiting (`--wait-healthy`).
    GateRefused {
        reasons: &'a [GateReason],
        retry_in: Option<Duration>,
    },
    Compacted {
        revision: i64,
        settled_in: Duration,
    },
    LeaderDecision {
        member: &'a str,
        choice: &'a LeaderChoice,
    },
    LeaderTransferred {
        from: &'a str,
        to: &'a str,
        took: Duration,
    },
    DefragStarted {
        member: &'a PlannedMember,
    },
    /// The member has not answered or caught up yet after its defrag.
    WaitingForMember {
        member: &'a str,
        waited: Duration,
    },
    DefragFinished {
        result: &'a MemberResult,
    },
}

/// Receives events. Implementations must not block.
pub trait EventSink: Send + Sync {
    fn event(&self, event: &ExecEvent<'_>);
}

impl ExecEvent<'_> {
    /// One line for a person, shared by the log and the progress display.
    pub fn describe(&self) -> String {
        use crate::quantity::{format_bytes, format_duration};
        match self {
            ExecEvent::Planned { plan } => {
                let order: Vec<&str> = plan.to_defrag().map(|m| m.name.as_str()).collect();
                if order.is_empty() {
                    "plan: nothing to defragment".to_string()
                } else {
                    format!("plan: defragment {}", order.join(" → "))
                }
            }
            ExecEvent::GateRefused { reasons, retry_in } => {
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
            ExecEvent::Compacted {
                revision,
                settled_in,
            } => format!(
                "compacted at revision {revision}; in-use sizes settled after {}",
                format_duration(*settled_in)
            ),
            ExecEvent::LeaderDecision { member, choice } => format!(
                "leader {member}: {} ({})",
                if choice.transfer {
                    "transferring leadership first"
                } else {
                    "defragmenting in place"
                },
                choice.why
            ),
            ExecEvent::LeaderTransferred { from, to, took } => format!(
                "leadership moved from {from} to {to} in {}",
                format_duration(*took)
            ),
            ExecEvent::DefragStarted { member } => format!(
                "defragmenting {} ({:?}, {} on disk, {} in use)",
                member.name,
                member.role,
                format_bytes(member.db_size),
                format_bytes(member.in_use)
            ),
            ExecEvent::WaitingForMember { member, waited } => format!(
                "waiting for {member} to answer and catch up ({})",
                format_duration(*waited)
            ),
            ExecEvent::DefragFinished { result } => format!(
                "member {} {:?}{}{}",
                result.name,
                result.outcome,
                if result.reason.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", result.reason)
                },
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
        }
    }
}

/// Writes each event as a log line (info level, refusals as warnings; `-v`
/// shows them).
pub struct LogSink;

impl EventSink for LogSink {
    fn event(&self, event: &ExecEvent<'_>) {
        match event {
            ExecEvent::GateRefused { .. } => tracing::warn!("{}", event.describe()),
            _ => tracing::info!("{}", event.describe()),
        }
    }
}
