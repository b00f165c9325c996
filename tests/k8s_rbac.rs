//! The RBAC manifests in `deploy/` are proven by impersonation on the real
//! API server: `status` works with exactly the read-only ClusterRole, and
//! removing any one rule it needs yields an error naming the verb and the
//! resource.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::k8s::*;
use support::*;

#[tokio::test(flavor = "multi_thread")]
async fn status_role_is_sufficient_and_every_rule_is_needed() {
    let client = admin().await;
    let ns = "rbac";
    let fx = fixture(&client, ns, "etcd", Mode::MtlsAuth).await;

    let role = manifest_role("deploy/rbac-status.yaml");
    let rules = role.rules.clone().unwrap();

    // Exactly the manifest's permissions: status works, every member shown.
    let kc = grant(
        &client,
        ns,
        role.metadata.name.as_ref().unwrap(),
        rules.clone(),
        "kubectl-etcd",
    )
    .await;
    let argv = |kc: &std::path::Path| {
        vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
            "status".into(),
            "-o".into(),
            "json".into(),
        ]
    };
    let doc = tool(&argv(&kc), &[]).await.expect_code(0).json();
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    assert_eq!(doc["gate"]["passed"], true, "{doc}");
    let doc = tool(
        &[argv(&kc), args(&["members"])]
            .concat()
            .into_iter()
            .filter(|a| a != "status")
            .collect::<Vec<_>>(),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(rows(&doc).len(), 3);

    // Without any one rule that direct-mode status uses, the command stops
    // with the server's message naming the verb and resource.
    let needed = [
        ("etcdclusters", "get"),
        ("etcdmembers", "list"),
        ("pods", "get"),
        ("secrets", "get"),
    ];
    for (resource, verb) in needed {
        let account = format!("without-{resource}");
        let reduced = rules
            .iter()
            .filter(|r| {
                !r.resources
                    .as_ref()
                    .unwrap()
                    .contains(&resource.to_string())
            })
            .cloned()
            .collect();
        let kc = grant(
            &client,
            ns,
            &format!("kubectl-etcd-{account}"),
            reduced,
            &account,
        )
        .await;
        let run = tool(&[argv(&kc), vec!["etcd".into()]].concat(), &[]).await;
        assert_eq!(run.code, 2, "{resource}: {run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        let want = format!("cannot {verb} resource \"{resource}\"");
        assert!(
            run.stderr.contains(&want),
            "{resource}: {:?} lacks {want:?}",
            run.stderr
        );
    }
    drop(fx);
}

/// `deploy/watch/rbac.yaml` is exactly what `defrag --watch` needs: with
/// it the watcher, impersonating its ServiceAccount, drives a run to
/// Complete; without the status rule it cannot record anything.
#[tokio::test(flavor = "multi_thread")]
async fn watch_role_is_sufficient_and_the_status_rule_is_needed() {
    use kube::api::{Api, DynamicObject};
    use serde_json::json;
    use std::time::Duration;

    let client = admin().await;
    let ns = "rbac-watch";
    let _fx = fixture(&client, ns, "db", Mode::Mtls).await;
    let role = manifest_role("deploy/watch/rbac.yaml");
    let rules = role.rules.clone().unwrap();
    let runs: Api<DynamicObject> = dynamic(&client, ns, "EtcdDefrag", "etcddefrags");
    let watcher = |kc: std::path::PathBuf| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
            .args([
                &format!("--kubeconfig={}", kc.display()),
                "--connect=direct",
                "defrag",
                "--watch",
            ])
            .env_remove("KUBECONFIG")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the watcher")
    };
    let new_run = |name: &str| {
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"clusterRef": {"name": "db"}, "rule": {"all": true}},
        })
    };

    // Without the status rule: the run is never marked, not even Pending.
    let reduced = rules
        .iter()
        .filter(|r| {
            !r.resources
                .as_ref()
                .unwrap()
                .contains(&"etcddefrags/status".to_string())
        })
        .cloned()
        .collect();
    let kc = grant(
        &client,
        ns,
        "kubectl-etcd-watch-no-status",
        reduced,
        "no-status",
    )
    .await;
    let blocked = watcher(kc);
    create(&runs, new_run("blocked")).await;
    tokio::time::sleep(Duration::from_secs(8)).await;
    let status = runs.get("blocked").await.unwrap().data["status"].clone();
    assert!(status.get("phase").is_none(), "{status}");
    drop(blocked);
    runs.delete("blocked", &Default::default()).await.unwrap();

    // Exactly the manifest's rules: the run completes.
    let kc = grant(
        &client,
        ns,
        role.metadata.name.as_ref().unwrap(),
        rules,
        "kubectl-etcd-watch",
    )
    .await;
    let _watcher = watcher(kc);
    create(&runs, new_run("allowed")).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let status = runs.get("allowed").await.unwrap().data["status"].clone();
        if status["phase"] == "Complete" {
            assert_eq!(status["defragmented"], 3, "{status}");
            break;
        }
        assert!(status["phase"] != "Failed", "{status}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "never completed: {status}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
