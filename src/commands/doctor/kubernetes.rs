//! What `doctor` reads from Kubernetes about one cluster: where its
//! members run, the client Service's trafficDistribution, its runs and
//! policies, and who processes its EtcdDefrags.

use std::collections::BTreeMap;

use crate::k8s::{self, Kube};
use crate::plan::doctor::runs::DefragFacts;
use crate::plan::doctor::TrafficFacts;
use crate::report::ClusterRef;

/// What doctor reads from Kubernetes about one cluster.
#[derive(Default)]
pub(super) struct KubernetesFacts {
    pod_args: BTreeMap<String, Vec<String>>,
    pod_images: BTreeMap<String, String>,
    traffic: Option<TrafficFacts>,
    defrag: Option<DefragFacts>,
    unread: Vec<String>,
}

impl KubernetesFacts {
    /// Hands what was read to doctor's checks, with what the cluster's own
    /// objects say as its source read them when `session` was opened;
    /// what could not be read joins `unread`.
    pub(super) fn into_facts(
        self,
        session: &crate::session::Session,
        facts: &mut crate::plan::doctor::Facts<'_>,
        unread: &mut Vec<String>,
    ) {
        facts.spec = session.spec.clone();
        facts.operator = session.operator.clone();
        facts.pod_args = self.pod_args;
        facts.pod_images = self.pod_images;
        facts.traffic = self.traffic;
        facts.defrag = self.defrag;
        unread.extend(self.unread);
    }
}

/// Who may process EtcdDefrag besides this tool: the operator's grants
/// (RBAC, read as `--watch` reads it) and the `--watch` Deployments; each
/// `Err` says why it could not be read.
#[derive(Clone)]
pub(super) struct Processors {
    grants: std::result::Result<Vec<String>, String>,
    watchers: std::result::Result<Vec<String>, String>,
}

/// Who processes EtcdDefrag, as `kubernetes_facts` gets it: read already
/// (once for every cluster of `-A`), or to be read with the cluster's other
/// reads.
#[derive(Clone, Copy)]
pub(super) enum ProcessorsOf<'a> {
    Read(&'a Processors),
    ReadHere,
}

impl Processors {
    /// Reads who processes EtcdDefrag once for every cluster of each
    /// context `listed` read, every context's at once.
    pub(super) async fn read_each(listed: &crate::session::fleet::Listed) -> Vec<Processors> {
        futures::future::join_all(
            listed
                .places
                .iter()
                .map(|place| Processors::read(&place.kube, None)),
        )
        .await
    }

    /// Reads both, for `namespace`'s RoleBindings (every namespace's when
    /// `None`) and every namespace's Deployments.
    pub(super) async fn read(kube: &Kube, namespace: Option<&str>) -> Processors {
        use crate::controller::takeover;
        let grants = async {
            takeover::installed_processors(kube, namespace, &takeover::Me::default())
                .await
                .map(|g| g.iter().map(ToString::to_string).collect())
                .map_err(|e| e.to_string())
        };
        let watchers = k8s::runs::watchers(kube, namespace.unwrap_or(&kube.default_namespace));
        let (grants, watchers) = futures::join!(grants, watchers);
        Processors { grants, watchers }
    }
}

/// Where the members run (their Pods and nodes), the client Service's
/// trafficDistribution, and the cluster's runs and policies, all read at
/// once.
pub(super) async fn kubernetes_facts(
    kube: &Kube,
    c: &ClusterRef,
    read: Option<Vec<crate::source::MemberPod>>,
    processors: ProcessorsOf<'_>,
) -> KubernetesFacts {
    let service_name = crate::contract::client_service_name(&c.name);
    let processors = async {
        match processors {
            ProcessorsOf::Read(p) => std::borrow::Cow::Borrowed(p),
            ProcessorsOf::ReadHere => {
                std::borrow::Cow::Owned(Processors::read(kube, Some(&c.namespace)).await)
            }
        }
    };
    // The Pods as the session read them, with their nodes' zones.
    let placement = async {
        match read {
            Some(pods) => Ok(crate::source::zones(kube, pods).await),
            None => Err("its source read none"),
        }
    };
    let (pods, service, runs, processors) = futures::join!(
        placement,
        k8s::service::get(kube, &c.namespace, &service_name),
        k8s::runs::all_of(kube, Some(&c.namespace)),
        processors
    );
    let mut facts = KubernetesFacts::default();
    let mut defrag = DefragFacts {
        namespace: c.namespace.clone(),
        operator_grants: processors.grants.as_ref().ok().cloned(),
        watchers: processors.watchers.as_ref().ok().cloned(),
        ..Default::default()
    };
    if let Err(e) = &processors.grants {
        facts
            .unread
            .push(format!("who may process EtcdDefrag ({e})"));
    }
    if let Err(e) = &processors.watchers {
        facts
            .unread
            .push(format!("the kubectl etcd defrag --watch Deployments ({e})"));
    }
    match runs {
        Ok((runs, policies)) => {
            defrag.runs = crate::controller::activity::run_facts(&runs, c);
            defrag.policies = crate::controller::activity::policy_facts(&policies, c);
        }
        Err(e) => facts
            .unread
            .push(format!("the EtcdDefrag runs and policies ({e})")),
    }
    facts.defrag = Some(defrag);
    let pods = match pods {
        Ok(p) => p,
        Err(e) => {
            facts.unread.push(format!("the members' Pods ({e})"));
            return facts;
        }
    };
    facts.pod_args = pods
        .iter()
        .filter(|p| !p.args.is_empty())
        .map(|p| (p.member.clone(), p.args.clone()))
        .collect();
    facts.pod_images = pods
        .iter()
        .filter_map(|p| Some((p.member.clone(), p.image.clone()?)))
        .collect();
    match service {
        Ok(Some(svc)) => {
            if let Some(value) = crate::k8s::service::traffic_distribution(&svc) {
                facts.traffic = Some(traffic_facts(value, pods, &mut facts.unread));
            }
        }
        Ok(None) => {}
        Err(e) => facts.unread.push(format!("the client Service ({e})")),
    }
    facts
}

/// The client Service's trafficDistribution `value` and where the members
/// run (`pods`), for the traffic check; a node whose zone could not be read
/// is said once in `unread`, with the server's words, and the check then
/// says nothing of its zone.
pub(super) fn traffic_facts(
    value: String,
    pods: Vec<crate::source::MemberPod>,
    unread: &mut Vec<String>,
) -> TrafficFacts {
    use crate::plan::doctor::Zone;
    use crate::source::NodeZone;
    let mut unread_nodes = std::collections::BTreeMap::new();
    let placement = pods
        .into_iter()
        .map(|p| {
            let zone = match p.zone {
                NodeZone::NoNode => Zone::Unknown,
                NodeZone::Labelled(z) => Zone::Labelled(z),
                NodeZone::Unlabelled => Zone::Unlabelled,
                NodeZone::NodeMissing => Zone::NodeMissing,
                NodeZone::Unread(why) => {
                    if let Some(node) = &p.node {
                        unread_nodes.insert(node.clone(), why);
                    }
                    Zone::Unread
                }
            };
            (p.member, p.node, zone)
        })
        .collect();
    for (node, why) in unread_nodes {
        unread.push(format!("the zone of Node {node} ({why})"));
    }
    TrafficFacts { value, placement }
}
