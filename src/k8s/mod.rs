//! Plugin mode, the I/O half: a Kubernetes client configured the way kubectl
//! users expect (`--kubeconfig`, `KUBECONFIG` with several paths,
//! `--context`, `-n`, in-cluster config in a Pod, `--as` impersonation), and
//! the reads that feed `reach::cluster::resolve`.

pub mod crd;
pub mod objects;
pub mod portforward;
pub mod service;

use std::collections::BTreeMap;
use std::path::Path;

use futures::future::try_join_all;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::error::{Error, Result};
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
pub struct Kube {
    pub client: Client,
    pub default_namespace: String,
    pub server: String,
}

/// Whether this process runs in a Pod (service-account token mounted).
pub fn in_pod() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
        && Path::new("/var/run/secrets/kubernetes.io/serviceaccount/token").exists()
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
    let client = Client::try_from(config)
        .map_err(|e| Error::kube(format!("cannot build a client for {server}"), &server, e))?;
    Ok(Kube {
        client,
        default_namespace,
        server,
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

/// The EtcdClusters in `namespace`, or in every namespace when `None`.
pub async fn list_clusters(kube: &Kube, namespace: Option<&str>) -> Result<Vec<EtcdCluster>> {
    let api: Api<EtcdCluster> = match namespace {
        Some(ns) => Api::namespaced(kube.client.clone(), ns),
        None => Api::all(kube.client.clone()),
    };
    let where_ = match namespace {
        Some(ns) => format!("in namespace {ns}"),
        None => "in all namespaces".to_string(),
    };
    let mut list = api
        .list(&ListParams::default())
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
    let clusters = list_clusters(kube, Some(namespace)).await?;
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
            let others = list_clusters(kube, Some(namespace))
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

/// [`fetch`] for an EtcdCluster already read: its members, their Pods'
/// IPs and the Secrets it names.
pub async fn fetch_around(
    kube: &Kube,
    namespace: &str,
    cluster: EtcdCluster,
) -> Result<ClusterObjects> {
    let name = cluster.metadata.name.clone().unwrap_or_default();
    let members = list_members(kube, namespace, &name).await?;

    let pods: Api<Pod> = Api::namespaced(kube.client.clone(), namespace);
    let pod_names: Vec<String> = members
        .iter()
        .filter_map(|m| {
            m.status
                .as_ref()
                .and_then(|s| s.pod_name.clone())
                .filter(|p| !p.is_empty())
                .or_else(|| m.metadata.name.clone())
        })
        .collect();
    let pod_ips = try_join_all(pod_names.iter().map(|p| {
        let pods = pods.clone();
        async move {
            match pods.get_opt(p).await {
                Ok(pod) => Ok((
                    p.clone(),
                    pod.and_then(|pod| pod.status).and_then(|s| s.pod_ip),
                )),
                Err(e) => Err(describe(kube, &format!("get Pod {namespace}/{p}"), e)),
            }
        }
    }))
    .await?
    .into_iter()
    .filter_map(|(name, ip)| ip.map(|ip| (name, ip)))
    .collect::<BTreeMap<_, _>>();

    let secrets_api: Api<Secret> = Api::namespaced(kube.client.clone(), namespace);
    let mut secrets = BTreeMap::new();
    for (secret, _) in secret_names(&cluster) {
        let data = match secrets_api.get_opt(&secret).await {
            Ok(s) => s.map(|s| {
                s.data
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k, v.0))
                    .collect::<BTreeMap<_, _>>()
            }),
            Err(e) => {
                return Err(describe(
                    kube,
                    &format!("get Secret {namespace}/{secret}"),
                    e,
                ))
            }
        };
        secrets.insert(secret, data);
    }
    Ok(ClusterObjects {
        namespace: namespace.to_string(),
        cluster,
        members,
        pod_ips,
        secrets,
    })
}
