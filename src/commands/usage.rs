//! `usage` and `snapshot usage`: which prefixes hold the space and take the
//! writes. `plan::usage` groups and ranks, `exec::usage` reads a live
//! member, `etcd::bolt` a file; this module picks the member (as `snapshot
//! save` does: the most caught-up healthy follower), watches for signals
//! and renders.

use crate::error::{Error, ExitStatus, Result};
use crate::etcd::bolt;
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::usage::Read;
use crate::exec::RunControl;
use crate::output::{self, OutputFormat};
use crate::plan::usage::{self, Layout, Revisions};
use crate::report::UsageReport;
use crate::settings::command::{Grouping, SnapshotUsage, Usage};
use crate::settings::Global;

pub async fn run(global: &Global, args: &Usage) -> Result<ExitStatus> {
    let layout = layout_of(&args.grouping);
    let session = crate::session::open(&global.reach, args.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let look = crate::etcd::take::look(ops, target).await?;
    let super::ReadSource {
        source,
        member,
        dial,
    } = super::read_source(&look, args.member.as_deref())?;
    let sizes = member.status().map(|s| (s.db_size_in_use, s.db_size));

    // A read changes nothing: the first signal ends it, and what was read
    // is reported, marked incomplete.
    let control = RunControl::default();
    let watch = SignalWatch::start(
        &control,
        Notices {
            first: "stopping the read; reporting what was read so far".into(),
            hint: None,
            second: "stopping the read; reporting what was read so far".into(),
        },
        crate::logging::message,
    )?;
    let label = progress_label(&source.name, args.window);
    // Without a spinner (no terminal, -o json), the wait is said once.
    if !args.window.is_zero() && !output::progress::bars_wanted(global.output) {
        crate::logging::message(&format!("{label} (--window 0s: no sample)"));
    }
    let progress = output::progress::Count::new(global.output, &label);
    let read = Read {
        ops,
        dial: &dial,
        member: &source.name,
        layout: &layout,
        keys_only: args.keys_only,
        window: args.window,
        control: &control,
        on_keys: &|n| progress.advance(n),
    };
    let outcome = read.run().await;
    progress.finish();
    let signal = watch.finish();
    let read = outcome?;

    let (keys, bytes, writes) = read.tally.totals();
    let rows = read.tally.rows(false, read.window);
    let cluster_args = crate::reach::ClusterRef::command_args(target.cluster.as_ref());
    let report = UsageReport {
        cluster: target.cluster.clone(),
        source: source.name.clone(),
        role: Some(source.role),
        revision: read.revision,
        last_revision: (read.last_revision != read.revision).then_some(read.last_revision),
        prefix: args.grouping.prefix.clone(),
        grouping: grouping_name(&layout),
        keys,
        bytes: (!args.keys_only).then_some(bytes),
        page_bytes: (!args.keys_only).then_some(read.tally.page_bytes()),
        complete: read.complete,
        read_seconds: read.took.as_secs_f64(),
        pages: read.pages,
        db_size_in_use: sizes.map(|s| s.0),
        db_size: sizes.map(|s| s.1),
        history_revisions: None,
        history_bytes: None,
        window_seconds: read.window.map(|w| w.as_secs_f64()),
        writes: read.window.map(|_| writes),
        next: next_command(&rows, &layout, &cluster_args),
        groups: rows,
        top: args.grouping.top,
    };
    render(&report, global.output)?;
    Ok(signals::exit_status(
        signal,
        ExitStatus::Success,
        ExitStatus::Interrupted,
    ))
}

pub async fn snapshot(global: &Global, args: &SnapshotUsage) -> Result<ExitStatus> {
    let layout = layout_of(&args.grouping);
    let path = args.file.clone();
    let folded = layout.clone();
    let read = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(&path)?;
        let mut revisions = Revisions::new(folded);
        let walked = bolt::records(&file, &mut |key, bytes, tombstone| {
            revisions.record(key, bytes, tombstone)
        });
        Ok::<_, std::io::Error>(walked.map(|w| (w, revisions.finish())))
    })
    .await
    .map_err(|e| Error::Failed(format!("reading the snapshot stopped: {e}")))?;
    let file = args.file.display().to_string();
    let (walked, tally) = read
        .map_err(|source| Error::ReadFile {
            flag: "snapshot",
            path: file.clone(),
            source,
        })?
        .map_err(|why| Error::usage(format!("{file} is not an etcd snapshot: {why}")))?;
    let rows = tally.rows(true, None);
    let (keys, bytes, _) = tally.totals();
    let history = rows.iter().fold((0, 0), |(r, b), g| {
        (
            r + g.history_revisions.unwrap_or(0),
            b + g.history_bytes.unwrap_or(0),
        )
    });
    let in_use = walked.pages_in_use.saturating_mul(walked.page_size);
    let report = UsageReport {
        cluster: None,
        source: file,
        role: None,
        revision: walked.status.revision,
        last_revision: None,
        prefix: args.grouping.prefix.clone(),
        grouping: grouping_name(&layout),
        keys,
        bytes: Some(bytes),
        page_bytes: Some(tally.page_bytes()),
        complete: true,
        read_seconds: 0.0,
        pages: 0,
        db_size_in_use: Some(in_use.min(walked.status.total_size)),
        db_size: Some(walked.status.total_size),
        history_revisions: Some(history.0),
        history_bytes: Some(history.1),
        window_seconds: None,
        writes: None,
        next: None,
        groups: rows,
        top: args.grouping.top,
    };
    render(&report, global.output)?;
    Ok(ExitStatus::Success)
}

/// What the spinner says while the keys are read and the writes counted.
fn progress_label(member: &str, window: std::time::Duration) -> String {
    if window.is_zero() {
        format!("reading the keys from {member}")
    } else {
        format!(
            "reading the keys from {member}, counting its writes for {}",
            crate::quantity::format_duration_parts(window)
        )
    }
}

fn layout_of(args: &Grouping) -> Layout {
    Layout::new(&args.prefix, args.depth)
}

fn grouping_name(layout: &Layout) -> String {
    match layout.grouping {
        usage::Grouping::Kubernetes => "kubernetes".into(),
        usage::Grouping::Depth(n) => format!("depth {n}"),
    }
}

fn render(report: &UsageReport, format: OutputFormat) -> Result<()> {
    output::print(report, format)
}

/// `usage` narrowed to the largest group, when it holds more than one key.
fn next_command(rows: &[usage::GroupUsage], layout: &Layout, cluster: &str) -> Option<String> {
    let top = rows
        .first()
        .filter(|g| g.keys > 1 && g.prefix.ends_with('/'))?;
    if top.prefix.as_bytes() == layout.prefix.as_slice() {
        return None;
    }
    Some(format!(
        "kubectl etcd usage{cluster} --prefix {}",
        top.prefix
    ))
}
