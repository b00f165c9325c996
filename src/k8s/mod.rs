//! Plugin mode, the I/O half: a Kubernetes client configured the way kubectl
//! users expect (`--kubeconfig`, `KUBECONFIG` with several paths,
//! `--context`, `-n`, in-cluster config in a Pod, `--as` impersonation),
//! and what every read shares (errors that name the action and the server,
//! the server's warnings, how many clusters to read at once). What a kind
//! of cluster reads is its source's (`crate::source`).

pub mod crd;
pub mod portforward;
pub mod runs;
pub mod service;
pub mod volumes;

use std::path::Path;

use kube::api::{Api, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::error::{Error, Result};

/// Where the tool found its Kubernetes settings.
#[derive(Debug, Clone, Default)]
pub struct KubeSettings {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub namespace: Option<String>,
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
    /// kubectl's `--request-timeout`: each request's answer waited for at
    /// most this long (`Some(ZERO)`: no limit; `None`: the defaults).
    pub request_timeout: Option<std::time::Duration>,
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
    pub(crate) pod_list_refused: std::sync::Arc<std::sync::atomic::AtomicBool>,
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
    if is_near(first) {
        near
    } else {
        clusters.clamp(near, FAR.max(near))
    }
}

/// Whether an API server whose first requests (each on a new connection)
/// came back in `first` is near: within 15 ms, three round trips of 5 ms.
/// Pure.
pub fn is_near(first: std::time::Duration) -> bool {
    first < std::time::Duration::from_millis(15)
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
    if let Some(limit) = settings.request_timeout {
        // The connection may take the same time; no limit is no limit.
        config.connect_timeout = (!limit.is_zero()).then_some(limit);
    }
    let client = client_of(config, sink, settings.request_timeout)
        .map_err(|e| Error::kube(format!("cannot build a client for {server}"), &server, e))?;
    Ok(Kube {
        client,
        default_namespace,
        server,
        warnings,
        pod_list_refused: Default::default(),
    })
}

/// The API server client of `config`: kube's own stack (the server's base
/// URI, its retries, authentication, impersonation headers, the
/// connect/read/write timeouts), `heard` taking each answer's warnings,
/// and TCP_NODELAY on every connection. Without it (kube's default
/// connector) the first request on a new connection waited about 40 ms for
/// the server's delayed ACK of the TLS handshake's last flight (Nagle), so
/// reads sent side by side, each on a connection of its own, cost more
/// near the server than the same reads one after the other.
fn client_of(
    config: Config,
    heard: ServerWarnings,
    request_timeout: Option<std::time::Duration>,
) -> std::result::Result<kube::Client, kube::Error> {
    use kube::client::ConfigExt;
    let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
    http.enforce_http(false);
    http.set_nodelay(true);
    let https = config.rustls_https_connector_with_connector(http)?;
    let mut connector = hyper_timeout::TimeoutConnector::new(https);
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    let pool = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(connector);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        // 429, 503 and 504 asked again, after the server's Retry-After (a
        // resource's storage still initializing answers 429), as kube does.
        .option_layer(config.default_retry.then(|| {
            tower::retry::RetryLayer::new(kube::client::retry::RetryPolicy::server_retry())
        }))
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_response(move |answer: http::Response<hyper::body::Incoming>| {
            heard.record(answer.headers());
            answer
        })
        // `--request-timeout`: each attempt until its answer's head (a
        // watch's or a port-forward's stream then runs on unbounded).
        .option_layer(
            request_timeout
                .filter(|limit| !limit.is_zero())
                .map(tower::timeout::TimeoutLayer::new),
        )
        .map_err(
            |e: hyper_util::client::legacy::Error| -> Box<dyn std::error::Error + Send + Sync> {
                Box::new(e)
            },
        )
        .service(pool);
    Ok(kube::Client::new(service, config.default_namespace))
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

/// A kubeconfig context a command over several reads: its name and the
/// API server its cluster names (`None` when the kubeconfig names none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextEntry {
    pub name: String,
    pub server: Option<String>,
}

/// The contexts to read from the kubeconfig the settings name: `asked`
/// (each checked, in the order given), or every one when `None`
/// (`--all-contexts`).
pub fn contexts(settings: &KubeSettings, asked: Option<&[String]>) -> Result<Vec<ContextEntry>> {
    let flag = match asked {
        Some(_) => "--context",
        None => "--all-contexts",
    };
    let Some(k) = read_kubeconfig(settings.kubeconfig.as_deref())? else {
        return Err(Error::usage(format!(
            "{flag}: contexts are read from a kubeconfig, and there is none (pass --kubeconfig or set KUBECONFIG; in a Pod the service account is the only identity)"
        )));
    };
    let known: Vec<ContextEntry> = k
        .contexts
        .iter()
        .map(|c| ContextEntry {
            name: c.name.clone(),
            server: c
                .context
                .as_ref()
                .and_then(|c| k.clusters.iter().find(|n| n.name == c.cluster))
                .and_then(|n| n.cluster.as_ref())
                .and_then(|c| c.server.clone()),
        })
        .collect();
    choose_contexts(known, asked)
}

/// `asked` among the kubeconfig's contexts `known`, or all of them; a name
/// it does not hold is a usage error naming it and those it holds. Pure.
pub fn choose_contexts(
    known: Vec<ContextEntry>,
    asked: Option<&[String]>,
) -> Result<Vec<ContextEntry>> {
    let Some(asked) = asked else {
        if known.is_empty() {
            return Err(Error::usage(
                "--all-contexts: the kubeconfig holds no context",
            ));
        }
        return Ok(known);
    };
    let missing: Vec<&str> = asked
        .iter()
        .filter(|a| !known.iter().any(|k| &k.name == *a))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        let names: Vec<&str> = known.iter().map(|k| k.name.as_str()).collect();
        return Err(Error::usage(format!(
            "--context {}: no such context in the kubeconfig (known: {})",
            missing.join(", --context "),
            names.join(", ")
        )));
    }
    Ok(asked
        .iter()
        .filter_map(|a| known.iter().find(|k| &k.name == a).cloned())
        .collect())
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
    fn contexts_are_chosen_from_the_kubeconfig() {
        let entry = |name: &str| ContextEntry {
            name: name.into(),
            server: Some(format!("https://{name}:6443")),
        };
        let known = vec![entry("a"), entry("b"), entry("c")];
        let names = |r: Result<Vec<ContextEntry>>| match r {
            Ok(v) => v.into_iter().map(|e| e.name).collect::<Vec<_>>().join(","),
            Err(e) => format!("error: {e}"),
        };
        let asked = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(names(choose_contexts(known.clone(), None)), "a,b,c");
        assert_eq!(
            names(choose_contexts(known.clone(), Some(&asked(&["c", "a"])))),
            "c,a"
        );
        assert_eq!(
            names(choose_contexts(
                known.clone(),
                Some(&asked(&["a", "x", "y"]))
            )),
            "error: --context x, --context y: no such context in the kubeconfig (known: a, b, c)"
        );
        assert!(matches!(
            choose_contexts(vec![], None),
            Err(Error::Usage(m)) if m.contains("--all-contexts: the kubeconfig holds no context")
        ));
    }

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
