//! Sweep progress on stderr: a spinner per member on a terminal, log lines
//! otherwise (visible with `-v`). Never on stdout.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::OutputFormat;
use crate::exec::events::{EventSink, ExecEvent, LogSink};

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
            ExecEvent::DefragStarted { .. } => {
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
            ExecEvent::WaitingForMember { .. } => {
                if let Some(bar) = self.current.lock().ok().and_then(|g| g.clone()) {
                    bar.set_message(event.describe());
                }
            }
            ExecEvent::DefragFinished { .. } => {
                match self.current.lock().ok().and_then(|mut g| g.take()) {
                    Some(b) => b.finish_with_message(event.describe()),
                    None => crate::logging::message(&event.describe()),
                }
            }
            ExecEvent::Planned { .. } => {}
            _ => self.line(event.describe()),
        }
    }
}
