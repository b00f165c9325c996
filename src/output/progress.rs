//! Run progress on stderr: a spinner per member on a terminal, log lines
//! otherwise (visible with `-v`). Never on stdout. Both are observers of the
//! engine's events.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::OutputFormat;
use crate::exec::{LogObserver, Observer, RunEvent};

/// The observer for this run: bars when a person watches a table, else logs.
pub fn observer(format: OutputFormat) -> Box<dyn Observer> {
    let tty = std::io::stderr().is_terminal();
    let logging = std::env::var_os("RUST_LOG").is_some();
    if tty && !logging && matches!(format, OutputFormat::Table | OutputFormat::Wide) {
        Box::new(Bars::default())
    } else {
        Box::new(LogObserver)
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

    fn show(&self, event: &RunEvent) {
        match event {
            RunEvent::DefragStarted { .. } => {
                let bar = ProgressBar::new_spinner();
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.enable_steady_tick(Duration::from_millis(120));
                bar.set_message(event.describe());
                if let Ok(mut g) = self.current.lock() {
                    *g = Some(bar);
                }
            }
            RunEvent::WaitingForMember { .. } => {
                if let Some(bar) = self.current.lock().ok().and_then(|g| g.clone()) {
                    bar.set_message(event.describe());
                }
            }
            RunEvent::MemberFinished { .. } => {
                match self.current.lock().ok().and_then(|mut g| g.take()) {
                    Some(b) => b.finish_with_message(event.describe()),
                    None => crate::logging::message(&event.describe()),
                }
            }
            RunEvent::Planned { .. } | RunEvent::Stopping { .. } => {}
            _ => self.line(event.describe()),
        }
    }
}

impl Observer for Bars {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        self.show(&event);
        Box::pin(async {})
    }
}

/// A byte transfer's progress (`snapshot save`): a bar with bytes, rate and
/// time left on a terminal when a table is printed; nothing otherwise.
pub struct Transfer(Option<ProgressBar>);

impl Transfer {
    pub fn new(format: OutputFormat, label: &str) -> Transfer {
        let tty = std::io::stderr().is_terminal();
        let logging = std::env::var_os("RUST_LOG").is_some();
        if !tty || logging || !matches!(format, OutputFormat::Table | OutputFormat::Wide) {
            return Transfer(None);
        }
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} {wide_bar} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(label.to_string());
        Transfer(Some(bar))
    }

    /// The total, once the first chunk says how much is coming.
    pub fn total(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.set_length(bytes);
        }
    }

    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(bytes);
        }
    }

    /// Removes the bar (the report follows on stdout).
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
