//! Sweep progress on stderr: a spinner per member on a terminal, log lines
//! otherwise (visible with `-v`). Never on stdout.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::OutputFormat;
use crate::exec::events::{EventSink, ExecEvent, LogSink};
use crate::quantity::{format_bytes, format_duration};

/// The sink for this run: bars when a person watches a table, else logs.
pub fn sink(format: OutputFormat) -> Box<dyn EventSink> {
    let tty = std::io::stderr().is_terminal();
    let logging = std::env::var_os("RUST_LOG").is_some();
    if tty && !logging && matches!(format, OutputFormat::Table | OutputFormat::Wide) {
        Box::new(Bars::default())
    } else {
        Box::new(LogSink)
    }
}

#[derive(Default)]
struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn line(&self, text: String) {
        match self.current.lock().ok().and_then(|g| g.clone()) {
            Some(bar) => bar.println(text),
            None => crate::logging::message(&text),
        }
    }
}

impl EventSink for Bars {
    fn event(&self, event: &ExecEvent<'_>) {
        match event {
            ExecEvent::DefragStarted { member } => {
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.enable_steady_tick(Duration::from_millis(120));
                bar.set_message(format!(
                    "defragmenting {} ({:?}, {} on disk, {} in use)",
                    member.name,
                    member.role,
                    format_bytes(member.db_size),
                    format_bytes(member.in_use)
                ));
                if let Ok(mut g) = self.current.lock() {
                    *g = Some(bar);
                }
            }
            ExecEvent::WaitingForMember { member, waited } => {
                if let Some(bar) = self.current.lock().ok().and_then(|g| g.clone()) {
                    bar.set_message(format!(
                        "waiting for {member} to answer and catch up ({})",
                        format_duration(*waited)
                    ));
                }
            }
            ExecEvent::DefragFinished { result } => {
                let bar = self.current.lock().ok().and_then(|mut g| g.take());
                let text = format!(
                    "{} {:?}{}{}",
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
                );
                match bar {
                    Some(b) => b.finish_with_message(text),
                    None => crate::logging::message(&text),
                }
            }
            ExecEvent::GateRefused { reasons, retry_in } => {
                let text: Vec<String> = reasons.iter().map(|r| r.to_string()).collect();
                self.line(match retry_in {
                    Some(d) => format!(
                        "health gate refused ({}); retrying in {}",
                        text.join("; "),
                        format_duration(*d)
                    ),
                    None => format!("health gate refused: {}", text.join("; ")),
                });
            }
            ExecEvent::LeaderDecision { member, choice } => self.line(format!(
                "leader {member}: {} ({})",
                if choice.transfer {
                    "transferring leadership first"
                } else {
                    "defragmenting in place"
                },
                choice.why
            )),
            ExecEvent::LeaderTransferred { from, to, took } => self.line(format!(
                "leadership moved from {from} to {to} in {}",
                format_duration(*took)
            )),
            ExecEvent::Compacted {
                revision,
                settled_in,
            } => self.line(format!(
                "compacted at revision {revision}; sizes settled after {}",
                format_duration(*settled_in)
            )),
            ExecEvent::Planned { .. } => {}
        }
    }
}
