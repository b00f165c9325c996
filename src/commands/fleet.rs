//! `defrag -A` / `defrag -l SELECTOR`: a fleet sweep.
//!
//! Lists the EtcdClusters, gets consent once, then puts each cluster through
//! the very engine a single-cluster `defrag` uses (`exec::run`): at most
//! `--max-concurrent` clusters at once, one member at a time within each
//! (the engine's own invariant). A cluster that cannot be opened, that the
//! gate refuses or whose run fails becomes a row of the summary; it never
//! stops the others. One `RunControl` is shared by every run, so Ctrl-C
//! (or SIGTERM, SIGHUP) stops each after its member in flight, and clusters
//! not started yet are never contacted.

use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use crate::error::{ExitStatus, Result};
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::{self, RunControl, RunInput, SweepOptions};
use crate::output::{self, progress::FleetView, OutputFormat};
use crate::plan::gate;
use crate::quantity::format_bytes;
use crate::report::{ClusterRef, ContextRow, FleetCluster, FleetOutcome, FleetReport, Outcome};
use crate::session;
use crate::session::fleet::{Entry, Listed, Opened, Scope};
use crate::settings::{Fleet as FleetSettings, Global};

/// How many clusters the first look (dry run, prompt) reads at once: it
/// only reads, as `status -A` does.
const LOOK_CONCURRENCY: usize = 8;

pub async fn run(global: &Global, args: &FleetSettings) -> Result<ExitStatus> {
    let options = args.sweep.clone();
    let selector = args.selector.as_deref();
    output::prompt::require_consent(args.consent.yes, args.consent.dry_run, "defragment")?;
    let max = args.max_concurrent;

    if global.reach.endpoints.iter().any(|e| !e.trim().is_empty()) {
        tracing::info!("fleet sweep (plugin mode): --endpoints/ETCDCTL_ENDPOINTS is ignored");
    }
    // A first look (dry run or prompt) reads what `status -A` reads: the
    // clusters, and what their source shares between them, side by side.
    // A sweep reads each cluster again at its turn.
    let looking = args.consent.dry_run || !args.consent.yes;
    let scope = Scope {
        all_namespaces: args.all_namespaces,
        selector,
        shared: looking,
        control_planes: false,
    };
    let listed = Listed::read(&global.reach, scope).await?;
    let clusters = listed.clusters();
    let contexts = listed.contexts.clone();
    let unreached = ContextRow::unreached(&contexts).count();
    if clusters.is_empty() && unreached == 0 {
        let scope = match listed.places.as_slice() {
            [one] => match &one.namespace {
                Some(ns) => format!("in namespace {ns}"),
                None => "in any namespace".to_string(),
            },
            _ if args.all_namespaces => "in any namespace of any context".to_string(),
            _ => "in any context's namespace".to_string(),
        };
        let labels = selector
            .map(|s| format!(" with labels {s}"))
            .unwrap_or_default();
        let noun = listed.source().map_or("EtcdCluster", |s| s.noun());
        crate::logging::message(&format!("no {noun} {scope}{labels}: nothing to defragment"));
        let report = FleetReport::build(args.consent.dry_run, max, Vec::new(), Duration::ZERO)
            .with_contexts(contexts);
        if !matches!(global.output, OutputFormat::Table | OutputFormat::Wide) {
            render(global, &report)?;
        }
        return Ok(ExitStatus::Success);
    }
    if clusters.is_empty() {
        // Every cluster listed lives in a context not reached.
        let report = FleetReport::build(args.consent.dry_run, max, Vec::new(), Duration::ZERO)
            .with_contexts(contexts);
        render(global, &report)?;
        return Ok(exit_status(&report));
    }
    let fleet = Fleet {
        listed: &listed,
        options: &options,
    };

    if looking {
        let fleet = &fleet;
        let looks: Vec<FleetCluster> = listed
            .each(LOOK_CONCURRENCY, LOOK_CONCURRENCY, |opened| {
                fleet.look(opened)
            })
            .await;
        if args.consent.dry_run {
            let report =
                FleetReport::build(true, max, looks, Duration::ZERO).with_contexts(contexts);
            render(global, &report)?;
            return Ok(exit_status(&report));
        }
        if !confirm(&looks, &contexts, max).await? {
            return Err(output::prompt::not_confirmed());
        }
    }

    let control = RunControl::default();
    let view = FleetView::new(global.output, clusters.len());
    let say = {
        let view = view.clone();
        move |text: &str| view.say(text)
    };
    let watch = SignalWatch::start(
        &control,
        Notices {
            first: "stopping every cluster after its member in flight answers again; clusters not started are left alone".into(),
            hint: Some("to stop waiting".into()),
            second: "no longer waiting; members in flight may still be defragmenting".into(),
        },
        say,
    )?;
    let started = Instant::now();
    let entries: Vec<FleetCluster> = stream::iter(clusters)
        .map(|c| fleet.sweep(c, &view, &control))
        .buffer_unordered(max)
        .collect()
        .await;
    let signal = watch.finish();
    view.finish();
    let report = FleetReport::build(false, max, entries, started.elapsed()).with_contexts(contexts);
    render(global, &report)?;
    let status = exit_status(&report);
    Ok(signals::exit_status(signal, status, status))
}

/// What every cluster's look and run share.
struct Fleet<'a> {
    /// Each context's API server and clusters.
    listed: &'a Listed,
    options: &'a SweepOptions,
}

impl Fleet<'_> {
    fn input(&self, cluster: &ClusterRef, session: &session::Session) -> RunInput {
        RunInput {
            options: self.options.clone(),
            finished: Vec::new(),
            cluster: Some(cluster.clone()),
            interrupted: None,
            others: session.runs.as_ref().map(session::ClusterRuns::shared),
            rooms: session.rooms(),
            control_plane: None,
        }
    }

    /// Connects to one cluster's members as its kind's source says, in
    /// its context.
    async fn open(&self, entry: &Entry) -> Result<session::Session> {
        let mut session = self.listed.open(entry).await?;
        session.runs = Some(self.runs(entry.place, &entry.cluster));
        Ok(session)
    }

    /// The other processors' runs of `cluster` (in the context `place`),
    /// asked by its sweep.
    fn runs(&self, place: usize, cluster: &ClusterRef) -> session::ClusterRuns {
        let kube = &self.listed.places[place].kube;
        session::ClusterRuns::new(kube, &cluster.namespace, &cluster.name)
    }

    /// The dry run's view of one cluster: its plan and the gate's verdict
    /// now, from one look; nothing changes. The cluster is the one listed,
    /// and what its source shares between clusters (an EtcdCluster's
    /// members and Pods) comes from the shared reads when they could be
    /// read.
    async fn look(&self, opened: Opened) -> FleetCluster {
        let kind = opened.kind;
        self.look_at(opened).await.of_kind(kind)
    }

    async fn look_at(&self, opened: Opened) -> FleetCluster {
        let cluster = opened.cluster;
        let preview = async {
            let mut session = opened.session?;
            session.runs = Some(self.runs(opened.place, &cluster));
            let input = self.input(&cluster, &session);
            let first = exec::Fresh::look_with_rooms(
                &session.clients,
                &session.target,
                input.rooms.as_deref(),
            )
            .await?
            .look;
            let mut verdict = gate::evaluate(&first, &self.options.gate);
            verdict
                .reasons
                .extend(exec::others_refuse(input.others.as_deref()).await);
            exec::preview(&first, &verdict, &input)
        }
        .await;
        match preview {
            Ok(report) => FleetCluster::from_report(cluster, report),
            Err(e) => FleetCluster::failed(cluster, e.to_string()),
        }
    }

    /// One cluster's run, start to finish; never an error, always a row.
    async fn sweep(&self, entry: Entry, view: &FleetView, control: &RunControl) -> FleetCluster {
        let kind = entry.kind;
        if control.halted().is_some() {
            return FleetCluster::not_started(entry.cluster).of_kind(kind);
        }
        let progress = view.cluster(entry.cluster.label());
        let cluster = entry.cluster.clone();
        let run = async {
            let session = self.open(&entry).await?;
            exec::run(
                &session.clients,
                &session.target,
                &self.input(&cluster, &session),
                &progress,
                control,
                None,
            )
            .await
        }
        .await;
        let entry = match run {
            Ok(report) => FleetCluster::from_report(cluster, report),
            Err(e) => FleetCluster::failed(cluster, e.to_string()),
        }
        .of_kind(kind);
        progress.finish(&outcome_line(&entry));
        entry
    }
}

/// A finished cluster's progress line: the outcome and what was done, or
/// why not.
fn outcome_line(entry: &FleetCluster) -> String {
    match &entry.why {
        Some(why) => format!("{} — {why}", entry.outcome.as_str()),
        None => format!(
            "{}: {}/{} defragmented, {} reclaimed",
            entry.outcome.as_str(),
            entry.defragmented(),
            entry.planned(),
            format_bytes(entry.reclaimed())
        ),
    }
}

/// Shows what each cluster would get and asks once. A cluster the gate
/// refuses now, or that could not be looked at, is tried again at its turn,
/// so it is counted (as "up to") and named.
async fn confirm(looks: &[FleetCluster], contexts: &[ContextRow], max: usize) -> Result<bool> {
    let (mut members, mut clusters, mut unsure) = (0, 0, false);
    for c in ContextRow::unreached(contexts) {
        crate::logging::message(&format!(
            "context {}: not reached, left alone ({})",
            c.name,
            c.error.as_deref().unwrap_or("unknown")
        ));
    }
    for c in looks {
        let label = c.cluster.label();
        let order: Vec<&str> = c
            .report
            .iter()
            .flat_map(|r| {
                r.members
                    .iter()
                    .filter(|m| m.outcome == Outcome::Pending)
                    .map(|m| m.name.as_str())
            })
            .collect();
        members += order.len();
        clusters += usize::from(!order.is_empty());
        let plan = format!(
            "defragment {} member(s): {}",
            order.len(),
            order.join(" → ")
        );
        let line = match c.outcome {
            FleetOutcome::Planned => format!("{label}: {plan}"),
            FleetOutcome::NothingToDo => format!("{label}: nothing to defragment"),
            FleetOutcome::Refused => {
                unsure = true;
                format!(
                    "{label}: {plan}, but {} (checked again at its turn)",
                    c.why
                        .as_deref()
                        .unwrap_or("the health gate would refuse now")
                )
            }
            _ => {
                unsure = true;
                format!(
                    "{label}: {} (tried again at its turn)",
                    c.why.as_deref().unwrap_or("cannot be looked at")
                )
            }
        };
        crate::logging::message(&line);
    }
    let question = format!(
        "Defragment {}{members} member(s) in {clusters} of {} cluster(s), at most {max} cluster(s) at once and one member at a time in each?",
        if unsure { "up to " } else { "" },
        looks.len()
    );
    output::prompt::confirm_async(question).await
}

/// 0 when no cluster was refused, failed or left out; else 1 naming them
/// (130 when a second Ctrl-C abandoned a member in flight; SIGTERM and
/// SIGHUP end with 143 and 129: `signals::exit_status`).
fn exit_status(report: &FleetReport) -> ExitStatus {
    let named: Vec<String> = report
        .problems()
        .map(|c| format!("{} {}", c.cluster.label(), c.outcome.as_str()))
        .collect();
    let contexts: Vec<String> = report
        .unreached()
        .map(|c| format!("context {}", c.name))
        .collect();
    if named.is_empty() && contexts.is_empty() {
        return ExitStatus::Success;
    }
    let mut what = Vec::new();
    if !named.is_empty() {
        what.push(format!(
            "{} of {} cluster(s) not done: {}",
            named.len(),
            report.clusters.len(),
            named.join(", ")
        ));
    }
    if !contexts.is_empty() {
        what.push(format!(
            "not reached, so not looked at: {}",
            contexts.join(", ")
        ));
    }
    let status = super::unfinished(what.join("; "));
    if report.abandoned() {
        ExitStatus::Interrupted
    } else {
        status
    }
}

/// The summary on stdout; a dry run and `-o wide` put every cluster's own
/// table first.
fn render(global: &Global, report: &FleetReport) -> Result<()> {
    output::print(report, global.output)
}
