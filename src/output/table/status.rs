//! The `status` and `status -A` tables: one column list (header, wide or
//! not, alignment, cell) that drives the headers, every member row and the
//! error row of a cluster that could not be probed; the NOSPACE notice and
//! the gate's reasons follow the table.

use comfy_table::Cell;

use super::{by_context, new_table, opt_bytes, opt_num, right, trim_lines, unreached, Lead};
use crate::quantity::format_bytes;
use crate::report::{DefragActivity, MemberRow, MultiStatusReport, StatusReport};

/// Renders `status -A`: the member table with NAMESPACE and CLUSTER in
/// front (and KIND when the clusters are of more than one kind), an error
/// row for a cluster that could not be probed, and each refusing cluster's
/// gate reasons after the table.
pub fn multi_status(report: &MultiStatusReport, wide: bool) -> String {
    let columns = status_columns(wide);
    let lead = Lead {
        contexts: !report.contexts.is_empty(),
        name: "CLUSTER",
        kinds: report
            .clusters
            .iter()
            .any(|c| c.kind != report.clusters[0].kind),
    };
    let header: Vec<&str> = lead
        .header()
        .into_iter()
        .chain(["RUN"])
        .chain(columns.iter().map(|c| c.header))
        .collect();
    let mut table = new_table(&header);
    let mut footer = String::new();
    let error_cells = |lead: Vec<Cell>, error: String| {
        lead.into_iter()
            .chain([Cell::new("-")])
            .chain(error_row(&columns, &error))
            .collect::<Vec<_>>()
    };
    for (context, entry) in by_context(&report.contexts, &report.clusters, |c| {
        c.cluster.context.as_deref()
    }) {
        let Some(entry) = entry else {
            if let Some(context) = context {
                let cells = lead.cells(Some(&context.name), None);
                table.add_row(error_cells(cells, format!("error: {}", unreached(context))));
            }
            continue;
        };
        let cells = lead.cells(None, Some((&entry.cluster, entry.kind)));
        let label = entry.cluster.label();
        match (&entry.status, &entry.error) {
            (Some(status), _) => {
                // The run is the cluster's: said on its first row only.
                let mut run = Some(run_cell(status));
                for row in status_rows(status, wide) {
                    let cell = Cell::new(run.take().unwrap_or_default());
                    table.add_row(
                        cells
                            .iter()
                            .cloned()
                            .chain([cell])
                            .chain(row)
                            .collect::<Vec<_>>(),
                    );
                }
                if let Some(notice) = nospace_notice(status) {
                    footer.push_str(&format!("\n{label}: {notice}"));
                }
                if !status.gate.passed {
                    footer.push_str(&format!("\n{label}: maintenance would be refused:\n"));
                    for r in &status.gate.reasons {
                        footer.push_str(&format!("  - {} [{}]\n", r.message, r.code));
                    }
                }
            }
            (None, error) => {
                let error = format!("error: {}", error.as_deref().unwrap_or("unknown"));
                table.add_row(error_cells(cells, error));
            }
        }
    }
    let mut text = trim_lines(&table.to_string());
    text.push_str(&footer);
    text
}

/// The line under a status table while NOSPACE is raised: the verdicts
/// stay `healthy` (the gate tolerates NOSPACE, since a defrag is its
/// cure), but the cluster takes no write that adds data until the alarm
/// is disarmed. `None` without NOSPACE. Pure.
pub fn nospace_notice(report: &StatusReport) -> Option<String> {
    let mut on: Vec<&str> = report
        .alarms
        .iter()
        .filter(|a| a.alarm == "NOSPACE")
        .map(|a| a.member.as_str())
        .collect();
    if on.is_empty() {
        return None;
    }
    on.sort();
    on.dedup();
    Some(format!(
        "NOSPACE is raised (on {}): the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor{}` for the remedy\n",
        on.join(", "),
        crate::report::ClusterRef::command_args(report.cluster.as_ref())
    ))
}

/// How a status column lines up its cells, the "-" of a missing figure
/// included.
#[derive(Clone, Copy)]
enum Align {
    Left,
    Right,
}

/// One column of the `status` table (and of `status -A`, after NAMESPACE
/// and CLUSTER): the one place that says its header, whether only `-o
/// wide` shows it, how its cells line up, and what a member row puts in
/// it. An error row (a cluster `status -A` could not probe) has a "-" in
/// every column, aligned as the column's figures would be, and the error
/// in the last column shown.
struct Column {
    header: &'static str,
    wide_only: bool,
    align: Align,
    cell: fn(&MemberRow) -> String,
}

impl Column {
    fn show(&self, text: String) -> Cell {
        match self.align {
            Align::Left => Cell::new(text),
            Align::Right => right(text),
        }
    }
}

const fn column(header: &'static str, align: Align, cell: fn(&MemberRow) -> String) -> Column {
    Column {
        header,
        wide_only: false,
        align,
        cell,
    }
}

const fn wide(column: Column) -> Column {
    Column {
        wide_only: true,
        ..column
    }
}

fn text_or_dash(text: Option<&str>) -> String {
    text.unwrap_or("-").to_string()
}

/// The columns in order; the wide-only ones last.
const STATUS_COLUMNS: &[Column] = &[
    column("NAME", Align::Left, |m| m.name.clone()),
    column("ENDPOINT", Align::Left, |m| {
        text_or_dash(m.endpoint.as_deref())
    }),
    column("ID", Align::Left, |m| text_or_dash(m.id.as_deref())),
    column("VERSION", Align::Left, |m| {
        text_or_dash(m.version.as_deref())
    }),
    column("DB SIZE", Align::Right, |m| opt_bytes(m.db_size)),
    column("IN USE", Align::Right, |m| opt_bytes(m.db_size_in_use)),
    column("RECLAIMABLE", Align::Right, |m| opt_bytes(m.reclaimable)),
    column("QUOTA USE", Align::Left, quota_use),
    column("ROLE", Align::Left, |m| role(m).to_string()),
    column("ALARMS", Align::Left, |m| {
        if m.alarms.is_empty() {
            "-".to_string()
        } else {
            m.alarms.join(",")
        }
    }),
    column("VERDICT", Align::Left, |m| m.verdict.clone()),
    wide(column("RAFT TERM", Align::Right, |m| opt_num(m.raft_term))),
    wide(column("RAFT INDEX", Align::Right, |m| {
        opt_num(m.raft_index)
    })),
    wide(column("APPLIED", Align::Right, |m| {
        opt_num(m.raft_applied_index)
    })),
    wide(column("QUOTA BYTES", Align::Right, |m| {
        m.quota.bytes.to_string()
    })),
    wide(column("FEATURES", Align::Left, |m| {
        match &m.feature_gates {
            Some(on) if !on.is_empty() => on.join(","),
            _ => "-".to_string(),
        }
    })),
    wide(column("ERROR", Align::Left, |m| {
        text_or_dash(m.error.as_deref())
    })),
];

fn status_columns(wide: bool) -> Vec<&'static Column> {
    STATUS_COLUMNS
        .iter()
        .filter(|c| wide || !c.wide_only)
        .collect()
}

fn role(m: &MemberRow) -> &'static str {
    if m.is_leader {
        "leader ★"
    } else if m.is_learner {
        "learner"
    } else if m.reachable {
        "follower"
    } else {
        "-"
    }
}

fn quota_use(m: &MemberRow) -> String {
    match m.quota_used_percent {
        Some(p) => format!(
            "{p:.1}% of {} ({})",
            format_bytes(m.quota.bytes),
            m.quota.source.as_str()
        ),
        None => "-".into(),
    }
}

/// The row of a cluster that could not be probed: "-" throughout, `error`
/// in the last column.
fn error_row(columns: &[&Column], error: &str) -> Vec<Cell> {
    let Some((last, before)) = columns.split_last() else {
        return Vec::new();
    };
    before
        .iter()
        .map(|c| c.show("-".to_string()))
        .chain([last.show(error.to_string())])
        .collect()
}

/// Renders `status`. `wide` adds raft progress, the exact quota and the
/// probe error. When the gate refuses, its reasons follow the table.
pub fn status(report: &StatusReport, wide: bool) -> String {
    let columns = status_columns(wide);
    let header: Vec<&str> = columns.iter().map(|c| c.header).collect();
    let mut table = new_table(&header);
    for row in status_rows(report, wide) {
        table.add_row(row);
    }
    let mut text = trim_lines(&table.to_string());
    if let Some(notice) = nospace_notice(report) {
        text.push('\n');
        text.push_str(&notice);
    }
    if !report.gate.passed {
        text.push_str("\nHealth gate: maintenance would be refused:\n");
        for r in &report.gate.reasons {
            text.push_str(&format!("  - {} [{}]\n", r.message, r.code));
        }
    }
    if !report.operator_disagrees.is_empty() {
        text.push_str("\nThe operator's EtcdCluster status disagrees with the members:\n");
        for d in &report.operator_disagrees {
            text.push_str(&format!("  - {d}\n"));
        }
    }
    if let Some(lines) = report.defrag.as_ref().and_then(defrag_lines) {
        text.push('\n');
        text.push_str(&lines);
    }
    text
}

/// The cluster's EtcdDefrag runs and policies under the table: the run
/// acting now, the last finished one, each policy's next tick. `None`
/// when there is nothing to say.
pub fn defrag_lines(a: &DefragActivity) -> Option<String> {
    let mut lines = Vec::new();
    if let Some(e) = &a.error {
        lines.push(format!("  could not be read: {e}"));
    }
    if let Some(run) = &a.active {
        let progress = if run.members > 0 {
            format!(", {} of {} members done", run.done, run.members)
        } else {
            String::new()
        };
        let since = run
            .started_at
            .as_deref()
            .map(|t| format!(", started {t}"))
            .or_else(|| run.created_at.as_deref().map(|t| format!(", created {t}")))
            .unwrap_or_default();
        let queued = match a.queued {
            0 => String::new(),
            n => format!("; {n} more queued behind it"),
        };
        lines.push(format!(
            "  now: {} {}{progress} ({}){since}{queued}",
            run.name, run.phase, run.driver
        ));
        if let Some(c) = &run.condition {
            lines.push(format!("    {c}"));
        }
    }
    if let Some(run) = &a.last_finished {
        let at = run
            .completed_at
            .as_deref()
            .map(|t| format!(" at {t}"))
            .unwrap_or_default();
        lines.push(format!(
            "  last: {} {}{at}: {} of {} members defragmented, {} reclaimed",
            run.name,
            run.phase,
            run.defragmented,
            run.members,
            format_bytes(run.reclaimed_bytes)
        ));
        if run.phase != "Complete" {
            if let Some(c) = &run.condition {
                lines.push(format!("    {c}"));
            }
        }
    }
    for p in &a.policies {
        let next = match (&p.next_tick, p.suspended, &p.error) {
            (_, true, _) => "suspended".to_string(),
            (Some(t), _, _) => format!("next tick {t}"),
            (None, _, Some(e)) => format!("schedule not understood: {e}"),
            (None, _, None) => "no further tick".to_string(),
        };
        lines.push(format!("  policy {} ({}): {next}", p.name, p.schedule));
    }
    if lines.is_empty() {
        return None;
    }
    Some(format!(
        "EtcdDefrag runs and policies:\n{}\n",
        lines.join("\n")
    ))
}

/// The `RUN` cell of `status -A`: the run acting on the cluster now, as
/// phase and members done.
fn run_cell(status: &StatusReport) -> String {
    let Some(a) = &status.defrag else {
        return "-".into();
    };
    match &a.active {
        Some(run) if run.members > 0 => format!("{} {}/{}", run.phase, run.done, run.members),
        Some(run) => run.phase.clone(),
        None if a.error.is_some() => "?".into(),
        None => "-".into(),
    }
}

fn status_rows(report: &StatusReport, wide: bool) -> Vec<Vec<Cell>> {
    let columns = status_columns(wide);
    report
        .members
        .iter()
        .map(|m| columns.iter().map(|c| c.show((c.cell)(m))).collect())
        .collect()
}

impl crate::output::Render for StatusReport {
    fn table(&self, wide: bool) -> String {
        status(self, wide)
    }
}

impl crate::output::Render for MultiStatusReport {
    fn table(&self, wide: bool) -> String {
        multi_status(self, wide)
    }
}
