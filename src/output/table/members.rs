//! The `members` table and the account of a `member add|promote|remove`.

use comfy_table::Cell;

use super::{new_table, trim_lines};
use crate::report::{MemberChangeReport, MembersReport};

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
    for defect in &report.known_defects {
        text.push_str(&format!("Known etcd defect: {defect}\n"));
    }
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

impl crate::output::Render for MembersReport {
    fn table(&self, _wide: bool) -> String {
        members(self)
    }
}

impl crate::output::Render for MemberChangeReport {
    fn table(&self, _wide: bool) -> String {
        member_change(self)
    }
}

/// `move-leader` says what happened in a sentence.
impl crate::output::Render for crate::report::MoveLeaderReport {
    fn table(&self, _wide: bool) -> String {
        let (from, to) = (&self.from, &self.to);
        if from == to {
            return format!("{to} leads already; nothing to move.\n");
        }
        match (&self.leader_after, self.dry_run) {
            (_, true) => format!("Would move leadership from {from} to {to}.\n"),
            (Some(now), false) => {
                format!("Leadership moved from {from} to {to}; the leader is now {now}.\n")
            }
            (None, false) => format!("Leadership moved from {from} to {to}.\n"),
        }
    }
}

fn alarm_rows(header: &[&str], rows: impl ExactSizeIterator<Item = Vec<String>>) -> String {
    if rows.len() == 0 {
        "No alarms.\n".to_string()
    } else {
        super::rows(header, rows)
    }
}

impl crate::output::Render for crate::report::AlarmListReport {
    fn table(&self, _wide: bool) -> String {
        alarm_rows(
            &["ALARM", "MEMBER", "MEMBER ID"],
            self.alarms
                .iter()
                .map(|a| vec![a.alarm.clone(), a.member.clone(), a.member_id.clone()]),
        )
    }
}

impl crate::output::Render for crate::report::AlarmDisarmReport {
    fn table(&self, _wide: bool) -> String {
        alarm_rows(
            &["ALARM", "MEMBER", "RESULT", "WHY"],
            self.alarms.iter().map(|a| {
                vec![
                    a.alarm.clone(),
                    a.member.clone(),
                    a.result.as_str().to_string(),
                    a.why.clone(),
                ]
            }),
        )
    }
}
