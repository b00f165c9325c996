//! Where plugin mode's clusters come from: one interface over the kinds of
//! cluster the tool finds on Kubernetes. A kind lists its clusters, picks
//! the one a command line means, reads one and resolves it to the members
//! to dial (TLS, credentials, quota), and says what its own objects say of
//! the cluster (an operator's status, the spec facts `doctor` checks, where
//! the members run). `session` and the commands about etcd see only a
//! [`ClusterRef`], a [`Found`] cluster and a [`Fetched`] one.
//!
//! The kinds today ([`Kind`]): the cozystack etcd-operator's EtcdCluster
//! (`cozystack`), the etcd project's own operator's (`etcdio`), and a
//! control plane's own etcd, static Pods (`controlplane`). A command looks
//! in every kind the API server serves unless `--kind` names one
//! ([`Source`]); a name held by two kinds is refused, naming both. A
//! control plane's etcd is not opened here: its client certificates are on
//! its nodes, and reading it ends with [`Error::OnNode`], on which the
//! command runs there instead (`crate::agent`).
//! Adding a kind is a variant of [`Kind`], a module beside the others with
//! its reads and its pure resolve, its tests, and a line in docs/house.md;
//! nothing above `source` changes.

pub mod controlplane;
pub mod cozystack;
pub mod etcdio;
pub mod pods;
pub(crate) mod read;

use crate::error::{Error, Result};
use crate::k8s::crd::EtcdCluster;
use crate::k8s::Kube;
use crate::kubelet::PodProbes;
use crate::look::OperatorSays;
use crate::plan::doctor::ClusterSpecFacts;
use crate::reach::flags::Flags;
use crate::reach::{ClusterRef, Credentials, QuotaFallback, Scheme, TlsMaterial};
use kube::api::Api;

/// A kind of cluster on Kubernetes: the cozystack operator's EtcdCluster,
/// its EtcdMembers, their Pods and Secrets (docs/contract.md); the etcd
/// project's operator's EtcdCluster, its StatefulSet's Pods and TLS
/// Secrets.
pub use crate::reach::Kind;

/// Where a command looks for clusters: the kind `--kind` names, else every
/// kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    only: Option<Kind>,
    /// Whether a control plane's etcd is looked for without `--kind`
    /// naming it (not by a sweep over many clusters: each is reached
    /// through an agent of its own, by name).
    control_planes: bool,
}

/// One listed cluster: its reference, and what was read of it so that
/// opening it need not read it again.
#[derive(Debug, Clone)]
pub struct Found {
    pub cluster: ClusterRef,
    object: Object,
}

#[derive(Debug, Clone)]
enum Object {
    Cozystack(Box<EtcdCluster>),
    EtcdIo(Box<etcdio::objects::EtcdCluster>),
    ControlPlane(Box<controlplane::OnNode>),
}

impl Found {
    /// The kind this cluster is of.
    pub fn kind(&self) -> Kind {
        match self.object {
            Object::Cozystack(_) => Kind::Cozystack,
            Object::EtcdIo(_) => Kind::EtcdIo,
            Object::ControlPlane(_) => Kind::ControlPlane,
        }
    }
}

/// What a fan-out reads once for every cluster it lists (every cluster's
/// members and their Pods, when those may be listed), so that each
/// cluster's own reads are few.
pub struct Shared {
    cozystack: Option<cozystack::Prefetched>,
    etcdio: Option<etcdio::Prefetched>,
}

/// One cluster read and resolved: the members to dial, and what the
/// cluster's own objects say of it.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub resolved: Resolved,
    /// What the operator's status says, for a kind that has one.
    pub operator: Option<OperatorSays>,
    /// The spec facts `doctor` checks, for a kind that declares them.
    pub spec: Option<ClusterSpecFacts>,
    /// Where the members run, from the Pods read (zones not read yet), for
    /// a kind whose Pods were read.
    pub placement: Option<Vec<MemberPod>>,
}

/// A member as the cluster's objects declare it, without dialing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub name: String,
    /// etcd's member ID, once recorded.
    pub id: Option<u64>,
}

/// One member to dial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedMember {
    /// The EtcdMember name (= Pod name = etcd member name).
    pub name: String,
    pub pod: String,
    /// `<member>.<S>.<ns>.svc`: what its certificate is verified against.
    pub dns_name: String,
    pub pod_ip: Option<String>,
    /// `status.memberID` (16 hex digits) once the operator has recorded it.
    pub member_id: Option<u64>,
    /// Its Pod's etcd container probes, when the Pod exists.
    pub probes: Option<PodProbes>,
}

/// A resolved cluster, ready to become a `Target`.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub cluster: ClusterRef,
    pub scheme: Scheme,
    pub members: Vec<ResolvedMember>,
    pub tls: Option<TlsMaterial>,
    pub credentials: Option<Credentials>,
    pub quota: QuotaFallback,
    /// Things the user should know (a fallback was used).
    pub notes: Vec<String>,
}

/// The label zone-aware routing reads.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// What is known of the zone of the node a member's Pod runs on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum NodeZone {
    /// The Pod is missing or not scheduled: no node to ask.
    #[default]
    NoNode,
    /// The node's [`ZONE_LABEL`].
    Labelled(String),
    /// The node exists and carries no zone label.
    Unlabelled,
    /// The Pod names a node the API server does not have.
    NodeMissing,
    /// The node could not be read (why).
    Unread(String),
}

/// One member's Pod as doctor sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberPod {
    /// The EtcdMember's name.
    pub member: String,
    /// `None` when the Pod is missing or not scheduled.
    pub node: Option<String>,
    /// What was learned of that node's zone.
    pub zone: NodeZone,
    /// The etcd container's command and arguments (every container's when
    /// none is named `etcd`).
    pub args: Vec<String>,
    /// The Pod: its namespace and name (`None` when it is missing).
    pub pod: Option<(String, String)>,
    /// The Pod volume holding etcd's `--data-dir` (`None`: not found).
    pub data_volume: Option<DataVolume>,
    /// The etcd container's image (`localhost/etcd:v3.6.16`).
    pub image: Option<String>,
}

/// The Pod volume a member keeps its data on: the one the etcd container
/// mounts at the longest prefix of its `--data-dir`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataVolume {
    /// The volume's name in the Pod spec (the kubelet's statistics name it).
    pub name: String,
    /// `hostPath` volumes: the folder on the node.
    pub host_path: Option<String>,
}

impl Kind {
    /// Every kind, in the order a name is looked up and clusters listed.
    pub const ALL: [Kind; 3] = [Kind::Cozystack, Kind::EtcdIo, Kind::ControlPlane];

    /// The name of a cluster object of this kind, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Cozystack => "EtcdCluster",
            Kind::EtcdIo => etcdio::NOUN,
            Kind::ControlPlane => controlplane::NOUN,
        }
    }

    /// The kind's API group.
    pub fn group(self) -> &'static str {
        match self {
            Kind::Cozystack => crate::contract::GROUP,
            Kind::EtcdIo => etcdio::objects::GROUP,
            // Pods: the core group.
            Kind::ControlPlane => "v1 Pods",
        }
    }

    /// The clusters of this kind in `namespace` (every namespace when
    /// `None`), sorted by namespace and name.
    async fn list(
        self,
        kube: &Kube,
        namespace: Option<&str>,
        selector: Option<&str>,
        every: bool,
    ) -> Result<Vec<Found>> {
        Ok(match self {
            Kind::Cozystack => cozystack::list_clusters(kube, namespace, selector)
                .await?
                .into_iter()
                .map(|c| Found {
                    cluster: ClusterRef::from(&c),
                    object: Object::Cozystack(Box::new(c)),
                })
                .collect(),
            Kind::EtcdIo => etcdio::list_clusters(kube, namespace, selector)
                .await?
                .into_iter()
                .map(|c| Found {
                    cluster: ClusterRef::from(&c),
                    object: Object::EtcdIo(Box::new(c)),
                })
                .collect(),
            Kind::ControlPlane => controlplane::list_clusters(kube, namespace, selector, every)
                .await?
                .into_iter()
                .map(|c| Found {
                    cluster: c.cluster.clone(),
                    object: Object::ControlPlane(Box::new(c)),
                })
                .collect(),
        })
    }

    async fn fetch(self, kube: &Kube, namespace: &str, name: &str) -> Result<Fetched> {
        match self {
            Kind::Cozystack => cozystack::fetched(&cozystack::fetch(kube, namespace, name).await?),
            Kind::EtcdIo => etcdio::fetched(&etcdio::fetch(kube, namespace, name).await?),
            Kind::ControlPlane => Err(controlplane::run_on_its_node(
                &controlplane::fetch(kube, namespace, name, true)
                    .await?
                    .cluster,
            )),
        }
    }
}

/// Whether an error reading `kind`, looking in every kind, means only
/// that this API server does not serve the kind, or (for a kind other than
/// the first) that this identity may not read it: the kind is then passed
/// over. The first kind's refusals are said, as before there were others.
fn passed_over(kind: Kind, e: &crate::error::Error) -> bool {
    is_unserved(e) || (kind != Kind::Cozystack && api_code(e) == Some(403))
}

/// A LIST of a kind the API server does not serve: its 404 ("404 page not
/// found" when the group is unknown, "the server could not find the
/// requested resource" when only the kind is).
fn is_unserved(e: &crate::error::Error) -> bool {
    api_code(e) == Some(404)
}

/// The API server's status code of a refused request.
fn api_code(e: &crate::error::Error) -> Option<u16> {
    match e {
        Error::Kube { source, .. } => match source.as_ref() {
            kube::Error::Api(status) => Some(status.code),
            _ => None,
        },
        _ => None,
    }
}

impl Source {
    /// Where the flags say to look: the kind `--kind` names, else every
    /// kind.
    pub fn of(reach: &Flags) -> Source {
        Source {
            only: reach.kind,
            control_planes: true,
        }
    }

    /// Only `kind`: a listed cluster opened again in its own kind.
    pub fn only(kind: Kind) -> Source {
        Source {
            only: Some(kind),
            control_planes: true,
        }
    }

    /// This source without control planes' etcd, unless `--kind` names
    /// that kind.
    pub fn without_control_planes(self) -> Source {
        Source {
            control_planes: false,
            ..self
        }
    }

    fn kinds(self) -> Vec<Kind> {
        match self.only {
            Some(k) => vec![k],
            None => Kind::ALL
                .into_iter()
                .filter(|k| self.control_planes || *k != Kind::ControlPlane)
                .collect(),
        }
    }

    /// The name of a cluster object, for messages: its kind's when one is
    /// chosen (every kind's object is called EtcdCluster).
    pub fn noun(self) -> &'static str {
        self.only.map_or("EtcdCluster", Kind::noun)
    }

    /// The clusters in `namespace` (every namespace when `None`), sorted by
    /// namespace, name and kind; only those matching the label `selector`
    /// when one is given (the API server parses it: a malformed one is its
    /// 400). Looking in every kind, a kind the server does not serve, or
    /// this identity may not list, is passed over; the first kind's error
    /// is said when no kind could be listed.
    pub async fn list(
        self,
        kube: &Kube,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<Found>> {
        let kinds = self.kinds();
        // Every static Pod running etcd only when that kind is asked for.
        let every = self.only == Some(Kind::ControlPlane);
        let listed = futures::future::join_all(
            kinds
                .iter()
                .map(|k| k.list(kube, namespace, selector, every)),
        )
        .await;
        let mut found = Vec::new();
        let mut first_error = None;
        for (kind, result) in kinds.iter().zip(listed) {
            match result {
                Ok(mut clusters) => found.append(&mut clusters),
                Err(e) if self.only.is_none() && passed_over(*kind, &e) => {
                    tracing::debug!("{} passed over: {e}", kind.noun());
                }
                Err(e) if is_unserved(&e) => {
                    first_error.get_or_insert(Error::Resolve(format!(
                        "this API server serves no EtcdCluster of {} (--kind {}): is its operator installed? ({e})",
                        kind.group(),
                        kind.as_str()
                    )));
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        found.sort_by(|a, b| {
            (&a.cluster.namespace, &a.cluster.name, a.kind()).cmp(&(
                &b.cluster.namespace,
                &b.cluster.name,
                b.kind(),
            ))
        });
        Ok(found)
    }

    /// The reads a fan-out over `namespace` (every namespace when `None`)
    /// shares between its clusters, for each kind that has clusters there.
    pub async fn shared(self, kube: &Kube, namespace: Option<&str>) -> Result<Shared> {
        let cozystack = match self.kinds().contains(&Kind::Cozystack) {
            true => Some(cozystack::prefetch(kube, namespace).await?),
            false => None,
        };
        let etcdio = match self.only == Some(Kind::EtcdIo) {
            true => Some(etcdio::prefetch(kube, namespace).await?),
            false => None,
        };
        Ok(Shared { cozystack, etcdio })
    }

    /// The cluster a command means in `namespace`, as (namespace, name):
    /// the one `named` (its kind is found when it is read), or the
    /// namespace's only one (an error naming them when there are several,
    /// or saying where to look when there is none). A namespace without
    /// any means the control plane's etcd, when there is one (in
    /// [`controlplane::NAMESPACE`]): what `kubectl etcd status` shows on a
    /// cluster that runs no etcd operator.
    pub async fn choose(
        self,
        kube: &Kube,
        namespace: &str,
        named: Option<&str>,
    ) -> Result<(String, String)> {
        if let Some(n) = named {
            return Ok((namespace.to_string(), n.to_string()));
        }
        let mut found = self.list(kube, Some(namespace), None).await?;
        let control_plane = matches!(self.only, None | Some(Kind::ControlPlane));
        if found.is_empty() && control_plane && namespace != controlplane::NAMESPACE {
            // The control plane's, unless it cannot be read.
            found = Source::only(Kind::ControlPlane)
                .list(kube, Some(controlplane::NAMESPACE), None)
                .await
                .unwrap_or_default();
        }
        // Each with its kind when the namespace holds more than one kind.
        let mixed = found.iter().any(|f| f.kind() != found[0].kind());
        let names: Vec<String> = found
            .iter()
            .map(|f| match mixed {
                false => f.cluster.name.clone(),
                true => format!("{} ({})", f.cluster.name, f.kind().as_str()),
            })
            .collect();
        let noun = self.noun();
        match found.as_slice() {
            [one] => Ok((one.cluster.namespace.clone(), one.cluster.name.clone())),
            [] => Err(Error::Resolve(format!(
                "no {noun} in namespace {namespace}: name one, pick a namespace with -n, or use -A"
            ))),
            many => Err(Error::Resolve(format!(
                "namespace {namespace} has {} {noun}s ({}): name one",
                many.len(),
                names.join(", ")
            ))),
        }
    }

    /// The names of the clusters in `namespace`, for completion.
    pub async fn names(self, kube: &Kube, namespace: &str) -> Result<Vec<String>> {
        let mut names: Vec<String> = self
            .list(kube, Some(namespace), None)
            .await?
            .into_iter()
            .map(|f| f.cluster.name)
            .collect();
        names.dedup();
        Ok(names)
    }

    /// Reads cluster `namespace/name` and resolves it; "not found" names
    /// the clusters that do exist. Looking in every kind, the kinds are
    /// read at once; a name two kinds hold is refused, naming both and the
    /// flag that picks one.
    pub async fn fetch(self, kube: &Kube, namespace: &str, name: &str) -> Result<Fetched> {
        if let Some(kind) = self.only {
            return kind.fetch(kube, namespace, name).await;
        }
        let other: Api<etcdio::objects::EtcdCluster> =
            Api::namespaced(kube.client.clone(), namespace);
        let (cozystack, etcdio) =
            futures::join!(cozystack::fetch(kube, namespace, name), other.get_opt(name));
        let etcdio = etcdio
            .inspect_err(|e| tracing::debug!("{} passed over: {e}", Kind::EtcdIo.noun()))
            .ok()
            .flatten();
        match (cozystack, etcdio) {
            (Ok(_), Some(_)) => Err(Error::usage(two_kinds(namespace, name))),
            (Err(_), Some(cluster)) => {
                let objects = etcdio::fetch_listed(kube, cluster, None).await?;
                etcdio::fetched(&objects)
            }
            (Err(e), None) => Err(controlplane::or_not_found(kube, namespace, name, e).await),
            (Ok(objects), None) => cozystack::fetched(&objects),
        }
    }

    /// [`Source::fetch`] for a listed cluster: from the shared reads when
    /// there are some, else read around it on its own.
    pub async fn fetch_found(
        self,
        kube: &Kube,
        found: &Found,
        shared: Option<&Shared>,
    ) -> Result<Fetched> {
        match &found.object {
            Object::Cozystack(cluster) => {
                let prefetched = shared.and_then(|s| s.cozystack.as_ref());
                let objects =
                    cozystack::fetch_listed(kube, cluster.as_ref().clone(), prefetched).await?;
                cozystack::fetched(&objects)
            }
            Object::EtcdIo(cluster) => {
                let prefetched = shared.and_then(|s| s.etcdio.as_ref());
                let objects =
                    etcdio::fetch_listed(kube, cluster.as_ref().clone(), prefetched).await?;
                etcdio::fetched(&objects)
            }
            Object::ControlPlane(on_node) => Err(controlplane::run_on_its_node(&on_node.cluster)),
        }
    }

    /// The members cluster `namespace/name` declares, sorted by name, read
    /// without its Secrets (for an identity that may not read them).
    pub async fn declared_members(
        self,
        kube: &Kube,
        namespace: &str,
        name: &str,
    ) -> Result<Vec<Declared>> {
        let cozystack = match self.only {
            Some(Kind::EtcdIo) => None,
            _ => Some(cozystack::list_members(kube, namespace, name).await),
        };
        let mut members: Vec<Declared> = match cozystack {
            Some(Ok(listed)) if !listed.is_empty() || self.only.is_some() => listed
                .iter()
                .map(|m| Declared {
                    name: m.metadata.name.clone().unwrap_or_default(),
                    id: m
                        .status
                        .as_ref()
                        .and_then(|s| s.member_id.as_deref())
                        .and_then(|id| u64::from_str_radix(id, 16).ok()),
                })
                .collect(),
            // No EtcdMember (or none readable): the etcd project's kind,
            // else what the first kind said.
            cozystack => match (etcdio::get_cluster(kube, namespace, name).await, cozystack) {
                (Ok(cluster), _) => cluster
                    .status
                    .map(|s| s.members)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|m| Declared {
                        id: u64::from_str_radix(&m.id, 16).ok(),
                        name: m.name,
                    })
                    .collect(),
                (Err(_), Some(Err(e))) => return Err(e),
                (Err(_), Some(Ok(_))) => Vec::new(),
                (Err(e), None) => return Err(e),
            },
        };
        members.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(members)
    }

    /// The cluster and member of member Pod `pod` in `namespace`, as
    /// `(cluster, member)`: the etcd-operator plugin's `-p POD`.
    pub async fn member_of_pod(
        self,
        kube: &Kube,
        namespace: &str,
        pod: &str,
    ) -> Result<(String, String)> {
        match self.only {
            Some(Kind::Cozystack) => cozystack::member_of_pod(kube, namespace, pod).await,
            Some(Kind::EtcdIo) => etcdio::member_of_pod(kube, namespace, pod).await,
            Some(Kind::ControlPlane) => controlplane::member_of_pod(kube, namespace, pod).await,
            None => match cozystack::member_of_pod(kube, namespace, pod).await {
                Ok(found) => Ok(found),
                Err(e) => etcdio::member_of_pod(kube, namespace, pod)
                    .await
                    .map_err(|_| e),
            },
        }
    }
}

/// The zones of the nodes `pods` (as the session read them) run on, every
/// node read at once: the same for every kind.
pub async fn zones(kube: &Kube, pods: Vec<MemberPod>) -> Vec<MemberPod> {
    pods::with_zones(kube, pods).await
}

/// The refusal for a name two kinds hold.
fn two_kinds(namespace: &str, name: &str) -> String {
    let both: Vec<String> = [Kind::Cozystack, Kind::EtcdIo]
        .iter()
        .map(|k| format!("{} ({})", k.group(), k.as_str()))
        .collect();
    format!(
        "{namespace}/{name} is an EtcdCluster of two kinds, {}: pick one with --kind {} or --kind {}",
        both.join(" and "),
        Kind::Cozystack.as_str(),
        Kind::EtcdIo.as_str()
    )
}

/// For a command only the cozystack kind serves (its operator's own
/// objects: the client Service's traffic annotation): the refusal for
/// cluster `namespace/name` of the etcd project's kind, saying why
/// (`lacks`).
pub fn other_kind_refusal(namespace: &str, name: &str, command: &str, lacks: &str) -> Error {
    Error::Resolve(format!(
        "{} {namespace}/{name}: `{command}` works on the etcd-operator's (cozystack) clusters only: {lacks}",
        Kind::EtcdIo.noun()
    ))
}

/// Whether `namespace/name` is a cluster of the etcd project's kind (a
/// failed read says no).
pub async fn is_etcdio(kube: &Kube, namespace: &str, name: &str) -> bool {
    let api: Api<etcdio::objects::EtcdCluster> = Api::namespaced(kube.client.clone(), namespace);
    matches!(api.get_opt(name).await, Ok(Some(_)))
}
