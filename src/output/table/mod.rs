//! Tables built from reports (pure: report in, `String` out).

use comfy_table::{presets, Cell, CellAlignment, ContentArrangement, Table};

use crate::quantity::format_bytes;
use crate::report::{
    CompactReport, DefragReport, DoctorReport, HashVerdict, MemberChangeReport, MemberRow,
    MembersReport, MultiStatusReport, Outcome, SnapshotSaveReport, SnapshotStatusReport,
    StatusReport, TrafficReport,
};

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

/// Renders `status -A`: the member table with NAMESPACE and CLUSTER in
/// front, an error row for a cluster that could not be probed, and each
/// refusing cluster's gate reasons after the table.
pub fn multi_status(report: &MultiStatusReport, wide: bool) -> String {
    let columns = status_columns(wide);
    let header: Vec<&str> = ["NAMESPACE", "CLUSTER"]
        .into_iter()
        .chain(columns.iter().map(|c| c.header))
        .collect();
    let mut table = new_table(&header);
    let mut footer = String::new();
    for entry in &report.clusters {
        let lead = [
            Cell::new(&entry.cluster.namespace),
            Cell::new(&entry.cluster.name),
        ];
        match (&entry.status, &entry.error) {
            (Some(status), _) => {
                for row in status_rows(status, wide) {
                    table.add_row(lead.iter().cloned().chain(row).collect::<Vec<_>>());
                }
                if let Some(notice) = nospace_notice(status) {
                    footer.push_str(&format!(
                        "\n{}/{}: {}",
                        entry.cluster.namespace, entry.cluster.name, notice
                    ));
                }
                if !status.gate.passed {
                    footer.push_str(&format!(
                        "\n{}/{}: maintenance would be refused:\n",
                        entry.cluster.namespace, entry.cluster.name
                    ));
                    for r in &status.gate.reasons {
                        footer.push_str(&format!("  - {} [{}]\n", r.message, r.code));
                    }
                }
            }
            (None, error) => {
                let error = format!("error: {}", error.as_deref().unwrap_or("unknown"));
                let row = lead.iter().cloned().chain(error_row(&columns, &error));
                table.add_row(row.collect::<Vec<_>>());
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
    text
}

fn status_rows(report: &StatusReport, wide: bool) -> Vec<Vec<Cell>> {
    let columns = status_columns(wide);
    report
        .members
        .iter()
        .map(|m| columns.iter().map(|c| c.show((c.cell)(m))).collect())
        .collect()
}

/// Renders the `defrag` report: one row per member in execution order
/// (then the skipped ones), followed by the leader decision, alarms, the
/// agreement check and why the sweep stopped, if it did.
pub fn defrag(report: &DefragReport) -> String {
    use crate::quantity::format_duration;
    use std::time::Duration;
    let mut table = new_table(&[
        "MEMBER",
        "ROLE",
        "OUTCOME",
        "REASON",
        "SIZE BEFORE",
        "IN USE",
        "SIZE AFTER",
        "RECLAIMED",
        "DURATION",
    ]);
    for m in &report.members {
        let reclaimed = match (report.dry_run, m.reclaimed_bytes) {
            (true, _) if m.outcome == Outcome::Pending => {
                format!("~{}", format_bytes(m.predicted_reclaim))
            }
            (false, Some(r)) => format_bytes(r),
            (_, None) | (true, Some(_)) => "-".into(),
        };
        table.add_row(vec![
            Cell::new(&m.name),
            Cell::new(format!("{:?}", m.role).to_lowercase()),
            Cell::new(if report.dry_run && m.outcome == Outcome::Pending {
                "Planned".to_string()
            } else {
                format!("{:?}", m.outcome)
            }),
            Cell::new(m.reason.map_or("-", |r| r.as_str())),
            // 0: not known (a member that did not answer; no etcd file is
            // ever empty).
            right(opt_bytes(Some(m.db_size_before).filter(|&b| b > 0))),
            right(opt_bytes(
                Some(m.db_size_in_use).filter(|_| m.db_size_before > 0),
            )),
            right(opt_bytes(m.db_size_after)),
            right(reclaimed),
            right(
                m.duration_ms
                    .map(|ms| format_duration(Duration::from_millis(ms)))
                    .unwrap_or_else(|| "-".into()),
            ),
        ]);
    }
    let mut text = trim_lines(&table.to_string());
    for m in report.members.iter().filter(|m| m.detail.is_some()) {
        text.push_str(&format!(
            "{}: {}\n",
            m.name,
            m.detail.as_deref().unwrap_or("")
        ));
    }
    let below: Vec<&str> = report
        .members
        .iter()
        .filter(|m| m.reason == Some(crate::report::MemberReason::BelowThreshold))
        .map(|m| m.name.as_str())
        .collect();
    if !below.is_empty() {
        text.push_str(&format!(
            "Below the rule ({}): {}; --all defragments every member whatever it holds\n",
            report.rule,
            below.join(", ")
        ));
    }
    match (report.compacted_at, report.dry_run) {
        (Some(revision), true) => text.push_str(&format!(
            "Would first compact every revision before {revision} (the current one), then plan from the sizes after it: the sizes above are from before\n"
        )),
        (Some(revision), false) => text.push_str(&format!(
            "Compacted every revision before {revision} first\n"
        )),
        (None, _) => {}
    }
    if let Some(stale) = &report.in_use_not_refreshed {
        text.push_str(&format!(
            "In use not yet known on {}: etcd recomputes it when a member next writes, and the refresh after the compaction (a Lease granted and revoked) was refused: {}\n",
            stale.members.join(", "),
            stale.why
        ));
    }
    if let Some(l) = &report.leader {
        let action = match (&l.transferred_to, report.dry_run, l.choice.transfer) {
            (Some(to), true, _) => format!("would move leadership to {to} first"),
            (Some(to), false, _) => format!("leadership moved to {to} first"),
            (None, _, true) => "transfer wanted but not possible".to_string(),
            (None, true, false) => "would be defragmented in place".to_string(),
            (None, false, false) => "defragmented in place".to_string(),
        };
        text.push_str(&format!(
            "Leader {}: {action} — {} (prediction {})\n",
            l.member, l.choice.why, l.choice.basis
        ));
        if let Some(e) = &l.transfer_error {
            text.push_str(&format!("  {e}\n"));
        }
    }
    for a in &report.alarms {
        text.push_str(&format!(
            "Alarm {} on {}: {} — {}\n",
            a.alarm,
            a.member,
            a.result.as_str(),
            a.why
        ));
    }
    if let Some(h) = &report.hash_check {
        if h.verdict == HashVerdict::Agree {
            text.push_str(&format!(
                "Members agree: HashKV at revision {} is equal on {} members\n",
                h.revision,
                h.members.len()
            ));
        } else if h.verdict == HashVerdict::NotPossible {
            text.push_str(&format!(
                "Agreement not checked: {}\n",
                h.note.as_deref().unwrap_or("no common revision")
            ));
        } else {
            text.push_str(&format!("MEMBERS DISAGREE at revision {}:\n", h.revision));
            for m in &h.members {
                text.push_str(&format!(
                    "  {}: hash {} compact revision {}{}\n",
                    m.member,
                    m.hash
                        .map(|x| format!("{x:08x}"))
                        .unwrap_or_else(|| "-".into()),
                    m.compact_revision
                        .map(|x| x.to_string())
                        .unwrap_or_else(|| "-".into()),
                    m.error
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                ));
            }
        }
    }
    if !report.dry_run {
        let defragmented = report.defragmented();
        text.push_str(&format!(
            "Sweep: {defragmented} defragmented in {} (Defragment calls {})\n",
            format_duration(Duration::from_millis(report.wall_ms)),
            format_duration(Duration::from_millis(report.defrag_ms))
        ));
    }
    if report.dry_run && !report.refusal.is_empty() {
        text.push_str("Health gate: the sweep would be refused now:\n");
        for r in &report.refusal {
            text.push_str(&format!("  - {} [{}]\n", r.message, r.code));
        }
    }
    if let Some(why) = report.stop_reason() {
        text.push_str(&format!("Stopped: {why}\n"));
    }
    text
}

/// Renders a fleet sweep (`defrag -A`, `-l`): one row per cluster with its
/// outcome, members defragmented of those planned, bytes reclaimed (`~`
/// the prediction on a dry run) and why it is not done, then the totals.
/// `plans` puts each cluster's own defrag table first (a dry run, `-o
/// wide`).
pub fn fleet(report: &crate::report::FleetReport, plans: bool) -> String {
    use crate::quantity::format_duration;
    use crate::report::FleetOutcome;
    let mut text = String::new();
    if plans {
        for c in &report.clusters {
            text.push_str(&format!("{}/{}:\n", c.cluster.namespace, c.cluster.name));
            match &c.report {
                Some(r) => text.push_str(&defrag(r)),
                None => text.push_str(&format!("{}\n", c.why.as_deref().unwrap_or("-"))),
            }
            text.push('\n');
        }
    }
    let mut table = new_table(&[
        "NAMESPACE",
        "NAME",
        "OUTCOME",
        "DEFRAGMENTED",
        "RECLAIMED",
        "WHY",
    ]);
    for c in &report.clusters {
        let (done, reclaimed) = match (&c.report, report.dry_run) {
            (None, _) => ("-".to_string(), "-".to_string()),
            (Some(_), true) => (
                format!("{} planned", c.planned()),
                format!("~{}", format_bytes(c.predicted_reclaim())),
            ),
            (Some(_), false) => (
                format!("{}/{}", c.defragmented(), c.planned()),
                format_bytes(c.reclaimed()),
            ),
        };
        table.add_row(vec![
            Cell::new(&c.cluster.namespace),
            Cell::new(&c.cluster.name),
            Cell::new(c.outcome.as_str()),
            right(done),
            right(reclaimed),
            Cell::new(c.why.as_deref().unwrap_or("-")),
        ]);
    }
    text.push_str(&trim_lines(&table.to_string()));
    let t = &report.totals;
    let counts: Vec<String> = [
        (t.completed, FleetOutcome::Completed),
        (t.nothing_to_do, FleetOutcome::NothingToDo),
        (t.planned, FleetOutcome::Planned),
        (t.refused, FleetOutcome::Refused),
        (t.failed, FleetOutcome::Failed),
        (t.interrupted, FleetOutcome::Interrupted),
        (t.not_started, FleetOutcome::NotStarted),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, o)| format!("{n} {}", o.as_str()))
    .collect();
    let plural = if t.clusters == 1 { "" } else { "s" };
    if report.dry_run {
        text.push_str(&format!(
            "Total: {} cluster{plural} ({}); would reclaim ~{}\n",
            t.clusters,
            counts.join(", "),
            format_bytes(t.predicted_reclaim_bytes)
        ));
    } else {
        text.push_str(&format!(
            "Total: {} cluster{plural} ({}); {} member(s) defragmented, {} reclaimed in {} (at most {} cluster(s) at once)\n",
            t.clusters,
            counts.join(", "),
            t.members_defragmented,
            format_bytes(t.reclaimed_bytes),
            format_duration(std::time::Duration::from_millis(t.wall_ms)),
            report.max_concurrent
        ));
    }
    text
}

/// Renders `members`.
pub fn members(report: &MembersReport) -> String {
    let mut table = new_table(&["ID", "NAME", "PEER URLS", "CLIENT URLS", "LEARNER"]);
    for m in &report.members {
        table.add_row(vec![
            Cell::new(&m.id),
            Cell::new(if m.name.is_empty() {
                "(unstarted)"
            } else {
                &m.name
            }),
            Cell::new(m.peer_urls.join(",")),
            Cell::new(if m.client_urls.is_empty() {
                "-".to_string()
            } else {
                m.client_urls.join(",")
            }),
            Cell::new(if m.is_learner { "true" } else { "false" }),
        ]);
    }
    trim_lines(&table.to_string())
}

/// Renders `traffic show` (and the state after `set`/`clear`, preceded by
/// what was done).
pub fn traffic(report: &TrafficReport) -> String {
    let mut text = String::new();
    if let Some(change) = &report.change {
        for note in &change.notes {
            text.push_str(note);
            text.push('\n');
        }
        if change.dry_run {
            text.push_str(
                "Dry run: the API server validated every write and stored none; below is what it would store.\n",
            );
        }
        text.push('\n');
    }
    let owners = if report.owners.is_empty() {
        "-".to_string()
    } else {
        report
            .owners
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let support = report
        .server
        .values
        .iter()
        .map(|v| {
            let mark = match v.supported {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            };
            format!("{} {mark} ({}+)", v.value, v.since)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let rows = [
        (
            "CLUSTER",
            format!("{}/{}", report.cluster.namespace, report.cluster.name),
        ),
        ("SERVICE", report.service.clone()),
        (
            "VALUE",
            report.value.clone().unwrap_or_else(|| "(unset)".into()),
        ),
        ("OWNED BY", owners),
        (
            "ANNOTATION",
            report
                .annotation
                .clone()
                .unwrap_or_else(|| "(absent)".into()),
        ),
        ("SERVER", format!("{}: {support}", report.server.version)),
        ("STATE", report.state.describe().to_string()),
    ];
    for (key, value) in rows {
        text.push_str(&format!("{key:<12}{value}\n"));
    }
    text
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

/// `compact`: each member's sizes, then one sentence on what was done.
pub fn compact(report: &CompactReport) -> String {
    if let Some(why) = &report.nothing_to_compact {
        let mut chars = why.chars();
        let first = chars.next().map(|c| c.to_uppercase().to_string());
        return format!("{}{}.\n", first.unwrap_or_default(), chars.as_str());
    }
    let lines = report.members.iter().map(|m| {
        vec![
            m.name.clone(),
            format_bytes(m.db_size),
            format_bytes(m.in_use_before),
            match (m.in_use_after, report.dry_run) {
                (Some(after), _) => format_bytes(after),
                (None, true) => "-".into(),
                (None, false) => "not yet known".into(),
            },
        ]
    });
    let mut text = rows(
        &["MEMBER", "DB SIZE", "IN USE BEFORE", "IN USE AFTER"],
        lines,
    );
    if let Some(stale) = &report.in_use_not_refreshed {
        text.push_str(&format!(
            "In use after not yet known on {}: etcd recomputes it when a member next writes, and the refresh (a Lease granted and revoked) was refused: {}\n",
            stale.members.join(", "),
            stale.why
        ));
    }
    // Compacting at R keeps R itself (each key's value as of R) and every
    // revision after it.
    let stays = if report.revision >= report.current_revision {
        format!(
            "only revision {}, the current one, stays: each key's latest value, no history",
            report.current_revision
        )
    } else {
        format!(
            "revisions {} to {} stay",
            report.revision, report.current_revision
        )
    };
    if let Some(at) = &report.written_at {
        text.push_str(&format!(
            "Revision {} was written at {at}.\n",
            report.revision
        ));
    }
    let head = if report.dry_run {
        format!(
            "Would compact every revision before {} through {} (current {}, compacted up to {} so far); {stays}.",
            report.revision, report.leader, report.current_revision, report.compacted_before
        )
    } else {
        format!(
            "Compacted every revision before {} through {}; {stays}. Run `kubectl etcd defrag` to give the space back to the filesystem.",
            report.revision, report.leader
        )
    };
    text.push_str(&head);
    text.push('\n');
    text
}

/// `doctor`: the findings worst first, each with its remedy; with `wide`,
/// a column header and then every check that passed, under its own
/// heading; then what could not be read.
pub fn doctor(report: &DoctorReport, wide: bool) -> String {
    use crate::plan::doctor::Severity;
    let mut text = String::new();
    if let Some(c) = &report.cluster {
        text.push_str(&format!("{}/{}: {}\n", c.namespace, c.name, report.worst));
    }
    let (passed, problems): (Vec<_>, Vec<_>) = report
        .findings
        .iter()
        .partition(|f| f.severity == Severity::Ok);
    let width = problems
        .iter()
        .chain(passed.iter().filter(|_| wide))
        .map(|f| f.check.len())
        .max()
        .unwrap_or(0)
        .max("CHECK".len());
    let line = |text: &mut String, f: &crate::plan::doctor::Finding| {
        text.push_str(&format!(
            "{:<8}  {:<width$}  {}\n",
            f.severity.to_string().to_uppercase(),
            f.check,
            f.message
        ));
        if !f.remedy.is_empty() {
            text.push_str(&format!("{:<8}  {:<width$}  → {}\n", "", "", f.remedy));
        }
    };
    // With -o wide, the column header goes above the first finding listed.
    let header = format!("{:<8}  {:<width$}  {}\n", "SEVERITY", "CHECK", "FINDING");
    if wide && !problems.is_empty() {
        text.push_str(&header);
    }
    for f in &problems {
        line(&mut text, f);
    }
    if problems.is_empty() {
        text.push_str("Nothing needs attention.\n");
    }
    if wide {
        if !passed.is_empty() {
            text.push_str(&format!("Passed ({} checks):\n", passed.len()));
            if problems.is_empty() {
                text.push_str(&header);
            }
        }
        for f in &passed {
            line(&mut text, f);
        }
    } else if !passed.is_empty() {
        text.push_str(&format!(
            "{} check(s) ok (-o wide lists them).\n",
            passed.len()
        ));
    }
    for u in &report.unread {
        text.push_str(&format!("Not read: {u}\n"));
    }
    text
}

/// `member add|promote|remove`: what changed (or would), the quorum
/// arithmetic, and for an add how to start the new member.
pub fn member_change(report: &MemberChangeReport) -> String {
    let q = &report.quorum;
    let kind = if report.learner { "learner" } else { "voter" };
    let who = match &report.id {
        Some(id) if *id != report.member => format!("{} ({id})", report.member),
        _ => report.member.clone(),
    };
    let what = match (report.action, report.dry_run) {
        ("add", true) => format!("Would add {who} as a {kind}."),
        ("add", false) => format!("Added {who} as a {kind}."),
        ("promote", true) => format!("Would promote learner {who} to voter."),
        ("promote", false) => format!("Promoted {who} to voter."),
        (_, true) => format!("Would remove {kind} {who}."),
        (_, false) => format!("Removed {kind} {who}."),
    };
    let mut text = format!(
        "{what}\nVoters: {} before, {} after; quorum needs {}, and {} of them answer now.\n",
        q.voters_before, q.voters_after, q.needed, q.answering_after
    );
    if let Some(refusal) = &report.refusal {
        text.push_str(&format!("Forced past: {refusal}\n"));
    }
    if !report.start_with.is_empty() {
        text.push_str("Start the new member with:\n");
        for (k, v) in &report.start_with {
            text.push_str(&format!("  {k}={v}\n"));
        }
        if report.learner {
            text.push_str(&format!(
                "then, once it has caught up: kubectl etcd member promote {}\n",
                report.member
            ));
        }
    }
    text
}

/// `snapshot save`: what was saved, from whom, and its checksums.
pub fn snapshot_saved(report: &SnapshotSaveReport) -> String {
    let c = &report.contents;
    format!(
        "Saved {} from {} ({}) to {} in {:.1} s ({}/s).\n\
         SHA-256 {}  (in {}.sha256)\n\
         etcd's checksum verified; revision {}, {} keys, hash {:x}\n",
        format_bytes(report.bytes),
        report.member,
        report.role,
        report.file,
        report.seconds,
        format_bytes(report.bytes_per_second),
        report.sha256,
        report.file,
        c.revision,
        c.keys,
        c.hash,
    )
}

/// `snapshot status`: etcdutl's columns, plus whether etcd's checksum holds.
pub fn snapshot_status(report: &SnapshotStatusReport) -> String {
    let c = &report.contents;
    rows(
        &[
            "HASH",
            "REVISION",
            "KEYS",
            "ENTRIES",
            "TOTAL SIZE",
            "VERSION",
            "ETCD CHECKSUM",
        ],
        [vec![
            format!("{:x}", c.hash),
            c.revision.to_string(),
            c.keys.to_string(),
            c.entries.to_string(),
            format_bytes(c.total_size),
            c.storage_version.clone().unwrap_or_else(|| "-".into()),
            report.etcd_checksum.to_string(),
        ]]
        .into_iter(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::gate::{evaluate, GateOptions};
    use crate::reach::QuotaSource;
    use crate::report::StatusReport;
    use crate::snapshot::{Alarm, AlarmKind, ClusterSnapshot, MemberSnapshot, MemberStatus, Probe};

    fn member(id: u64, learner: bool, probe: Probe) -> MemberSnapshot {
        MemberSnapshot {
            quota_bytes: 1 << 30,
            quota_source: QuotaSource::Member,
            ..MemberSnapshot::listed_for_test(&format!("etcd-{id}"), id, learner, probe)
        }
    }

    fn answered(id: u64, learner: bool) -> Probe {
        Probe::Answered(MemberStatus {
            member_id: id,
            version: "3.6.16".into(),
            db_size: 300 << 20,
            db_size_in_use: 100 << 20,
            db_size_quota: Some(1 << 30),
            leader: 1,
            raft_term: 4,
            raft_index: 77,
            raft_applied_index: 77,
            is_learner: learner,
            revision: 9,
            errors: vec![],
        })
    }

    /// Leader 1, follower 2 unreachable, follower 3 with NOSPACE, learner 4.
    fn report() -> StatusReport {
        let snapshot = ClusterSnapshot {
            members: vec![
                member(1, false, answered(1, false)),
                member(2, false, Probe::refused_for_test()),
                member(3, false, answered(3, false)),
                member(4, true, answered(4, true)),
            ],
            member_list_known: true,
            alarms: vec![Alarm {
                member_id: 3,
                kind: AlarmKind::Nospace,
            }],
            alarm_list_error: None,
        };
        let verdict = evaluate(&snapshot, &GateOptions::default());
        StatusReport::build(None, &snapshot, &verdict)
    }

    #[test]
    fn status_table_marks_leader_unreachable_learner_and_reasons() {
        let text = status(&report(), false);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("NAME "), "{text}");
        let line = |name: &str| {
            lines
                .iter()
                .find(|l| l.starts_with(name))
                .copied()
                .unwrap_or("")
        };
        assert!(line("etcd-1").contains("leader ★"), "{text}");
        assert!(
            line("etcd-1").contains("300 MiB") && line("etcd-1").contains("200 MiB"),
            "{text}"
        );
        assert!(
            line("etcd-1").contains("29.3% of 1.0 GiB (member)"),
            "{text}"
        );
        assert!(line("etcd-2").contains("unreachable"), "{text}");
        assert!(
            line("etcd-3").contains("NOSPACE") && line("etcd-3").contains("healthy"),
            "{text}"
        );
        assert!(line("etcd-4").contains("learner"), "{text}");
        assert!(
            text.contains("Health gate: maintenance would be refused:"),
            "{text}"
        );
        assert!(
            text.contains("member etcd-2 is unreachable: connection refused"),
            "{text}"
        );
        assert!(text.contains("[MemberUnreachable]"), "{text}");
        // NOSPACE: the verdict stays healthy, and a line says writes fail.
        assert!(
            text.contains("\nNOSPACE is raised (on etcd-3): the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor` for the remedy\n"),
            "{text}"
        );
        assert!(!text.lines().any(|l| l.ends_with(' ')), "trailing blanks");
        assert_eq!(text.matches('★').count(), 1);
    }

    #[test]
    fn no_nospace_line_without_nospace_and_the_cluster_named_in_plugin_mode() {
        let mut r = report();
        r.cluster = Some(crate::report::ClusterRef {
            namespace: "prod".into(),
            name: "db".into(),
        });
        assert_eq!(
            nospace_notice(&r).unwrap_or_default(),
            "NOSPACE is raised (on etcd-3): the cluster refuses writes (puts) until the alarm is disarmed; run `kubectl etcd doctor db -n prod` for the remedy\n"
        );
        r.alarms.iter_mut().for_each(|a| a.alarm = "CORRUPT".into());
        assert_eq!(nospace_notice(&r), None);
        assert!(!status(&r, false).contains("NOSPACE is raised"));
    }

    #[test]
    fn doctor_wide_lists_the_checks_that_passed_under_a_header() {
        use crate::plan::doctor::{Finding, Severity};
        let f = |severity, check: &str, message: &str, remedy: &str| Finding {
            severity,
            check: check.into(),
            member: None,
            message: message.into(),
            remedy: remedy.into(),
        };
        let report = DoctorReport {
            cluster: None,
            worst: Severity::Warning,
            findings: vec![
                f(
                    Severity::Warning,
                    "fragmentation",
                    "m1: 200 MiB free",
                    "kubectl etcd defrag",
                ),
                f(Severity::Ok, "gate", "the health gate passes", ""),
                f(
                    Severity::Ok,
                    "quota",
                    "every member's backend is under 80% of its quota",
                    "",
                ),
            ],
            unread: vec![],
        };
        let lines = |l: &[&str]| l.iter().map(|l| format!("{l}\n")).collect::<String>();
        assert_eq!(
            doctor(&report, false),
            lines(&[
                "WARNING   fragmentation  m1: 200 MiB free",
                "                         → kubectl etcd defrag",
                "2 check(s) ok (-o wide lists them).",
            ])
        );
        assert_eq!(
            doctor(&report, true),
            lines(&[
                "SEVERITY  CHECK          FINDING",
                "WARNING   fragmentation  m1: 200 MiB free",
                "                         → kubectl etcd defrag",
                "Passed (2 checks):",
                "OK        gate           the health gate passes",
                "OK        quota          every member's backend is under 80% of its quota",
            ])
        );
        let healthy = DoctorReport {
            worst: Severity::Ok,
            findings: report.findings[1..].to_vec(),
            ..report
        };
        assert_eq!(
            doctor(&healthy, true),
            lines(&[
                "Nothing needs attention.",
                "Passed (2 checks):",
                "SEVERITY  CHECK  FINDING",
                "OK        gate   the health gate passes",
                "OK        quota  every member's backend is under 80% of its quota",
            ])
        );
    }

    #[test]
    fn wide_table_adds_raft_progress() {
        let text = status(&report(), true);
        assert!(text.lines().next().unwrap_or("").contains("RAFT TERM"));
        let leader = text.lines().find(|l| l.starts_with("etcd-1")).unwrap_or("");
        assert!(leader.contains(" 4 ") && leader.contains(" 77 "), "{text}");
    }

    #[test]
    fn json_and_yaml_carry_the_documented_fields() {
        let r = report();
        let json = crate::output::render_data(&r, crate::cli::OutputFormat::Json).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["leader"], "0000000000000001");
        assert_eq!(doc["gate"]["passed"], false);
        assert_eq!(doc["gate"]["reasons"][0]["code"], "MemberUnreachable");
        assert_eq!(doc["gate"]["reasons"][0]["member"], "etcd-2");
        assert!(
            doc.get("cluster").is_none(),
            "standalone reports have no cluster field"
        );
        let m1 = &doc["members"][0];
        for key in [
            "name",
            "endpoint",
            "id",
            "reachable",
            "error",
            "version",
            "dbSize",
            "dbSizeInUse",
            "reclaimable",
            "quota",
            "quotaUsedPercent",
            "isLeader",
            "isLearner",
            "raftTerm",
            "raftIndex",
            "raftAppliedIndex",
            "alarms",
            "verdict",
            "reasons",
        ] {
            assert!(m1.get(key).is_some(), "member field {key} missing: {m1}");
        }
        assert_eq!(m1["reclaimable"], 200u64 << 20);
        assert_eq!(m1["quota"]["source"], "member");
        assert_eq!(doc["members"][1]["reachable"], false);
        assert_eq!(doc["members"][1]["dbSize"], serde_json::Value::Null);
        assert_eq!(
            doc["alarms"][0],
            serde_json::json!({"member": "etcd-3", "memberId": "0000000000000003", "alarm": "NOSPACE"})
        );

        let yaml = crate::output::render_data(&r, crate::cli::OutputFormat::Yaml).unwrap();
        let back: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(back, doc, "YAML and JSON carry the same document");
    }
}
