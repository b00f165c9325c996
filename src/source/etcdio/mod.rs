//! The etcd project's own operator's clusters (`operator.etcd.io`): the
//! reads. `resolve` is the pure half, `objects` the kind's fields and the
//! plain data between the two. One cluster is two round trips to the API
//! server (the EtcdCluster beside its Pods, then the client TLS Secret
//! when its spec asks for TLS).

pub mod objects;
pub mod resolve;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};

use crate::error::{Error, Result};
use crate::k8s::{describe, Kube};
use crate::source::pods::PodFacts;
use crate::source::Fetched;
use objects::{client_tls_secret, pod_selector, ClusterObjects, EtcdCluster, DATA_DIR};

/// The noun messages use for this kind, and its plural.
pub const NOUN: &str = "EtcdCluster (operator.etcd.io)";
const NOUNS: &str = "EtcdClusters (operator.etcd.io)";

/// The objects read for one cluster, resolved.
pub fn fetched(objects: &ClusterObjects) -> Result<Fetched> {
    let resolved = resolve::resolve(objects).map_err(Error::Resolve)?;
    let mut placement: Vec<_> = resolved
        .members
        .iter()
        .map(|m| {
            let facts = objects.pods.get(&m.pod);
            PodFacts::member_pod(m.name.clone(), Some(m.pod.clone()), facts)
        })
        .collect();
    placement.sort_by(|a, b| a.member.cmp(&b.member));
    Ok(Fetched {
        resolved,
        operator: Some(resolve::operator_says(&objects.cluster)),
        spec: Some(resolve::spec_facts(objects)),
        placement: Some(placement),
    })
}

impl crate::source::read::ClusterObject for EtcdCluster {
    const NOUN: &'static str = NOUN;
    const NOUNS: &'static str = NOUNS;
}

/// The clusters in `namespace` (every namespace when `None`), sorted by
/// namespace and name; only those matching `selector` when one is given.
pub async fn list_clusters(
    kube: &Kube,
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Vec<EtcdCluster>> {
    crate::source::read::list(kube, namespace, selector).await
}

/// Gets one cluster; "not found" names the clusters of this kind that do
/// exist there.
pub async fn get_cluster(kube: &Kube, namespace: &str, name: &str) -> Result<EtcdCluster> {
    crate::source::read::get(kube, namespace, name).await
}

/// Reads cluster `namespace/name`: the EtcdCluster beside its Pods, then
/// its client TLS Secret when the spec asks for TLS.
pub async fn fetch(kube: &Kube, namespace: &str, name: &str) -> Result<ClusterObjects> {
    let selector = pod_selector(name);
    let (cluster, pods) = futures::join!(
        get_cluster(kube, namespace, name),
        list_pods(kube, Some(namespace), &selector)
    );
    let cluster = cluster?;
    with_secret(kube, namespace, cluster, pods?).await
}

/// [`fetch`] for a cluster already listed, from the Pods a fan-out read
/// once (`prefetched`) when there are some.
pub async fn fetch_listed(
    kube: &Kube,
    cluster: EtcdCluster,
    prefetched: Option<&Prefetched>,
) -> Result<ClusterObjects> {
    let namespace = cluster.metadata.namespace.clone().unwrap_or_default();
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let pods = match prefetched {
        Some(p) => p
            .pods
            .iter()
            .filter(|((ns, _), (app, _))| *ns == namespace && *app == name)
            .map(|((_, pod), (_, facts))| (pod.clone(), facts.clone()))
            .collect(),
        None => list_pods(kube, Some(&namespace), &pod_selector(&name)).await?,
    };
    with_secret(kube, &namespace, cluster, pods).await
}

/// The Pods of every cluster of this kind in one namespace (or all), read
/// once for a fan-out: (namespace, Pod) → (its `app` label, its facts).
pub struct Prefetched {
    pods: BTreeMap<(String, String), (String, PodFacts)>,
}

/// Reads [`Prefetched`]: the Pods labelled `app` and `controller` alike.
pub async fn prefetch(kube: &Kube, namespace: Option<&str>) -> Result<Prefetched> {
    let api: Api<Pod> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let listed = api
        .list(&ListParams::default().labels("app,controller"))
        .await
        .map_err(|e| describe(kube, "list member Pods", e))?;
    let pods = listed
        .items
        .iter()
        .filter_map(|p| {
            let labels = p.metadata.labels.as_ref()?;
            let app = labels.get("app")?;
            (labels.get("controller") == Some(app)).then_some(())?;
            let key = (p.metadata.namespace.clone()?, p.metadata.name.clone()?);
            Some((key, (app.clone(), PodFacts::of(p, Some(DATA_DIR)))))
        })
        .collect();
    Ok(Prefetched { pods })
}

/// The Pods labelled `selector` in `namespace`, by name.
async fn list_pods(
    kube: &Kube,
    namespace: Option<&str>,
    selector: &str,
) -> Result<BTreeMap<String, PodFacts>> {
    let api: Api<Pod> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    Ok(api
        .list(&ListParams::default().labels(selector))
        .await
        .map_err(|e| describe(kube, &format!("list the Pods labelled {selector}"), e))?
        .items
        .iter()
        .filter_map(|p| Some((p.metadata.name.clone()?, PodFacts::of(p, Some(DATA_DIR)))))
        .collect())
}

/// Adds the client TLS Secret, read only when the spec asks for TLS.
async fn with_secret(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
    pods: BTreeMap<String, PodFacts>,
) -> Result<ClusterObjects> {
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let client_tls = match cluster.spec.tls.is_some() {
        true => {
            let secret = client_tls_secret(&name);
            let api: Api<Secret> = Api::namespaced(kube.client.clone(), namespace);
            let data = api
                .get_opt(&secret)
                .await
                .map_err(|e| describe(kube, &format!("get Secret {namespace}/{secret}"), e))?
                .map(|s| {
                    s.data
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(k, v)| (k, v.0))
                        .collect::<BTreeMap<_, _>>()
                });
            Some(data)
        }
        false => None,
    };
    Ok(ClusterObjects {
        namespace: namespace.to_string(),
        cluster,
        pods,
        client_tls,
    })
}

/// The cluster and member of Pod `pod` in `namespace`: the Pod's `app`
/// label when `controller` carries the same (the operator's labels), the
/// Pod's name being the member's.
pub async fn member_of_pod(kube: &Kube, namespace: &str, pod: &str) -> Result<(String, String)> {
    let api: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let found = api
        .get_opt(pod)
        .await
        .map_err(|e| describe(kube, &format!("get Pod {namespace}/{pod}"), e))?;
    let cluster = found.and_then(|p| {
        let labels = p.metadata.labels?;
        let app = labels.get("app")?.clone();
        (labels.get("controller") == Some(&app)).then_some(app)
    });
    cluster.map(|c| (c, pod.to_string())).ok_or_else(|| {
        Error::Resolve(format!(
            "Pod {pod} in namespace {namespace} runs no member of an {NOUN} (no Pod of that name labelled app=<cluster>,controller=<cluster>): -p takes an etcd member's Pod, or name the cluster instead"
        ))
    })
}
