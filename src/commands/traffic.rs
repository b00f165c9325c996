//! `traffic show | set | clear`: the client Service's trafficDistribution
//! (docs/contract.md#traffic-distribution), by server-side apply under the operator's field
//! manager, with the EtcdCluster annotation kept in step.
//!
//! Order of writes: `set` annotates first and applies second, `clear`
//! removes the annotation first and releases second, so an operator that
//! reconciles in between always sees an annotation that agrees with where
//! the Service is heading and never undoes the tool's step.

use k8s_openapi::api::core::v1::Service;

use super::change::{self, Acted, Change as Write, Decided};
use crate::error::{Error, ExitStatus, Result};
use crate::exec::signals::Notices;
use crate::exec::RunControl;
use crate::k8s::crd::EtcdCluster;
use crate::k8s::service::{self, ApplyError};
use crate::k8s::Kube;
use crate::output;
use crate::plan::traffic::{
    client_service_name, decide, deprecated_on, expected_support, for_server, kept, owned_by_us,
    parse_server_version, unconsented, Assessment, FieldOwner, ServiceAction, TrafficValue,
    ANNOTATION, FIELD_MANAGER,
};
use crate::report::{Change, ClusterRef, ServerSupport, TrafficReport, ValueSupport};
use crate::settings::command::{OneCluster, TrafficClear, TrafficSet};
use crate::settings::{Consent, Global};
use crate::source::cozystack;

/// The objects one run works on.
struct Loaded {
    kube: Kube,
    namespace: String,
    cluster_name: String,
    cluster: EtcdCluster,
    service_name: String,
    service: Service,
    version: String,
    minor: Option<(u32, u32)>,
}

impl Loaded {
    fn annotation(&self) -> Option<String> {
        cozystack::traffic::traffic_annotation(&self.cluster)
    }

    fn value(&self) -> Option<String> {
        service::traffic_distribution(&self.service)
    }

    fn owners(&self) -> Vec<FieldOwner> {
        owners_of(&self.service)
    }
}

fn owners_of(service: &Service) -> Vec<FieldOwner> {
    service::field_owners(service.metadata.managed_fields.as_deref().unwrap_or(&[]))
}

async fn load(global: &Global, cluster: Option<&str>) -> Result<Loaded> {
    use crate::source::controlplane;
    let (kube, namespace, cluster_name) =
        crate::session::connect_cluster(&global.reach, cluster).await?;
    let lacks = format!("its operator makes no client Service (only the headless Service {cluster_name}), so there is no trafficDistribution to set; clients that should stay in their zone need a Service of their own");
    let refused =
        || crate::source::other_kind_refusal(&namespace, &cluster_name, "traffic", &lacks);
    if global.reach.kind == Some(crate::source::Kind::EtcdIo) {
        return Err(refused());
    }
    let cluster = match cozystack::get_cluster(&kube, &namespace, &cluster_name).await {
        Ok(c) => c,
        Err(_)
            if global.reach.kind.is_none()
                && crate::source::is_etcdio(&kube, &namespace, &cluster_name).await =>
        {
            return Err(refused())
        }
        // A control plane's etcd is refused by `commands::run`, which
        // says why.
        Err(e) => {
            return Err(controlplane::or_not_found(&kube, &namespace, &cluster_name, e).await)
        }
    };
    let service_name = client_service_name(&cluster_name);
    let service = service::get(&kube, &namespace, &service_name)
        .await?
        .ok_or_else(|| {
            Error::Resolve(format!(
                "Service {namespace}/{service_name} not found: it is the client Service of EtcdCluster {namespace}/{cluster_name}, which the operator creates; kubectl-etcd never creates a Service (an apply would make one with no ports)"
            ))
        })?;
    let (version, major, minor) = service::server_version(&kube).await?;
    let minor = parse_server_version(&major, &minor, &version);
    Ok(Loaded {
        kube,
        namespace,
        cluster_name,
        cluster,
        service_name,
        service,
        version,
        minor,
    })
}

fn report(
    l: &Loaded,
    cluster: &EtcdCluster,
    service: &Service,
    change: Option<Change>,
) -> TrafficReport {
    let value = service::traffic_distribution(service);
    let owners = owners_of(service);
    let owned = owned_by_us(&owners);
    let annotation = cozystack::traffic::traffic_annotation(cluster);
    TrafficReport {
        cluster: ClusterRef::new(l.namespace.clone(), l.cluster_name.clone()),
        service: l.service_name.clone(),
        state: Assessment::of(annotation.as_deref(), value.as_deref(), owned),
        value,
        owners,
        owned_by_field_manager: owned,
        field_manager: FIELD_MANAGER,
        annotation,
        server: ServerSupport {
            version: l.version.clone(),
            values: TrafficValue::ALL
                .iter()
                .map(|v| ValueSupport {
                    value: *v,
                    since: format!("1.{}", v.since_minor()),
                    supported: expected_support(*v, l.minor),
                    deprecated: deprecated_on(*v, l.minor)
                        .map(|(since, instead)| format!("1.{since}: use {instead}")),
                })
                .collect(),
        },
        change,
    }
}

fn print(global: &Global, report: &TrafficReport) -> Result<()> {
    output::print(report, global.output)
}

pub async fn show(global: &Global, args: &OneCluster) -> Result<ExitStatus> {
    let l = load(global, args.cluster.as_deref()).await?;
    print(global, &report(&l, &l.cluster, &l.service, None))?;
    Ok(ExitStatus::Success)
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn shown(value: Option<&str>) -> &str {
    value.unwrap_or("unset")
}

pub async fn set(global: &Global, args: &TrafficSet) -> Result<ExitStatus> {
    change::run(global, Set { args }).await
}

/// `traffic set`, a `change::Change`.
struct Set<'a> {
    args: &'a TrafficSet,
}

/// What `set` writes, and the objects it was decided on.
struct SetPlan {
    loaded: Loaded,
    wanted: TrafficValue,
    action: ServiceAction,
    /// Whether the annotation changes.
    annotate: bool,
    /// Taking the field from another manager (a hand edit, or one named).
    force: bool,
    value_before: Option<String>,
    owned_before: bool,
    /// The steps' sentences so far.
    change: Change,
}

impl Write for Set<'_> {
    type Plan = SetPlan;
    type Report = TrafficReport;

    fn verb(&self) -> &'static str {
        "change the client Service's trafficDistribution"
    }

    fn consent(&self) -> Consent {
        self.args.consent
    }

    /// A dry run sends every write as a server-side dry run.
    fn rehearses(&self) -> bool {
        true
    }

    async fn decide(&self, global: &Global) -> Result<Decided<SetPlan, TrafficReport>> {
        let args = self.args;
        let l = load(global, args.cluster.as_deref()).await?;
        let asked = args.value;
        let (wanted, renamed) = if args.exact {
            (asked, None)
        } else {
            for_server(asked, l.minor)
        };
        let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
        let annotation_before = l.annotation();
        let value_before = l.value();
        let owned_before = owned_by_us(&l.owners());
        let action = decide(Some(wanted.as_str()), value_before.as_deref(), owned_before).action;
        let annotate = annotation_before.as_deref() != Some(wanted.as_str());
        let mut change = Change::planned(
            args.consent.dry_run,
            annotation_before.clone(),
            value_before.clone(),
            action,
        );
        if let Some(why) = renamed {
            change.notes.push(format!(
                "{asked} is written as {wanted}, the same routing: {why} (--exact writes {asked} as given)"
            ));
        }
        if !annotate && action == ServiceAction::Nothing {
            change.notes.push(format!(
                "Service {ns}/{svc} already has trafficDistribution {wanted}, held by {FIELD_MANAGER}, and the annotation agrees: nothing to do"
            ));
            return Ok(Decided::Nothing(report(
                &l,
                &l.cluster,
                &l.service,
                Some(change),
            )));
        }
        // Another server-side-apply manager holds the field: taking it needs
        // that manager named (its next apply would fail with a conflict).
        let owners = l.owners();
        if let ServiceAction::Apply(_) = action {
            let others = unconsented(&owners, &args.take_from);
            if !others.is_empty() {
                let flags: String = others.iter().map(|m| format!(" --take-from {m}")).collect();
                return Err(Error::refused(format!(
                    "Service {ns}/{svc}: spec.trafficDistribution ({}) is held by server-side-apply field manager {}: setting {wanted} would take it from {}, whose next apply would then fail with a conflict. Nothing was changed. Change the value where {} applies it from, or take it anyway: kubectl etcd traffic set {wanted} {cl} -n {ns}{flags}{}",
                    shown(value_before.as_deref()),
                    others.join(", "),
                    if others.len() == 1 { "it" } else { "them" },
                    if others.len() == 1 { "it" } else { "they" },
                    if args.consent.yes { " --yes" } else { "" },
                )));
            }
        }
        let report = report(&l, &l.cluster, &l.service, Some(change.clone()));
        let plan = SetPlan {
            loaded: l,
            wanted,
            action,
            annotate,
            force: owners.iter().any(|o| o.manager != FIELD_MANAGER),
            value_before,
            owned_before,
            change,
        };
        Ok(Decided::Act { plan, report })
    }

    async fn confirm(&self, plan: &SetPlan) -> Result<bool> {
        let l = &plan.loaded;
        let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
        let question = format!(
            "Set trafficDistribution {} on Service {ns}/{svc} (now {}){}?",
            plan.wanted,
            shown(plan.value_before.as_deref()),
            if plan.annotate {
                format!(" and annotate EtcdCluster {ns}/{cl}")
            } else {
                String::new()
            }
        );
        output::prompt::confirm_async(question).await
    }

    fn notices(&self) -> Notices {
        writes_notices()
    }

    async fn act(
        &self,
        plan: SetPlan,
        out: &mut TrafficReport,
        _control: &RunControl,
    ) -> Result<Acted> {
        let dry_run = self.args.consent.dry_run;
        let SetPlan {
            loaded,
            wanted,
            action,
            annotate,
            force,
            value_before,
            owned_before,
            mut change,
        } = plan;
        let l = &loaded;
        let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
        let would = if dry_run { "would be " } else { "" };
        // 1. Ask the server first (a dry run of the apply): a value it
        //    rejects, drops, or that we may not write stops here with
        //    nothing written.
        let mut service_after = l.service.clone();
        if let ServiceAction::Apply(v) = action {
            match try_apply(l, v, true, force).await {
                Ok(s) => service_after = s,
                Err(Failure::Other(e)) => return Err(e),
                Err(f) => return Err(failure_error(l, v, f, "nothing was changed")),
            }
        }
        // 2. The annotation, pinned to the version we read, so that the
        //    operator (where it supports it) applies the same value.
        let mut cluster_after = l.cluster.clone();
        if annotate {
            cluster_after = cozystack::traffic::set_annotation(
                &l.kube,
                ns,
                cl,
                Some(wanted.as_str()),
                l.cluster.metadata.resource_version.as_deref(),
                dry_run,
            )
            .await?;
            change.annotation_written = !dry_run;
            change.notes.push(format!(
                "EtcdCluster {ns}/{cl}: annotation {ANNOTATION} {would}set to {wanted} (was {})",
                change.annotation_before.as_deref().unwrap_or("absent")
            ));
        }
        // 3. The field itself, read back; on failure the annotation is
        //    restored.
        if let ServiceAction::Apply(v) = action {
            if !dry_run {
                match try_apply(l, v, false, force).await {
                    Ok(s) => service_after = s,
                    Err(failure) => {
                        let undone = undo_set(l, &cluster_after, annotate, &failure).await;
                        return Err(failure_error(l, v, failure, &undone));
                    }
                }
            }
            change.service_written = !dry_run;
            if let Some((since, instead)) = deprecated_on(wanted, l.minor) {
                change.notes.push(format!(
                    "{wanted} is deprecated from Kubernetes 1.{since} in favour of {instead}, which kube-proxy treats the same: kubectl etcd traffic set {instead} {cl} -n {ns}"
                ));
            }
            change.notes.push(format!(
                "Service {ns}/{svc}: trafficDistribution {would}applied as {wanted} by {FIELD_MANAGER} (was {}{})",
                shown(value_before.as_deref()),
                if value_before.is_some() && !owned_before {
                    ", not held by that manager"
                } else {
                    ""
                }
            ));
        }
        change.server_warnings = l.kube.warnings.take();
        *out = report(l, &cluster_after, &service_after, Some(change));
        Ok(Acted::Done)
    }
}

/// The writes of `set` and `clear` are a few API calls: a stop signal lets
/// the ones under way finish (the annotation and the field are never left
/// apart by a signal), and a second stops waiting for them.
fn writes_notices() -> Notices {
    Notices {
        first: "finishing the writes under way, then reporting".into(),
        hint: Some("to stop waiting for them".into()),
        second: "no longer waiting; the annotation and the Service may not agree: kubectl etcd traffic show".into(),
    }
}

/// Why an apply in `set` did not take.
enum Failure {
    /// 422 from the server.
    Rejected(String),
    /// Accepted, but the stored (or dry-run) Service lacks the value.
    NotPersisted(Option<String>),
    /// Anything else, already worded.
    Other(Error),
}

/// Applies `value` (as a dry run or for real) and checks what the server
/// kept: the dry-run answer, or the Service read back after a real apply.
async fn try_apply(
    l: &Loaded,
    value: TrafficValue,
    dry_run: bool,
    force: bool,
) -> std::result::Result<Service, Failure> {
    let stored = match service::apply(
        &l.kube,
        &l.namespace,
        &l.service_name,
        Some(value),
        dry_run,
        force,
    )
    .await
    {
        Ok(s) => s,
        Err(ApplyError::Invalid(message)) => return Err(Failure::Rejected(message)),
        Err(ApplyError::Other(e)) => return Err(Failure::Other(e)),
    };
    if kept(value, service::traffic_distribution(&stored).as_deref()) {
        Ok(stored)
    } else {
        Err(Failure::NotPersisted(service::traffic_distribution(
            &stored,
        )))
    }
}

/// After a real apply failed: release whatever a dropped value left owned
/// by our manager, and restore the annotation. Says what it did.
async fn undo_set(
    l: &Loaded,
    cluster_after: &EtcdCluster,
    annotated: bool,
    failure: &Failure,
) -> String {
    let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
    let mut undone = Vec::new();
    if let Failure::NotPersisted(_) = failure {
        // A server that drops the field may still record it as ours.
        let owned = match service::get(&l.kube, ns, svc).await {
            Ok(Some(s)) => owned_by_us(&owners_of(&s)),
            _ => true,
        };
        if owned {
            undone.push(
                match service::apply(&l.kube, ns, svc, None, false, false).await {
                    Ok(_) => format!("released {FIELD_MANAGER}'s ownership"),
                    Err(ApplyError::Invalid(m)) => {
                        format!("could not release {FIELD_MANAGER}'s ownership: {m}")
                    }
                    Err(ApplyError::Other(e)) => {
                        format!("could not release {FIELD_MANAGER}'s ownership: {e}")
                    }
                },
            );
        }
    }
    if annotated {
        let before = cozystack::traffic::traffic_annotation(&l.cluster);
        undone.push(
            match cozystack::traffic::set_annotation(
                &l.kube,
                ns,
                cl,
                before.as_deref(),
                cluster_after.metadata.resource_version.as_deref(),
                false,
            )
            .await
            {
                Ok(_) => match &before {
                    Some(b) => format!("restored the annotation to {b}"),
                    None => "removed the annotation again".to_string(),
                },
                Err(e) => format!(
                    "could not restore the annotation on EtcdCluster {ns}/{cl} ({e}); set it back by hand"
                ),
            },
        );
    }
    if undone.is_empty() {
        "nothing was changed".to_string()
    } else {
        undone.join(", ")
    }
}

/// The one-line error for a failed `set`, naming the server version; the
/// rejected and the dropped cases are worded apart.
fn failure_error(l: &Loaded, wanted: TrafficValue, failure: Failure, undone: &str) -> Error {
    let (ns, svc) = (&l.namespace, &l.service_name);
    let since = wanted.since_minor();
    match failure {
        Failure::Rejected(message) => {
            // A validation refusal of the field itself (not, say, an
            // admission policy) is about the release or its feature gates.
            let hint = if message.contains("spec.trafficDistribution") {
                format!(" ({wanted} needs Kubernetes 1.{since}+ with its feature gate on)")
            } else {
                String::new()
            };
            Error::Failed(format!(
                "the API server ({}) rejects trafficDistribution {wanted} on Service {ns}/{svc}: {message}{hint}; {undone}",
                l.version
            ))
        }
        Failure::NotPersisted(got) => Error::Failed(format!(
            "the API server ({}) accepts trafficDistribution {wanted} on Service {ns}/{svc} but does not keep it (the stored value is {}): servers before 1.31, or with the ServiceTrafficDistribution feature gate off, drop the field silently ({wanted} needs Kubernetes 1.{since}+); {undone}",
            l.version,
            shown(got.as_deref())
        )),
        Failure::Other(e) => Error::Failed(format!("{e}; {undone}")),
    }
}

pub async fn clear(global: &Global, args: &TrafficClear) -> Result<ExitStatus> {
    change::run(global, Clear { args }).await
}

/// `traffic clear`, a `change::Change`.
struct Clear<'a> {
    args: &'a TrafficClear,
}

/// What `clear` writes, and the objects it was decided on.
struct ClearPlan {
    loaded: Loaded,
    action: ServiceAction,
    annotation_before: Option<String>,
    value_before: Option<String>,
    owners_before: Vec<FieldOwner>,
}

impl Write for Clear<'_> {
    type Plan = ClearPlan;
    type Report = TrafficReport;

    fn verb(&self) -> &'static str {
        "change the client Service's trafficDistribution"
    }

    fn consent(&self) -> Consent {
        self.args.consent
    }

    /// A dry run sends every write as a server-side dry run.
    fn rehearses(&self) -> bool {
        true
    }

    async fn decide(&self, global: &Global) -> Result<Decided<ClearPlan, TrafficReport>> {
        let l = load(global, self.args.cluster.as_deref()).await?;
        let annotation_before = l.annotation();
        let value_before = l.value();
        let owners_before = l.owners();
        let action = decide(None, value_before.as_deref(), owned_by_us(&owners_before)).action;
        let report = report(&l, &l.cluster, &l.service, None);
        Ok(Decided::Act {
            plan: ClearPlan {
                loaded: l,
                action,
                annotation_before,
                value_before,
                owners_before,
            },
            report,
        })
    }

    async fn confirm(&self, plan: &ClearPlan) -> Result<bool> {
        let l = &plan.loaded;
        let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
        let mut steps = Vec::new();
        if plan.annotation_before.is_some() {
            steps.push(format!("remove the annotation from EtcdCluster {ns}/{cl}"));
        }
        if plan.action == ServiceAction::Release {
            steps.push(format!(
                "release trafficDistribution on Service {ns}/{svc} (now {})",
                shown(plan.value_before.as_deref())
            ));
        }
        if steps.is_empty() {
            return Ok(true);
        }
        let question = format!("{}?", capitalise(&steps.join(" and ")));
        output::prompt::confirm_async(question).await
    }

    fn notices(&self) -> Notices {
        writes_notices()
    }

    async fn act(
        &self,
        plan: ClearPlan,
        out: &mut TrafficReport,
        _control: &RunControl,
    ) -> Result<Acted> {
        let dry_run = self.args.consent.dry_run;
        let ClearPlan {
            loaded,
            action,
            annotation_before,
            value_before,
            owners_before,
        } = plan;
        let l = &loaded;
        let (ns, svc, cl) = (&l.namespace, &l.service_name, &l.cluster_name);
        let would = if dry_run { "would be " } else { "" };
        let mut change = Change::planned(
            dry_run,
            annotation_before.clone(),
            value_before.clone(),
            action,
        );
        // 1. The annotation goes first, so the operator does not re-apply.
        let mut cluster_after = l.cluster.clone();
        if let Some(before) = &annotation_before {
            cluster_after = cozystack::traffic::set_annotation(
                &l.kube,
                ns,
                cl,
                None,
                l.cluster.metadata.resource_version.as_deref(),
                dry_run,
            )
            .await?;
            change.annotation_written = !dry_run;
            change.notes.push(format!(
                "EtcdCluster {ns}/{cl}: annotation {ANNOTATION} {would}removed (was {before})"
            ));
        }

        // 2. Release our ownership; the value stays if someone else holds it.
        let mut service_after = l.service.clone();
        if action == ServiceAction::Release {
            service_after = match service::apply(&l.kube, ns, svc, None, dry_run, false).await {
                Ok(s) => s,
                Err(ApplyError::Invalid(m)) => {
                    return Err(Error::Failed(format!(
                        "release trafficDistribution on Service {ns}/{svc}: {m}"
                    )))
                }
                Err(ApplyError::Other(e)) => return Err(e),
            };
            change.service_written = !dry_run;
            let after = service::traffic_distribution(&service_after);
            let holders: Vec<String> = owners_of(&service_after)
                .iter()
                .filter(|o| o.manager != FIELD_MANAGER)
                .map(FieldOwner::to_string)
                .collect();
            change.notes.push(match after {
                None => format!(
                    "Service {ns}/{svc}: {FIELD_MANAGER} {would}released trafficDistribution; the field {}unset (was {})",
                    if dry_run { "would be " } else { "is now " },
                    shown(value_before.as_deref())
                ),
                Some(v) => format!(
                    "Service {ns}/{svc}: {FIELD_MANAGER} {would}released trafficDistribution, but the value {v} stays: also held by {}",
                    if holders.is_empty() { "another manager".to_string() } else { holders.join(", ") }
                ),
            });
        } else if let Some(v) = &value_before {
            let holders: Vec<String> = owners_before.iter().map(FieldOwner::to_string).collect();
            change.notes.push(format!(
                "Service {ns}/{svc}: trafficDistribution {v} is not held by {FIELD_MANAGER}{}; left alone",
                if holders.is_empty() {
                    String::new()
                } else {
                    format!(" (held by {})", holders.join(", "))
                }
            ));
        } else if annotation_before.is_none() {
            change.notes.push(format!(
                "Service {ns}/{svc} has no trafficDistribution and EtcdCluster {ns}/{cl} no annotation: nothing to do"
            ));
        }
        change.server_warnings = l.kube.warnings.take();
        *out = report(l, &cluster_after, &service_after, Some(change));
        Ok(Acted::Done)
    }
}
