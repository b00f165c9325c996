//! The RBAC manifests in `deploy/` are proven by impersonation on the real
//! API server: `status` works with exactly the read-only ClusterRole, and
//! removing any one rule it needs yields an error naming the verb and the
//! resource.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::api::{Api, PostParams};
use support::k8s::*;
use support::*;

#[tokio::test(flavor = "multi_thread")]
async fn status_role_is_sufficient_and_every_rule_is_needed() {
    let client = admin().await;
    let ns = "rbac";
    let fx = fixture(&client, ns, "etcd", Mode::MtlsAuth).await;

    let docs = manifest("deploy/rbac-status.yaml");
    let role_doc = docs
        .iter()
        .find(|d| d["kind"] == "ClusterRole")
        .unwrap()
        .clone();
    let role: ClusterRole = serde_json::from_value(role_doc.clone()).unwrap();
    let roles: Api<ClusterRole> = Api::all(client.clone());
    roles.create(&PostParams::default(), &role).await.unwrap();
    let role_name = role.metadata.name.clone().unwrap();

    // Exactly the manifest's permissions: status works, every member shown.
    bind(&client, ns, &role_name, "kubectl-etcd").await;
    let kc = kubeconfig_as(
        "rbac-full.yaml",
        ns,
        &format!("system:serviceaccount:{ns}:kubectl-etcd"),
    );
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
    let rules = role.rules.clone().unwrap();
    let needed = [
        ("etcdclusters", "get"),
        ("etcdmembers", "list"),
        ("pods", "get"),
        ("secrets", "get"),
    ];
    for (resource, verb) in needed {
        let account = format!("without-{resource}");
        let mut reduced = role.clone();
        reduced.metadata = kube::api::ObjectMeta {
            name: Some(format!("kubectl-etcd-{account}")),
            ..Default::default()
        };
        reduced.rules = Some(
            rules
                .iter()
                .filter(|r| {
                    !r.resources
                        .as_ref()
                        .unwrap()
                        .contains(&resource.to_string())
                })
                .cloned()
                .collect(),
        );
        roles
            .create(&PostParams::default(), &reduced)
            .await
            .unwrap();
        bind(
            &client,
            ns,
            reduced.metadata.name.as_ref().unwrap(),
            &account,
        )
        .await;
        let kc = kubeconfig_as(
            &format!("rbac-{account}.yaml"),
            ns,
            &format!("system:serviceaccount:{ns}:{account}"),
        );
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
