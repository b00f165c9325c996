//! The etcd-operator (cozystack) source: an `EtcdCluster` with its
//! `EtcdMember`s, their Pods and the Secrets its spec names
//! (docs/contract.md). The reads are here; `resolve` is the pure half that
//! turns them into the members to dial, `objects` the plain data between
//! the two, `placement` where the members run (for `doctor`).
//!
//! Everything above `source` sees this kind only through
//! [`crate::source::Source`]; the commands about the operator's own
//! objects (`traffic`, `defrag --via-operator`, `--watch`) name it.

pub mod objects;
pub mod resolve;
pub mod traffic;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};

use crate::error::{Error, Result};
use crate::k8s::crd::{EtcdCluster, EtcdMember, CLUSTER_LABEL};
use crate::k8s::{describe, Kube};
use crate::plan::doctor::ClusterSpecFacts;
use crate::source::pods::PodFacts;
use objects::{secret_names, ClusterObjects};

/// What the EtcdCluster's status says of the cluster, as plain data.
pub fn operator_says(cluster: &EtcdCluster) -> crate::look::OperatorSays {
    let status = cluster.status.as_ref();
    crate::look::OperatorSays {
        available: status
            .and_then(|s| s.conditions.iter().find(|c| c.type_ == "Available"))
            .map(|c| (c.status == "True", c.reason.clone(), c.message.clone())),
        ready_members: status.and_then(|s| s.ready_members),
        replicas: status
            .and_then(|s| s.observed.as_ref())
            .and_then(|o| o.replicas),
        version: status
            .and_then(|s| s.observed.as_ref())
            .and_then(|o| o.version.clone())
            .or_else(|| cluster.spec.version.clone()),
    }
}

/// What `doctor` checks of the EtcdCluster's spec: its compaction options.
/// (The room on a member's volume is read where it is measured, not
/// assumed from `spec.storage.size`: `plan::room`.)
pub fn spec_facts(cluster: &EtcdCluster) -> ClusterSpecFacts {
    let options = cluster.spec.options.clone().unwrap_or_default();
    ClusterSpecFacts {
        auto_compaction_mode: options.auto_compaction_mode,
        auto_compaction_retention: options.auto_compaction_retention,
        plaintext_beside_tls: None,
    }
}

/// [`fetch_around`] an EtcdCluster already read (a controller's pass that
/// just checked it exists), resolved.
pub async fn fetch_read(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
) -> Result<crate::source::Fetched> {
    fetched(&fetch_around(kube, namespace, cluster).await?)
}

/// The objects read for one cluster, resolved: the members to dial and
/// what the operator and the spec say.
pub fn fetched(objects: &ClusterObjects) -> Result<crate::source::Fetched> {
    let resolved = resolve::resolve(objects).map_err(Error::Resolve)?;
    Ok(crate::source::Fetched {
        resolved,
        operator: Some(operator_says(&objects.cluster)),
        spec: Some(spec_facts(&objects.cluster)),
        placement: Some(objects.placement.clone()),
    })
}

impl crate::source::read::ClusterObject for EtcdCluster {
    const NOUN: &'static str = "EtcdCluster";
    const NOUNS: &'static str = "EtcdClusters";
}

/// The EtcdClusters in `namespace`, or in every namespace when `None`,
/// sorted by namespace and name; only those matching the label `selector`
/// when one is given (the API server parses it: a malformed one is its 400).
pub async fn list_clusters(
    kube: &Kube,
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Vec<EtcdCluster>> {
    crate::source::read::list(kube, namespace, selector).await
}

/// Gets one EtcdCluster; "not found" names the clusters that do exist.
pub async fn get_cluster(kube: &Kube, namespace: &str, name: &str) -> Result<EtcdCluster> {
    crate::source::read::get(kube, namespace, name).await
}

/// Reads everything `resolve` needs for one cluster: the EtcdCluster, its
/// EtcdMembers and its Pods side by side, then the Secrets it names (side
/// by side too): two round trips to the API server, however many members.
pub async fn fetch(kube: &Kube, namespace: &str, name: &str) -> Result<ClusterObjects> {
    let (cluster, members, listed) = futures::join!(
        get_cluster(kube, namespace, name),
        list_members(kube, namespace, name),
        list_cluster_pods(kube, namespace, name)
    );
    // A cluster that is not there says so before anything read around it.
    let cluster = cluster?;
    let members = members?;
    let pods = member_pods(kube, namespace, &members, listed.as_ref()).await?;
    with_secrets(kube, namespace, cluster, members, pods).await
}

/// The EtcdMembers labelled with cluster `name`, in any order.
pub async fn list_members(kube: &Kube, namespace: &str, name: &str) -> Result<Vec<EtcdMember>> {
    let members: Api<EtcdMember> = Api::namespaced(kube.client.clone(), namespace);
    Ok(members
        .list(&ListParams::default().labels(&format!("{CLUSTER_LABEL}={name}")))
        .await
        .map_err(|e| describe(kube, &format!("list EtcdMembers of {namespace}/{name}"), e))?
        .items)
}

/// The EtcdCluster and member of etcd member Pod `pod` in `namespace`
/// (the EtcdMember whose Pod it is, or of that name), as `(cluster,
/// member)`.
pub async fn member_of_pod(kube: &Kube, namespace: &str, pod: &str) -> Result<(String, String)> {
    let members: Api<EtcdMember> = Api::namespaced(kube.client.clone(), namespace);
    let all = members
        .list(&ListParams::default())
        .await
        .map_err(|e| {
            describe(
                kube,
                &format!("list EtcdMembers in namespace {namespace}"),
                e,
            )
        })?
        .items;
    let found = all
        .iter()
        .find(|m| m.pod_name().as_deref() == Some(pod))
        .or_else(|| all.iter().find(|m| m.metadata.name.as_deref() == Some(pod)));
    let cluster = found.and_then(|m| {
        let cluster = m.metadata.labels.as_ref()?.get(CLUSTER_LABEL)?.clone();
        Some((cluster, m.metadata.name.clone()?))
    });
    cluster.ok_or_else(|| {
        Error::Resolve(format!(
            "Pod {pod} in namespace {namespace} runs no member of an EtcdCluster (no EtcdMember there names it): -p takes an etcd member's Pod (`kubectl get etcdmembers -n {namespace}` lists them), or name the EtcdCluster instead"
        ))
    })
}

/// [`fetch`] for an EtcdCluster already read: its members, their Pods'
/// IPs and the Secrets it names.
pub async fn fetch_around(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
) -> Result<ClusterObjects> {
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let (members, listed) = futures::join!(
        list_members(kube, namespace, &name),
        list_cluster_pods(kube, namespace, &name)
    );
    let members = members?;
    let pods = member_pods(kube, namespace, &members, listed.as_ref()).await?;
    with_secrets(kube, namespace, cluster, members, pods).await
}

/// The Pods of cluster `name` (by its label), in one LIST instead of a GET
/// per member: each request is a round trip, and at a distance they are
/// most of a command's time. `None` when the LIST is refused (a role that
/// may only get Pods: not asked again by this process) or fails: the Pods
/// are then read one by one, which says what is wrong if that fails too.
async fn list_cluster_pods(kube: &Kube, namespace: &str, name: &str) -> Option<Prefetched> {
    let listed = list_labelled_pods(kube, namespace, name).await?;
    let pods = listed
        .iter()
        .filter_map(|p| {
            Some((
                (namespace.to_string(), p.metadata.name.clone()?),
                PodFacts::of(p, None),
            ))
        })
        .collect();
    Some(Prefetched {
        members: BTreeMap::new(),
        pods,
    })
}

/// The Pods labelled with cluster `name`, whole, in one LIST; `None` as for
/// [`list_cluster_pods`].
pub(crate) async fn list_labelled_pods(
    kube: &Kube,
    namespace: &str,
    name: &str,
) -> Option<Vec<Pod>> {
    use std::sync::atomic::Ordering;
    if kube.pod_list_refused.load(Ordering::Relaxed) {
        return None;
    }
    let pods: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    match pods
        .list(&ListParams::default().labels(&format!("{CLUSTER_LABEL}={name}")))
        .await
    {
        Ok(listed) => Some(listed.items),
        Err(e) => {
            if matches!(&e, kube::Error::Api(s) if s.code == 403) {
                kube.pod_list_refused.store(true, Ordering::Relaxed);
            }
            tracing::debug!("list the Pods of {namespace}/{name}: {e}; reading each");
            None
        }
    }
}

/// The EtcdMembers and member Pod IPs of many clusters, each read with one
/// LIST by the cluster label (in one namespace, or all), so that `status
/// -A` does not make a LIST and a GET per Pod for every cluster. Secrets
/// are still read per cluster: a LIST would read every Secret there.
pub struct Prefetched {
    /// (namespace, cluster) → its EtcdMembers.
    members: BTreeMap<(String, String), Vec<EtcdMember>>,
    /// (namespace, Pod) → `status.podIP` (for labelled Pods that have
    /// one) and the etcd container's probes.
    pods: BTreeMap<(String, String), PodFacts>,
}

/// What was read of each member's Pod, by Pod name (a Pod that does not
/// exist is absent).
type MemberPods = BTreeMap<String, PodFacts>;

/// Each member's Pod as `doctor`'s placement reads it (its node, its
/// etcd arguments; zones not read yet), from the Pods already read.
fn placement_of(members: &[EtcdMember], pods: &MemberPods) -> Vec<crate::source::MemberPod> {
    let mut out: Vec<crate::source::MemberPod> = members
        .iter()
        .map(|m| {
            let pod = m.pod_name();
            let facts = pod.as_ref().and_then(|p| pods.get(p));
            PodFacts::member_pod(m.metadata.name.clone().unwrap_or_default(), pod, facts)
        })
        .collect();
    out.sort_by(|a, b| a.member.cmp(&b.member));
    out
}

/// Reads [`Prefetched`] for the EtcdClusters in `namespace` (every
/// namespace when `None`).
pub async fn prefetch(kube: &Kube, namespace: Option<&str>) -> Result<Prefetched> {
    let (member_api, pod_api): (Api<EtcdMember>, Api<Pod>) = match namespace {
        Some(ns) => (
            Api::namespaced(kube.client.clone(), ns),
            Api::namespaced(kube.client.clone(), ns),
        ),
        None => (Api::all(kube.client.clone()), Api::all(kube.client.clone())),
    };
    let labelled = ListParams::default().labels(CLUSTER_LABEL);
    let (members, pods) = futures::join!(member_api.list(&labelled), pod_api.list(&labelled));
    let members = members.map_err(|e| describe(kube, "list EtcdMembers", e))?;
    let pods = pods.map_err(|e| describe(kube, "list member Pods", e))?;
    let mut by_cluster: BTreeMap<(String, String), Vec<EtcdMember>> = BTreeMap::new();
    for m in members.items {
        let ns = m.metadata.namespace.clone().unwrap_or_default();
        let cluster = m
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(CLUSTER_LABEL))
            .cloned()
            .unwrap_or_default();
        by_cluster.entry((ns, cluster)).or_default().push(m);
    }
    let pods = pods
        .items
        .iter()
        .filter_map(|p| {
            let key = (p.metadata.namespace.clone()?, p.metadata.name.clone()?);
            Some((key, PodFacts::of(p, None)))
        })
        .collect();
    Ok(Prefetched {
        members: by_cluster,
        pods,
    })
}

/// One listed EtcdCluster's objects: from the shared LISTs when they could
/// be read (`prefetch`), else read around it on their own.
pub async fn fetch_listed(
    kube: &Kube,
    cluster: EtcdCluster,
    prefetched: Option<&Prefetched>,
) -> Result<ClusterObjects> {
    match prefetched {
        Some(p) => fetch_prefetched(kube, cluster, p).await,
        None => {
            let namespace = cluster.metadata.namespace.clone().unwrap_or_default();
            fetch_around(kube, &namespace, cluster).await
        }
    }
}

/// [`fetch_around`] from a [`Prefetched`] read: only the Secrets are read
/// here (and any member Pod the LIST did not show, one GET each).
pub async fn fetch_prefetched(
    kube: &Kube,
    cluster: EtcdCluster,
    prefetched: &Prefetched,
) -> Result<ClusterObjects> {
    let namespace = cluster.metadata.namespace.clone().unwrap_or_default();
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let members = prefetched
        .members
        .get(&(namespace.clone(), name))
        .cloned()
        .unwrap_or_default();
    let pods = member_pods(kube, &namespace, &members, Some(prefetched)).await?;
    with_secrets(kube, &namespace, cluster, members, pods).await
}

/// Each member's Pod (`status.podName`, else the member's name): its IP
/// and its etcd container's probes, from `prefetched` where it has the
/// Pod, else read by name, every such Pod at once (the API client sets
/// TCP_NODELAY, so a request on a connection of its own costs no delayed
/// ACK: `k8s::client_of`).
async fn member_pods(
    kube: &Kube,
    namespace: &str,
    members: &[EtcdMember],
    prefetched: Option<&Prefetched>,
) -> Result<MemberPods> {
    let pods: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let pod_names: Vec<String> = members.iter().filter_map(EtcdMember::pod_name).collect();
    let known =
        |p: &str| prefetched.and_then(|f| f.pods.get(&(namespace.to_string(), p.to_string())));
    // All at once; the first to fail, in order, is the one said.
    let read = futures::future::join_all(pod_names.into_iter().map(|p| {
        let pods = pods.clone();
        let known = known(&p).cloned();
        async move {
            let facts = match known {
                Some(facts) => facts,
                None => pods
                    .get_opt(&p)
                    .await
                    .map_err(|e| describe(kube, &format!("get Pod {namespace}/{p}"), e))?
                    .map(|pod| PodFacts::of(&pod, None))
                    .unwrap_or_default(),
            };
            Ok::<_, Error>((p, facts))
        }
    }))
    .await
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    Ok(read.into_iter().collect())
}

/// Reads the Secrets `cluster` names, all at once, and assembles what
/// `resolve` needs.
async fn with_secrets(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
    members: Vec<EtcdMember>,
    pods: MemberPods,
) -> Result<ClusterObjects> {
    let secrets_api: Api<Secret> = Api::namespaced(kube.client.clone(), namespace);
    let names: std::collections::BTreeSet<String> = secret_names(&cluster)
        .into_iter()
        .map(|(secret, _)| secret)
        .collect();
    // All at once; the first to fail, in order, is the one said.
    let read = futures::future::join_all(names.into_iter().map(|secret| {
        let api = secrets_api.clone();
        async move {
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
            Ok::<_, Error>((secret, data))
        }
    }))
    .await;
    let secrets: BTreeMap<_, _> = read.into_iter().collect::<Result<_>>()?;
    let placement = placement_of(&members, &pods);
    Ok(ClusterObjects {
        namespace: namespace.to_string(),
        cluster,
        members,
        pod_ips: pods
            .iter()
            .filter_map(|(p, f)| Some((p.clone(), f.ip.clone()?)))
            .collect(),
        probes: pods
            .iter()
            .filter_map(|(p, f)| Some((p.clone(), f.probes.clone()?)))
            .collect(),
        placement,
        secrets,
    })
}
