//! Every cluster in scope, each opened at its turn: the one fan-out
//! `status -A`, `doctor -A` and a fleet sweep's first look share, over the
//! kubeconfig's current context or several (`--context` more than once,
//! `--all-contexts`: each context's API server read at once, one that
//! cannot be reached a row of its own).
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
use crate::reach::flags::{Contexts, Flags};
use crate::report::{ClusterRef, ContextRow};
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
    /// Whether a control plane's etcd is listed (`status`, `doctor`: a
    /// row that names the command that reaches it); a sweep leaves it
    /// out: each is swept by name, through an agent of its own.
    pub control_planes: bool,
}

/// One listed cluster, opened: where it is, its reference (naming its
/// context when several are read), and its session or why it could not
/// be opened.
pub struct Opened {
    /// Which of the contexts read (`Listed::places`) it is in.
    pub place: usize,
    pub cluster: ClusterRef,
    /// The kind of cluster it is.
    pub kind: crate::reach::Kind,
    pub session: Result<Session>,
}

/// One listed cluster, not opened yet.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Which of the contexts read (`Listed::places`) it is in.
    pub place: usize,
    /// Its reference, naming its context when several are read.
    pub cluster: ClusterRef,
    pub kind: crate::reach::Kind,
}

/// The clusters a fan-out lists: those of each context read (one unless
/// several are asked), in context order, each context's sorted by
/// namespace and name.
pub struct Listed {
    /// Each context whose clusters were listed, in the order asked.
    pub places: Vec<Place>,
    /// Every context asked when several were (reached or not, in order);
    /// empty for one.
    pub contexts: Vec<ContextRow>,
    connection: Connection,
}

/// One context's API server and the clusters listed there.
pub struct Place {
    /// The context, when several are read.
    pub context: Option<String>,
    pub kube: Kube,
    /// Where the clusters come from.
    pub source: Source,
    /// The one namespace listed; `None` for every namespace.
    pub namespace: Option<String>,
    clusters: Vec<Found>,
    shared: Option<Shared>,
    /// How long the first requests took: how far the API server is.
    took: std::time::Duration,
}

/// Why one context's clusters were not listed: a selector the API server
/// refused is the user's mistake and ends the command; anything else is
/// that context's row.
enum Unlisted {
    Selector(Error),
    Context(Error),
}

impl Listed {
    /// Connects to the API server (of each context, when the flags ask for
    /// several) and lists the clusters of `scope` (and the shared LISTs
    /// beside them). Several contexts are read at once; one that cannot be
    /// reached or listed becomes its row in `contexts`.
    pub async fn read(reach: &Flags, scope: Scope<'_>) -> Result<Listed> {
        let settings = super::kube_settings(reach);
        let connection = Connection::from(reach);
        let asked = match &reach.contexts {
            Contexts::One => {
                let kube = k8s::connect(&settings).await?;
                let place = match Place::list(reach, kube, None, scope).await {
                    Ok(place) => place,
                    Err(Unlisted::Selector(e) | Unlisted::Context(e)) => return Err(e),
                };
                return Ok(Listed {
                    places: vec![place],
                    contexts: Vec::new(),
                    connection,
                });
            }
            Contexts::Named(names) => Some(names.as_slice()),
            Contexts::All => None,
        };
        let entries = k8s::contexts(&settings, asked)?;
        let reads = entries.iter().map(|entry| {
            let settings = k8s::KubeSettings {
                context: Some(entry.name.clone()),
                ..settings.clone()
            };
            async move {
                let kube = k8s::connect(&settings).await.map_err(Unlisted::Context)?;
                Place::list(reach, kube, Some(entry.name.clone()), scope).await
            }
        });
        let read = futures::future::join_all(reads).await;
        let (mut places, mut contexts) = (Vec::new(), Vec::new());
        for (entry, read) in entries.into_iter().zip(read) {
            let row = |clusters, error| ContextRow {
                name: entry.name.clone(),
                server: entry.server.clone(),
                clusters,
                error,
            };
            match read {
                Ok(place) => {
                    contexts.push(row(Some(place.clusters.len()), None));
                    places.push(place);
                }
                Err(Unlisted::Selector(e)) => return Err(e),
                Err(Unlisted::Context(e)) => {
                    tracing::debug!(context = %entry.name, "not listed: {e}");
                    contexts.push(row(None, Some(e.to_string())));
                }
            }
        }
        Ok(Listed {
            places,
            contexts,
            connection,
        })
    }

    /// Where the clusters come from (every context's alike).
    pub fn source(&self) -> Option<Source> {
        self.places.first().map(|p| p.source)
    }

    /// The clusters listed, in order, each with where it is and its kind.
    pub fn clusters(&self) -> Vec<Entry> {
        self.places
            .iter()
            .enumerate()
            .flat_map(|(place, p)| {
                p.clusters.iter().map(move |f| Entry {
                    place,
                    cluster: f.cluster.clone(),
                    kind: f.kind(),
                })
            })
            .collect()
    }

    /// Opens `entry`'s cluster again, reading its objects afresh in its
    /// kind (a sweep's turn), in its context.
    pub async fn open(&self, entry: &Entry) -> Result<Session> {
        let place = &self.places[entry.place];
        let cluster = &entry.cluster;
        let session = super::open_cluster(
            Source::only(entry.kind),
            &place.kube,
            &self.connection,
            &cluster.namespace,
            &cluster.name,
        )
        .await?;
        Ok(in_context(session, &place.context))
    }

    /// Opens every listed cluster and hands it to `work`; the results come
    /// back in list order. Within a context, the clusters' objects are read
    /// `near` at a time beside its API server (more far from it), and
    /// `work` runs for up to `at_most` clusters at once, never fewer than
    /// are being read. Contexts whose API servers are all near are gone
    /// over one after the other (this machine's cores are the limit, not
    /// the distance); when any is far, all at once.
    pub async fn each<T, F, Fut>(&self, near: usize, at_most: usize, work: F) -> Vec<T>
    where
        F: Fn(Opened) -> Fut,
        Fut: Future<Output = T>,
    {
        let (work, connection) = (&work, &self.connection);
        let places = self.places.iter().enumerate();
        if self.places.iter().all(Place::near) {
            let mut all = Vec::new();
            for (at, place) in places {
                all.extend(place.each(at, near, at_most, connection, work).await);
            }
            return all;
        }
        futures::future::join_all(
            places.map(|(at, place)| place.each(at, near, at_most, connection, work)),
        )
        .await
        .into_iter()
        .flatten()
        .collect()
    }
}

impl Place {
    /// Lists the clusters of `scope` on `kube` (and the shared LISTs
    /// beside them).
    async fn list(
        reach: &Flags,
        kube: Kube,
        context: Option<String>,
        scope: Scope<'_>,
    ) -> std::result::Result<Place, Unlisted> {
        let source = match scope.control_planes {
            true => Source::of(reach),
            false => Source::of(reach).without_control_planes(),
        };
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
        let mut clusters = clusters.map_err(|e| selector_refused(e, scope.selector))?;
        // Every row and line about a cluster names its context.
        for found in &mut clusters {
            found.cluster.context = context.clone();
        }
        Ok(Place {
            took: asked.elapsed(),
            namespace: only.clone(),
            context,
            kube,
            source,
            clusters,
            shared,
        })
    }

    /// Whether its API server answered the first reads from near by.
    fn near(&self) -> bool {
        k8s::is_near(self.took)
    }

    async fn each<T, F, Fut>(
        &self,
        at: usize,
        near: usize,
        at_most: usize,
        connection: &Connection,
        work: &F,
    ) -> Vec<T>
    where
        F: Fn(Opened) -> Fut,
        Fut: Future<Output = T>,
    {
        let reads = k8s::concurrency(self.took, self.clusters.len(), near);
        tracing::debug!("reading {reads} clusters' objects at once");
        let (kube, source, shared) = (&self.kube, self.source, self.shared.as_ref());
        let context = &self.context;
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
                    place: at,
                    cluster,
                    kind,
                    session: session.map(|s| in_context(s, context)),
                })
                .await
            })
            .buffered(at_most.max(reads))
            .collect()
            .await
    }
}

/// `session`, its reports and advice naming `context` (its cluster was
/// resolved from objects, which do not know which context read them).
fn in_context(mut session: Session, context: &Option<String>) -> Session {
    session.target.cluster = session
        .target
        .cluster
        .map(|c| c.in_context(context.clone()));
    session
}

/// A label selector the API server refused to parse (400) is the user's
/// mistake: a usage error naming `-l`. Any other error is as it came.
fn selector_refused(e: Error, selector: Option<&str>) -> Unlisted {
    match (e, selector) {
        (
            Error::Kube {
                action,
                server,
                source,
            },
            Some(selector),
        ) => match *source {
            kube::Error::Api(status) if status.code == 400 => {
                Unlisted::Selector(Error::usage(format!(
                    "-l {selector}: the API server rejected the label selector: {}",
                    status.message
                )))
            }
            other => Unlisted::Context(Error::Kube {
                action,
                server,
                source: Box::new(other),
            }),
        },
        (e, _) => Unlisted::Context(e),
    }
}
