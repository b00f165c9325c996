//! Plugin mode, the I/O half: a Kubernetes client configured the way kubectl
//! users expect (`--kubeconfig`, `KUBECONFIG` with several paths,
//! `--context`, `-n`, in-cluster config in a Pod, `--as` impersonation), and
//! the reads that feed `k8s::resolve::resolve`.

pub mod crd;
pub mod objects;
pub mod placement;
pub mod portforward;
pub mod resolve;
pub mod runs;
pub mod service;

use std::collections::BTreeMap;
use std::path::Path;

use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::error::{Error, Result};
use crate::kubelet::PodProbes;
use crd::{EtcdCluster, EtcdMember, CLUSTER_LABEL};
use objects::{secret_names, ClusterObjects};

/// Where the tool found its Kubernetes settings.
#[derive(Debug, Clone, Default)]
pub struct KubeSettings {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub namespace: Option<String>,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
}

/// A connected client and the namespace to use when none is named.
#[derive(Clone)]
pub struct Kube {
    pub client: Client,
    pub default_namespace: String,
    pub server: String,
    /// What the API server said in `Warning` headers.
    pub warnings: ServerWarnings,
    /// The API server refused to LIST Pods (a role that may only get
    /// them, as the watcher's): they are read one by one from then on,
    /// without asking again.
    pod_list_refused: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// What the API server said in `Warning` headers (a deprecated value, a
/// field it will drop), in the order the answers came. Every warning is
/// also logged at warn level as it arrives, so none goes unseen; commands
/// that write take them for their report.
#[derive(Debug, Clone, Default)]
pub struct ServerWarnings(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl ServerWarnings {
    /// The warnings since the last `take`.
    pub fn take(&self) -> Vec<String> {
        match self.0.lock() {
            Ok(mut w) => std::mem::take(&mut *w),
            Err(_) => vec![],
        }
    }

    fn record(&self, headers: &http::HeaderMap) {
        for value in headers.get_all(http::header::WARNING) {
            let text = warning_text(&String::from_utf8_lossy(value.as_bytes()));
            tracing::warn!(warning = %text, "the API server warned");
            if let Ok(mut w) = self.0.lock() {
                if !w.contains(&text) {
                    w.push(text);
                }
            }
        }
    }
}

/// The text of one `Warning` header as the API server writes it
/// (`299 - "text"`, RFC 7234 with Kubernetes' escaping); anything else as
/// it came.
pub fn warning_text(header: &str) -> String {
    let rest = header.trim();
    let quoted = rest
        .strip_prefix("299 - ")
        .map(str::trim)
        .and_then(|q| q.strip_prefix('"'))
        .and_then(|q| q.rfind('"').map(|end| &q[..end]));
    match quoted {
        Some(text) => text.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => rest.to_string(),
    }
}

/// Whether this process runs in a Pod (service-account token mounted).
pub fn in_pod() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
        && Path::new("/var/run/secrets/kubernetes.io/serviceaccount/token").exists()
}

/// How many clusters a command over many reads at once: `near` when its
/// first API requests (`first`: each on a new connection, TCP and TLS
/// handshakes and the request, three round trips and the server's time)
/// came back within 15 ms, three round trips of 5 ms; farther, the round
/// trips of each cluster's reads, one after the other, cost more than new
/// connections do, and every cluster is read at once, up to 32 (a cluster
/// in flight holds about ten connections, port-forwards included: 32 stay
/// well inside the usual 1024 open files). Pure.
pub fn concurrency(first: std::time::Duration, clusters: usize, near: usize) -> usize {
    const FAR: usize = 32;
    if first < std::time::Duration::from_millis(15) {
        near
    } else {
        clusters.clamp(near, FAR.max(near))
    }
}

/// Builds the client: `--kubeconfig`, else `KUBECONFIG` (several paths
/// merged), else `~/.kube/config`, else the in-cluster service account.
pub async fn connect(settings: &KubeSettings) -> Result<Kube> {
    let kubeconfig = read_kubeconfig(settings.kubeconfig.as_deref())?;
    let mut config = match kubeconfig {
        Some(k) => {
            if let Some(ctx) = &settings.context {
                if !k.contexts.iter().any(|c| &c.name == ctx) {
                    let known: Vec<&str> = k.contexts.iter().map(|c| c.name.as_str()).collect();
                    return Err(Error::usage(format!(
                        "--context {ctx}: no such context in the kubeconfig (known: {})",
                        known.join(", ")
                    )));
                }
            }
            let options = KubeConfigOptions {
                context: settings.context.clone(),
                ..Default::default()
            };
            Config::from_custom_kubeconfig(k, &options)
                .await
                .map_err(|e| Error::usage(format!("kubeconfig: {}", error_chain(&e))))?
        }
        None if in_pod() => Config::incluster()
            .map_err(|e| Error::usage(format!("in-cluster configuration: {}", error_chain(&e))))?,
        None => {
            return Err(Error::usage(
                "no Kubernetes configuration: pass --kubeconfig or set KUBECONFIG (or use --endpoints for a cluster outside Kubernetes)",
            ))
        }
    };
    if let Some(user) = &settings.impersonate {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !settings.impersonate_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(settings.impersonate_groups.clone());
    }
    let server = config.cluster_url.to_string();
    let default_namespace = settings
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    let warnings = ServerWarnings::default();
    let sink = warnings.clone();
    let heard = tower::util::MapResponseLayer::new(
        move |answer: http::Response<Box<kube::client::DynBody>>| {
            sink.record(answer.headers());
            answer
        },
    );
    let client = kube::client::ClientBuilder::try_from(config)
        .map_err(|e| Error::kube(format!("cannot build a client for {server}"), &server, e))?
        .with_layer(&heard)
        .build();
    Ok(Kube {
        client,
        default_namespace,
        server,
        warnings,
        pod_list_refused: Default::default(),
    })
}

/// The kubeconfig kubectl would read: `path` (from `--kubeconfig`), else
/// `KUBECONFIG` (several paths merged), else `~/.kube/config`; `None` when
/// there is none (the in-cluster service account may apply).
pub fn read_kubeconfig(path: Option<&str>) -> Result<Option<Kubeconfig>> {
    if let Some(path) = path {
        return Kubeconfig::read_from(path)
            .map(Some)
            .map_err(|e| Error::usage(format!("--kubeconfig {path}: {}", error_chain(&e))));
    }
    match Kubeconfig::from_env() {
        Ok(Some(k)) => Ok(Some(k)),
        Ok(None) => {
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            match home.map(|h| h.join(".kube").join("config")) {
                Some(p) if p.exists() => Kubeconfig::read_from(&p)
                    .map(Some)
                    .map_err(|e| Error::usage(format!("{}: {}", p.display(), error_chain(&e)))),
                _ => Ok(None),
            }
        }
        Err(e) => Err(Error::usage(format!("KUBECONFIG: {}", error_chain(&e)))),
    }
}

/// Namespace names (for completion).
pub async fn list_namespaces(kube: &Kube) -> Result<Vec<String>> {
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(kube.client.clone());
    Ok(api
        .list_metadata(&ListParams::default())
        .await
        .map_err(|e| describe(kube, "list Namespaces", e))?
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect())
}

/// One line for a failed API call: the server's own message for API errors
/// (a 403 names the user, verb and resource), the cause for transport errors.
pub fn describe(kube: &Kube, action: &str, e: kube::Error) -> Error {
    Error::kube(action, &kube.server, e)
}

pub(crate) fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

pub(crate) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    crate::error::chain_text(e)
}

/// The EtcdClusters in `namespace`, or in every namespace when `None`,
/// sorted by namespace and name; only those matching the label `selector`
/// when one is given (the API server parses it: a malformed one is its 400).
pub async fn list_clusters(
    kube: &Kube,
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Vec<EtcdCluster>> {
    let api: Api<EtcdCluster> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let mut where_ = match namespace {
        Some(ns) => format!("in namespace {ns}"),
        None => "in all namespaces".to_string(),
    };
    let mut params = ListParams::default();
    if let Some(selector) = selector {
        params = params.labels(selector);
        where_.push_str(&format!(" with labels {selector}"));
    }
    let mut list = api
        .list(&params)
        .await
        .map_err(|e| describe(kube, &format!("list EtcdClusters {where_}"), e))?
        .items;
    list.sort_by(|a, b| {
        (a.metadata.namespace.as_deref(), a.metadata.name.as_deref())
            .cmp(&(b.metadata.namespace.as_deref(), b.metadata.name.as_deref()))
    });
    Ok(list)
}

/// Picks the cluster: the one named, or the only one in the namespace.
pub async fn choose_cluster(kube: &Kube, namespace: &str, name: Option<&str>) -> Result<String> {
    if let Some(n) = name {
        return Ok(n.to_string());
    }
    let clusters = list_clusters(kube, Some(namespace), None).await?;
    let names: Vec<String> = clusters
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    match names.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::Resolve(format!(
            "no EtcdCluster in namespace {namespace}: name one, pick a namespace with -n, or use -A"
        ))),
        many => Err(Error::Resolve(format!(
            "namespace {namespace} has {} EtcdClusters ({}): name one",
            many.len(),
            many.join(", ")
        ))),
    }
}

/// Gets one EtcdCluster; "not found" names the clusters that do exist.
pub async fn get_cluster(kube: &Kube, namespace: &str, name: &str) -> Result<EtcdCluster> {
    let clusters: Api<EtcdCluster> = Api::namespaced(kube.client.clone(), namespace);
    match clusters.get(name).await {
        Ok(c) => Ok(c),
        Err(e) if is_not_found(&e) => {
            let others = list_clusters(kube, Some(namespace), None)
                .await
                .map(|l| {
                    l.into_iter()
                        .filter_map(|c| c.metadata.name)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            let hint = if others.is_empty() {
                format!("there is no EtcdCluster in namespace {namespace}")
            } else {
                format!("EtcdClusters there: {}", others.join(", "))
            };
            Err(Error::Resolve(format!(
                "EtcdCluster {namespace}/{name} not found ({hint})"
            )))
        }
        Err(e) => Err(describe(
            kube,
            &format!("get EtcdCluster {namespace}/{name}"),
            e,
        )),
    }
}

/// Reads everything `resolve` needs for one cluster.
pub async fn fetch(kube: &Kube, namespace: &str, name: &str) -> Result<ClusterObjects> {
    let cluster = get_cluster(kube, namespace, name).await?;
    fetch_around(kube, namespace, cluster).await
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
    let members = list_members(kube, namespace, &name).await?;
    let listed = list_cluster_pods(kube, namespace, &name).await;
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
                PodFacts::of(p),
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

/// What plugin mode takes from a member's Pod.
#[derive(Debug, Clone, Default)]
struct PodFacts {
    ip: Option<String>,
    probes: Option<PodProbes>,
}

impl PodFacts {
    fn of(pod: &Pod) -> PodFacts {
        PodFacts {
            ip: pod.status.as_ref().and_then(|s| s.pod_ip.clone()),
            probes: objects::pod_probes(pod),
        }
    }
}

/// Pod name → IP, and Pod name → probes, for the Pods read.
type MemberPods = (BTreeMap<String, String>, BTreeMap<String, PodProbes>);

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
            Some((key, PodFacts::of(p)))
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
/// Pod, else one GET per Pod.
///
/// The GETs go one after the other, as do the Secret reads below: on the
/// connection already open they take a millisecond or two each, while a
/// request sent alongside opens another connection, and the first request
/// on a new connection waited 40 ms for a delayed ACK in every measurement
/// here (kube's HTTP/1.1 client does not set TCP_NODELAY). `status` of a
/// 3-member cluster took about 75 ms with concurrent Pod GETs, 33 ms
/// without (docs/benchmarks.md).
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
    let (mut ips, mut probes) = (BTreeMap::new(), BTreeMap::new());
    for p in pod_names {
        let facts = match known(&p) {
            Some(facts) => facts.clone(),
            None => pods
                .get_opt(&p)
                .await
                .map_err(|e| describe(kube, &format!("get Pod {namespace}/{p}"), e))?
                .map(|pod| PodFacts::of(&pod))
                .unwrap_or_default(),
        };
        if let Some(ip) = facts.ip {
            ips.insert(p.clone(), ip);
        }
        if let Some(found) = facts.probes {
            probes.insert(p, found);
        }
    }
    Ok((ips, probes))
}

/// Reads the Secrets `cluster` names (one after the other, see
/// [`member_pods`]) and assembles what `resolve` needs.
async fn with_secrets(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
    members: Vec<EtcdMember>,
    (pod_ips, probes): MemberPods,
) -> Result<ClusterObjects> {
    let secrets_api: Api<Secret> = Api::namespaced(kube.client.clone(), namespace);
    let mut secrets = BTreeMap::new();
    for (secret, _) in secret_names(&cluster) {
        if secrets.contains_key(&secret) {
            continue;
        }
        let data = secrets_api
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
        secrets.insert(secret, data);
    }
    Ok(ClusterObjects {
        namespace: namespace.to_string(),
        cluster,
        members,
        pod_ips,
        probes,
        secrets,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn many_clusters_are_read_at_once_only_far_from_the_api_server() {
        use std::time::Duration;
        let ms = Duration::from_millis;
        for (first, clusters, near, want) in [
            (ms(2), 20, 3, 3),
            (ms(14), 20, 3, 3),
            (ms(15), 20, 3, 20),
            (ms(130), 20, 3, 20),
            (ms(130), 40, 3, 32),
            (ms(130), 5, 3, 5),
            (ms(130), 1, 3, 3),
            (ms(130), 200, 3, 32),
            (ms(2), 20, 8, 8),
            (ms(130), 20, 8, 20),
            (ms(130), 20, 48, 48),
        ] {
            assert_eq!(
                super::concurrency(first, clusters, near),
                want,
                "{first:?}, {clusters} clusters, {near} near"
            );
        }
    }

    use super::*;

    #[test]
    fn warning_headers_give_the_servers_words() {
        for (header, text) in [
            (
                r#"299 - "spec.trafficDistribution: \"PreferClose\" is deprecated; use \"PreferSameZone\"""#,
                r#"spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone""#,
            ),
            (
                r#"299 - "policy/v1beta1 PodSecurityPolicy is deprecated""#,
                "policy/v1beta1 PodSecurityPolicy is deprecated",
            ),
            (r#"299 - "a \\ b""#, r"a \ b"),
            ("something else", "something else"),
        ] {
            assert_eq!(warning_text(header), text, "{header}");
        }
        let warnings = ServerWarnings::default();
        let mut headers = http::HeaderMap::new();
        headers.append(
            http::header::WARNING,
            http::HeaderValue::from_static("299 - \"one\""),
        );
        headers.append(
            http::header::WARNING,
            http::HeaderValue::from_static("299 - \"two\""),
        );
        warnings.record(&headers);
        warnings.record(&headers);
        assert_eq!(warnings.take(), ["one", "two"]);
        assert!(warnings.take().is_empty());
    }
}
