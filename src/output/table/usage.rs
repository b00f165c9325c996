//! `usage` and `snapshot usage`: a summary, the prefixes by size, and (with
//! a sample) by writes.

use super::{new_table, right, trim_lines};
use crate::plan::usage::by_churn;
use crate::quantity::format_bytes;
use crate::report::UsageReport;

/// The summary lines, then the rankings.
pub fn usage(report: &UsageReport) -> String {
    let mut out = summary(report);
    let top = report.top.max(1);
    out.push('\n');
    out.push_str(&by_size(report, top));
    if report.window_seconds.is_some() {
        out.push('\n');
        out.push_str(&by_writes(report, top));
    }
    if let Some(next) = &report.next {
        out.push_str(&format!("\nNarrow it down: {next}\n"));
    }
    out
}

/// The summary lines: what was read, the history kept, in use, writes.
fn summary(report: &UsageReport) -> String {
    let mut out = String::new();
    let what = match report.bytes {
        Some(bytes) => format!("{} keys ({})", report.keys, format_bytes(bytes)),
        None => format!("{} keys", report.keys),
    };
    let under = if report.prefix.is_empty() {
        String::new()
    } else {
        format!(" under {}", report.prefix)
    };
    match &report.role {
        Some(role) => out.push_str(&format!(
            "Read {what}{under} from {} ({role}) at revision {} in {:.1}s ({} page{}){}.\n",
            report.source,
            match report.last_revision {
                Some(last) => format!(
                    "{}, then {last} (a compaction moved the read on)",
                    report.revision
                ),
                None => report.revision.to_string(),
            },
            report.read_seconds,
            report.pages,
            if report.pages == 1 { "" } else { "s" },
            if report.complete {
                ""
            } else {
                "; STOPPED before the end: the figures cover only what was read"
            },
        )),
        None => out.push_str(&format!(
            "{} at revision {}: {what}{under} live.\n",
            report.source, report.revision
        )),
    }
    if let (Some(hist_revs), Some(hist_bytes)) = (report.history_revisions, report.history_bytes) {
        out.push_str(&format!(
            "History kept: {} ({}), what a compaction at revision {} would drop.\n",
            crate::quantity::revisions(hist_revs),
            format_bytes(hist_bytes),
            report.revision
        ));
    }
    if let (Some(in_use), Some(pages), true) = (
        report.db_size_in_use,
        report.page_bytes,
        report.prefix.is_empty(),
    ) {
        let share = if in_use == 0 {
            0.0
        } else {
            pages as f64 * 100.0 / in_use as f64
        };
        let file = report
            .db_size
            .map(|size| {
                format!(
                    "; the file is {} ({} free: a defrag would return it)",
                    format_bytes(size),
                    format_bytes(size.saturating_sub(in_use))
                )
            })
            .unwrap_or_default();
        let rest = if report.history_bytes.is_some() {
            "the history"
        } else {
            "history kept until the next compaction"
        };
        out.push_str(&format!(
            "In use: {}; the live keys fill about {} of pages ({share:.0}%), the rest is {rest}{file}.\n",
            format_bytes(in_use),
            format_bytes(pages),
        ));
    }
    if let (Some(seconds), Some(writes)) = (report.window_seconds, report.writes) {
        out.push_str(&format!(
            "Writes over {seconds:.0}s: {writes} ({:.1}/s).\n",
            writes as f64 / seconds.max(0.001)
        ));
    }
    out
}

/// The prefixes by size (and their history and writes, when read).
fn by_size(report: &UsageReport, top: usize) -> String {
    let mut out = String::new();
    let total = report.page_bytes.unwrap_or(0).max(1) as f64;
    let history = report.history_bytes.is_some();
    let churn = report.window_seconds.is_some();
    let mut header = vec!["BY SIZE", "KEYS"];
    if report.bytes.is_some() {
        header.extend(["BYTES", "ON DISK", "SHARE"]);
    }
    if history {
        header.extend(["HISTORY REVS", "HISTORY BYTES"]);
    }
    if churn {
        header.extend(["WRITES/S", "WRITTEN/S"]);
    }
    let mut table = new_table(&header);
    for g in report.groups.iter().take(top) {
        let mut row = vec![super::Cell::new(&g.prefix), right(g.keys)];
        if report.bytes.is_some() {
            row.push(right(format_bytes(g.bytes)));
            row.push(right(format_bytes(g.page_bytes)));
            row.push(right(format!(
                "{:.0}%",
                g.page_bytes as f64 * 100.0 / total
            )));
        }
        if history {
            row.push(right(g.history_revisions.unwrap_or(0)));
            row.push(right(format_bytes(g.history_bytes.unwrap_or(0))));
        }
        if churn {
            let c = g.churn.as_ref();
            row.push(right(format!(
                "{:.1}",
                c.map(|c| c.writes_per_second).unwrap_or(0.0)
            )));
            row.push(right(format_bytes(
                c.map(|c| c.bytes_per_second.round() as u64).unwrap_or(0),
            )));
        }
        table.add_row(row);
    }
    out.push_str(&trim_lines(&table.to_string()));
    if report.groups.len() > top {
        let more = report.groups.len() - top;
        out.push_str(&format!(
            "({more} more prefix{}: --top N shows more, -o json lists them all)\n",
            if more == 1 { "" } else { "es" }
        ));
    }
    out
}

/// The prefixes by writes over the window.
fn by_writes(report: &UsageReport, top: usize) -> String {
    let mut out = String::new();
    let busy = by_churn(&report.groups);
    if busy.is_empty() {
        out.push_str("No write was seen in the window.\n");
        return out;
    }
    let mut table = new_table(&[
        "BY WRITES",
        "WRITES/S",
        "WRITTEN/S",
        "KEYS WRITTEN",
        "BUSIEST KEY",
    ]);
    for g in busy.iter().take(top) {
        let Some(c) = &g.churn else { continue };
        table.add_row(vec![
            super::Cell::new(&g.prefix),
            right(format!("{:.1}", c.writes_per_second)),
            right(format_bytes(c.bytes_per_second.round() as u64)),
            right(c.keys_written),
            super::Cell::new(format!("{} ×{}", c.hottest_key, c.hottest_writes)),
        ]);
    }
    out.push_str(&trim_lines(&table.to_string()));
    out
}

impl crate::output::Render for UsageReport {
    fn table(&self, _wide: bool) -> String {
        usage(self)
    }
}
