//! One way to change a cluster. A write command is a [`Change`]: it says
//! how it decides (from what it opened and looked at), what it asks, what a
//! stop signal means while it acts, and how it acts; [`run`] puts those in
//! the one order every write command keeps:
//!
//! consent possible → decide (a refusal is `Error::Refused`, nothing done)
//! → nothing to do, or a dry run: the report (a change that rehearses acts
//! instead, its writes sent as server-side dry runs) → confirm → stop
//! signals watched → a stop before anything was sent changes nothing → act
//! → the report → the exit code (a signal's own, when one came).

use std::future::Future;

use crate::error::{ExitStatus, Result};
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::RunControl;
use crate::output::{self, Render};
use crate::settings::{Consent, Global};

/// What deciding came to.
pub(crate) enum Decided<P, R> {
    /// Act on `plan`; `report` is what a dry run prints.
    Act { plan: P, report: R },
    /// Nothing to do: `report` says why (exit 0).
    Nothing(R),
}

/// How acting ended.
pub(crate) enum Acted {
    /// Done, the report filled in.
    Done,
    /// Stopped by a signal before anything was sent: what stays as it was.
    StoppedBefore(String),
    /// A second signal: no longer waiting; what was in flight may or may
    /// not have taken.
    Abandoned,
}

/// A write command.
pub(crate) trait Change {
    type Plan;
    type Report: Render;

    /// What consent is asked for ("move leadership"), for the refusal
    /// when there is no terminal to ask on and no `--yes`.
    fn verb(&self) -> &'static str;

    fn consent(&self) -> Consent;

    /// Whether a dry run acts, every write sent as a server-side dry run
    /// (the API server checks it and stores nothing), instead of printing
    /// what was decided.
    fn rehearses(&self) -> bool {
        false
    }

    /// Opens the cluster, looks, gates and decides. Refusals are errors.
    /// The plan owns what was opened (the session, the look, the objects
    /// read), so acting works on what was decided on.
    fn decide(
        &self,
        global: &Global,
    ) -> impl Future<Output = Result<Decided<Self::Plan, Self::Report>>>;

    /// Asks before acting (unless `--yes`); false: not confirmed.
    fn confirm(&self, plan: &Self::Plan) -> impl Future<Output = Result<bool>>;

    /// What the first and a second stop signal say while acting.
    fn notices(&self) -> Notices;

    /// What stays as it was when a signal came before anything was sent.
    fn untouched(&self, _plan: &Self::Plan) -> String {
        "nothing changed".into()
    }

    /// Acts on `plan`, filling in `report`. A signal never cuts a call in
    /// flight short (`signals::unless_abandoned` gives up only on a second
    /// one).
    fn act(
        &self,
        plan: Self::Plan,
        report: &mut Self::Report,
        control: &RunControl,
    ) -> impl Future<Output = Result<Acted>>;

    /// The exit status of a report acted on: success unless the report
    /// says something was left undone (`commands::unfinished`).
    fn finished(&self, _report: &Self::Report) -> ExitStatus {
        ExitStatus::Success
    }
}

/// Runs a write command in the one order (module docs).
pub(crate) async fn run<C: Change>(global: &Global, change: C) -> Result<ExitStatus> {
    let consent = change.consent();
    output::prompt::require_consent(consent.yes, consent.dry_run, change.verb())?;
    let (plan, mut report) = match change.decide(global).await? {
        Decided::Nothing(report) => {
            output::print(&report, global.output)?;
            return Ok(ExitStatus::Success);
        }
        Decided::Act { plan, report } => (plan, report),
    };
    if consent.dry_run && !change.rehearses() {
        output::print(&report, global.output)?;
        return Ok(ExitStatus::Success);
    }
    if !consent.dry_run && !consent.yes && !change.confirm(&plan).await? {
        return Err(output::prompt::not_confirmed());
    }
    let control = RunControl::default();
    let watch = SignalWatch::start(&control, change.notices(), crate::logging::message)?;
    let acted = if control.halted().is_some() {
        Acted::StoppedBefore(change.untouched(&plan))
    } else {
        change.act(plan, &mut report, &control).await?
    };
    let signal = watch.finish();
    match acted {
        Acted::StoppedBefore(untouched) => {
            crate::logging::message(&untouched);
            Ok(signals::exit_status(
                signal,
                ExitStatus::Failed,
                ExitStatus::Interrupted,
            ))
        }
        Acted::Abandoned => Ok(signals::exit_status(
            signal,
            ExitStatus::Failed,
            ExitStatus::Interrupted,
        )),
        Acted::Done => {
            output::print(&report, global.output)?;
            let finished = change.finished(&report);
            Ok(signals::exit_status(
                signal,
                finished,
                ExitStatus::Interrupted,
            ))
        }
    }
}
