//! Storage for the real node's PersistentVolumeClaims (the operator's
//! members claim `data-<member>`): a default StorageClass without a
//! provisioner and pre-made `local` PersistentVolumes, one folder each in
//! the node's own folder, so they go when the node goes. Binding waits for
//! the first Pod (`WaitForFirstConsumer`), as local volumes need; a volume
//! whose claim is deleted is emptied and offered again, so a long-running
//! `testbed node up` does not run out.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::api::core::v1::PersistentVolume;
use k8s_openapi::api::storage::v1::StorageClass;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::Client;

use crate::Result;

/// The default StorageClass of the node.
pub const STORAGE_CLASS: &str = "testbed-local";
/// The label every volume of the node carries.
const LABEL: &str = "testbed.kubectl-etcd.io/volume";
/// How many volumes there are at any time.
pub const VOLUMES: usize = 16;
/// What each volume offers (a claim for less binds to it; the folder is on
/// the machine's disk and not limited).
const CAPACITY: &str = "10Gi";
/// The member Pods run as this user (and group); a fresh volume is theirs.
const OWNER: u32 = 65532;

fn volume_dir(root: &Path, index: usize) -> PathBuf {
    root.join(format!("pv-{index:02}"))
}

fn fresh_dir(path: &Path) -> Result<()> {
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(|e| format!("empty {}: {e}", path.display()))?;
    }
    std::fs::create_dir_all(path).map_err(|e| format!("create {}: {e}", path.display()))?;
    std::os::unix::fs::chown(path, Some(OWNER), Some(OWNER))
        .map_err(|e| format!("chown {}: {e}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// Creates the StorageClass and the volumes under `root`, for `node`.
pub async fn provide(client: Client, root: &Path, node: &str) -> Result<()> {
    let classes: Api<StorageClass> = Api::all(client.clone());
    let class: StorageClass = serde_json::from_value(serde_json::json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": STORAGE_CLASS,
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        },
        "provisioner": "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer",
        "reclaimPolicy": "Retain",
    }))
    .map_err(|e| e.to_string())?;
    classes
        .create(&PostParams::default(), &class)
        .await
        .map_err(|e| format!("create StorageClass {STORAGE_CLASS}: {e}"))?;
    let volumes: Api<PersistentVolume> = Api::all(client);
    for index in 0..VOLUMES {
        let dir = volume_dir(root, index);
        fresh_dir(&dir)?;
        let pv: PersistentVolume = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": format!("testbed-pv-{index:02}"), "labels": {LABEL: "local"}},
            "spec": {
                "capacity": {"storage": CAPACITY},
                "accessModes": ["ReadWriteOnce"],
                "persistentVolumeReclaimPolicy": "Retain",
                "storageClassName": STORAGE_CLASS,
                "volumeMode": "Filesystem",
                "local": {"path": dir.display().to_string()},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]},
                ]}]}},
            },
        }))
        .map_err(|e| e.to_string())?;
        volumes
            .create(&PostParams::default(), &pv)
            .await
            .map_err(|e| format!("create PersistentVolume testbed-pv-{index:02}: {e}"))?;
    }
    Ok(())
}

/// Every two seconds: each volume whose claim was deleted (`Released`) is
/// emptied and offered again (its `claimRef` cleared), as the retired
/// `Recycle` policy did. Runs until the task is aborted.
pub async fn recycle(client: Client, root: PathBuf) {
    let volumes: Api<PersistentVolume> = Api::all(client);
    let params = ListParams::default().labels(&format!("{LABEL}=local"));
    loop {
        tokio::time::sleep(Duration::from_secs(2)).await;
        let Ok(list) = volumes.list(&params).await else {
            continue;
        };
        for pv in list {
            let released = pv.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Released");
            let name = pv.metadata.name.clone().unwrap_or_default();
            let Some(index) = name
                .strip_prefix("testbed-pv-")
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            if !released || fresh_dir(&volume_dir(&root, index)).is_err() {
                continue;
            }
            let _ = volumes
                .patch(
                    &name,
                    &PatchParams::default(),
                    &Patch::Merge(serde_json::json!({"spec": {"claimRef": null}})),
                )
                .await;
        }
    }
}
