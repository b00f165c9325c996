//! `defrag --via-operator`: create an EtcdDefrag for the etcd-operator's
//! own controller, follow it until it ends, and report it like a direct
//! sweep (`controller::handover` decides what to say; this file reads and
//! writes the objects). Only the Kubernetes API is used: no etcd
//! credentials, no port-forward.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::api::WatchEvent;

use crate::controller::handover::{self, Follow};
use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::{self, Notices, SignalWatch};
use crate::exec::RunControl;
use crate::k8s::crd::EtcdDefrag;
use crate::k8s::{self, runs, Kube};
use crate::output;
use crate::report::ClusterRef;
use crate::session;
use crate::settings::{Global, Handover};
use crate::source::cozystack;

/// How often the run's events are read while it is followed.
const EVENTS_EVERY: Duration = Duration::from_secs(2);
/// How long one watch of the run stays open before it is opened again.
const WATCH_SECONDS: u32 = 240;

/// `defrag CLUSTER --via-operator`.
pub async fn run(global: &Global, args: &Handover) -> Result<ExitStatus> {
    output::prompt::require_consent(
        args.consent.yes,
        args.consent.dry_run,
        "hand a defragmentation to the operator",
    )?;
    let (kube, namespace, cluster) =
        session::connect_cluster(&global.reach, args.cluster.as_deref()).await?;
    cozystack::get_cluster(&kube, &namespace, &cluster).await?;
    let wanted = handover::new_run(&namespace, &cluster, &args.rule, args.ttl_seconds);
    // The API server checks the object against the CRD it serves (schema
    // and CEL rules) before anything is stored.
    runs::create_run(&kube, &wanted, true)
        .await
        .map_err(|e| refused(&kube, &namespace, e))?;
    if args.consent.dry_run {
        let text = output::manifest(&wanted, global.output)?;
        crate::logging::message(&format!(
            "dry run: the API server accepts this EtcdDefrag for EtcdCluster {namespace}/{cluster}; nothing was created"
        ));
        output::emit(&text)?;
        return Ok(ExitStatus::Success);
    }
    if !args.consent.yes {
        let question = format!(
            "Create an EtcdDefrag for EtcdCluster {namespace}/{cluster} (rule: {}) for the operator to run?",
            args.rule
        );
        if !output::prompt::confirm_async(question).await? {
            return Err(output::prompt::not_confirmed());
        }
    }

    let control = RunControl::default();
    let watch = SignalWatch::start(
        &control,
        Notices {
            first: "no longer following the run; the operator goes on with it".into(),
            hint: None,
            second: "stopping now".into(),
        },
        crate::logging::message,
    )?;
    let created = runs::create_run(&kube, &wanted, false)
        .await
        .map_err(|e| refused(&kube, &namespace, e))?;
    let name = created.metadata.name.clone().unwrap_or_default();
    let uid = created.metadata.uid.clone().unwrap_or_default();
    crate::logging::message(&format!(
        "created EtcdDefrag {namespace}/{name}; following it (Ctrl-C stops following, not the run)"
    ));
    let ids = member_ids(&kube, &namespace, &cluster).await;
    let followed = follow(&kube, &namespace, &name, &uid, created, args, &control).await;
    let signal = watch.finish();
    let last = match followed {
        Ok(Followed::Ended(run)) => run,
        Ok(Followed::Stopped(run)) => {
            after_stop(&kube, &namespace, &name, &uid, &run).await;
            run
        }
        Ok(Followed::Unclaimed(run)) => {
            let cleaned = runs::delete_run(&kube, &namespace, &name, &uid).await;
            let what = match cleaned {
                Ok(()) => "so it was deleted again; nothing changed".to_string(),
                Err(e) => format!(
                    "and deleting it again failed ({}): delete it with `kubectl delete etcddefrag {name} -n {namespace}`",
                    k8s::describe(&kube, "delete it", e)
                ),
            };
            let _ = run;
            return Err(Error::refused(format!(
                "nobody took up EtcdDefrag {namespace}/{name} within {} (no status was written), {what}. Is the etcd-operator's defrag controller running (it arrived in v0.5.5; `kubectl etcd doctor {cluster} -n {namespace}` names what is installed)? Without it, drop --via-operator to have this tool sweep the cluster itself",
                crate::quantity::format_duration(args.claim_timeout)
            )));
        }
        Ok(Followed::Vanished(run)) => {
            return Err(Error::refused(format!(
                "EtcdDefrag {namespace}/{name} was deleted before its end was seen (last phase {}); `kubectl get events -n {namespace} --field-selector involvedObject.name={name}` may still say what happened",
                run.status
                    .as_ref()
                    .map_or("Pending", |s| s.phase_or_pending().as_str())
            )));
        }
        Err(e) => return Err(e),
    };
    let report = handover::report(
        &last,
        args.rule,
        ClusterRef::new(namespace.clone(), cluster.clone()),
        &ids,
        k8s_openapi::jiff::Timestamp::now(),
    );
    super::render_defrag(global, &report)?;
    let status = super::defrag_exit_status(&report);
    Ok(signals::exit_status(
        signal,
        status,
        ExitStatus::Interrupted,
    ))
}

/// How following a run ended.
enum Followed {
    /// It reached Complete or Failed.
    Ended(EtcdDefrag),
    /// A signal stopped the following; the run goes on.
    Stopped(EtcdDefrag),
    /// Nobody wrote its status within `--claim-timeout`.
    Unclaimed(EtcdDefrag),
    /// It was deleted before it ended.
    Vanished(EtcdDefrag),
}

/// Follows the run through watches of it (a deleted run's last state
/// comes with its DELETED event, so even `--ttl-after-finished 0s` is
/// seen ending), saying each change and each new event on stderr.
async fn follow(
    kube: &Kube,
    namespace: &str,
    name: &str,
    uid: &str,
    created: EtcdDefrag,
    args: &Handover,
    control: &RunControl,
) -> Result<Followed> {
    let mut follow = Follow::default();
    let say = |line: &str| crate::logging::message(&format!("{name}: {line}"));
    let began = Instant::now();
    let mut last = created;
    let mut version = last.metadata.resource_version.clone().unwrap_or_default();
    let mut ticker = tokio::time::interval(EVENTS_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let mut stream = match runs::watch_run(kube, namespace, name, &version, WATCH_SECONDS).await
        {
            Ok(stream) => stream.boxed(),
            Err(e) => {
                tracing::info!(
                    "watch of EtcdDefrag {namespace}/{name} failed: {e}; reading it again"
                );
                match reread(kube, namespace, name, &mut last, &mut version, control).await? {
                    Some(done) => return Ok(done),
                    None => continue,
                }
            }
        };
        loop {
            tokio::select! {
                event = stream.next() => match event {
                    Some(Ok(WatchEvent::Added(run) | WatchEvent::Modified(run))) => {
                        version = run.metadata.resource_version.clone().unwrap_or_default();
                        for line in follow.status_lines(run.status.as_ref()) {
                            say(&line);
                        }
                        last = run;
                        if handover::finished(&last) {
                            say_events(kube, namespace, uid, &mut follow, &say).await;
                            return Ok(Followed::Ended(last));
                        }
                    }
                    Some(Ok(WatchEvent::Deleted(run))) => {
                        for line in follow.status_lines(run.status.as_ref()) {
                            say(&line);
                        }
                        return Ok(if handover::finished(&run) {
                            Followed::Ended(run)
                        } else {
                            Followed::Vanished(run)
                        });
                    }
                    Some(Ok(WatchEvent::Bookmark(mark))) => {
                        version = mark.metadata.resource_version;
                    }
                    // An expired version (410) or a broken stream: read the
                    // run again and watch from there.
                    Some(Ok(WatchEvent::Error(_)) | Err(_)) | None => break,
                },
                _ = ticker.tick() => {
                    say_events(kube, namespace, uid, &mut follow, &say).await;
                    if !handover::claimed(&last) && began.elapsed() >= args.claim_timeout {
                        return Ok(Followed::Unclaimed(last));
                    }
                }
                () = control.cancel.cancelled() => return Ok(Followed::Stopped(last)),
            }
        }
        if let Some(done) = reread(kube, namespace, name, &mut last, &mut version, control).await? {
            return Ok(done);
        }
    }
}

/// Reads the run again after a watch ended badly: `Some` when that ends
/// the following (it is gone, finished, or a stop was asked for).
async fn reread(
    kube: &Kube,
    namespace: &str,
    name: &str,
    last: &mut EtcdDefrag,
    version: &mut String,
    control: &RunControl,
) -> Result<Option<Followed>> {
    if control.cancel.is_cancelled() {
        return Ok(Some(Followed::Stopped(last.clone())));
    }
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(1)) => {}
        () = control.cancel.cancelled() => return Ok(Some(Followed::Stopped(last.clone()))),
    }
    match runs::get_run(kube, namespace, name).await {
        Ok(Some(run)) => {
            *version = run.metadata.resource_version.clone().unwrap_or_default();
            *last = run;
            Ok(handover::finished(last).then(|| Followed::Ended(last.clone())))
        }
        Ok(None) => Ok(Some(Followed::Vanished(last.clone()))),
        // The API server is away: keep trying until the run is seen or a
        // stop is asked for.
        Err(e) => {
            tracing::info!("reading EtcdDefrag {namespace}/{name} failed: {e}");
            Ok(None)
        }
    }
}

/// Says the run's events not said before. Events are a courtesy: a read
/// that fails is logged and retried at the next tick.
async fn say_events(
    kube: &Kube,
    namespace: &str,
    uid: &str,
    follow: &mut Follow,
    say: &impl Fn(&str),
) {
    match runs::events_of(kube, namespace, uid).await {
        Ok(events) => {
            for line in follow.event_lines(&events) {
                say(&line);
            }
        }
        Err(e) => tracing::info!("reading the run's events failed: {e}"),
    }
}

/// After a stop: what happens to the run now. One that has not started is
/// offered for deletion on a terminal; otherwise the lines to follow or
/// stop it are printed.
async fn after_stop(kube: &Kube, namespace: &str, name: &str, uid: &str, run: &EtcdDefrag) {
    let delete = format!("kubectl delete etcddefrag {name} -n {namespace}");
    let follow = format!("kubectl get etcddefrag {name} -n {namespace} -w");
    if handover::not_started(run) {
        let asked = output::prompt::interactive()
            && output::prompt::confirm_async(format!(
                "EtcdDefrag {namespace}/{name} has not started; delete it?"
            ))
            .await
            .unwrap_or(false);
        if asked {
            match runs::delete_run(kube, namespace, name, uid).await {
                Ok(()) => crate::logging::message(&format!(
                    "deleted EtcdDefrag {namespace}/{name}; no member was touched"
                )),
                Err(e) => crate::logging::message(&format!(
                    "{}; delete it with `{delete}`",
                    k8s::describe(kube, &format!("delete EtcdDefrag {namespace}/{name}"), e)
                )),
            }
            return;
        }
        crate::logging::message(&format!(
            "EtcdDefrag {namespace}/{name} has not started and stays queued for the operator: `{delete}` withdraws it, `{follow}` follows it"
        ));
        return;
    }
    crate::logging::message(&format!(
        "the operator goes on with EtcdDefrag {namespace}/{name}: `{follow}` follows it; `{delete}` stops it after the member in flight"
    ));
}

/// The member ids by EtcdMember name, for the report; none when they
/// cannot be read.
async fn member_ids(kube: &Kube, namespace: &str, cluster: &str) -> BTreeMap<String, String> {
    cozystack::list_members(kube, namespace, cluster)
        .await
        .map(|members| {
            members
                .into_iter()
                .filter_map(|m| {
                    let id = m.status.as_ref()?.member_id.clone()?;
                    Some((m.metadata.name.clone()?, id))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The API server's refusal of the run, as what to do.
fn refused(kube: &Kube, namespace: &str, e: kube::Error) -> Error {
    match &e {
        kube::Error::Api(s) if s.code == 422 => Error::usage(format!(
            "the API server refuses the EtcdDefrag (the CRD's own validation): {}",
            s.message
        )),
        kube::Error::Api(s) if s.code == 404 => Error::Resolve(format!(
            "the API server serves no EtcdDefrag in namespace {namespace}: the etcd-operator installed predates it (its defrag controller arrived in v0.5.5); drop --via-operator to have this tool sweep the cluster itself"
        )),
        _ => k8s::describe(
            kube,
            &format!("create an EtcdDefrag in namespace {namespace}"),
            e,
        ),
    }
}
