//! `doctor`: gathers what `plan::doctor` checks — the snapshot and gate,
//! the revisions, every member's `/metrics` and served certificate, the
//! tool's own certificates, and on an EtcdCluster its spec, its members'
//! Pods and nodes and the client Service — then renders the findings.
//! Whatever cannot be read is listed in the report and its check skipped.

pub mod board;
mod kubernetes;
mod serve;

use kubernetes::{kubernetes_facts, Processors, ProcessorsOf};

use std::collections::BTreeMap;
use std::time::Duration;

use crate::session::fleet::{Listed, Scope};
use futures::future::join_all;

use crate::error::{Error, ExitStatus, Result};
use crate::etcd::{http, EtcdOps};
use crate::k8s::Kube;
use crate::look::MemberMetrics;
use crate::output;
use crate::plan::backup;
use crate::plan::doctor::{self, gauges, CertFact, Facts, Severity};
use crate::plan::gate;
use crate::plan::rule::DefragRule;
use crate::reach::tls;
use crate::report::{ClusterRef, ContextRow, DoctorReport, FleetDoctorReport};
use crate::session::{self, Session};
use crate::settings::command::Doctor as DoctorArgs;
use crate::settings::Global;

/// How long one member's `/metrics` may take.
const HTTP_LIMIT: Duration = Duration::from_secs(5);

/// How many clusters `doctor -A` examines at once.
const CLUSTER_CONCURRENCY: usize = 8;

pub async fn run(global: &Global, args: &DoctorArgs) -> Result<ExitStatus> {
    if let Some(serve) = &args.serve {
        return serve::run(global, args, serve).await;
    }
    if args.all_namespaces {
        // As `status -A`: the clusters, and what their source shares
        // between them, side by side; each cluster's own reads are its
        // Secrets and what doctor adds (the Pods' nodes, the client
        // Service).
        let scope = Scope {
            all_namespaces: true,
            selector: None,
            shared: true,
            control_planes: true,
        };
        let listed = Listed::read(&global.reach, scope).await?;
        // Who processes EtcdDefrag, read once for every cluster of a
        // context, every context's at once.
        let processors = Processors::read_each(&listed).await;
        let (places, processors) = (&listed.places, &processors);
        let reports = listed
            .each(
                CLUSTER_CONCURRENCY,
                CLUSTER_CONCURRENCY,
                |opened| async move {
                    let at = opened.place;
                    let facts = Some((&places[at].kube, ProcessorsOf::Read(&processors[at])));
                    let report = match opened.session {
                        Ok(s) => examine(&s, facts, args).await.report,
                        Err(e) if super::secret_forbidden(&e) => {
                            not_dialed_report(Some(opened.cluster), &e)
                        }
                        Err(crate::error::Error::OnNode { .. }) => {
                            on_its_node_report(opened.cluster)
                        }
                        Err(e) => unreachable_report(Some(opened.cluster), e.to_string()),
                    };
                    DoctorReport {
                        kind: Some(opened.kind),
                        ..report
                    }
                },
            )
            .await;
        let fleet = FleetDoctorReport {
            clusters: reports,
            contexts: listed.contexts,
        };
        output::print(&fleet, global.output)?;
        note_unmatched(&args.acknowledge, &fleet.clusters);
        return fail_on(args.fail_on, &fleet.clusters, &fleet.contexts);
    }
    let s = match session::open(&global.reach, args.cluster.as_deref()).await {
        Ok(s) => s,
        Err(e) if super::secret_forbidden(&e) => {
            let (_, namespace, name) =
                session::connect_cluster(&global.reach, args.cluster.as_deref()).await?;
            let report = not_dialed_report(Some(ClusterRef::new(namespace, name)), &e);
            output::print(&report, global.output)?;
            return Err(Error::refused(
                "doctor: no member was examined (the cluster's Secrets may not be read)",
            ));
        }
        Err(e) => return Err(e),
    };
    // Plugin mode: the session's API client, on the connections it
    // has; who processes EtcdDefrag is read beside the rest.
    let facts = s.kube.as_ref().map(|k| (k, ProcessorsOf::ReadHere));
    let report = examine(&s, facts, args).await.report;
    output::print(&report, global.output)?;
    note_unmatched(&args.acknowledge, std::slice::from_ref(&report));
    fail_on(args.fail_on, &[report], &[])
}

/// Says which `--acknowledge` ids no finding carries (a typo, or a
/// finding that has gone), so that an acknowledgement is never silently
/// without effect.
fn note_unmatched(ids: &[String], reports: &[DoctorReport]) {
    let findings: Vec<&doctor::Finding> = reports.iter().flat_map(|r| &r.findings).collect();
    let unmatched = doctor::unmatched(ids, &findings);
    if !unmatched.is_empty() {
        crate::logging::warn(&format!(
            "warning: --acknowledge {} matched no finding (the CHECK column of doctor names them)",
            unmatched.join(",")
        ));
    }
}

/// Exit 1 naming every cluster whose worst finding is at least
/// `--fail-on`, and every context that could not be reached (critical:
/// nothing in it was examined).
fn fail_on(
    threshold: Option<Severity>,
    reports: &[DoctorReport],
    contexts: &[ContextRow],
) -> Result<ExitStatus> {
    let Some(threshold) = threshold else {
        return Ok(ExitStatus::Success);
    };
    let failing: Vec<String> = reports
        .iter()
        .filter(|r| r.worst >= threshold)
        .map(|r| match &r.cluster {
            Some(c) => format!("{} ({})", c.label(), r.worst),
            None => r.worst.to_string(),
        })
        .chain(
            ContextRow::unreached(contexts)
                .filter(|_| Severity::Critical >= threshold)
                .map(|c| format!("context {} not reached ({})", c.name, Severity::Critical)),
        )
        .collect();
    if !failing.is_empty() {
        return Err(Error::refused(format!(
            "doctor: findings at or above --fail-on: {}",
            failing.join(", ")
        )));
    }
    Ok(ExitStatus::Success)
}

/// A report of one finding about a cluster that was not examined.
fn one_finding(
    cluster: Option<ClusterRef>,
    severity: Severity,
    message: String,
    remedy: String,
) -> DoctorReport {
    DoctorReport {
        cluster,
        kind: None,
        worst: severity,
        findings: vec![doctor::Finding {
            severity,
            check: "reachable".into(),
            member: None,
            message,
            remedy,
            acknowledged: false,
        }],
        unread: vec![],
    }
}

/// A cluster whose Secrets this identity may not read (a read-only role):
/// nothing was dialed, and the finding says so and which role dials.
fn not_dialed_report(cluster: Option<ClusterRef>, refused: &crate::error::Error) -> DoctorReport {
    one_finding(
        cluster,
        Severity::Warning,
        format!("not examined: this identity may not read the cluster's Secrets, which hold its CA and client key ({refused}), so no member was dialed"),
        "doctor's checks read the members themselves, with the key that can also change etcd: bind deploy/operate to who may hold it; a read-only role (deploy/view) stops here by design".into(),
    )
}

/// A control plane's etcd in a fan-out: examined on its nodes by its own
/// `doctor`, one cluster at a time (`crate::agent`), not here.
fn on_its_node_report(cluster: ClusterRef) -> DoctorReport {
    let remedy = format!(
        "kubectl etcd doctor{}",
        ClusterRef::command_args(Some(&cluster))
    );
    one_finding(
        Some(cluster),
        Severity::Warning,
        "not examined here: a control plane's etcd is examined on its nodes, by an agent Pod, one cluster at a time (its client certificates never leave them)".into(),
        remedy,
    )
}

/// A cluster nothing could be read from: one critical finding.
fn unreachable_report(cluster: Option<ClusterRef>, why: String) -> DoctorReport {
    one_finding(
        cluster,
        Severity::Critical,
        why,
        "no member could be examined: check the endpoints, TLS settings and that the members run (kubectl etcd status)".into(),
    )
}

/// Reads everything for one cluster and runs the checks. With a Kubernetes
/// client, the cluster's objects are read while
/// etcd answers, and the compacted revision while
/// the members' /metrics are read: at a distance each read is a round trip.
async fn examine(
    session: &Session,
    kube: Option<(&Kube, ProcessorsOf<'_>)>,
    args: &DoctorArgs,
) -> Examined {
    let (gate, churn_window, upgrade_to) = (&args.gate, args.churn_window, args.upgrade_to);
    let (ops, target) = (&session.clients, &session.target);
    let cluster = target.cluster.clone();
    let kubernetes = async {
        match (kube, &cluster) {
            (Some((kube, processors)), Some(c)) => {
                let read = session.placement.clone();
                Some(kubernetes_facts(kube, c, read, processors).await)
            }
            _ => None,
        }
    };
    // The room on each member's data volume, as the sweep reads it.
    let rooms = read_rooms(session);
    let (look, kubernetes, rooms) =
        futures::join!(crate::etcd::take::look(ops, target), kubernetes, rooms);
    let desired = desired_members(session);
    let mut look = match look {
        Ok(s) => s,
        Err(e) => return Examined::unreached(unreachable_report(cluster, e.to_string()), desired),
    };
    let mut unread = with_rooms(&mut look, rooms);
    let verdict = gate::evaluate(&look, gate);
    let now = jiff::Timestamp::now().as_second();

    let revisions = async {
        match verdict
            .leader
            .and_then(|l| look.member_by_id(l))
            .and_then(|m| m.dial.clone())
        {
            Some(leader) => Some(crate::etcd::take::revisions(ops, &look, &leader).await),
            None => None,
        }
    };
    let answers = served_by_members(ops, &look);
    let rule = DefragRule::default();
    let churn = churn_sample(ops, &look, verdict.leader, &rule, churn_window);
    let (revisions, answers, churn) = futures::join!(revisions, answers, churn);
    let churn = match churn {
        Some((_, Ok(sample))) => Some(sample),
        Some((member, Err(e))) => {
            unread.push(format!("the writes on {member} ({e})"));
            None
        }
        None => None,
    };
    let revisions = match revisions {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => {
            unread.push(format!("the compacted revision ({e})"));
            None
        }
        None => None,
    };
    let served = Served::of(answers, now, &mut unread);
    let certs = cert_facts(&served.certificates, target.tls.as_ref());

    let mut facts = Facts {
        look: Some(&look),
        verdict: Some(&verdict),
        revisions,
        metrics: served.metrics,
        features: served.features,
        certs,
        now,
        cluster_args: ClusterRef::command_args(cluster.as_ref())
            .trim_start()
            .to_string(),
        rule,
        churn,
        auth: auth_on(target),
        tls: Some(target.tls.is_some()),
        upgrade_to,
        ..Default::default()
    };
    if let Some(k) = kubernetes {
        k.into_facts(session, &mut facts, &mut unread);
    }
    let findings = doctor::acknowledge(doctor::examine(&facts), &args.acknowledge);
    let runs = facts.defrag.as_ref().map_or(&[][..], |d| &d.runs[..]);
    let gauges = gauges::of(&look, &verdict, &findings, desired, runs);
    Examined {
        report: DoctorReport {
            cluster,
            kind: None,
            worst: doctor::worst(&findings),
            findings,
            unread,
        },
        gauges,
        reached: true,
    }
}

/// The members the cluster's operator works toward, when one says.
fn desired_members(session: &Session) -> Option<u64> {
    let replicas = session.operator.as_ref()?.replicas?;
    u64::try_from(replicas).ok()
}

/// One cluster examined: the report `doctor` prints, and the gauges
/// `doctor --serve` shows.
pub struct Examined {
    pub report: DoctorReport,
    pub gauges: gauges::ClusterGauges,
    /// Whether the members were looked at.
    pub reached: bool,
}

impl Examined {
    /// A cluster examined no further than `report` says (nothing answered,
    /// or it was not dialed from here).
    fn unreached(report: DoctorReport, desired: Option<u64>) -> Examined {
        let gauges = gauges::unreached(&report.findings, desired);
        Examined {
            report,
            gauges,
            reached: false,
        }
    }
}

/// The writes, sampled on a follower while the rest is read, when a member
/// needs a defrag: they say whether the free space comes back. `None` when
/// no member needs one, the window is zero or no member can be read from;
/// else the member sampled and what it showed.
async fn churn_sample(
    ops: &crate::etcd::EtcdClients,
    look: &crate::look::ClusterLook,
    leader: Option<u64>,
    rule: &DefragRule,
    window: Duration,
) -> Option<(String, Result<crate::plan::usage::ChurnSample>)> {
    if window.is_zero() || doctor::largest_free(look, rule).is_none() {
        return None;
    }
    let source = backup::source(look, leader, None).ok()?;
    let super::ReadSource { source, dial, .. } = super::ReadSource::of(look, source)?;
    Some((
        source.name.clone(),
        crate::exec::usage::churn(ops, &dial, &source.name, window).await,
    ))
}

/// A member's answer to one read, or why there is none.
type Answer<T> = std::result::Result<T, String>;

/// What one member served doctor: its `/metrics` and the certificate chain
/// of its gRPC connection's handshake.
struct MemberServed {
    name: String,
    metrics: Answer<std::sync::Arc<str>>,
    certificates: Answer<Vec<Vec<u8>>>,
}

/// Every dialed member's `/metrics` (the command's one read of them, which
/// the look may have made already) and the certificate it served its gRPC
/// connection's handshake, read at once.
async fn served_by_members(
    ops: &crate::etcd::EtcdClients,
    look: &crate::look::ClusterLook,
) -> Vec<MemberServed> {
    join_all(look.members.iter().filter_map(|m| {
        let dial = m.dial.clone()?;
        Some(async move {
            let metrics = tokio::time::timeout(HTTP_LIMIT, EtcdOps::metrics(ops, &dial));
            let certificates = ops.served_certificates(&dial);
            let (metrics, certificates) = futures::join!(metrics, certificates);
            let metrics = metrics.unwrap_or_else(|_| {
                Err(format!(
                    "no answer within {}",
                    crate::quantity::format_duration_parts(HTTP_LIMIT)
                ))
            });
            MemberServed {
                name: m.name.clone(),
                metrics,
                certificates,
            }
        })
    }))
    .await
}

/// What the members' `/metrics` answers held: each member's metrics and
/// the maintenance feature gates it publishes, and each server certificate
/// served with the members that served it.
struct Served {
    metrics: BTreeMap<String, MemberMetrics>,
    features: BTreeMap<String, BTreeMap<String, bool>>,
    certificates: Vec<(Vec<u8>, Vec<String>)>,
}

impl Served {
    /// Sorts the answers (member name, answer) in; a member that did not
    /// answer is said in `unread`.
    fn of(answers: Vec<MemberServed>, now: i64, unread: &mut Vec<String>) -> Served {
        let mut served = Served {
            metrics: BTreeMap::new(),
            features: BTreeMap::new(),
            certificates: Vec::new(),
        };
        for MemberServed {
            name,
            metrics,
            certificates,
        } in answers
        {
            match metrics {
                Ok(body) => {
                    served
                        .metrics
                        .insert(name.clone(), http::parse_metrics(&body, now as f64));
                    let gates = http::parse_feature_gates(&body);
                    if !gates.is_empty() {
                        served.features.insert(name.clone(), gates);
                    }
                }
                Err(e) => unread.push(format!("/metrics of {name} ({e})")),
            }
            let chain = match certificates {
                Ok(chain) => chain,
                Err(e) => {
                    unread.push(format!("the certificate {name} serves ({e})"));
                    continue;
                }
            };
            if let Some(own) = chain.into_iter().next() {
                match served.certificates.iter_mut().find(|(der, _)| *der == own) {
                    Some((_, names)) => names.push(name),
                    None => served.certificates.push((own, vec![name])),
                }
            }
        }
        served
    }
}

/// Every certificate whose expiry doctor checks: those the members served
/// (DER, with who served each), the CA the tool trusts and the client
/// certificate it presents.
fn cert_facts(
    served: &[(Vec<u8>, Vec<String>)],
    material: Option<&crate::reach::TlsMaterial>,
) -> Vec<CertFact> {
    let mut certs: Vec<CertFact> = served
        .iter()
        .filter_map(|(der, names)| {
            Some(CertFact {
                what: format!("server certificate served by {}", names.join(", ")),
                not_after: tls::not_after(der)?,
            })
        })
        .collect();
    let Some(material) = material else {
        return certs;
    };
    for der in tls::pem_certificates(&material.ca_pem) {
        if let Some(not_after) = tls::not_after(&der) {
            certs.push(CertFact {
                what: format!("CA certificate from {}", material.ca_origin),
                not_after,
            });
        }
    }
    let client = material.identity.as_ref().and_then(|id| {
        tls::pem_certificates(&id.cert_pem)
            .first()
            .and_then(|d| tls::not_after(d))
    });
    if let Some(not_after) = client {
        certs.push(CertFact {
            what: "client certificate the tool presents".into(),
            not_after,
        });
    }
    certs
}

/// Each member's room, read as the sweep reads it (`None`: no reader).
async fn read_rooms(session: &Session) -> Option<BTreeMap<String, crate::look::Room>> {
    Some(session.rooms()?.read().await)
}

/// Whether authentication is on: the tool authenticated, so it is (etcd
/// refuses a user when it is off); in plugin mode the EtcdCluster's status
/// says whether it is, and credentials follow it.
fn auth_on(target: &crate::reach::Target) -> Option<bool> {
    match (&target.credentials, &target.cluster) {
        (Some(_), _) => Some(true),
        (None, Some(_)) => Some(false),
        (None, None) => None,
    }
}

/// Puts the rooms read (`None`: no reader, standalone mode) into the look,
/// and says what is not known of them.
fn with_rooms(
    look: &mut crate::look::ClusterLook,
    rooms: Option<BTreeMap<String, crate::look::Room>>,
) -> Vec<String> {
    let mut unread = Vec::new();
    match rooms {
        Some(rooms) => crate::exec::attach_rooms(look, rooms),
        None => unread.push(
            "the free space on the members' data volumes (only plugin mode reads it, from the kubelet's volume statistics)".to_string(),
        ),
    }
    for m in &look.members {
        if let Some(crate::look::Room::Unknown { why }) = &m.room {
            unread.push(format!(
                "the free space on {}'s data volume ({why})",
                m.name
            ));
        }
    }
    unread
}
