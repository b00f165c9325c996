//! Every cluster in scope, each opened at its turn: the one fan-out
//! `status -A`, `doctor -A` and a fleet sweep's first look share.
//!
//! The clusters are listed once, beside the reads their source shares
//! between them (for an EtcdCluster: one LIST of every cluster's
//! EtcdMembers and one of their Pods, when those may be listed; otherwise
//! each cluster is read on its own). Each cluster's own reads are then its
//! Secrets. How many clusters are read at once depends on how far the API
//! server is (`k8s::concurrency`): a command gives its number for an API
//! server on the same machine, and far from it every cluster is read at
//! once, up to 32.

use std::future::Future;

use futures::stream::{self, StreamExt};

use super::{open_fetched, Connection, Session};
use crate::error::{Error, Result};
use crate::k8s::{self, Kube};
use crate::reach::flags::Flags;
use crate::report::ClusterRef;
use crate::source::{Found, Shared, Source};

/// Which clusters a fan-out lists.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// Every namespace, or the kubeconfig's (`-n`) only.
    pub all_namespaces: bool,
    /// A label selector (`-l`): one the API server cannot parse is a usage
    /// error naming `-l`.
    pub selector: Option<&'a str>,
    /// Whether the members and Pods are read in the shared LISTs (a
    /// command that reads each cluster again at its turn does not need
    /// them).
    pub shared: bool,
}

/// One listed cluster, opened: its reference, and its session or why it
/// could not be opened.
pub struct Opened {
    pub cluster: ClusterRef,
    /// The kind of cluster it is.
    pub kind: crate::reach::Kind,
    pub session: Result<Session>,
}

/// The clusters a fan-out lists, sorted by namespace and name.
pub struct Listed {
    pub kube: Kube,
    /// Where the clusters come from.
    pub source: Source,
    /// The one namespace listed; `None` for every namespace.
    pub namespace: Option<String>,
    clusters: Vec<Found>,
    shared: Option<Shared>,
    /// How long the first requests took: how far the API server is.
    took: std::time::Duration,
    connection: Connection,
}

impl Listed {
    /// Connects to the API server the flags name and lists the clusters
    /// of `scope` (and the shared LISTs beside them).
    pub async fn read(reach: &Flags, scope: Scope<'_>) -> Result<Listed> {
        let kube = k8s::connect(&super::kube_settings(reach)).await?;
        let source = Source::of(reach);
        let only = (!scope.all_namespaces).then(|| kube.default_namespace.clone());
        let namespace = only.as_deref();
        let asked = std::time::Instant::now();
        let (clusters, shared) =
            futures::join!(source.list(&kube, namespace, scope.selector), async {
                match scope.shared {
                    true => source
                        .shared(&kube, namespace)
                        .await
                        .inspect_err(|e| tracing::debug!("reading each cluster on its own: {e}"))
                        .ok(),
                    false => None,
                }
            });
        let clusters = clusters.map_err(|e| selector_refused(e, scope.selector))?;
        Ok(Listed {
            took: asked.elapsed(),
            namespace: only.clone(),
            kube,
            source,
            clusters,
            shared,
            connection: Connection::from(reach),
        })
    }

    /// The clusters listed, in order, each with its kind.
    pub fn clusters(&self) -> Vec<(ClusterRef, crate::reach::Kind)> {
        self.clusters
            .iter()
            .map(|f| (f.cluster.clone(), f.kind()))
            .collect()
    }

    /// Opens every listed cluster and hands it to `work`; the results come
    /// back in list order. The clusters' objects are read `near` at a time
    /// beside the API server (more far from it), and `work` runs for up to
    /// `at_most` clusters at once, never fewer than are being read.
    pub async fn each<T, F, Fut>(&self, near: usize, at_most: usize, work: F) -> Vec<T>
    where
        F: Fn(Opened) -> Fut,
        Fut: Future<Output = T>,
    {
        let reads = k8s::concurrency(self.took, self.clusters.len(), near);
        tracing::debug!("reading {reads} clusters' objects at once");
        let (kube, source, shared, connection) = (
            &self.kube,
            self.source,
            self.shared.as_ref(),
            &self.connection,
        );
        let work = &work;
        stream::iter(self.clusters.iter())
            .map(|found| async move {
                let fetched = source.fetch_found(kube, found, shared).await;
                (found.cluster.clone(), found.kind(), fetched)
            })
            .buffered(reads)
            .map(|(cluster, kind, fetched)| async move {
                let session = match fetched {
                    Ok(fetched) => open_fetched(kube, connection, fetched).await,
                    Err(e) => Err(e),
                };
                work(Opened {
                    cluster,
                    kind,
                    session,
                })
                .await
            })
            .buffered(at_most.max(reads))
            .collect()
            .await
    }
}

/// A label selector the API server refused to parse (400) is the user's
/// mistake: a usage error naming `-l`. Any other error is as it came.
fn selector_refused(e: Error, selector: Option<&str>) -> Error {
    match (e, selector) {
        (
            Error::Kube {
                action,
                server,
                source,
            },
            Some(selector),
        ) => match *source {
            kube::Error::Api(status) if status.code == 400 => Error::usage(format!(
                "-l {selector}: the API server rejected the label selector: {}",
                status.message
            )),
            other => Error::Kube {
                action,
                server,
                source: Box::new(other),
            },
        },
        (e, _) => e,
    }
}
