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
