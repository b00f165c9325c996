//! `traffic show|set|clear`: the client Service's traffic distribution as
//! key/value lines, after what a change did.

use crate::report::TrafficReport;

/// Renders `traffic show` (and the state after `set`/`clear`, preceded by
/// what was done).
pub fn traffic(report: &TrafficReport) -> String {
    let mut text = String::new();
    if let Some(change) = &report.change {
        for note in &change.notes {
            text.push_str(note);
            text.push('\n');
        }
        for warning in &change.server_warnings {
            text.push_str(&format!("The API server warned: {warning}\n"));
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
            match &v.deprecated {
                Some(d) => format!("{} {mark} ({}+, deprecated {d})", v.value, v.since),
                None => format!("{} {mark} ({}+)", v.value, v.since),
            }
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

impl crate::output::Render for TrafficReport {
    fn table(&self, _wide: bool) -> String {
        traffic(self)
    }
}
