//! Tables built from reports (pure: report in, `String` out), one file per
//! command; the comfy-table set-up and the plain-rows table they share
//! live here.

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use crate::quantity::format_bytes;

mod compact;
mod defrag;
mod doctor;
mod members;
mod snapshot;
mod status;
mod traffic;
mod usage;

pub use compact::compact;
pub use defrag::{defrag, fleet};
pub use doctor::doctor;
pub use members::{member_change, members};
pub use snapshot::{snapshot_saved, snapshot_status};
pub use status::{multi_status, nospace_notice, status};
pub use traffic::traffic;
pub use usage::usage;

fn new_table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_preset(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header.iter().map(Cell::new));
    for column in table.column_iter_mut() {
        column.set_padding((0, 3));
    }
    table
}

fn right(text: impl ToString) -> Cell {
    Cell::new(text).set_alignment(CellAlignment::Right)
}

fn opt_bytes(v: Option<u64>) -> String {
    v.map(format_bytes).unwrap_or_else(|| "-".into())
}

fn opt_num(v: Option<u64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_else(|| "-".into())
}

/// The columns in front of a row of a command over many clusters:
/// CONTEXT when several contexts were read, NAMESPACE, the cluster's name,
/// and KIND when asked for.
struct Lead {
    contexts: bool,
    name: &'static str,
    kinds: bool,
}

impl Lead {
    fn header(&self) -> Vec<&'static str> {
        self.contexts
            .then_some("CONTEXT")
            .into_iter()
            .chain(["NAMESPACE", self.name])
            .chain(self.kinds.then_some("KIND"))
            .collect()
    }

    /// A cluster's cells (its context from its reference), or (`cluster`
    /// `None`) those of `context`, which could not be reached.
    fn cells(
        &self,
        context: Option<&str>,
        cluster: Option<(&crate::report::ClusterRef, Option<crate::reach::Kind>)>,
    ) -> Vec<Cell> {
        let (namespace, name) = cluster.map_or(("-", "-"), |(c, _)| (&c.namespace, &c.name));
        let context = cluster.map_or(context, |(c, _)| c.context.as_deref());
        let kind = cluster.and_then(|(_, k)| k);
        self.contexts
            .then(|| Cell::new(context.unwrap_or("-")))
            .into_iter()
            .chain([Cell::new(namespace), Cell::new(name)])
            .chain(
                self.kinds
                    .then(|| Cell::new(kind.map_or("-", |k| k.as_str()))),
            )
            .collect()
    }
}

/// The rows of a command over many clusters, each context's in turn when
/// several were read: `(context, Some(row))` for a row, `(context, None)`
/// where a context that could not be reached stands. Pure.
fn by_context<'a, T>(
    contexts: &'a [crate::report::ContextRow],
    rows: &'a [T],
    context_of: impl Fn(&T) -> Option<&str>,
) -> Vec<(Option<&'a crate::report::ContextRow>, Option<&'a T>)> {
    if contexts.is_empty() {
        return rows.iter().map(|r| (None, Some(r))).collect();
    }
    let mut out = Vec::new();
    for c in contexts {
        match c.error {
            Some(_) => out.push((Some(c), None)),
            None => out.extend(
                rows.iter()
                    .filter(|r| context_of(r) == Some(c.name.as_str()))
                    .map(|r| (Some(c), Some(r))),
            ),
        }
    }
    out
}

/// Why a context's clusters are not in the table.
fn unreached(context: &crate::report::ContextRow) -> String {
    let server = context
        .server
        .as_deref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    format!(
        "context not reached{server}: {}",
        context.error.as_deref().unwrap_or("unknown")
    )
}

/// A plain table from string rows.
pub fn rows(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut table = new_table(header);
    for r in rows {
        table.add_row(r);
    }
    trim_lines(&table.to_string())
}

/// comfy-table pads every cell; strip trailing blanks and end with a newline.
fn trim_lines(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests;
