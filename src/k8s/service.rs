//! The client Service's `spec.trafficDistribution`, the I/O half (the
//! decisions are in `plan::traffic`): read the Service, server-side apply
//! the field under the operator's field manager (the EtcdCluster's
//! annotation, kept in step, is `source::cozystack::traffic`'s). Never
//! creates a Service: an apply to a missing one
//! would make a Service with no ports.

use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use super::{describe, Kube};
use crate::contract::{FieldOwner, TrafficValue, ANNOTATION, FIELD_MANAGER};
use crate::error::{Error, Result};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

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
        .map_err(|e| describe(kube, &format!("get Service {namespace}/{name}"), e))
}

/// Server-side apply of `value` (or the release, with `None`) under the
/// operator's field manager; `force` takes the field from whoever holds it
/// (a hand edit, or a manager the user named: the caller decides). Returns the Service as the server now holds
/// it, read back after a real write, or the server's answer to a dry run.
pub async fn apply(
    kube: &Kube,
    namespace: &str,
    name: &str,
    value: Option<TrafficValue>,
    dry_run: bool,
    force: bool,
) -> std::result::Result<Service, ApplyError> {
    let api: Api<Service> = Api::namespaced(kube.client.clone(), namespace);
    let mut params = PatchParams::apply(FIELD_MANAGER);
    params.force = force;
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
        Err(e) => return Err(ApplyError::Other(describe(kube, &what, e))),
    };
    if dry_run {
        return Ok(applied);
    }
    match get(kube, namespace, name).await {
        Ok(stored) => Ok(stored.unwrap_or(applied)),
        Err(e) => Err(ApplyError::Other(e)),
    }
}

/// The API server's `/version`: `gitVersion`, `major`, `minor` as the
/// server wrote them (providers decorate them; `plan::traffic` parses).
pub async fn server_version(kube: &Kube) -> Result<(String, String, String)> {
    let info = kube
        .client
        .apiserver_version()
        .await
        .map_err(|e| describe(kube, "read the API server version", e))?;
    Ok((info.git_version, info.major, info.minor))
}

/// The managers whose `fieldsV1` holds `f:spec` → `f:trafficDistribution`
/// (main resource only, not a subresource).
pub fn field_owners(entries: &[ManagedFieldsEntry]) -> Vec<FieldOwner> {
    entries
        .iter()
        .filter(|e| e.subresource.as_deref().unwrap_or("").is_empty())
        .filter(|e| {
            e.fields_v1
                .as_ref()
                .and_then(|f| f.0.get("f:spec"))
                .and_then(|spec| spec.get("f:trafficDistribution"))
                .is_some()
        })
        .map(|e| FieldOwner {
            manager: e.manager.clone().unwrap_or_default(),
            operation: e.operation.clone().unwrap_or_default(),
            time: e.time.as_ref().map(|t| t.0.to_string()),
        })
        .collect()
}

/// The Service's `spec.trafficDistribution`, when set.
pub fn traffic_distribution(service: &Service) -> Option<String> {
    service
        .spec
        .as_ref()
        .and_then(|s| s.traffic_distribution.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;

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

    fn entry(manager: &str, operation: &str, fields: serde_json::Value) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: Some(manager.into()),
            operation: Some(operation.into()),
            fields_type: Some("FieldsV1".into()),
            fields_v1: Some(FieldsV1(fields)),
            ..Default::default()
        }
    }

    #[test]
    fn owners_come_from_fields_v1() {
        let entries = vec![
            entry(
                "kube-apiserver",
                "Update",
                json!({"f:spec": {"f:ports": {}, "f:type": {}}}),
            ),
            entry(
                FIELD_MANAGER,
                "Apply",
                json!({"f:spec": {"f:trafficDistribution": {}}}),
            ),
            entry(
                "kubectl-edit",
                "Update",
                json!({"f:metadata": {}, "f:spec": {"f:trafficDistribution": {}}}),
            ),
            entry("other", "Apply", json!({"f:metadata": {"f:labels": {}}})),
            ManagedFieldsEntry {
                subresource: Some("status".into()),
                ..entry(
                    "status-writer",
                    "Update",
                    json!({"f:spec": {"f:trafficDistribution": {}}}),
                )
            },
        ];
        let owners = field_owners(&entries);
        let names: Vec<&str> = owners.iter().map(|o| o.manager.as_str()).collect();
        assert_eq!(names, [FIELD_MANAGER, "kubectl-edit"]);
        assert!(field_owners(&[]).is_empty());
    }
}
