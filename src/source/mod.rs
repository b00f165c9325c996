//! Where plugin mode's clusters come from: one interface over the kinds of
//! cluster the tool finds on Kubernetes. A kind lists its clusters, picks
//! the one a command line means, reads one and resolves it to the members
//! to dial (TLS, credentials, quota), and says what its own objects say of
//! the cluster (an operator's status, the spec facts `doctor` checks, where
//! the members run). `session` and the commands about etcd see only a
//! [`ClusterRef`], a [`Found`] cluster and a [`Fetched`] one.
//!
//! The kinds today: [`Source::Cozystack`], the etcd-operator's EtcdCluster
//! (`cozystack`). Adding one is a variant here, a module beside
//! `cozystack` with its reads and its pure resolve, its tests, and a line
//! in docs/house.md; nothing above `source` changes.

pub mod cozystack;

use crate::error::Result;
use crate::k8s::crd::EtcdCluster;
use crate::k8s::Kube;
use crate::kubelet::PodProbes;
use crate::look::OperatorSays;
use crate::plan::doctor::ClusterSpecFacts;
use crate::reach::flags::Flags;
use crate::reach::{ClusterRef, Credentials, QuotaFallback, Scheme, TlsMaterial};

/// A kind of cluster on Kubernetes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// etcd-operator's `EtcdCluster`, its `EtcdMember`s, their Pods and
    /// Secrets (docs/contract.md).
    Cozystack,
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
}

/// What a fan-out reads once for every cluster it lists (every cluster's
/// members and their Pods, when those may be listed), so that each
/// cluster's own reads are few.
pub struct Shared(SharedObjects);

enum SharedObjects {
    Cozystack(cozystack::Prefetched),
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

impl Source {
    /// The kind the flags reach. Today there is one.
    pub fn of(_reach: &Flags) -> Source {
        Source::Cozystack
    }

    /// The name of a cluster object of this kind, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Source::Cozystack => "EtcdCluster",
        }
    }

    /// The clusters in `namespace` (every namespace when `None`), sorted by
    /// namespace and name; only those matching the label `selector` when
    /// one is given (the API server parses it: a malformed one is its 400).
    pub async fn list(
        self,
        kube: &Kube,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<Found>> {
        match self {
            Source::Cozystack => Ok(cozystack::list_clusters(kube, namespace, selector)
                .await?
                .into_iter()
                .map(|c| Found {
                    cluster: ClusterRef::from(&c),
                    object: Object::Cozystack(Box::new(c)),
                })
                .collect()),
        }
    }

    /// The reads a fan-out over `namespace` (every namespace when `None`)
    /// shares between its clusters.
    pub async fn shared(self, kube: &Kube, namespace: Option<&str>) -> Result<Shared> {
        match self {
            Source::Cozystack => Ok(Shared(SharedObjects::Cozystack(
                cozystack::prefetch(kube, namespace).await?,
            ))),
        }
    }

    /// The cluster a command means in `namespace`: the one `named`, or the
    /// namespace's only one (an error naming them when there are several,
    /// or saying where to look when there is none).
    pub async fn choose(self, kube: &Kube, namespace: &str, named: Option<&str>) -> Result<String> {
        match self {
            Source::Cozystack => cozystack::choose_cluster(kube, namespace, named).await,
        }
    }

    /// The names of the clusters in `namespace`, for completion.
    pub async fn names(self, kube: &Kube, namespace: &str) -> Result<Vec<String>> {
        Ok(self
            .list(kube, Some(namespace), None)
            .await?
            .into_iter()
            .map(|f| f.cluster.name)
            .collect())
    }

    /// Reads cluster `namespace/name` and resolves it; "not found" names
    /// the clusters that do exist.
    pub async fn fetch(self, kube: &Kube, namespace: &str, name: &str) -> Result<Fetched> {
        match self {
            Source::Cozystack => {
                cozystack::fetched(&cozystack::fetch(kube, namespace, name).await?)
            }
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
        match (&found.object, shared.map(|s| &s.0)) {
            (Object::Cozystack(cluster), shared) => {
                let prefetched = shared.map(|SharedObjects::Cozystack(p)| p);
                let objects =
                    cozystack::fetch_listed(kube, cluster.as_ref().clone(), prefetched).await?;
                cozystack::fetched(&objects)
            }
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
        match self {
            Source::Cozystack => {
                let mut members: Vec<Declared> = cozystack::list_members(kube, namespace, name)
                    .await?
                    .iter()
                    .map(|m| Declared {
                        name: m.metadata.name.clone().unwrap_or_default(),
                        id: m
                            .status
                            .as_ref()
                            .and_then(|s| s.member_id.as_deref())
                            .and_then(|id| u64::from_str_radix(id, 16).ok()),
                    })
                    .collect();
                members.sort_by(|a, b| a.name.cmp(&b.name));
                Ok(members)
            }
        }
    }

    /// The cluster and member of member Pod `pod` in `namespace`, as
    /// `(cluster, member)`: the etcd-operator plugin's `-p POD`.
    pub async fn member_of_pod(
        self,
        kube: &Kube,
        namespace: &str,
        pod: &str,
    ) -> Result<(String, String)> {
        match self {
            Source::Cozystack => cozystack::member_of_pod(kube, namespace, pod).await,
        }
    }

    /// The zones of the nodes `pods` (as the session read them) run on,
    /// every node read at once.
    pub async fn zones(self, kube: &Kube, pods: Vec<MemberPod>) -> Vec<MemberPod> {
        match self {
            Source::Cozystack => cozystack::placement::with_zones(kube, pods).await,
        }
    }
}
