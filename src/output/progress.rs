//! Run progress on stderr: a spinner per member on a terminal, log lines
//! otherwise (visible with `-v`). Never on stdout. Both are observers of the
//! engine's events.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::exec::{LogObserver, Observer, RunEvent};
use crate::output::OutputFormat;

/// The observer for this run: bars when a person watches a table, else logs.
pub fn observer(format: OutputFormat) -> Box<dyn Observer> {
    if bars_wanted(format) {
        Box::new(Bars::default())
    } else {
        Box::new(LogObserver)
    }
}

/// Whether a person watches: stderr is a terminal, the result is a table,
/// and `RUST_LOG` does not ask for log lines instead.
pub fn bars_wanted(format: OutputFormat) -> bool {
    let tty = std::io::stderr().is_terminal();
    let logging = std::env::var_os("RUST_LOG").is_some();
    tty && !logging && matches!(format, OutputFormat::Table | OutputFormat::Wide)
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

#[derive(Default)]
struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn line(&self, text: String) {
        match self.current.lock().ok().and_then(|g| g.clone()) {
            Some(bar) => bar.println(text),
            None => crate::logging::message(&text),
        }
    }

    fn show(&self, event: &RunEvent) {
        match event {
            RunEvent::DefragStarted { .. } => {
                let bar = ProgressBar::new_spinner();
                bar.set_style(spinner_style());
                bar.enable_steady_tick(Duration::from_millis(120));
                bar.set_message(event.describe());
                if let Ok(mut g) = self.current.lock() {
                    *g = Some(bar);
                }
            }
            RunEvent::WaitingForMember { .. } => {
                if let Some(bar) = self.current.lock().ok().and_then(|g| g.clone()) {
                    bar.set_message(event.describe());
                }
            }
            RunEvent::MemberFinished { .. } | RunEvent::DefragWithheld { .. } => {
                match self.current.lock().ok().and_then(|mut g| g.take()) {
                    Some(b) => b.finish_with_message(event.describe()),
                    None => crate::logging::message(&event.describe()),
                }
            }
            RunEvent::Planned { .. } | RunEvent::Stopping { .. } => {}
            _ => self.line(event.describe()),
        }
    }
}

impl Observer for Bars {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        self.show(&event);
        Box::pin(async {})
    }
}

/// A fleet sweep's progress (`defrag -A`, `-l`). On a terminal (see
/// [`observer`]): a spinner line per cluster being swept, showing its
/// current step, above a line counting the clusters done; a line per
/// finished cluster is printed above them all, so the live area never
/// holds more than `--max-concurrent` + 1 lines. Otherwise log lines
/// prefixed with the cluster (`-v`).
#[derive(Clone)]
pub struct FleetView {
    /// The display and its last line (clusters done of `clusters`).
    bars: Option<(MultiProgress, ProgressBar)>,
}

impl FleetView {
    pub fn new(format: OutputFormat, clusters: usize) -> FleetView {
        let bars = bars_wanted(format).then(|| {
            let multi = MultiProgress::new();
            let done = multi.add(ProgressBar::new(clusters as u64));
            done.set_style(
                ProgressStyle::with_template("{pos}/{len} clusters done [{elapsed}]")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            done.enable_steady_tick(Duration::from_millis(500));
            (multi, done)
        });
        FleetView { bars }
    }

    /// Removes the live lines (the finished clusters' lines stay), before
    /// the summary is printed.
    pub fn finish(&self) {
        if let Some((_, done)) = &self.bars {
            done.finish_and_clear();
        }
    }

    /// A message for the person (e.g. on Ctrl-C), above the spinners when
    /// they are shown.
    pub fn say(&self, text: &str) {
        match &self.bars {
            Some((multi, _)) => {
                let _ = multi.println(format!("kubectl-etcd: {text}"));
            }
            None => crate::logging::message(text),
        }
    }

    /// The observer of one cluster's run, labelled `label` (`ns/name`);
    /// its line shows from now on.
    pub fn cluster(&self, label: String) -> ClusterProgress {
        let bar = self.bars.as_ref().map(|(multi, done)| {
            let bar = multi.insert_before(done, ProgressBar::new_spinner());
            bar.set_style(spinner_style());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar.set_message(format!("{label}: connecting"));
            (multi.clone(), bar, done.clone())
        });
        if bar.is_none() {
            tracing::info!("{label}: connecting");
        }
        ClusterProgress {
            label,
            bar,
            steps: Mutex::new(Steps::default()),
        }
    }
}

/// One cluster's line in a [`FleetView`]; an [`Observer`] of its run.
pub struct ClusterProgress {
    label: String,
    /// The display, this cluster's line, and the clusters-done line.
    bar: Option<(MultiProgress, ProgressBar, ProgressBar)>,
    steps: Mutex<Steps>,
}

/// How far a cluster's sweep is: members planned, Defragments started.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Steps {
    planned: usize,
    started: usize,
}

impl ClusterProgress {
    /// Ends the cluster's line with `outcome` (kept above the spinners on a
    /// terminal, logged otherwise).
    pub fn finish(&self, outcome: &str) {
        let line = format!("{}: {outcome}", self.label);
        match &self.bar {
            Some((multi, bar, done)) => {
                bar.finish_and_clear();
                multi.remove(bar);
                done.inc(1);
                let _ = multi.println(line);
            }
            None => tracing::info!("{line}"),
        }
    }
}

/// The text for a cluster's line: the engine's own description, with the
/// Defragment's place in the plan (`defragmenting m1 (2/3)`). Pure apart
/// from counting in `steps`.
fn fleet_step(event: &RunEvent, steps: &mut Steps) -> String {
    match event {
        RunEvent::Planned { order, .. } => {
            steps.planned = order.len();
            event.describe()
        }
        RunEvent::DefragStarted { member } => {
            steps.started += 1;
            format!(
                "defragmenting {} ({}/{})",
                member.name,
                steps.started,
                steps.planned.max(steps.started)
            )
        }
        _ => event.describe(),
    }
}

impl Observer for ClusterProgress {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        let text = match self.steps.lock() {
            Ok(mut steps) => fleet_step(&event, &mut steps),
            Err(_) => event.describe(),
        };
        match &self.bar {
            Some((_, bar, _)) => bar.set_message(format!("{}: {text}", self.label)),
            None => match event {
                RunEvent::GateRefused { .. } => tracing::warn!("{}: {text}", self.label),
                _ => tracing::info!("{}: {text}", self.label),
            },
        }
        Box::pin(async {})
    }
}

/// A count's progress (`usage`): keys read so far and the rate, on a
/// terminal when a table is printed; nothing otherwise.
pub struct Count(Option<ProgressBar>);

impl Count {
    pub fn new(format: OutputFormat, label: &str) -> Count {
        if !bars_wanted(format) {
            return Count(None);
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg}: {human_pos} keys ({per_sec}) {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(label.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        Count(Some(bar))
    }

    pub fn advance(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }

    /// Removes the spinner (the report follows on stdout).
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A byte transfer's progress (`snapshot save`): a bar with bytes, rate and
/// time left on a terminal when a table is printed; nothing otherwise.
pub struct Transfer(Option<ProgressBar>);

impl Transfer {
    pub fn new(format: OutputFormat, label: &str) -> Transfer {
        if !bars_wanted(format) {
            return Transfer(None);
        }
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} {wide_bar} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(label.to_string());
        Transfer(Some(bar))
    }

    /// The total, once the first chunk says how much is coming.
    pub fn total(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.set_length(bytes);
        }
    }

    pub fn advance(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(bytes);
        }
    }

    /// Removes the bar (the report follows on stdout).
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A transfer given up (a signal, an error) takes its bar with it, as a
/// finished one does: nothing half-drawn is left above the message that
/// says why.
impl Drop for Transfer {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::defrag::{MemberDecision, PlannedMember, Role, SkipReason};

    fn started(name: &str) -> RunEvent {
        RunEvent::DefragStarted {
            member: PlannedMember {
                name: name.into(),
                id: 1,
                role: Role::Follower,
                decision: MemberDecision::Skip(SkipReason::NotSelected),
                db_size: 100,
                in_use: 10,
                silent: None,
                held_back: None,
            },
        }
    }

    #[test]
    fn a_cluster_line_counts_defragments_against_the_plan() {
        let mut steps = Steps::default();
        let plan = RunEvent::Planned {
            order: vec!["m0".into(), "m2".into(), "m1".into()],
            members: Vec::new(),
        };
        assert_eq!(
            fleet_step(&plan, &mut steps),
            "plan: defragment m0 → m2 → m1"
        );
        assert_eq!(
            fleet_step(&started("m0"), &mut steps),
            "defragmenting m0 (1/3)"
        );
        assert_eq!(
            fleet_step(&started("m2"), &mut steps),
            "defragmenting m2 (2/3)"
        );
        let stop = RunEvent::Stopping {
            reason: crate::report::StopReason::Interrupted,
        };
        assert_eq!(fleet_step(&stop, &mut steps), "stopping: interrupted");
        // A re-plan that adds a member never shows a count past the total.
        assert_eq!(
            fleet_step(&started("m1"), &mut steps),
            "defragmenting m1 (3/3)"
        );
        assert_eq!(
            fleet_step(&started("m3"), &mut steps),
            "defragmenting m3 (4/4)"
        );
    }
}
