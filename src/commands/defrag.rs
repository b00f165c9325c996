//! `defrag`: consent, signals (`exec::signals`) and rendering around the engine
//! (`exec::run`), which does the whole run.

use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::{self, Fresh, RunControl, RunInput};
use crate::output;
use crate::plan::gate;
use crate::report::Outcome;
use crate::session;
use crate::settings::{Global, OneCluster};

/// `defrag` on one cluster.
pub async fn run(global: &Global, args: &OneCluster) -> Result<ExitStatus> {
    let options = args.sweep.clone();
    output::prompt::require_consent(args.consent.yes, args.consent.dry_run, "defragment")?;
    let session = session::open_sweep(&global.reach, args.cluster.as_deref()).await?;
    let (ops, target) = (&session.clients, &session.target);
    let input = RunInput {
        options,
        finished: Vec::new(),
        cluster: target.cluster.clone(),
        interrupted: None,
        others: session.runs.as_ref().map(session::ClusterRuns::shared),
        rooms: session.rooms(),
        // An agent's sweep is a control plane's (`crate::agent`).
        control_plane: global
            .reach
            .agent_of
            .as_ref()
            .map(|_| global.reach.agent_facts.clone()),
    };

    // First look: the preview (unknown --member names are a usage error),
    // the dry run's whole answer, and what the prompt shows. Beside it,
    // whether the operator here runs EtcdDefrag itself (said once).
    // Whether another processor runs the cluster is asked at the same
    // time too: at a distance each is a round trip of its own.
    let (first, operator, others) = tokio::join!(
        Fresh::look_with_rooms(ops, target, input.rooms.as_deref()),
        operator_processes(session.runs.as_ref()),
        exec::others_refuse(input.others.as_deref())
    );
    let first = first?;
    if let Some(grant) = operator {
        crate::logging::message(&format!(
            "note: the operator here runs EtcdDefrag itself ({grant}); `--via-operator` hands this sweep to it. This direct sweep also hands leadership over before the leader's defrag, can compact first (--compact), holds back members whose probes would have the kubelet restart them mid-defrag, and knows etcd's defects by release; the operator's does none of these"
        ));
    }
    let mut verdict = gate::evaluate(&first.look, &input.options.gate);
    verdict.reasons.extend(others);
    let mut preview = exec::preview(&first.look, &verdict, &input)?;
    // Only the members to defragment, on a release that publishes gates:
    // each read is a round trip after the look, and with nothing due there
    // is none to make.
    let wanted = exec::gates_wanted(&first.look, &verdict, &input);
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let features = crate::etcd::take::feature_gates(ops, &first.look, &wanted).await;
    let notes = exec::plan_notes(&first.look, &verdict, &input, &features);
    for note in &notes {
        crate::logging::message(&format!("note: {note}"));
    }
    preview.notes = notes.clone();
    if args.consent.dry_run {
        super::render_defrag(global, &preview)?;
        if verdict.passed() {
            return Ok(ExitStatus::Success);
        }
        let reasons: Vec<String> = verdict.reasons.iter().map(ToString::to_string).collect();
        return Err(Error::refused(format!(
            "dry run: the health gate would refuse now: {}",
            reasons.join("; ")
        )));
    }
    if !args.consent.yes {
        ask(global, &preview, &verdict, &input).await?;
    }

    let control = RunControl::default();
    let watch = SignalWatch::start(
        &control,
        Notices {
            first: "stopping after the member being defragmented answers again".into(),
            hint: Some("to stop waiting for it".into()),
            second: "no longer waiting; the member in flight may still be defragmenting".into(),
        },
        crate::logging::message,
    )?;
    let observer = output::progress::observer(global.output);
    let report = exec::run(
        ops,
        target,
        &input,
        observer.as_ref(),
        &control,
        Some(first),
    )
    .await;
    let signal = watch.finish();
    let mut report = report?;
    report.notes = notes;
    super::render_defrag(global, &report)?;
    let status = super::defrag_exit_status(&report);
    Ok(signals::exit_status(signal, status, status))
}

/// Without `--yes`: a gate that refuses now is said before anything is
/// asked (nothing would be done with a yes), unless `--wait-healthy` has
/// the sweep wait for it; then the plan and the question. `Ok` to go on.
async fn ask(
    global: &Global,
    preview: &crate::report::DefragReport,
    verdict: &gate::GateVerdict,
    input: &RunInput,
) -> Result<()> {
    // Refused now: say so before asking anything (nothing would be done
    // with a yes). With --wait-healthy the sweep waits for the gate, and
    // the question says so.
    if !verdict.passed() {
        let reasons: Vec<String> = verdict.reasons.iter().map(ToString::to_string).collect();
        match input.options.wait_healthy {
            None => {
                super::render_defrag(global, preview)?;
                return Err(Error::refused(format!(
                    "the health gate refuses now, so nothing was asked and nothing changed: {}. Run again once it passes, or add --wait-healthy DURATION to have the sweep wait for it",
                    reasons.join("; ")
                )));
            }
            Some(wait) => crate::logging::message(&format!(
                "the health gate refuses now ({}): the sweep waits up to {} for it to pass before the first member",
                reasons.join("; "),
                crate::quantity::format_duration(wait)
            )),
        }
    }
    let order: Vec<&str> = preview
        .members
        .iter()
        .filter(|m| m.outcome == Outcome::Pending)
        .map(|m| m.name.as_str())
        .collect();
    crate::logging::message(&format!("plan: {}", order.join(" → ")));
    let question = match preview.compacted_at {
        Some(revision) => format!(
            "Compact every revision before {revision}, then defragment those of {} member(s) the rule takes on the sizes after it, one at a time?",
            order.len()
        ),
        None => format!("Defragment {} member(s), one at a time?", order.len()),
    };
    if !output::prompt::confirm_async(question).await? {
        return Err(output::prompt::not_confirmed());
    }
    Ok(())
}

/// The grant that shows another processor of EtcdDefrag (the operator's
/// controller, from its v0.5.5 on) is installed for the cluster's
/// namespace, as `--watch` reads it (`takeover::installed_processors`);
/// `None` without one, standalone, or when RBAC cannot be read (the note
/// is a courtesy, never a reason to stop).
async fn operator_processes(runs: Option<&session::ClusterRuns>) -> Option<String> {
    use crate::controller::takeover;
    let (kube, namespace) = runs?.kube();
    let grants = takeover::installed_processors(kube, Some(namespace), &takeover::Me::default())
        .await
        .ok()?;
    grants.first().map(|g| format!("{}, {}", g.subject, g.role))
}
