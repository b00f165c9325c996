//! Refusing to fight another processor (issue 10, docs/contract.md#one-processor-per-cluster;
//! issue 37): two controllers acting on the same EtcdDefrag both defragment.
//!
//! - Installed: a role that lets someone other than this watcher write
//!   EtcdDefrag status is positive evidence of another processor. The
//!   etcd-operator's chart grants exactly that to its manager from the
//!   release (v0.5.5) whose binary processes every EtcdDefrag, and not
//!   before. It is configuration, in place before any run exists: nothing
//!   races on who writes first. Asked at start-up and every
//!   `--recheck-processors` while running; not overridable.
//! - Active: status written recently by a field manager other than ours;
//!   the watcher refuses unless `--force-takeover` says otherwise.

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, ListParams, PostParams};

use crate::error::{Error, Result};
use crate::k8s::{self, crd::EtcdDefrag};

/// Who this watcher is to the API server (SelfSubjectReview).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Me {
    pub username: String,
    pub groups: Vec<String>,
}

/// A grant that lets someone other than this watcher write EtcdDefrag
/// status: another processor is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// `ServiceAccount ns/name`, `User name` or `Group name`.
    pub subject: String,
    /// `ClusterRole name` or `Role ns/name`.
    pub role: String,
    /// `ClusterRoleBinding name` or `RoleBinding ns/name`.
    pub binding: String,
}

impl std::fmt::Display for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} may write EtcdDefrag status ({}, bound by {})",
            self.subject, self.role, self.binding
        )
    }
}

/// Whether `rule` lets its holder write EtcdDefrag status, named outright:
/// a wildcard group or resource (cluster-admin's `*`) is everybody's
/// power, not the mark of a processor.
fn writes_run_status(rule: &PolicyRule) -> bool {
    let named = |list: &Option<Vec<String>>, want: &str| {
        list.as_ref().is_some_and(|l| l.iter().any(|x| x == want))
    };
    named(&rule.api_groups, crate::contract::GROUP)
        && named(&rule.resources, "etcddefrags/status")
        && rule
            .verbs
            .iter()
            .any(|v| v == "update" || v == "patch" || v == "*")
}

/// A role the tool's own manifests define (`app.kubernetes.io/name:
/// kubectl-etcd`): another watcher of ours, which the Lease serializes
/// with this one, not the operator.
fn ours(labels: Option<&std::collections::BTreeMap<String, String>>) -> bool {
    labels
        .and_then(|l| l.get("app.kubernetes.io/name"))
        .is_some_and(|v| v == "kubectl-etcd")
}

/// The subject as the API server authenticates it, and how to name it.
fn subject_of(s: &Subject, binding_namespace: Option<&str>) -> (Option<String>, String) {
    match s.kind.as_str() {
        "ServiceAccount" => {
            let ns = s.namespace.as_deref().or(binding_namespace).unwrap_or("");
            (
                Some(format!("system:serviceaccount:{ns}:{}", s.name)),
                format!("ServiceAccount {ns}/{}", s.name),
            )
        }
        "User" => (Some(s.name.clone()), format!("User {}", s.name)),
        _ => (None, format!("Group {}", s.name)),
    }
}

/// Every grant, in `cluster_bindings` and `bindings` (RoleBindings in the
/// watched scope), of a role that writes EtcdDefrag status to a subject
/// that is not `me` (by user name or a group `me` is in). Roles of the
/// tool's own manifests are left out. Pure.
pub fn other_processors(
    cluster_roles: &[ClusterRole],
    roles: &[Role],
    cluster_bindings: &[ClusterRoleBinding],
    bindings: &[RoleBinding],
    me: &Me,
) -> Vec<Grant> {
    let cluster_role = |name: &str| {
        cluster_roles
            .iter()
            .find(|r| r.metadata.name.as_deref() == Some(name))
            .filter(|r| !ours(r.metadata.labels.as_ref()))
            .is_some_and(|r| r.rules.iter().flatten().any(writes_run_status))
    };
    let role = |ns: &str, name: &str| {
        roles
            .iter()
            .find(|r| {
                r.metadata.name.as_deref() == Some(name)
                    && r.metadata.namespace.as_deref() == Some(ns)
            })
            .filter(|r| !ours(r.metadata.labels.as_ref()))
            .is_some_and(|r| r.rules.iter().flatten().any(writes_run_status))
    };
    let grants = |role_ref: &RoleRef, ns: Option<&str>| -> Option<String> {
        match (role_ref.kind.as_str(), ns) {
            ("ClusterRole", _) if cluster_role(&role_ref.name) => {
                Some(format!("ClusterRole {}", role_ref.name))
            }
            ("Role", Some(ns)) if role(ns, &role_ref.name) => {
                Some(format!("Role {ns}/{}", role_ref.name))
            }
            _ => None,
        }
    };
    let not_me = |s: &Subject, ns: Option<&str>| {
        let (user, named) = subject_of(s, ns);
        let mine = match user {
            Some(user) => user == me.username,
            None => me.groups.contains(&s.name),
        };
        (!mine).then_some(named)
    };
    let mut out = Vec::new();
    for b in cluster_bindings {
        if let Some(role) = grants(&b.role_ref, None) {
            for s in b.subjects.iter().flatten() {
                if let Some(subject) = not_me(s, None) {
                    out.push(Grant {
                        subject,
                        role: role.clone(),
                        binding: format!(
                            "ClusterRoleBinding {}",
                            b.metadata.name.as_deref().unwrap_or("")
                        ),
                    });
                }
            }
        }
    }
    for b in bindings {
        let ns = b.metadata.namespace.as_deref();
        if let Some(role) = grants(&b.role_ref, ns) {
            for s in b.subjects.iter().flatten() {
                if let Some(subject) = not_me(s, ns) {
                    out.push(Grant {
                        subject,
                        role: role.clone(),
                        binding: format!(
                            "RoleBinding {}/{}",
                            ns.unwrap_or(""),
                            b.metadata.name.as_deref().unwrap_or("")
                        ),
                    });
                }
            }
        }
    }
    out
}

/// Who the API server says this watcher is.
pub async fn whoami(kube: &k8s::Kube) -> Result<Me> {
    let reviews: Api<SelfSubjectReview> = Api::all(kube.client.clone());
    let review = reviews
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .map_err(|e| {
            Error::kube(
                "ask who this watcher is (SelfSubjectReview)",
                &kube.server,
                e,
            )
        })?;
    let info = review.status.and_then(|s| s.user_info).unwrap_or_default();
    Ok(Me {
        username: info.username.unwrap_or_default(),
        groups: info.groups.unwrap_or_default(),
    })
}

/// Reads the roles and bindings in scope and names every grant of another
/// processor ([`other_processors`]). An RBAC read the server refuses is
/// an error: without it the operator's controller cannot be ruled out.
pub async fn installed_processors(
    kube: &k8s::Kube,
    namespace: Option<&str>,
    me: &Me,
) -> Result<Vec<Grant>> {
    let lp = ListParams::default();
    let read = |what: &'static str| {
        let server = kube.server.clone();
        move |e: kube::Error| {
            Error::usage(format!(
                "cannot tell whether the etcd-operator's own EtcdDefrag controller is installed: {}; grant list on clusterroles, clusterrolebindings, roles and rolebindings (deploy/watch/rbac.yaml's kubectl-etcd-watch-processors, bound by a ClusterRoleBinding)",
                Error::kube(format!("list {what}"), &server, e)
            ))
        }
    };
    let (roles, bindings): (Api<Role>, Api<RoleBinding>) = match namespace {
        Some(ns) => (
            Api::namespaced(kube.client.clone(), ns),
            Api::namespaced(kube.client.clone(), ns),
        ),
        None => (Api::all(kube.client.clone()), Api::all(kube.client.clone())),
    };
    // The four lists side by side (at a distance each is a round trip);
    // the first refused, in this order, is the one said.
    let cluster_role_api = Api::<ClusterRole>::all(kube.client.clone());
    let cluster_binding_api = Api::<ClusterRoleBinding>::all(kube.client.clone());
    let (cluster_roles, cluster_bindings, roles, bindings) = futures::join!(
        cluster_role_api.list(&lp),
        cluster_binding_api.list(&lp),
        roles.list(&lp),
        bindings.list(&lp)
    );
    let cluster_roles = cluster_roles.map_err(read("clusterroles"))?;
    let cluster_bindings = cluster_bindings.map_err(read("clusterrolebindings"))?;
    let roles = roles.map_err(read("roles"))?;
    let bindings = bindings.map_err(read("rolebindings"))?;
    Ok(other_processors(
        &cluster_roles.items,
        &roles.items,
        &cluster_bindings.items,
        &bindings.items,
        me,
    ))
}

/// The refusal when another processor is installed: which, and what to do.
pub fn refusal(grants: &[Grant]) -> Option<Error> {
    let first = grants.first()?;
    let all: Vec<String> = grants.iter().map(ToString::to_string).collect();
    let binding = first
        .binding
        .strip_prefix("ClusterRoleBinding ")
        .map(|name| format!("kubectl delete clusterrolebinding {name}"))
        .unwrap_or_else(|| {
            let rest = first.binding.trim_start_matches("RoleBinding ");
            let (ns, name) = rest.split_once('/').unwrap_or(("", rest));
            format!("kubectl delete rolebinding {name} -n {ns}")
        });
    Some(Error::usage(format!(
        "another EtcdDefrag processor is installed: {}. The etcd-operator processes every EtcdDefrag itself from its v0.5.5 on (its chart grants its manager this), and two processors would defragment two members at once: let the operator process the runs and stop this watcher; for a sweep of your own use `kubectl etcd defrag CLUSTER`, which waits for no run and refuses while one is unfinished. If that processor is no longer installed, remove its grant ({binding})",
        all.join("; ")
    )))
}

/// How far back a foreign status write counts as "another processor is
/// active": longer than the operator's 10 s requeue and a few defrags.
pub const RECENT: SignedDuration = SignedDuration::from_mins(15);

/// A status write by another manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignWriter {
    pub manager: String,
    pub run: String,
    pub at: Timestamp,
}

/// The status writes of `run`: (field manager, when, whether it owns the
/// phase or the conditions).
fn status_writes(run: &EtcdDefrag) -> impl Iterator<Item = (&str, Option<Timestamp>, bool)> {
    run.metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|e| e.subresource.as_deref() == Some("status"))
        .filter_map(|e| {
            let status = e.fields_v1.as_ref().map(|f| &f.0["f:status"]);
            let processes = status
                .is_some_and(|s| s.get("f:phase").is_some() || s.get("f:conditions").is_some());
            Some((
                e.manager.as_deref()?,
                e.time.as_ref().map(|t| t.0),
                processes,
            ))
        })
}

/// The field manager other than `ours` that has processed `run`, whenever
/// it did: it owns the run's phase or conditions, as every processor's
/// status write does (someone editing `startedAt` alone does not). Another
/// processor drives this run, and `--watch` must never send a Defragment
/// for it (issue 37). Pure.
pub fn other_status_writer(run: &EtcdDefrag, ours: &str) -> Option<String> {
    status_writes(run)
        .filter(|(manager, _, processes)| *manager != ours && *processes)
        .max_by_key(|(_, at, _)| *at)
        .map(|(manager, _, _)| manager.to_string())
}

/// The most recent status write in `runs` by a manager other than `ours`
/// within [`RECENT`] of `now`. Pure.
pub fn foreign_status_writer(
    runs: &[EtcdDefrag],
    ours: &str,
    now: Timestamp,
) -> Option<ForeignWriter> {
    runs.iter()
        .flat_map(|run| {
            let name = format!(
                "{}/{}",
                run.metadata.namespace.as_deref().unwrap_or(""),
                run.metadata.name.as_deref().unwrap_or("")
            );
            status_writes(run)
                .filter(|(manager, _, _)| *manager != ours)
                .filter_map(move |(manager, at, _)| {
                    Some(ForeignWriter {
                        manager: manager.to_string(),
                        run: name.clone(),
                        at: at?,
                    })
                })
        })
        .filter(|w| now.duration_since(w.at) <= RECENT)
        .max_by_key(|w| w.at)
}

/// Refuses to start when another field manager wrote EtcdDefrag status in
/// scope recently (two processors both defragment), unless forced.
pub async fn refuse_to_fight(kube: &k8s::Kube, namespace: Option<&str>, force: bool) -> Result<()> {
    let runs: Api<EtcdDefrag> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let scope = namespace.map_or("all namespaces".to_string(), |ns| format!("namespace {ns}"));
    let list = runs
        .list(&ListParams::default())
        .await
        .map_err(|e| Error::kube(format!("list EtcdDefrags in {scope}"), &kube.server, e))?;
    let Some(other) =
        foreign_status_writer(&list.items, super::context::FIELD_MANAGER, Timestamp::now())
    else {
        return Ok(());
    };
    let what = format!(
        "field manager {:?} wrote the status of EtcdDefrag {} at {} (within the last 15 minutes)",
        other.manager, other.run, other.at
    );
    if force {
        crate::logging::message(&format!("taking over: {what} (--force-takeover)"));
        return Ok(());
    }
    Err(Error::usage(format!(
        "another processor is active in {scope}: {what}; two processors would both defragment: stop it (e.g. the operator's defrag controller) or pass --force-takeover"
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, Time};

    fn run(name: &str, writes: &[(&str, &str, i64)]) -> EtcdDefrag {
        let mut r = EtcdDefrag::new(name, Default::default());
        r.metadata.namespace = Some("ns".into());
        r.metadata.managed_fields = Some(
            writes
                .iter()
                .map(|(manager, sub, secs)| ManagedFieldsEntry {
                    manager: Some(manager.to_string()),
                    subresource: (!sub.is_empty()).then(|| sub.to_string()),
                    time: Some(Time(Timestamp::from_second(*secs).unwrap())),
                    // A status write owns what a processor writes.
                    fields_v1: (!sub.is_empty()).then(|| {
                        k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1(
                            serde_json::json!({"f:status": {".": {}, "f:phase": {}, "f:conditions": {}}}),
                        )
                    }),
                    ..Default::default()
                })
                .collect(),
        );
        r
    }

    /// (case, runs, the writer named: manager and run).
    type Case = (
        &'static str,
        Vec<EtcdDefrag>,
        Option<(&'static str, &'static str)>,
    );

    fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
        PolicyRule {
            api_groups: Some(groups.iter().map(|s| s.to_string()).collect()),
            resources: Some(resources.iter().map(|s| s.to_string()).collect()),
            verbs: verbs.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn cluster_role(name: &str, rules: Vec<PolicyRule>, labelled_ours: bool) -> ClusterRole {
        let mut r = ClusterRole {
            rules: Some(rules),
            ..Default::default()
        };
        r.metadata.name = Some(name.into());
        if labelled_ours {
            r.metadata.labels = Some(
                [(
                    "app.kubernetes.io/name".to_string(),
                    "kubectl-etcd".to_string(),
                )]
                .into(),
            );
        }
        r
    }

    fn subject(kind: &str, name: &str, ns: Option<&str>) -> Subject {
        Subject {
            kind: kind.into(),
            name: name.into(),
            namespace: ns.map(str::to_string),
            ..Default::default()
        }
    }

    fn cluster_binding(name: &str, role: &str, subjects: Vec<Subject>) -> ClusterRoleBinding {
        let mut b = ClusterRoleBinding {
            role_ref: RoleRef {
                api_group: Some("rbac.authorization.k8s.io".into()),
                kind: "ClusterRole".into(),
                name: role.into(),
            },
            subjects: Some(subjects),
            ..Default::default()
        };
        b.metadata.name = Some(name.into());
        b
    }

    fn role_binding(
        ns: &str,
        name: &str,
        kind: &str,
        role: &str,
        subjects: Vec<Subject>,
    ) -> RoleBinding {
        let mut b = RoleBinding {
            role_ref: RoleRef {
                api_group: Some("rbac.authorization.k8s.io".into()),
                kind: kind.into(),
                name: role.into(),
            },
            subjects: Some(subjects),
            ..Default::default()
        };
        b.metadata.name = Some(name.into());
        b.metadata.namespace = Some(ns.into());
        b
    }

    /// The operator's chart from v0.5.5 grants its manager EtcdDefrag
    /// status; the earlier one does not; cluster-admin's wildcards, our
    /// own roles and grants to this watcher are not another processor.
    #[test]
    fn another_processor_is_a_named_grant_of_run_status_to_someone_else() {
        let operator_rules = vec![
            rule(
                &[GROUP_],
                &["etcdclusters", "etcdmembers"],
                &["get", "list", "watch"],
            ),
            rule(
                &[GROUP_],
                &["etcddefragpolicies/status", "etcddefrags/status"],
                &["get", "patch", "update"],
            ),
        ];
        let older_operator = vec![rule(
            &[GROUP_],
            &["etcdclusters/status"],
            &["get", "patch", "update"],
        )];
        let me = Me {
            username: "system:serviceaccount:etcd:kubectl-etcd-watch".into(),
            groups: vec![
                "system:serviceaccounts".into(),
                "system:serviceaccounts:etcd".into(),
            ],
        };
        let operator_sa = || {
            vec![subject(
                "ServiceAccount",
                "etcd-operator",
                Some("etcd-operator-system"),
            )]
        };
        type Case = (
            &'static str,
            Vec<ClusterRole>,
            Vec<ClusterRoleBinding>,
            Vec<RoleBinding>,
            Vec<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                "the operator with its controller",
                vec![cluster_role("etcd-operator-manager-role", operator_rules.clone(), false)],
                vec![cluster_binding("etcd-operator-manager-rolebinding", "etcd-operator-manager-role", operator_sa())],
                vec![],
                vec!["ServiceAccount etcd-operator-system/etcd-operator may write EtcdDefrag status (ClusterRole etcd-operator-manager-role, bound by ClusterRoleBinding etcd-operator-manager-rolebinding)"],
            ),
            (
                "the operator before its controller",
                vec![cluster_role("etcd-operator-manager-role", older_operator, false)],
                vec![cluster_binding("b", "etcd-operator-manager-role", operator_sa())],
                vec![],
                vec![],
            ),
            (
                "a role nobody is bound to",
                vec![cluster_role("etcd-operator-manager-role", operator_rules.clone(), false)],
                vec![],
                vec![],
                vec![],
            ),
            (
                "cluster-admin's wildcards",
                vec![cluster_role("cluster-admin", vec![rule(&["*"], &["*"], &["*"])], false)],
                vec![cluster_binding("cluster-admin", "cluster-admin", vec![subject("Group", "system:masters", None)])],
                vec![],
                vec![],
            ),
            (
                "our own watcher's role, bound to another watcher",
                vec![cluster_role("kubectl-etcd-watch", operator_rules.clone(), true)],
                vec![cluster_binding("w", "kubectl-etcd-watch", vec![subject("ServiceAccount", "other", Some("x"))])],
                vec![],
                vec![],
            ),
            (
                "granted to me, by name or by a group I am in",
                vec![cluster_role("r", operator_rules.clone(), false)],
                vec![cluster_binding("by-name", "r", vec![subject("ServiceAccount", "kubectl-etcd-watch", Some("etcd"))])],
                vec![role_binding("etcd", "by-group", "ClusterRole", "r", vec![subject("Group", "system:serviceaccounts:etcd", None)])],
                vec![],
            ),
            (
                "a RoleBinding in scope, its subject's namespace left out",
                vec![cluster_role("r", operator_rules.clone(), false)],
                vec![],
                vec![role_binding("etcd", "rb", "ClusterRole", "r", vec![subject("ServiceAccount", "ctrl", None), subject("User", "jane", None)])],
                vec![
                    "ServiceAccount etcd/ctrl may write EtcdDefrag status (ClusterRole r, bound by RoleBinding etcd/rb)",
                    "User jane may write EtcdDefrag status (ClusterRole r, bound by RoleBinding etcd/rb)",
                ],
            ),
            (
                "patch alone is enough; get alone is not",
                vec![
                    cluster_role("patcher", vec![rule(&[GROUP_], &["etcddefrags/status"], &["patch"])], false),
                    cluster_role("reader", vec![rule(&[GROUP_], &["etcddefrags/status"], &["get"])], false),
                ],
                vec![
                    cluster_binding("p", "patcher", vec![subject("User", "p", None)]),
                    cluster_binding("r", "reader", vec![subject("User", "r", None)]),
                ],
                vec![],
                vec!["User p may write EtcdDefrag status (ClusterRole patcher, bound by ClusterRoleBinding p)"],
            ),
        ];
        for (name, roles, cluster_bindings, bindings, want) in cases {
            let got: Vec<String> = other_processors(&roles, &[], &cluster_bindings, &bindings, &me)
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(got, want, "{name}");
        }
        // The refusal names the grant and the command that removes it.
        let grants = other_processors(
            &[cluster_role(
                "etcd-operator-manager-role",
                operator_rules,
                false,
            )],
            &[],
            &[cluster_binding(
                "etcd-operator-manager-rolebinding",
                "etcd-operator-manager-role",
                operator_sa(),
            )],
            &[],
            &me,
        );
        let text = refusal(&grants).unwrap().to_string();
        assert!(
            text.contains("kubectl delete clusterrolebinding etcd-operator-manager-rolebinding"),
            "{text}"
        );
        assert!(text.contains("v0.5.5"), "{text}");
        assert!(refusal(&[]).is_none());
    }

    const GROUP_: &str = crate::contract::GROUP;

    /// A run whose status someone other than a processor edited: only
    /// `startedAt` (as a test that moves a deadline does).
    fn started_at_edited() -> EtcdDefrag {
        let mut r = run("a", &[("kubectl-etcd", "status", 1)]);
        if let Some(fields) = r.metadata.managed_fields.as_mut() {
            fields.push(ManagedFieldsEntry {
                manager: Some("kubectl-patch".into()),
                subresource: Some("status".into()),
                time: Some(Time(Timestamp::from_second(2).unwrap())),
                fields_v1: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1(
                    serde_json::json!({"f:status": {"f:startedAt": {}}}),
                )),
                ..Default::default()
            });
        }
        r
    }

    #[test]
    fn another_status_writer_is_named_whenever_it_wrote() {
        let cases: Vec<(&str, EtcdDefrag, Option<&str>)> = vec![
            ("nothing written", run("a", &[]), None),
            (
                "only ours",
                run("a", &[("kubectl-etcd", "status", 1)]),
                None,
            ),
            (
                "a spec edit is not a status write",
                run("a", &[("kubectl-client-side-apply", "", 5)]),
                None,
            ),
            (
                "the operator's, however long ago",
                run(
                    "a",
                    &[("manager", "status", 1), ("kubectl-etcd", "status", 9)],
                ),
                Some("manager"),
            ),
            (
                "the latest of two others",
                run("a", &[("manager", "status", 1), ("someone", "status", 3)]),
                Some("someone"),
            ),
            (
                "an edit of startedAt alone is not processing",
                started_at_edited(),
                None,
            ),
        ];
        for (name, r, want) in cases {
            assert_eq!(
                other_status_writer(&r, "kubectl-etcd").as_deref(),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn only_recent_status_writes_by_others_count() {
        let now = Timestamp::from_second(10_000).unwrap();
        let cases: Vec<Case> = vec![
            ("nothing written", vec![run("a", &[])], None),
            (
                "our own writes",
                vec![run("a", &[("kubectl-etcd", "status", 9_990)])],
                None,
            ),
            (
                "the operator's status write",
                vec![run("a", &[("manager", "status", 9_990)])],
                Some(("manager", "ns/a")),
            ),
            (
                "spec edits are not processing",
                vec![run("a", &[("kubectl-client-side-apply", "", 9_990)])],
                None,
            ),
            (
                "too old to matter",
                vec![run("a", &[("manager", "status", 10_000 - 16 * 60)])],
                None,
            ),
            (
                "the most recent one is named",
                vec![
                    run("a", &[("old-one", "status", 9_000)]),
                    run("b", &[("etcd-operator", "status", 9_500)]),
                ],
                Some(("etcd-operator", "ns/b")),
            ),
        ];
        for (name, runs, want) in cases {
            let got = foreign_status_writer(&runs, "kubectl-etcd", now);
            assert_eq!(
                got.as_ref().map(|w| (w.manager.as_str(), w.run.as_str())),
                want,
                "{name}"
            );
        }
    }
}
