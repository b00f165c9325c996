//! `doctor`: the findings worst first with their remedies, and with `-o
//! wide` the checks that passed.

use super::{by_context, unreached};
use crate::report::DoctorReport;

/// `doctor`: the findings worst first, each with its remedy; with `wide`,
/// a column header and then every check that passed, under its own
/// heading; then what could not be read.
pub fn doctor(report: &DoctorReport, wide: bool) -> String {
    use crate::plan::doctor::Severity;
    let mut text = String::new();
    if let Some(c) = &report.cluster {
        let kind = report
            .kind
            .map(|k| format!(" ({})", k.as_str()))
            .unwrap_or_default();
        text.push_str(&format!("{}{kind}: {}\n", c.label(), report.worst));
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
        // An acknowledged finding stays listed, said to be acknowledged.
        let acknowledged = if f.acknowledged {
            "(acknowledged) "
        } else {
            ""
        };
        text.push_str(&format!(
            "{:<8}  {:<width$}  {acknowledged}{}\n",
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

impl crate::output::Render for DoctorReport {
    fn table(&self, wide: bool) -> String {
        doctor(self, wide)
    }
}

/// `doctor -A`: each cluster's table in turn; its data is one document.
/// A context that could not be reached stands where its clusters would.
impl crate::output::Render for crate::report::FleetDoctorReport {
    fn table(&self, wide: bool) -> String {
        by_context(&self.contexts, &self.clusters, |r| {
            r.cluster.as_ref().and_then(|c| c.context.as_deref())
        })
        .into_iter()
        .map(|(context, report)| match (context, report) {
            (_, Some(report)) => doctor(report, wide),
            (Some(c), None) => format!(
                "{}: critical\n{:<8}  {}  {}\n{:<8}  {:<7}  → {}\n",
                c.name,
                "CRITICAL",
                "context",
                unreached(c),
                "",
                "",
                unreached_remedy(&c.name)
            ),
            (None, None) => String::new(),
        })
        .collect::<Vec<_>>()
        .join("\n")
    }
}

/// What to run when a context's clusters could not be listed.
fn unreached_remedy(context: &str) -> String {
    format!("check that its API server answers and its credentials are current: kubectl --context {context} version")
}
