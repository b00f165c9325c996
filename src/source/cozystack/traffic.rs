//! The EtcdCluster's side of the trafficDistribution contract
//! (docs/contract.md#traffic-distribution): the annotation the operator
//! reads, kept in step with the client Service (`k8s::service`).

use kube::api::{Api, Patch, PatchParams};

use crate::contract::ANNOTATION;
use crate::error::Result;
use crate::k8s::crd::EtcdCluster;
use crate::k8s::service::{annotation_patch, ANNOTATION_MANAGER};
use crate::k8s::{describe, Kube};

/// Sets (or removes, with `None`) the annotation on the EtcdCluster and
/// returns the cluster as stored (or as it would be, with `dry_run`).
pub async fn set_annotation(
    kube: &Kube,
    namespace: &str,
    cluster: &str,
    value: Option<&str>,
    resource_version: Option<&str>,
    dry_run: bool,
) -> Result<EtcdCluster> {
    let api: Api<EtcdCluster> = Api::namespaced(kube.client.clone(), namespace);
    let params = PatchParams {
        field_manager: Some(ANNOTATION_MANAGER.into()),
        dry_run,
        ..Default::default()
    };
    let what = match value {
        Some(v) => format!("annotate EtcdCluster {namespace}/{cluster} with {ANNOTATION}={v}"),
        None => format!("remove annotation {ANNOTATION} from EtcdCluster {namespace}/{cluster}"),
    };
    api.patch(
        cluster,
        &params,
        &Patch::Merge(annotation_patch(value, resource_version)),
    )
    .await
    .map_err(|e| describe(kube, &what, e))
}

/// The traffic annotation the operator reads on an EtcdCluster
/// (docs/contract.md#traffic-distribution), when set.
pub fn traffic_annotation(cluster: &EtcdCluster) -> Option<String> {
    cluster
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ANNOTATION).cloned())
}
