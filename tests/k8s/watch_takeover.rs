//! `defrag --watch` refuses to start while another processor (here: a
//! status write under the operator's field manager) is active in its
//! namespace, and `--force-takeover` overrides that.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::process::Stdio;
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use serde_json::json;
use support::k8s::*;

fn watcher(kc: &std::path::Path, ns: &str, extra: &[&str]) -> tokio::process::Child {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .arg(format!("--kubeconfig={}", kc.display()))
        .args(["-n", ns, "defrag", "--watch"])
        .args(extra)
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recent_foreign_status_writer_stops_the_watcher_unless_forced() {
    let client = admin().await;
    let ns = "watch-takeover";
    namespace(&client, ns).await;
    let kc = kubeconfig("watch-takeover.yaml", &[ns]);
    let runs = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    create(
        &runs,
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": "theirs", "namespace": ns},
            "spec": {"clusterRef": {"name": "db"}},
        }),
    )
    .await;
    // The operator's controller-runtime manager writes status as "manager".
    runs.patch_status(
        "theirs",
        &PatchParams {
            field_manager: Some("manager".into()),
            ..PatchParams::default()
        },
        &Patch::Merge(json!({"status": {"phase": "Running"}})),
    )
    .await
    .unwrap();

    let refused = watcher(&kc, ns, &[]);
    let out = tokio::time::timeout(Duration::from_secs(30), refused.wait_with_output())
        .await
        .expect("the watcher should refuse at once")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("\"manager\""), "{stderr}");
    assert!(stderr.contains(&format!("{ns}/theirs")), "{stderr}");
    assert!(stderr.contains("--force-takeover"), "{stderr}");
    // Nothing was written by the refused watcher.
    let status = runs.get("theirs").await.unwrap().data["status"].clone();
    assert_eq!(status, json!({"phase": "Running"}));

    let mut forced = watcher(&kc, ns, &["--force-takeover"]);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        forced.try_wait().unwrap().is_none(),
        "with --force-takeover the watcher keeps running"
    );
    forced.kill().await.unwrap();
    // ... and still leaves the run the other processor drives alone
    // (issue 37): its cluster does not exist, so a watcher that took it
    // would have failed it (ClusterNotFound) within its first pass.
    let status = runs.get("theirs").await.unwrap().data["status"].clone();
    assert_eq!(
        status,
        json!({"phase": "Running"}),
        "the forced watcher wrote a run another processor drives"
    );
    let out = forced.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("another processor drives this run"),
        "{stderr}"
    );
}
