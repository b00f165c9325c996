//! `compact`: each member's sizes before and after, then one sentence on
//! what was (or would be) compacted.

use super::rows;
use crate::quantity::format_bytes;
use crate::report::CompactReport;

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

impl crate::output::Render for CompactReport {
    fn table(&self, _wide: bool) -> String {
        compact(self)
    }
}
