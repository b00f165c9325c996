//! Tables built from reports (pure: report in, `String` out).

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use crate::quantity::format_bytes;
use crate::report::{MembersReport, StatusReport};

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

/// Renders `status`. `wide` adds raft progress, the exact quota and the
/// probe error. When the gate refuses, its reasons follow the table.
pub fn status(report: &StatusReport, wide: bool) -> String {
    let mut header = vec![
        "NAME", "ENDPOINT", "ID", "VERSION", "DB SIZE", "IN USE", "RECLAIMABLE", "QUOTA USE",
        "ROLE", "ALARMS", "VERDICT",
    ];
    if wide {
        header.extend(["RAFT TERM", "RAFT INDEX", "APPLIED", "QUOTA BYTES", "ERROR"]);
    }
    let mut table = new_table(&header);
    for m in &report.members {
        let role = if m.is_leader {
            "leader ★"
        } else if m.is_learner {
            "learner"
        } else if m.reachable {
            "follower"
        } else {
            "-"
        };
        let quota = match m.quota_used_percent {
            Some(p) => format!("{p:.1}% of {} ({})", format_bytes(m.quota.bytes), m.quota.source.as_str()),
            None => "-".into(),
        };
        let mut row = vec![
            Cell::new(&m.name),
            Cell::new(m.endpoint.as_deref().unwrap_or("-")),
            Cell::new(m.id.as_deref().unwrap_or("-")),
            Cell::new(m.version.as_deref().unwrap_or("-")),
            right(opt_bytes(m.db_size)),
            right(opt_bytes(m.db_size_in_use)),
            right(opt_bytes(m.reclaimable)),
            Cell::new(quota),
            Cell::new(role),
            Cell::new(if m.alarms.is_empty() { "-".to_string() } else { m.alarms.join(",") }),
            Cell::new(&m.verdict),
        ];
        if wide {
            row.extend([
                right(opt_num(m.raft_term)),
                right(opt_num(m.raft_index)),
                right(opt_num(m.raft_applied_index)),
                right(m.quota.bytes),
                Cell::new(m.error.as_deref().unwrap_or("-")),
            ]);
        }
        table.add_row(row);
    }
    let mut text = trim_lines(&table.to_string());
    if !report.gate.passed {
        text.push_str("\nHealth gate: maintenance would be refused:\n");
        for r in &report.gate.reasons {
            text.push_str(&format!("  - {} [{}]\n", r.message, r.code));
        }
    }
    text
}

/// Renders `members`.
pub fn members(report: &MembersReport) -> String {
    let mut table = new_table(&["ID", "NAME", "PEER URLS", "CLIENT URLS", "LEARNER"]);
    for m in &report.members {
        table.add_row(vec![
            Cell::new(&m.id),
            Cell::new(if m.name.is_empty() { "(unstarted)" } else { &m.name }),
            Cell::new(m.peer_urls.join(",")),
            Cell::new(if m.client_urls.is_empty() { "-".to_string() } else { m.client_urls.join(",") }),
            Cell::new(if m.is_learner { "true" } else { "false" }),
        ]);
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
