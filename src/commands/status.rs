//! `status`: snapshot → gate → report → render. With `--check` the gate's
//! verdict decides the exit code (1 when it would refuse). With `-A`, every
//! EtcdCluster in every namespace, probed concurrently (bounded); a cluster
//! that cannot be resolved becomes an error row, not an aborted command.

use crate::error::{Error, ExitStatus, Result};
use crate::k8s;
use crate::output::{self, OutputFormat};
use crate::plan::gate::{self};
use crate::report::{ClusterRef, ClusterStatus, ContextRow, MultiStatusReport, StatusReport};
use crate::session;
use crate::session::fleet::{Listed, Scope};
use crate::settings::command::Status as StatusArgs;
use crate::settings::Global;
use crate::source::Source;

/// How many clusters' Secrets `status -A` reads at once near the API
/// server (`k8s::concurrency`): as many as the connections the three LISTs
/// opened. The client speaks HTTP/1.1, so a read beyond them opens another
/// connection; measured with 20 clusters on loopback before the client
/// set TCP_NODELAY (when the first request on a new connection waited 40
/// ms for a delayed ACK): 3 104 ms, 2 114 ms, 4 151 ms, 8 135 ms. Not
/// measured again since.
const READ_CONCURRENCY: usize = 3;

/// How many clusters `status -A` probes at once (each member over its own
/// connection; reads and probes overlap).
const CLUSTER_CONCURRENCY: usize = 32;

pub async fn run(global: &Global, args: &StatusArgs) -> Result<ExitStatus> {
    if args.all_namespaces {
        return run_all(global, args).await;
    }
    let session = match session::open_status(&global.reach, args.cluster.as_deref()).await {
        Ok(session) => session,
        Err(e) if super::secret_forbidden(&e) => return kubernetes_view(global, args, &e).await,
        Err(e) => return Err(e),
    };
    let look = match global.output {
        // The feature gates come from each member's /metrics: read beside
        // its Status, not after it.
        OutputFormat::Wide => {
            crate::etcd::take::look_with_metrics(&session.clients, &session.target).await?
        }
        _ => crate::etcd::take::look(&session.clients, &session.target).await?,
    };
    let mut report = report_of(&session, args, &look);
    // Plugin mode: the cluster's runs and policies.
    if let (Some(read), Some(cluster)) = (&session.activity, &session.target.cluster) {
        report.defrag = Some(activity_of(read, cluster));
    }
    if global.output == OutputFormat::Wide {
        read_feature_gates(&session, &look, &mut report).await;
    }
    output::print(&report, global.output)?;
    if args.check && !report.gate.passed {
        let reasons: Vec<&str> = report
            .gate
            .reasons
            .iter()
            .map(|r| r.message.as_str())
            .collect();
        return Err(Error::refused(format!(
            "health gate refused ({} reason{}): {}",
            reasons.len(),
            if reasons.len() == 1 { "" } else { "s" },
            reasons.join("; ")
        )));
    }
    Ok(ExitStatus::Success)
}

/// `status` for an identity that may not read the cluster's Secrets, which
/// hold its CA and client key (issue 45: a role that reads them can change
/// etcd, so the read-only role does not): the members as their EtcdMember
/// objects say, not dialed, with why, and the role that would dial them.
async fn kubernetes_view(
    global: &Global,
    args: &StatusArgs,
    refused: &crate::error::Error,
) -> Result<ExitStatus> {
    use crate::look::{ClusterLook, MemberLook, Probe};
    let (kube, namespace, name) =
        session::connect_cluster(&global.reach, args.cluster.as_deref()).await?;
    let members = Source::of(&global.reach)
        .declared_members(&kube, &namespace, &name)
        .await?;
    let why = format!("not dialed: {refused}");
    let look = ClusterLook {
        members: members
            .into_iter()
            .map(|m| MemberLook {
                name: m.name,
                id: m.id,
                dial: None,
                listed: None,
                probe: Probe::NotProbed(why.clone()),
                quota_bytes: 0,
                quota_source: crate::reach::QuotaSource::Default,
                answered_in: None,
                snapshot_watch: None,
                probes: None,
                room: None,
            })
            .collect(),
        member_list_known: false,
        alarms: vec![],
        alarm_list_error: None,
    };
    let verdict = gate::evaluate(&look, &args.gate);
    let cluster = ClusterRef::new(namespace, name);
    let report = StatusReport::build(Some(cluster), &look, &verdict);
    crate::logging::message(&format!(
        "note: this identity may not read the cluster's Secrets, which hold its CA and client key ({refused}); the rows are the EtcdMember objects' word and no member was dialed. A read-only role stops here by design (deploy/view): the key that dials etcd can also change it. deploy/operate grants it"
    ));
    output::print(&report, global.output)?;
    if args.check {
        return Err(Error::refused(
            "health gate not evaluated: no member was dialed (the cluster's Secrets may not be read)",
        ));
    }
    Ok(ExitStatus::Success)
}

/// `-o wide`: each member's maintenance feature gates that are on, from
/// its `/metrics` (etcd 3.6 and later), read at once; a member whose
/// metrics cannot be read keeps `None` (shown as `-`).
async fn read_feature_gates(
    session: &crate::session::Session,
    look: &crate::look::ClusterLook,
    report: &mut StatusReport,
) {
    let names: Vec<&str> = look.members.iter().map(|m| m.name.as_str()).collect();
    let read = crate::etcd::take::feature_gates(&session.clients, look, &names).await;
    for row in report.members.iter_mut() {
        row.feature_gates = read.get(&row.name).map(|gates| {
            crate::plan::doctor::MAINTENANCE_GATES
                .iter()
                .filter(|(name, _, _)| gates.get(*name) == Some(&true))
                .map(|(name, _, _)| name.to_string())
                .collect::<Vec<_>>()
        });
    }
}

/// The runs and policies of EtcdCluster `cluster` among those read, or
/// why they could not be read.
fn activity_of(
    read: &k8s::runs::Everything,
    cluster: &ClusterRef,
) -> crate::report::DefragActivity {
    match read {
        Ok((runs, policies)) => crate::controller::activity::activity(
            runs,
            policies,
            cluster,
            k8s_openapi::jiff::Timestamp::now(),
        ),
        Err(e) => crate::report::DefragActivity {
            error: Some(e.clone()),
            ..Default::default()
        },
    }
}

async fn probe(session: &crate::session::Session, args: &StatusArgs) -> Result<StatusReport> {
    let look = crate::etcd::take::look(&session.clients, &session.target).await?;
    Ok(report_of(session, args, &look))
}

fn report_of(
    session: &crate::session::Session,
    args: &StatusArgs,
    look: &crate::look::ClusterLook,
) -> StatusReport {
    let verdict = gate::evaluate(look, &args.gate);
    let mut report = StatusReport::build(session.target.cluster.clone(), look, &verdict);
    if let Some(says) = &session.operator {
        report.operator_disagrees = crate::plan::operator::disagreements(says, look);
    }
    report
}

async fn run_all(global: &Global, args: &StatusArgs) -> Result<ExitStatus> {
    // The EtcdClusters, and every cluster's EtcdMembers and member Pods,
    // in one LIST each (the listed objects are used as they are, not read
    // again); per cluster only its Secrets are read.
    let scope = Scope {
        all_namespaces: true,
        selector: None,
        shared: true,
        control_planes: true,
    };
    let listed = Listed::read(&global.reach, scope).await?;
    // Every namespace's runs and policies, in one LIST each, of each
    // context at once.
    let read_runs: Vec<k8s::runs::Everything> = futures::future::join_all(
        listed
            .places
            .iter()
            .map(|place| k8s::runs::all_of(&place.kube, None)),
    )
    .await;
    let read_runs = &read_runs;
    // Each row, and whether it is a cluster that could not be read (not
    // a control plane's etcd, which is read on its node).
    let entries: Vec<(ClusterStatus, bool)> = listed
        .each(READ_CONCURRENCY, CLUSTER_CONCURRENCY, |opened| async move {
            let outcome = match opened.session {
                Ok(session) => probe(&session, args).await,
                Err(e) => Err(e),
            };
            let (cluster, kind) = (opened.cluster, Some(opened.kind));
            match outcome {
                Ok(mut status) => {
                    status.defrag = Some(activity_of(&read_runs[opened.place], &cluster));
                    let row = ClusterStatus {
                        cluster,
                        kind,
                        error: None,
                        status: Some(status),
                    };
                    (row, false)
                }
                Err(e) => {
                    let unread = !matches!(e, Error::OnNode { .. });
                    let row = ClusterStatus {
                        cluster,
                        kind,
                        error: Some(e.to_string()),
                        status: None,
                    };
                    (row, unread)
                }
            }
        })
        .await;
    let unread: Vec<String> = entries
        .iter()
        .filter(|(_, unread)| *unread)
        .map(|(row, _)| row.cluster.label())
        .collect();
    let report = MultiStatusReport {
        clusters: entries.into_iter().map(|(row, _)| row).collect(),
        contexts: listed.contexts,
    };
    output::print(&report, global.output)?;
    let refused = report
        .clusters
        .iter()
        .filter(|c| c.status.as_ref().is_none_or(|s| !s.gate.passed))
        .count();
    let unreached: Vec<&str> = ContextRow::unreached(&report.contexts)
        .map(|c| c.name.as_str())
        .collect();
    if args.check && (refused > 0 || !unreached.is_empty()) {
        let contexts = match unreached.len() {
            0 => String::new(),
            _ => format!(
                "; context(s) not reached: {} (their clusters were not looked at)",
                unreached.join(", ")
            ),
        };
        return Err(Error::refused(format!(
            "health gate refused or could not run for {refused} of {} clusters{contexts}",
            report.clusters.len()
        )));
    }
    // Without --check, a cluster listed and not read is still a failure
    // to report what was asked: exit 1, said at the end. (A context not
    // reached is a row of its own, and --check's business.)
    if !unread.is_empty() {
        return Err(Error::refused(format!(
            "{} of {} clusters could not be read ({}): their rows say why",
            unread.len(),
            report.clusters.len(),
            unread.join(", ")
        )));
    }
    Ok(ExitStatus::Success)
}
