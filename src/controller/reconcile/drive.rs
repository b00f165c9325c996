//! Running a run: the engine (`exec::run`) called with the rows already
//! finished, and its observer, which persists each member's row before the
//! engine touches the next one.

use std::time::Duration;

use futures::future::BoxFuture;
use k8s_openapi::jiff::Timestamp;
use kube::api::Api;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::super::context::{self, Context, Error};
use super::super::metrics::RunLabels;
use super::super::phase::{self, Event};
use super::{clear_note, not_driven_by_another, record, write_status};
use crate::exec::{self, Fresh, Observer, RunControl, RunEvent, RunInput};
use crate::k8s::crd::{EtcdDefrag, EtcdDefragStatus};
use crate::report::{AlarmResult, MemberReason, Outcome};
use crate::session::Session;
use crate::settings;

/// Runs the engine for this run and persists every member's row as it
/// finishes; records `DefragFailed` and `AlarmDisarmFailed` events.
#[allow(clippy::too_many_arguments)]
pub(super) async fn drive(
    ctx: &Context,
    runs: &Api<EtcdDefrag>,
    current: EtcdDefrag,
    status: EtcdDefragStatus,
    finished: Vec<crate::report::MemberResult>,
    deadline_in: Duration,
    session: Session,
    first: Fresh,
) -> Result<(), Error> {
    let options = settings::sweep_of_run(
        current.spec.rule.as_ref(),
        ctx.move_leader,
        ctx.member_timeout,
        ctx.allow_probe_restart,
        ctx.gate,
    )
    .map_err(crate::Error::Usage)?;
    let earlier: Vec<String> = finished.iter().map(|m| m.name.clone()).collect();
    // A holder that died mid-Defragment left the member's name (and its
    // size then) and no row.
    let interrupted = current
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(crate::contract::DEFRAGMENTING_ANNOTATION))
        .and_then(|note| crate::plan::defrag::InterruptedDefrag::parse(note))
        .filter(|noted| !earlier.contains(&noted.member));
    let input = RunInput {
        options,
        finished,
        cluster: session.target.cluster.clone(),
        interrupted,
        // The watcher is the processor that serializes the runs (the
        // oldest unfinished one acts): the others are queued behind it.
        others: None,
        rooms: session.rooms(),
        control_plane: None,
    };
    // The Lease is asked once more right before each Defragment leaves,
    // after the note and after the member's connection is ready.
    let fence = ctx.fence.clone();
    let control = RunControl {
        cancel: ctx.shutdown.child_token(),
        deadline: Some(tokio::time::Instant::now() + deadline_in),
        permit: Some(exec::Permit::new(move || fence.is_open())),
        ..RunControl::default()
    };
    let labels = RunLabels::of(&current);
    let persist = Persist {
        ctx,
        runs,
        state: Mutex::new((current, status)),
        failed: Mutex::new(None),
        stop_run: control.cancel.clone(),
    };
    let report = exec::run(
        &session.clients,
        &session.target,
        &input,
        &persist,
        &control,
        Some(first),
    )
    .await?;
    ctx.metrics.sweep_finished(&labels, &report);
    if let Some(e) = persist.failed.lock().await.take() {
        return Err(e);
    }
    let (mut current, mut status) = persist.state.into_inner();
    let now = Timestamp::now();
    phase::record_results(&mut status, &report.members, now);
    if report.stopped.is_none() {
        phase::mark_gone(&mut status, now);
    }
    write_status(ctx, runs, &mut current, &status).await?;
    // The row has no room for why a member was held back: the event does.
    for m in report.held_back().filter(|m| !earlier.contains(&m.name)) {
        let why = m.detail.clone().unwrap_or_default();
        record(ctx, &current, &Event::defrag_held_back(&m.name, &why)).await;
    }
    let failures: Vec<String> = report
        .alarms
        .iter()
        .filter(|a| a.alarm == "NOSPACE" && a.result == AlarmResult::Failed)
        .map(|a| format!("member {}: {}", a.member_id, a.why))
        .collect();
    if !failures.is_empty() {
        record(
            ctx,
            &current,
            &Event::alarm_disarm_failed(&failures.join("; ")),
        )
        .await;
    }
    Ok(())
}

/// The engine's observer: writes the planned rows, then each finished
/// member's row, before the engine goes on.
struct Persist<'a> {
    ctx: &'a Context,
    runs: &'a Api<EtcdDefrag>,
    state: Mutex<(EtcdDefrag, EtcdDefragStatus)>,
    /// The first write that failed; the run is stopped then.
    failed: Mutex<Option<Error>>,
    /// The engine's stop: a row that cannot be saved stops the run before
    /// the next member is touched (the next pass resumes from what is saved).
    stop_run: CancellationToken,
}

impl Observer for Persist<'_> {
    fn event(&self, event: RunEvent) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            // Fencing: a watcher that lost the Lease (or was stopped past
            // it) writes nothing more and stops the engine, which checks
            // before its next Defragment.
            if !self.ctx.fence.is_open() {
                self.ctx.shutdown.cancel();
                return;
            }
            let results = match &event {
                RunEvent::Planned { members, .. } => members.clone(),
                RunEvent::MemberFinished { result } => vec![result.clone()],
                // Word for the next holder, should this one die before
                // the row is written: without it, nothing is sent.
                RunEvent::DefragStarted { member } => {
                    tracing::info!("{}", event.describe());
                    let mut guard = self.state.lock().await;
                    let (current, _) = &mut *guard;
                    let noted = context::note_defragmenting(
                        self.ctx,
                        self.runs,
                        current,
                        &member.name,
                        member.db_size,
                    )
                    .await
                    .and_then(|()| not_driven_by_another(current));
                    if let Err(e) = noted {
                        tracing::warn!("{e}; stopping the run before the Defragment");
                        self.stop_run.cancel();
                        *self.failed.lock().await = Some(e);
                    }
                    return;
                }
                // Nothing left for it: the note is taken back, so that the
                // next holder defragments the member instead of judging
                // by its sizes whether a Defragment ran.
                RunEvent::DefragWithheld { .. } => {
                    tracing::info!("{}", event.describe());
                    let mut guard = self.state.lock().await;
                    let (current, _) = &mut *guard;
                    clear_note(self.ctx, self.runs, current).await;
                    return;
                }
                other => {
                    tracing::info!("{}", other.describe());
                    return;
                }
            };
            tracing::info!("{}", event.describe());
            let mut guard = self.state.lock().await;
            let (current, status) = &mut *guard;
            phase::record_results(status, &results, Timestamp::now());
            let snapshot = status.clone();
            if let Err(e) = write_status(self.ctx, self.runs, current, &snapshot).await {
                tracing::warn!("cannot persist the run's status: {e}; stopping the run");
                self.stop_run.cancel();
                *self.failed.lock().await = Some(e);
            }
            if let RunEvent::MemberFinished { result } = &event {
                self.ctx
                    .metrics
                    .member_finished(&RunLabels::of(current), result);
                if result.outcome == Outcome::Failed
                    && result.reason == Some(MemberReason::RpcError)
                {
                    let detail = result.detail.clone().unwrap_or_default();
                    record(
                        self.ctx,
                        current,
                        &Event::defrag_failed(&result.name, &detail),
                    )
                    .await;
                }
            }
        })
    }
}
