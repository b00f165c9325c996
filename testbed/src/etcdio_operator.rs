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
use std::time::Duration;

use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::Client;

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
    bins::manager_dir(DIR, SOURCE)
}

/// Its CRD files, as its build copied them from its source.
pub fn crds() -> Result<Vec<PathBuf>> {
    crate::operator::yaml_files(&dir()?.join("crds"))
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

/// Creates its namespace, identity, permissions (its generated
/// ClusterRole's rules) and Deployment; member Pods will use
/// `etcd_repository:<version>`.
pub async fn deploy(client: Client, etcd_repository: &str) -> Result<()> {
    let role_file = dir()?.join("role.yaml");
    let role: ClusterRole = serde_yaml::from_str(
        &std::fs::read_to_string(&role_file)
            .map_err(|e| format!("{}: {e}", role_file.display()))?,
    )
    .map_err(|e| format!("{}: {e}", role_file.display()))?;
    crate::operator::install(
        client,
        &crate::operator::Manager {
            namespace: NAMESPACE,
            name: NAME,
            image: IMAGE,
            rules: role.rules.unwrap_or_default(),
            more_rules: Vec::new(),
            args: vec![
                "--leader-elect".into(),
                "--health-probe-bind-address=:8081".into(),
                format!("--image-registry={etcd_repository}"),
            ],
            env: serde_json::json!([]),
        },
    )
    .await
}

/// Waits until its Deployment has an available replica; the error carries
/// its Pods' states.
pub async fn wait_available(client: Client, limit: Duration) -> Result<()> {
    crate::operator::wait_for(
        client,
        NAMESPACE,
        NAME,
        "the etcd project's operator",
        limit,
    )
    .await
}
