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
