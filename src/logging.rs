//! Logging to stderr only (stdout carries results). `RUST_LOG` wins over
//! `-v`; the default shows warnings. `--log-format json` makes every line
//! on stderr — log events, messages for the person at the terminal, the
//! final error — one JSON object, for a log collector.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use tracing_subscriber::EnvFilter;

/// How stderr is written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Set once a result went to a stdout that is not a terminal: see
/// [`settle`].
static RESULT_ON_PIPE: AtomicBool = AtomicBool::new(false);

/// How long [`settle`] waits.
const SETTLE: Duration = Duration::from_millis(100);

/// What tracing and [`message`] name as the source of a line.
const TARGET: &str = "kubectl_etcd";

/// Installs the subscriber. `verbose` is the count of `-v`.
pub fn init(verbose: u8, format: LogFormat) {
    let _ = FORMAT.set(format);
    let default = match verbose {
        0 => "kubectl_etcd=warn",
        1 => "kubectl_etcd=info,warn",
        2 => "kubectl_etcd=debug,info",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
        ))
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.with_target(false).try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
}

/// Whether stderr gets colour: only on a terminal, and never when
/// `NO_COLOR` is set to anything but the empty string (no-color.org).
fn colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Notes that a result was written to a stdout that is not a terminal.
pub fn result_written_to_pipe() {
    RESULT_ON_PIPE.store(true, Ordering::Relaxed);
}

/// A container runtime copies a Pod's stdout and stderr into one log with
/// a reader for each, stamping each line when its reader gets it: a line
/// written to stderr right after a report on stdout can land above the
/// report (seen with containerd's CRI logger). Before the first stderr
/// line that follows a result on a pipe, wait a moment, so the report is
/// stamped first and the reason stays the log's last line — what a
/// CronJob's `kubectl logs` is read for.
fn settle() {
    if RESULT_ON_PIPE.swap(false, Ordering::Relaxed) {
        std::thread::sleep(SETTLE);
    }
}

/// A message for the person at the terminal (not a log line): one line on
/// stderr prefixed with the program name, or with `--log-format json` an
/// object shaped like the log events' (level INFO).
pub fn message(text: &str) {
    say("INFO", text);
}

/// A refusal or a warning for the person at the terminal: the same line
/// as [`message`], at level WARN in `--log-format json`, so that alerting
/// on the log sees it.
pub fn warn(text: &str) {
    say("WARN", text);
}

/// The last line of a run that acted and left something undone (exit 1):
/// the same line as [`message`], at level ERROR in `--log-format json`.
pub fn failed(text: &str) {
    say("ERROR", text);
}

fn say(level: &str, text: &str) {
    let line = match FORMAT.get() {
        Some(LogFormat::Json) => json_line(level, text),
        _ => format!("kubectl-etcd: {text}"),
    };
    settle();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// One JSON log line in the shape of tracing's flattened events.
fn json_line(level: &str, text: &str) -> String {
    serde_json::json!({
        "timestamp": jiff::Timestamp::now().to_string(),
        "level": level,
        "message": text,
        "target": TARGET,
    })
    .to_string()
}

/// The last line before a non-zero exit: `error: …`, or a JSON object of
/// level ERROR.
pub fn error(text: &str) {
    let line = match FORMAT.get() {
        Some(LogFormat::Json) => json_line("ERROR", text),
        _ => format!("kubectl-etcd: error: {text}"),
    };
    settle();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

#[cfg(test)]
mod tests {
    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        use std::ffi::OsStr;
        for (terminal, no_color, want) in [
            (true, None, true),
            (false, None, false),
            (true, Some(""), true),
            (true, Some("1"), false),
            (false, Some("1"), false),
        ] {
            assert_eq!(
                super::colour(terminal, no_color.map(OsStr::new)),
                want,
                "{terminal} {no_color:?}"
            );
        }
    }
}
