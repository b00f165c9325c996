//! Output: the only module that writes results to stdout.
//!
//! A report is rendered to a `String` by a pure function (table, JSON or
//! YAML of the same struct), then written in one go. Logs, progress and
//! prompts go to stderr elsewhere.

pub mod progress;
pub mod prompt;
pub mod table;

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::error::{Error, Result};

/// How results are written to stdout (`-o`, or etcdctl's
/// `ETCDCTL_WRITE_OUT`, whose `simple` is the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    #[value(alias = "simple")]
    Table,
    Wide,
    Json,
    Yaml,
}

/// A result with a table of its own; its JSON and YAML are its serde
/// form. Every command's report implements it (beside its table, in
/// `table/`), and [`render`] is the one place the output format is chosen.
pub trait Render: Serialize {
    /// The table; `wide` for `-o wide`, whose extra columns (or lines) the
    /// report decides.
    fn table(&self, wide: bool) -> String;
}

/// `report` in `format`: its table, or its JSON or YAML.
pub fn render<R: Render + ?Sized>(report: &R, format: OutputFormat) -> Result<String> {
    match format {
        OutputFormat::Table => Ok(report.table(false)),
        OutputFormat::Wide => Ok(report.table(true)),
        data => render_data(report, data),
    }
}

/// Renders `report` in `format` and writes it to stdout.
pub fn print<R: Render + ?Sized>(report: &R, format: OutputFormat) -> Result<()> {
    emit(&render(report, format)?)
}

/// An object as a manifest (`--dry-run` of a command that creates one):
/// JSON for `-o json`, YAML otherwise.
pub fn manifest<T: Serialize>(object: &T, format: OutputFormat) -> Result<String> {
    match format {
        OutputFormat::Json => render_data(object, OutputFormat::Json),
        _ => render_data(object, OutputFormat::Yaml),
    }
}

/// Renders `report` as JSON (pretty, trailing newline) or YAML.
pub fn render_data<T: Serialize + ?Sized>(report: &T, format: OutputFormat) -> Result<String> {
    match format {
        OutputFormat::Yaml => {
            serde_yaml::to_string(report).map_err(|e| Error::Render(e.to_string()))
        }
        _ => serde_json::to_string_pretty(report)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .map_err(|e| Error::Render(e.to_string())),
    }
}

/// Writes a rendered result to stdout. A closed pipe (`| head`) is not an
/// error: the reader has what it wanted.
pub fn emit(text: &str) -> Result<()> {
    if write_stdout(text.as_bytes())? && !std::io::stdout().is_terminal() {
        crate::logging::result_written_to_pipe();
    }
    Ok(())
}

/// Writes `bytes` to stdout as they are (an agent's command's output,
/// `crate::agent`), flushed; whether they were written. A closed pipe is
/// not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<bool> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Error::Output(e)),
    }
}
