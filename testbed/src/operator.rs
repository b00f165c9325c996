//! The real etcd-operator on the test bed's node (`testbed node up
//! --operator`): its own `manager`, built by `testbed/build.sh operator`
//! (or `operator-defrag`) from its source in `../shared/anchors`, runs in a
//! Pod of a Deployment
//! as its Helm chart lays it out (a ServiceAccount bound to the
//! ClusterRole its chart generates from the code's RBAC markers, leader
//! election, probes on `/healthz` and `/readyz`), from an image built here.
//! Member Pods get `<ETCD_REPOSITORY>:v<version>`: the node's etcd images.
//!
//! Nothing of the operator is copied into this project: the binary, its
//! CRDs and its rules are read from the build's output.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use kube::api::{Api, ListParams, PostParams};
use kube::Client;
use serde::de::DeserializeOwned;

use crate::image::{ImageFile, ImageSpec};
use crate::{bins, Result};

/// The operator's image on the node.
pub const OPERATOR_IMAGE: &str = "localhost/etcd-operator:testbed";
/// Where it runs.
pub const OPERATOR_NAMESPACE: &str = "etcd-operator-system";
/// Its Deployment and ServiceAccount.
pub const OPERATOR_NAME: &str = "etcd-operator";

/// Which build of the operator runs: the suites say which they need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Operator {
    /// `../shared/anchors/etcd-operator` (a371f0c, v0.5.4 and the
    /// EtcdDefrag API): the EtcdDefrag type ships, nothing processes it —
    /// the niche `defrag --watch` serves.
    Inert,
    /// `../shared/anchors/etcd-operator-with-defrag` (3a12f97, what v0.5.5
    /// ships): its own EtcdDefrag and EtcdDefragPolicy controllers process
    /// every run. The default for new suites.
    #[default]
    WithDefrag,
}

impl Operator {
    /// Its folder under the test bed's cache (`current/…`).
    pub fn dir(self) -> &'static str {
        match self {
            Operator::Inert => "etcd-operator",
            Operator::WithDefrag => "etcd-operator-defrag",
        }
    }

    /// Where `testbed/build.sh` builds it from, for the error that asks
    /// for the build.
    pub fn source(self) -> &'static str {
        match self {
            Operator::Inert => {
                "the etcd-operator from ../shared/anchors/etcd-operator (testbed/build.sh operator)"
            }
            Operator::WithDefrag => {
                "the etcd-operator with its defrag controllers from ../shared/anchors/etcd-operator-with-defrag (testbed/build.sh operator-defrag)"
            }
        }
    }

    /// Whether it processes EtcdDefrag and EtcdDefragPolicy itself.
    pub fn defrags(self) -> bool {
        self == Operator::WithDefrag
    }

    /// `--operator`'s value: `inert` or `defrag`.
    pub fn parse(text: &str) -> std::result::Result<Operator, String> {
        match text {
            "inert" => Ok(Operator::Inert),
            "defrag" | "with-defrag" => Ok(Operator::WithDefrag),
            other => Err(format!(
                "unknown operator {other:?}: inert (EtcdDefrag without its controller) or defrag (with its EtcdDefrag and EtcdDefragPolicy controllers)"
            )),
        }
    }
}

/// The operator's CRD files (EtcdCluster, EtcdMember, EtcdSnapshot,
/// EtcdDefrag, and EtcdDefragPolicy where it ships one), as its build
/// copied them from its own chart.
pub fn crds(which: Operator) -> Result<Vec<PathBuf>> {
    yaml_files(&bins::operator_dir(which)?.join("crds"))
}

/// The `.yaml` files in `dir`, sorted: an operator build's CRDs.
pub(crate) fn yaml_files(dir: &std::path::Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// The operator's image: the static `manager` alone, run as a non-root
/// user (the chart's Pod demands `runAsNonRoot`).
pub fn image(which: Operator) -> Result<ImageSpec> {
    Ok(ImageSpec {
        name: OPERATOR_IMAGE.into(),
        files: vec![ImageFile::executable(
            "manager",
            &bins::operator_dir(which)?.join("manager"),
        )],
        dirs: vec![("tmp".into(), 0o1777)],
        entrypoint: vec!["/manager".into()],
        user: "65532:65532".into(),
        ..ImageSpec::default()
    })
}

fn object<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Creates the operator `which`'s namespace, identity, permissions (the
/// rules its chart generates from its code) and Deployment; member Pods
/// will use `etcd_repository:v<version>`.
pub async fn deploy(client: Client, which: Operator, etcd_repository: &str) -> Result<()> {
    let rules_file = bins::operator_dir(which)?.join("manager-role-rules.yaml");
    let rules: Vec<PolicyRule> = serde_yaml::from_str(
        &std::fs::read_to_string(&rules_file)
            .map_err(|e| format!("{}: {e}", rules_file.display()))?,
    )
    .map_err(|e| format!("{}: {e}", rules_file.display()))?;
    // The operator's defect, found here: its policy stamps each run with a
    // blockOwnerDeletion owner reference to the policy, and its chart
    // grants no `update` on `etcddefragpolicies/finalizers`, so where
    // OwnerReferencesPermissionEnforcement is on (as on this API server,
    // and OpenShift) every stamp is refused and no policy ever fires.
    // Granted apart, so its own rules stay as shipped.
    let workaround = match which.defrags() {
        true => vec![(
            format!("{OPERATOR_NAME}-testbed-policy-finalizers"),
            vec![object(serde_json::json!({
                "apiGroups": ["etcd-operator.cozystack.io"],
                "resources": ["etcddefragpolicies/finalizers"],
                "verbs": ["update"],
            }))?],
        )],
        false => Vec::new(),
    };
    install(
        client,
        &Manager {
            namespace: OPERATOR_NAMESPACE,
            name: OPERATOR_NAME,
            image: OPERATOR_IMAGE,
            rules,
            more_rules: workaround,
            args: vec![
                "--health-probe-bind-address=:8081".into(),
                "--metrics-bind-address=:8080".into(),
                "--leader-elect".into(),
            ],
            env: serde_json::json!([
                {"name": "OPERATOR_IMAGE", "value": OPERATOR_IMAGE},
                {"name": "ETCD_IMAGE_REPOSITORY", "value": etcd_repository},
            ]),
        },
    )
    .await
}

/// An operator's manager as a chart lays it out: what differs between the
/// operators the test bed runs.
pub(crate) struct Manager<'a> {
    pub namespace: &'a str,
    /// Its Deployment and ServiceAccount.
    pub name: &'a str,
    pub image: &'a str,
    /// Its ClusterRole's rules, as its build generated them.
    pub rules: Vec<PolicyRule>,
    /// Further ClusterRoles (name, rules) the test bed grants it.
    pub more_rules: Vec<(String, Vec<PolicyRule>)>,
    pub args: Vec<String>,
    /// The container's `env`.
    pub env: serde_json::Value,
}

/// Creates `m`'s namespace, ServiceAccount, ClusterRoles and their
/// bindings, its leader election Role (a Lease, events) and its
/// Deployment (one replica, probes on `/healthz` and `/readyz` at 8081).
pub(crate) async fn install(client: Client, m: &Manager<'_>) -> Result<()> {
    let pp = PostParams::default();
    let ns = m.namespace;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(&pp, &object(serde_json::json!({"metadata": {"name": ns}}))?)
        .await
        .map_err(|e| format!("create namespace {ns}: {e}"))?;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    accounts
        .create(
            &pp,
            &object(serde_json::json!({"metadata": {"name": m.name}}))?,
        )
        .await
        .map_err(|e| format!("create ServiceAccount {}: {e}", m.name))?;
    let subject = serde_json::json!([{"kind": "ServiceAccount", "name": m.name, "namespace": ns}]);
    let cluster_roles: Api<ClusterRole> = Api::all(client.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    let roles = std::iter::once((format!("{}-manager-role", m.name), m.rules.clone()))
        .chain(m.more_rules.iter().cloned());
    for (role_name, rules) in roles {
        let mut role: ClusterRole = object(serde_json::json!({"metadata": {"name": role_name}}))?;
        role.rules = Some(rules);
        cluster_roles
            .create(&pp, &role)
            .await
            .map_err(|e| format!("create ClusterRole {role_name}: {e}"))?;
        bindings
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
    }
    // Leader election, as controller-runtime does it: a Lease (and events).
    let election = format!("{}-leader-election", m.name);
    let roles: Api<Role> = Api::namespaced(client.clone(), ns);
    roles
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
    let role_bindings: Api<RoleBinding> = Api::namespaced(client.clone(), ns);
    role_bindings
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

    let labels = serde_json::json!({"app.kubernetes.io/name": m.name, "control-plane": "controller-manager"});
    let deployments: Api<Deployment> = Api::namespaced(client, ns);
    deployments
        .create(
            &pp,
            &object(serde_json::json!({
                "metadata": {"name": m.name, "labels": labels},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {
                            "serviceAccountName": m.name,
                            "terminationGracePeriodSeconds": 10,
                            "securityContext": {"runAsNonRoot": true},
                            "containers": [{
                                "name": "manager",
                                "image": m.image,
                                "imagePullPolicy": "Never",
                                "command": ["/manager"],
                                "args": m.args,
                                "env": m.env,
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
        .map_err(|e| format!("create Deployment {}: {e}", m.name))?;
    Ok(())
}

/// Waits until the cozystack operator's Deployment has an available
/// replica; the error carries its Pods' states.
pub async fn wait_available(client: Client, limit: Duration) -> Result<()> {
    wait_for(
        client,
        OPERATOR_NAMESPACE,
        OPERATOR_NAME,
        "the etcd-operator",
        limit,
    )
    .await
}

/// Waits until Deployment `namespace/name` (`what`) has an available
/// replica; the error carries its Pods' states.
pub(crate) async fn wait_for(
    client: Client,
    namespace: &str,
    name: &str,
    what: &str,
    limit: Duration,
) -> Result<()> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    let pods: Api<Pod> = Api::namespaced(client, namespace);
    let deadline = Instant::now() + limit;
    loop {
        let available = deployments
            .get(name)
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
                "{what} is not available after {}s: {}",
                limit.as_secs(),
                states.join("; ")
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
