//! The client Service's `spec.trafficDistribution`, the I/O half (the
//! decisions are in `plan::traffic`): read the Service, server-side apply
//! the field under the operator's field manager, and keep the EtcdCluster
//! annotation in step. Never creates a Service: an apply to a missing one
//! would make a Service with no ports.

use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use super::crd::EtcdCluster;
use super::{describe, Kube};
use crate::error::{Error, Result};
use crate::plan::traffic::{TrafficValue, ANNOTATION, FIELD_MANAGER};

/// The field manager of the annotation edit (a plain merge patch).
pub const ANNOTATION_MANAGER: &str = "kubectl-etcd";

/// The applied intent: identity plus, when `value` is set, the one field.
/// Without a value it releases whatever our manager owned.
pub fn intent(namespace: &str, name: &str, value: Option<TrafficValue>) -> serde_json::Value {
    let mut intent = json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
    });
    if let Some(v) = value {
        intent["spec"] = json!({"trafficDistribution": v.as_str()});
    }
    intent
}

/// The merge patch that sets (or, with `None`, removes) the annotation.
/// With `resource_version`, the server refuses it (409) if the object
/// changed since that version.
pub fn annotation_patch(value: Option<&str>, resource_version: Option<&str>) -> serde_json::Value {
    let mut patch = json!({"metadata": {"annotations": {ANNOTATION: value}}});
    if let Some(rv) = resource_version {
        patch["metadata"]["resourceVersion"] = json!(rv);
    }
    patch
}

/// Why an apply did not go through.
#[derive(Debug)]
pub enum ApplyError {
    /// 422: the server validated the value and refused it.
    Invalid(String),
    /// Anything else (Forbidden, conflict, transport …).
    Other(Error),
}

/// Reads the Service; `None` when it does not exist.
pub async fn get(kube: &Kube, namespace: &str, name: &str) -> Result<Option<Service>> {
    let api: Api<Service> = Api::namespaced(kube.client.clone(), namespace);
    api.get_opt(name)
        .await
        .map_err(|e| describe(kube, &format!("get Service {namespace}/{name}"), &e))
}

/// Server-side apply of `value` (or the release, with `None`) under the
/// operator's field manager, forced so that a hand edit that took
/// ownership is taken back. Returns the Service as the server now holds
/// it, read back after a real write, or the server's answer to a dry run.
pub async fn apply(
    kube: &Kube,
    namespace: &str,
    name: &str,
    value: Option<TrafficValue>,
    dry_run: bool,
) -> std::result::Result<Service, ApplyError> {
    let api: Api<Service> = Api::namespaced(kube.client.clone(), namespace);
    let mut params = PatchParams::apply(FIELD_MANAGER).force();
    params.dry_run = dry_run;
    let what = match value {
        Some(v) => format!("apply trafficDistribution {v} to Service {namespace}/{name}"),
        None => format!("release trafficDistribution on Service {namespace}/{name}"),
    };
    let applied = match api
        .patch(name, &params, &Patch::Apply(intent(namespace, name, value)))
        .await
    {
        Ok(service) => service,
        Err(kube::Error::Api(status)) if status.code == 422 => {
            return Err(ApplyError::Invalid(status.message.clone()))
        }
        Err(e) => return Err(ApplyError::Other(describe(kube, &what, &e))),
    };
    if dry_run {
        return Ok(applied);
    }
    match get(kube, namespace, name).await {
        Ok(stored) => Ok(stored.unwrap_or(applied)),
        Err(e) => Err(ApplyError::Other(e)),
    }
}

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
    .map_err(|e| describe(kube, &what, &e))
}

/// The API server's version: `(gitVersion, major.minor)`.
pub async fn server_version(kube: &Kube) -> Result<(String, Option<(u32, u32)>)> {
    let info = kube
        .client
        .apiserver_version()
        .await
        .map_err(|e| describe(kube, "read the API server version", &e))?;
    let parsed =
        crate::plan::traffic::parse_server_version(&info.major, &info.minor, &info.git_version);
    Ok((info.git_version, parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intent_holds_identity_and_the_one_field() {
        assert_eq!(
            intent("ns", "db-client", Some(TrafficValue::PreferSameZone)),
            json!({"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "db-client", "namespace": "ns"},
                   "spec": {"trafficDistribution": "PreferSameZone"}})
        );
        assert_eq!(
            intent("ns", "db-client", None),
            json!({"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "db-client", "namespace": "ns"}})
        );
    }

    #[test]
    fn annotation_patch_sets_removes_and_pins_the_version() {
        assert_eq!(
            annotation_patch(Some("PreferClose"), None),
            json!({"metadata": {"annotations": {ANNOTATION: "PreferClose"}}})
        );
        assert_eq!(
            annotation_patch(None, Some("42")),
            json!({"metadata": {"annotations": {ANNOTATION: null}, "resourceVersion": "42"}})
        );
    }
}
