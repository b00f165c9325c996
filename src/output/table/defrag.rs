//! The `defrag` table (a row per member, then the leader decision, alarms,
//! agreement check and stop reason) and the fleet sweep's table of
//! clusters (`defrag -A`, `-l`).

use comfy_table::Cell;

use super::{by_context, new_table, opt_bytes, right, trim_lines, unreached, Lead};
use std::time::Duration;

use crate::quantity::{format_bytes, format_duration};
use crate::report::{DefragReport, HashVerdict, Outcome};

/// Renders the `defrag` report: one row per member in execution order
/// (then the skipped ones), followed by the leader decision, alarms, the
/// agreement check and why the sweep stopped, if it did.
pub fn defrag(report: &DefragReport) -> String {
    let mut text = member_rows(report);
    for m in report.members.iter().filter(|m| m.detail.is_some()) {
        text.push_str(&format!(
            "{}: {}\n",
            m.name,
            m.detail.as_deref().unwrap_or("")
        ));
    }
    sizes_lines(report, &mut text);
    leader_lines(report, &mut text);
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
        hash_lines(h, &mut text);
    }
    ending_lines(report, &mut text);
    text
}

/// The table: one row per member.
fn member_rows(report: &DefragReport) -> String {
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
            // 0: not known (the operator does not record it; nothing
            // etcd holds is ever empty).
            right(opt_bytes(
                Some(m.db_size_in_use).filter(|&u| m.db_size_before > 0 && u > 0),
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
    trim_lines(&table.to_string())
}

/// What the rule skipped, and what a compaction did to the sizes.
fn sizes_lines(report: &DefragReport, text: &mut String) {
    let below: Vec<&str> = report
        .members
        .iter()
        .filter(|m| m.reason == Some(crate::report::MemberReason::BelowThreshold))
        .map(|m| m.name.as_str())
        .collect();
    if !below.is_empty() {
        // Issue 45: right after a compaction etcd has not refreshed its
        // in-use figures (it does when a member next writes), so a run
        // without --compact can skip every member on stale figures.
        let stale_hint = if report.compacted_at.is_none() {
            "; right after a compaction etcd's in-use figures are stale until a member next writes: --compact compacts, has them refreshed, then decides"
        } else {
            ""
        };
        text.push_str(&format!(
            "Below the rule ({}): {}; --all defragments every member whatever it holds{stale_hint}\n",
            report.rule,
            below.join(", ")
        ));
    }
    match (report.compacted_at, report.dry_run) {
        (Some(revision), true) => text.push_str(&format!(
            "Would first compact every revision before {revision} (the current one), then plan from the sizes after it: the sizes above are from before\n"
        )),
        (Some(revision), false) if report.already_compacted => text.push_str(&format!(
            "Nothing to compact: every revision before {revision} was compacted already\n"
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
}

/// What became of the leader.
fn leader_lines(report: &DefragReport, text: &mut String) {
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
}

/// Whether the members agree after the sweep (HashKV).
fn hash_lines(h: &crate::report::HashCheck, text: &mut String) {
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

/// The run's time, the gate's refusal on a dry run, and why it stopped.
fn ending_lines(report: &DefragReport, text: &mut String) {
    if let Some(run) = &report.run {
        // The operator's run: its own record, no call times of ours.
        text.push_str(&format!(
            "EtcdDefrag {}/{} (the operator's): {}, {} defragmented in {}{}\n",
            run.namespace,
            run.name,
            run.phase,
            report.defragmented(),
            format_duration(Duration::from_millis(report.wall_ms)),
            run.condition
                .as_deref()
                .map(|c| format!("; {c}"))
                .unwrap_or_default()
        ));
    } else if !report.dry_run {
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
}

/// Renders a fleet sweep (`defrag -A`, `-l`): one row per cluster with its
/// outcome, members defragmented of those planned, bytes reclaimed (`~`
/// the prediction on a dry run) and why it is not done, then the totals.
/// `plans` puts each cluster's own defrag table first (a dry run, `-o
/// wide`).
pub fn fleet(report: &crate::report::FleetReport, plans: bool) -> String {
    let mut text = String::new();
    if plans {
        for c in &report.clusters {
            text.push_str(&format!("{}:\n", c.cluster.label()));
            match &c.report {
                Some(r) => text.push_str(&defrag(r)),
                None => text.push_str(&format!("{}\n", c.why.as_deref().unwrap_or("-"))),
            }
            text.push('\n');
        }
    }
    let lead = Lead {
        contexts: !report.contexts.is_empty(),
        name: "NAME",
        kinds: true,
    };
    let header: Vec<&str> = lead
        .header()
        .into_iter()
        .chain(["OUTCOME", "DEFRAGMENTED", "RECLAIMED", "WHY"])
        .collect();
    let mut table = new_table(&header);
    for (context, c) in by_context(&report.contexts, &report.clusters, |c| {
        c.cluster.context.as_deref()
    }) {
        let Some(c) = c else {
            if let Some(context) = context {
                let cells = lead.cells(Some(&context.name), None);
                table.add_row(
                    cells
                        .into_iter()
                        .chain([
                            Cell::new("unreached"),
                            right("-"),
                            right("-"),
                            Cell::new(unreached(context)),
                        ])
                        .collect::<Vec<_>>(),
                );
            }
            continue;
        };
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
        table.add_row(
            lead.cells(None, Some((&c.cluster, c.kind)))
                .into_iter()
                .chain([
                    Cell::new(c.outcome.as_str()),
                    right(done),
                    right(reclaimed),
                    Cell::new(c.why.as_deref().unwrap_or("-")),
                ])
                .collect::<Vec<_>>(),
        );
    }
    text.push_str(&trim_lines(&table.to_string()));
    text.push_str(&fleet_totals(report));
    text
}

/// The line under a fleet sweep's table: the clusters by outcome, the
/// contexts not reached, and what was (or would be) reclaimed.
fn fleet_totals(report: &crate::report::FleetReport) -> String {
    use crate::quantity::format_duration;
    use crate::report::FleetOutcome;
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
    .chain(match report.unreached().count() {
        0 => None,
        n => Some(format!("{n} context(s) not reached")),
    })
    .collect();
    let plural = if t.clusters == 1 { "" } else { "s" };
    if report.dry_run {
        format!(
            "Total: {} cluster{plural} ({}); would reclaim ~{}\n",
            t.clusters,
            counts.join(", "),
            format_bytes(t.predicted_reclaim_bytes)
        )
    } else {
        format!(
            "Total: {} cluster{plural} ({}); {} member(s) defragmented, {} reclaimed in {} (at most {} cluster(s) at once)\n",
            t.clusters,
            counts.join(", "),
            t.members_defragmented,
            format_bytes(t.reclaimed_bytes),
            format_duration(std::time::Duration::from_millis(t.wall_ms)),
            report.max_concurrent
        )
    }
}

impl crate::output::Render for DefragReport {
    fn table(&self, _wide: bool) -> String {
        defrag(self)
    }
}

/// A dry run and `-o wide` put every cluster's own table before the
/// summary.
impl crate::output::Render for crate::report::FleetReport {
    fn table(&self, wide: bool) -> String {
        fleet(self, wide || self.dry_run)
    }
}
