//! What other processors do with a cluster, as the one-shot sweep asks
//! before each step (`exec::Others`, through `session::ClusterRuns`): its
//! unfinished EtcdDefrags, who drives each, and the EtcdDefragPolicies that
//! stamp its runs. Read from the API server; turned into plain data
//! (`look::Outside`) by the pure functions below.

use kube::api::{Api, DeleteParams, ListParams, PostParams, Preconditions, WatchParams};

use super::crd::{DefragPhase, EtcdDefrag, EtcdDefragPolicy, EtcdDefragStatus};
use super::Kube;

/// What other processors do with EtcdCluster `namespace/name`: its
/// unfinished EtcdDefrags (`other_defrags`) and the policies that
/// stamp its runs (`cluster_policies`), or why they could not be
/// read. An API server that serves no such kind has none of it.
pub async fn outside(
    kube: &Kube,
    namespace: &str,
    name: &str,
) -> std::result::Result<crate::look::Outside, String> {
    let runs: Api<EtcdDefrag> = Api::namespaced(kube.client.clone(), namespace);
    let policies: Api<EtcdDefragPolicy> = Api::namespaced(kube.client.clone(), namespace);
    let lp = ListParams::default();
    let (runs, policies) = futures::join!(runs.list(&lp), policies.list(&lp));
    let scope = format!("namespace {namespace}");
    let runs = other_defrags(&items(kube, &scope, "EtcdDefrags", runs)?, name);
    let policies = cluster_policies(&items(kube, &scope, "EtcdDefragPolicies", policies)?, name);
    Ok(crate::look::Outside { runs, policies })
}

/// Every EtcdDefrag and EtcdDefragPolicy read, or why they could not be.
pub type Everything = std::result::Result<(Vec<EtcdDefrag>, Vec<EtcdDefragPolicy>), String>;

/// Every EtcdDefrag and EtcdDefragPolicy in `namespace` (every namespace
/// when `None`), or why they could not be read; none of a kind the API
/// server does not serve.
pub async fn all_of(kube: &Kube, namespace: Option<&str>) -> Everything {
    let (runs, policies): (Api<EtcdDefrag>, Api<EtcdDefragPolicy>) = match namespace {
        Some(ns) => (
            Api::namespaced(kube.client.clone(), ns),
            Api::namespaced(kube.client.clone(), ns),
        ),
        None => (Api::all(kube.client.clone()), Api::all(kube.client.clone())),
    };
    let lp = ListParams::default();
    let scope = namespace.map_or("every namespace".to_string(), |ns| {
        format!("namespace {ns}")
    });
    // Side by side (the client sets TCP_NODELAY: a second connection costs
    // a handshake, not a delayed ACK).
    let (runs, policies) = futures::join!(runs.list(&lp), policies.list(&lp));
    let runs = items(kube, &scope, "EtcdDefrags", runs)?;
    let policies = items(kube, &scope, "EtcdDefragPolicies", policies)?;
    Ok((runs, policies))
}

/// The `kubectl etcd defrag --watch` Deployments (`namespace/name`, by
/// the labels of `deploy/watch/`), in every namespace, or in `namespace`
/// when every namespace may not be listed.
pub async fn watchers(kube: &Kube, namespace: &str) -> std::result::Result<Vec<String>, String> {
    use k8s_openapi::api::apps::v1::Deployment;
    let lp = ListParams::default()
        .labels("app.kubernetes.io/name=kubectl-etcd,app.kubernetes.io/component=defrag-watch");
    let listed = match Api::<Deployment>::all(kube.client.clone()).list(&lp).await {
        Ok(list) => list,
        Err(kube::Error::Api(s)) if s.code == 403 => {
            Api::<Deployment>::namespaced(kube.client.clone(), namespace)
                .list(&lp)
                .await
                .map_err(|e| {
                    super::describe(
                        kube,
                        &format!("list Deployments in namespace {namespace}"),
                        e,
                    )
                    .to_string()
                })?
        }
        Err(e) => return Err(super::describe(kube, "list Deployments", e).to_string()),
    };
    Ok(listed
        .items
        .iter()
        .map(|d| {
            format!(
                "{}/{}",
                d.metadata.namespace.as_deref().unwrap_or(""),
                d.metadata.name.as_deref().unwrap_or("")
            )
        })
        .collect())
}

/// A LIST's objects: none when the API server does not serve the kind,
/// else what could not be listed, named.
fn items<K>(
    kube: &Kube,
    scope: &str,
    what: &str,
    listed: kube::Result<kube::core::ObjectList<K>>,
) -> std::result::Result<Vec<K>, String>
where
    K: Clone,
{
    match listed {
        Ok(list) => Ok(list.items),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(Vec::new()),
        Err(e) => Err(super::describe(kube, &format!("list {what} in {scope}"), e).to_string()),
    }
}

/// Creates `run` (a `generateName` one: the API server names it); with
/// `dry_run` the API server only checks it, against the installed CRD's
/// schema and CEL rules, and stores nothing.
pub async fn create_run(kube: &Kube, run: &EtcdDefrag, dry_run: bool) -> kube::Result<EtcdDefrag> {
    let namespace = run
        .metadata
        .namespace
        .as_deref()
        .unwrap_or(&kube.default_namespace);
    let api: Api<EtcdDefrag> = Api::namespaced(kube.client.clone(), namespace);
    let params = PostParams {
        dry_run,
        field_manager: Some(crate::contract::WATCH_FIELD_MANAGER.to_string()),
    };
    api.create(&params, run).await
}

/// EtcdDefrag `namespace/name`, `None` once it is gone.
pub async fn get_run(kube: &Kube, namespace: &str, name: &str) -> kube::Result<Option<EtcdDefrag>> {
    let api: Api<EtcdDefrag> = Api::namespaced(kube.client.clone(), namespace);
    api.get_opt(name).await
}

/// Deletes EtcdDefrag `namespace/name` if it still has `uid` (a run of the
/// same name created since is left alone); gone already is no error.
pub async fn delete_run(kube: &Kube, namespace: &str, name: &str, uid: &str) -> kube::Result<()> {
    let api: Api<EtcdDefrag> = Api::namespaced(kube.client.clone(), namespace);
    let params = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some(uid.to_string()),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    match api.delete(name, &params).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e),
    }
}

/// Changes to EtcdDefrag `namespace/name` from `version` on, for up to
/// `seconds` (then the stream ends and is opened again).
pub async fn watch_run(
    kube: &Kube,
    namespace: &str,
    name: &str,
    version: &str,
    seconds: u32,
) -> kube::Result<impl futures::Stream<Item = kube::Result<kube::api::WatchEvent<EtcdDefrag>>>> {
    let api: Api<EtcdDefrag> = Api::namespaced(kube.client.clone(), namespace);
    let params = WatchParams::default()
        .fields(&format!("metadata.name={name}"))
        .timeout(seconds);
    api.watch(&params, version).await
}

/// The events recorded about the object with `uid` in `namespace`.
pub async fn events_of(
    kube: &Kube,
    namespace: &str,
    uid: &str,
) -> kube::Result<Vec<k8s_openapi::api::core::v1::Event>> {
    let api: Api<k8s_openapi::api::core::v1::Event> =
        Api::namespaced(kube.client.clone(), namespace);
    let params = ListParams::default().fields(&format!("involvedObject.uid={uid}"));
    Ok(api.list(&params).await?.items)
}

/// The runs in `runs` that target EtcdCluster `cluster` (in `namespace`,
/// when given; an object read without one counts as its), not being
/// deleted, oldest first: creation, then name, the operator's order.
/// Pure.
pub fn runs_of<'a>(
    runs: &'a [EtcdDefrag],
    namespace: Option<&str>,
    cluster: &str,
) -> Vec<&'a EtcdDefrag> {
    let mut mine: Vec<&EtcdDefrag> = runs
        .iter()
        .filter(|r| {
            namespace.is_none_or(|ns| r.metadata.namespace.as_deref().is_none_or(|n| n == ns))
        })
        .filter(|r| r.spec.cluster_ref.name == cluster)
        .filter(|r| r.metadata.deletion_timestamp.is_none())
        .collect();
    mine.sort_by_key(|r| {
        (
            r.metadata.creation_timestamp.as_ref().map(|t| t.0),
            r.metadata.name.clone(),
        )
    });
    mine
}

/// The runs in `runs` that target EtcdCluster `cluster` and are not
/// finished, oldest first, with who drives each (`look::OtherDefrag`).
/// Pure.
pub fn other_defrags(runs: &[EtcdDefrag], cluster: &str) -> Vec<crate::look::OtherDefrag> {
    runs_of(runs, None, cluster)
        .into_iter()
        .filter(|r| !r.status.as_ref().is_some_and(EtcdDefragStatus::is_terminal))
        .map(|r| crate::look::OtherDefrag {
            run: format!(
                "{}/{}",
                r.metadata.namespace.as_deref().unwrap_or(""),
                r.metadata.name.as_deref().unwrap_or("")
            ),
            phase: r
                .status
                .as_ref()
                .map_or(DefragPhase::Pending, EtcdDefragStatus::phase_or_pending)
                .as_str()
                .to_string(),
            driver: driver(r),
        })
        .collect()
}

/// The policies in `policies` that stamp runs of EtcdCluster `cluster`:
/// not suspended, not being deleted. Pure.
pub fn cluster_policies(
    policies: &[EtcdDefragPolicy],
    cluster: &str,
) -> Vec<crate::look::PolicySchedule> {
    policies
        .iter()
        .filter(|p| p.spec.cluster_ref.name == cluster)
        .filter(|p| p.spec.suspend != Some(true))
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| crate::look::PolicySchedule {
            policy: format!(
                "{}/{}",
                p.metadata.namespace.as_deref().unwrap_or(""),
                p.metadata.name.as_deref().unwrap_or("")
            ),
            schedule: p.spec.schedule.clone(),
            earliest: p
                .status
                .as_ref()
                .and_then(|s| s.last_schedule_time.as_ref())
                .or(p.metadata.creation_timestamp.as_ref())
                .map(|t| t.0),
        })
        .collect()
}

/// Who drives a run, from the field manager of its latest status write.
pub fn driver(run: &EtcdDefrag) -> String {
    let last = run
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|e| e.subresource.as_deref() == Some("status"))
        .max_by_key(|e| e.time.as_ref().map(|t| t.0));
    match last.and_then(|e| e.manager.as_deref()) {
        Some(crate::contract::OPERATOR_FIELD_MANAGER) => {
            "driven by the etcd-operator's defrag controller".into()
        }
        Some(crate::contract::WATCH_FIELD_MANAGER) => {
            "driven by kubectl etcd defrag --watch".into()
        }
        Some(other) => format!("driven by field manager {other:?}"),
        None => "not picked up by any processor yet".into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::k8s::crd::{DefragPhase, EtcdDefragSpec, EtcdDefragStatus, NameRef};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    fn run(
        name: &str,
        cluster: &str,
        phase: Option<&str>,
        manager: Option<&str>,
        created: i64,
    ) -> EtcdDefrag {
        let mut r = EtcdDefrag::new(
            name,
            EtcdDefragSpec {
                cluster_ref: NameRef {
                    name: cluster.into(),
                },
                ..Default::default()
            },
        );
        r.metadata.namespace = Some("ns".into());
        r.metadata.creation_timestamp = Some(Time(jiff::Timestamp::from_second(created).unwrap()));
        r.status = phase.map(|p| EtcdDefragStatus {
            phase: DefragPhase::parse(p),
            ..Default::default()
        });
        r.metadata.managed_fields = manager.map(|m| {
            vec![
                ManagedFieldsEntry {
                    manager: Some("kubectl-client-side-apply".into()),
                    time: Some(Time(jiff::Timestamp::from_second(created).unwrap())),
                    ..Default::default()
                },
                ManagedFieldsEntry {
                    manager: Some(m.into()),
                    subresource: Some("status".into()),
                    time: Some(Time(jiff::Timestamp::from_second(created + 1).unwrap())),
                    ..Default::default()
                },
            ]
        });
        r
    }

    #[test]
    fn other_defrags_are_the_unfinished_runs_of_the_cluster_oldest_first() {
        type Case = (
            &'static str,
            Vec<EtcdDefrag>,
            Vec<(&'static str, &'static str, &'static str)>,
        );
        let cases: Vec<Case> = vec![
            ("none", vec![], vec![]),
            (
                "finished runs do not count",
                vec![
                    run("a", "etcd", Some("Complete"), Some("manager"), 1),
                    run("b", "etcd", Some("Failed"), Some("manager"), 2),
                ],
                vec![],
            ),
            (
                "another cluster's run does not count",
                vec![run("a", "other", Some("Running"), Some("manager"), 1)],
                vec![],
            ),
            (
                "a new run with no status is Pending and not picked up",
                vec![run("a", "etcd", None, None, 1)],
                vec![("ns/a", "Pending", "not picked up by any processor yet")],
            ),
            (
                "the operator's, the watcher's and a stranger's, oldest first",
                vec![
                    run("c", "etcd", Some("Pending"), Some("someone"), 3),
                    run("a", "etcd", Some("Running"), Some("manager"), 1),
                    run("b", "etcd", Some("Running"), Some("kubectl-etcd"), 2),
                ],
                vec![
                    (
                        "ns/a",
                        "Running",
                        "driven by the etcd-operator's defrag controller",
                    ),
                    ("ns/b", "Running", "driven by kubectl etcd defrag --watch"),
                    ("ns/c", "Pending", "driven by field manager \"someone\""),
                ],
            ),
            (
                "an unknown phase string is not finished",
                vec![run("a", "etcd", Some("Paused"), Some("manager"), 1)],
                vec![(
                    "ns/a",
                    "Pending",
                    "driven by the etcd-operator's defrag controller",
                )],
            ),
        ];
        for (name, runs, want) in cases {
            let got: Vec<(String, String, String)> = other_defrags(&runs, "etcd")
                .into_iter()
                .map(|o| (o.run, o.phase, o.driver))
                .collect();
            let want: Vec<(String, String, String)> = want
                .into_iter()
                .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }
}
