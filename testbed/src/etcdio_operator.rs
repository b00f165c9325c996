//! The etcd project's own operator (`operator.etcd.io`) on the test bed's
//! node, beside the cozystack one or alone (`NodeSpec::etcd_io_operator`):
//! its `manager`, built by `testbed/build.sh etcd-io-operator` from its
//! source in `../shared/anchors`, runs in a Pod of a Deployment as its
//! `config/manager` lays it out (a ServiceAccount bound to the ClusterRole
//! its kubebuilder markers generate, leader election, `/healthz` and
//! `/readyz`), from an image built here. Its member Pods get
//! `<ETCD_REPOSITORY>:<spec.version>` (`--image-registry`): the node's etcd
//! images, so a cluster's `spec.version` is `v3.6.16`-style.
//!
//! Nothing of the operator is copied into this project: the binary, its
//! CRD and its rules are read from the build's output.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::api::{Api, ListParams, PostParams};
use kube::Client;
use serde::de::DeserializeOwned;

use crate::image::{ImageFile, ImageSpec};
use crate::{bins, Result};

/// Its image on the node.
pub const IMAGE: &str = "localhost/etcd-io-operator:testbed";
/// Where it runs.
pub const NAMESPACE: &str = "etcd-io-operator-system";
/// Its Deployment and ServiceAccount.
pub const NAME: &str = "etcd-io-operator";

const DIR: &str = "etcd-io-operator";
const SOURCE: &str =
    "the etcd project's operator from ../shared/anchors/etcd-io-etcd-operator (testbed/build.sh etcd-io-operator)";

fn dir() -> Result<PathBuf> {
    let manager = bins::cached_file(DIR, "manager", SOURCE)?;
    Ok(manager
        .parent()
        .map(PathBuf::from)
        .unwrap_or_else(|| bins::cache_dir().join(DIR)))
}

/// Its CRD files, as its build copied them from its source.
pub fn crds() -> Result<Vec<PathBuf>> {
    let dir = dir()?.join("crds");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Its image: the static `manager` alone, run as a non-root user.
pub fn image() -> Result<ImageSpec> {
    Ok(ImageSpec {
        name: IMAGE.into(),
        files: vec![ImageFile::executable("manager", &dir()?.join("manager"))],
        dirs: vec![("tmp".into(), 0o1777)],
        entrypoint: vec!["/manager".into()],
        user: "65532:65532".into(),
        ..ImageSpec::default()
    })
}

fn object<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Creates its namespace, identity, permissions (its generated ClusterRole,
/// renamed) and Deployment; member Pods will use `etcd_repository:<version>`.
pub async fn deploy(client: Client, etcd_repository: &str) -> Result<()> {
    let pp = PostParams::default();
    let ns = NAMESPACE;
    let role_file = dir()?.join("role.yaml");
    let mut role: ClusterRole = serde_yaml::from_str(
        &std::fs::read_to_string(&role_file)
            .map_err(|e| format!("{}: {e}", role_file.display()))?,
    )
    .map_err(|e| format!("{}: {e}", role_file.display()))?;
    let role_name = format!("{NAME}-manager-role");
    role.metadata = object(serde_json::json!({"name": role_name}))?;

    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(&pp, &object(serde_json::json!({"metadata": {"name": ns}}))?)
        .await
        .map_err(|e| format!("create namespace {ns}: {e}"))?;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    accounts
        .create(
            &pp,
            &object(serde_json::json!({"metadata": {"name": NAME}}))?,
        )
        .await
        .map_err(|e| format!("create ServiceAccount {NAME}: {e}"))?;
    let subject = serde_json::json!([{"kind": "ServiceAccount", "name": NAME, "namespace": ns}]);
    Api::<ClusterRole>::all(client.clone())
        .create(&pp, &role)
        .await
        .map_err(|e| format!("create ClusterRole {role_name}: {e}"))?;
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(
            &pp,
            &object(serde_json::json!({
                "metadata": {"name": role_name},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name},
                "subjects": subject,
            }))?,
        )
        .await
        .map_err(|e| format!("create ClusterRoleBinding {role_name}: {e}"))?;
    let election = format!("{NAME}-leader-election");
    Api::<Role>::namespaced(client.clone(), ns)
        .create(
            &pp,
            &object(serde_json::json!({
                "metadata": {"name": election},
                "rules": [
                    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                     "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
                    {"apiGroups": [""], "resources": ["configmaps"],
                     "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
                    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
                ],
            }))?,
        )
        .await
        .map_err(|e| format!("create Role {election}: {e}"))?;
    Api::<RoleBinding>::namespaced(client.clone(), ns)
        .create(
            &pp,
            &object(serde_json::json!({
                "metadata": {"name": election},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": election},
                "subjects": subject,
            }))?,
        )
        .await
        .map_err(|e| format!("create RoleBinding {election}: {e}"))?;

    let labels =
        serde_json::json!({"app.kubernetes.io/name": NAME, "control-plane": "controller-manager"});
    Api::<Deployment>::namespaced(client, ns)
        .create(
            &pp,
            &object(serde_json::json!({
                "metadata": {"name": NAME, "labels": labels},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {
                            "serviceAccountName": NAME,
                            "terminationGracePeriodSeconds": 10,
                            "securityContext": {"runAsNonRoot": true},
                            "containers": [{
                                "name": "manager",
                                "image": IMAGE,
                                "imagePullPolicy": "Never",
                                "command": ["/manager"],
                                "args": [
                                    "--leader-elect",
                                    "--health-probe-bind-address=:8081",
                                    format!("--image-registry={etcd_repository}"),
                                ],
                                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8081},
                                                  "initialDelaySeconds": 15, "periodSeconds": 20},
                                "readinessProbe": {"httpGet": {"path": "/readyz", "port": 8081},
                                                   "initialDelaySeconds": 1, "periodSeconds": 2},
                                "securityContext": {"allowPrivilegeEscalation": false,
                                                    "capabilities": {"drop": ["ALL"]}},
                            }],
                        },
                    },
                },
            }))?,
        )
        .await
        .map_err(|e| format!("create Deployment {NAME}: {e}"))?;
    Ok(())
}

/// Waits until its Deployment has an available replica; the error carries
/// its Pods' states.
pub async fn wait_available(client: Client, limit: Duration) -> Result<()> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAMESPACE);
    let pods: Api<Pod> = Api::namespaced(client, NAMESPACE);
    let deadline = Instant::now() + limit;
    loop {
        let available = deployments
            .get(NAME)
            .await
            .ok()
            .and_then(|d| d.status)
            .and_then(|s| s.available_replicas)
            .unwrap_or(0);
        if available >= 1 {
            return Ok(());
        }
        if Instant::now() > deadline {
            let states: Vec<String> = pods
                .list(&ListParams::default())
                .await
                .map(|l| l.items.iter().map(|p| format!("{:?}", p.status)).collect())
                .unwrap_or_default();
            return Err(format!(
                "the etcd project's operator is not available after {}s: {}",
                limit.as_secs(),
                states.join("; ")
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
