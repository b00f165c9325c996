//! The RBAC manifests in `deploy/` are proven by impersonation on the real
//! API server: `status` works with exactly the read-only ClusterRole, and
//! removing any one rule it needs yields an error naming the verb and the
//! resource. (`deploy/watch/rbac.yaml` is proven on the in-cluster path in
//! `tests/k8s/incluster.rs`.)
//!
//! Its own test binary: every object of `deploy/` is created with dry run,
//! which the API server refuses once an object of that name exists, and
//! the other modules create some of them for real (the ClusterRoles
//! `kubectl-etcd-traffic` and `kubectl-etcd-watch-processors`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::k8s::*;
use support::*;

#[tokio::test(flavor = "multi_thread")]
async fn status_role_is_sufficient_and_every_rule_is_needed() {
    audited().await;
    let client = admin().await;
    let ns = "rbac";
    let fx = fixture(&client, ns, "etcd", Mode::MtlsAuth).await;

    let role = manifest_role("deploy/rbac-operate.yaml");
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
    ];
    // (Without `secrets` get, status shows the EtcdMember objects, not
    // dialed: the read-only role's view, below.)
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

    // `defrag` (the CronJob binds this role) lists the cluster's
    // EtcdDefrags before any member: with the role it plans, without that
    // rule it refuses, naming the rule, and touches nothing.
    let dry_run = |kc: &std::path::Path| {
        [
            argv(kc)
                .into_iter()
                .filter(|a| a != "status" && a != "-o" && a != "json")
                .collect::<Vec<_>>(),
            args(&["defrag", "etcd", "--all", "--dry-run"]),
        ]
        .concat()
    };
    tool(&dry_run(&kc), &[]).await.expect_code(0);
    let reduced = rules
        .iter()
        .filter(|r| {
            !r.resources
                .as_ref()
                .unwrap()
                .contains(&"etcddefrags".to_string())
        })
        .cloned()
        .collect();
    let kc = grant(
        &client,
        ns,
        "kubectl-etcd-without-etcddefrags",
        reduced,
        "without-etcddefrags",
    )
    .await;
    let run = tool(&dry_run(&kc), &[]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("DefragRunsUnknown")
            || (run
                .stderr
                .contains("could not read the cluster's EtcdDefrags")
                && run.stderr.contains("cannot list resource \"etcddefrags\"")),
        "{}",
        run.stderr
    );
    drop(fx);
}

/// Issue 45, item 7: `deploy/rbac-view.yaml` is truly read-only. Bound to
/// it, `status` shows each member as its EtcdMember says, not dialed, and
/// names the role that dials them; `--check` fails (nothing evaluated);
/// `defrag --all --yes`, which `rbac-status.yaml`'s old `get` on Secrets
/// let a ServiceAccount run, stops at the first Secret with nothing
/// defragmented, by etcd's own logs.
#[tokio::test(flavor = "multi_thread")]
async fn the_view_role_reads_and_reaches_no_member() {
    audited().await;
    let client = admin().await;
    let ns = "rbac-view";
    let fx = fixture_logged(&client, ns, "etcd", Mode::Mtls).await;
    let role = manifest_role("deploy/rbac-view.yaml");
    assert_eq!(role.metadata.name.as_deref(), Some("kubectl-etcd-view"));
    let rules = role.rules.clone().unwrap();
    assert!(
        rules.iter().all(|r| {
            let resources = r.resources.clone().unwrap_or_default();
            !resources.iter().any(|x| x == "secrets" || x.contains('/'))
                && r.verbs
                    .iter()
                    .all(|v| ["get", "list", "watch"].contains(&v.as_str()))
        }),
        "{rules:?}"
    );
    let kc = grant(&client, ns, "kubectl-etcd-view", rules, "viewer").await;
    let run = |rest: &[&str]| {
        let mut a = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".into(),
        ];
        a.extend(rest.iter().map(|s| s.to_string()));
        a
    };
    let status = tool(&run(&["status", "etcd", "-o", "json"]), &[]).await;
    status.expect_code(0);
    let doc = status.json();
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    for m in rows(&doc) {
        assert_eq!(m["reachable"], false, "{m}");
        assert!(
            m["error"]
                .as_str()
                .unwrap()
                .starts_with("not dialed: get Secret rbac-view/"),
            "{m}"
        );
    }
    assert!(
        status.stderr.contains("no member was dialed")
            && status.stderr.contains("deploy/rbac-operate.yaml"),
        "{}",
        status.stderr
    );
    tool(&run(&["status", "etcd", "--check"]), &[])
        .await
        .expect_code(1);
    let doctor = tool(&run(&["doctor", "etcd", "-o", "json"]), &[]).await;
    doctor.expect_code(1);
    let report = doctor.json();
    assert_eq!(report["findings"][0]["check"], "reachable", "{report}");
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not examined: this identity may not read the cluster's Secrets"),
        "{report}"
    );
    let defrag = tool(&run(&["defrag", "etcd", "--all", "--yes"]), &[]).await;
    assert_ne!(defrag.code, 0, "{defrag:?}");
    assert!(
        defrag.stderr.contains("cannot get resource \"secrets\""),
        "{}",
        defrag.stderr
    );
    assert!(
        fx.etcd.logged_defrags().is_empty(),
        "a member was defragmented"
    );
}

/// `status` of one cluster lists its Pods once (issue 26: each request is
/// a round trip, most of a command's time at a distance), and a role that
/// may only get Pods still works, reading them one by one. Counted by the
/// API server (its audit log, by the identity each role runs as): the full
/// role lists the Pods once and gets none; the get-only role is refused the
/// LIST once and gets each member's Pod once.
#[tokio::test(flavor = "multi_thread")]
async fn one_cluster_lists_its_pods_once_and_a_get_only_role_reads_each() {
    let audit = audited().await;
    let client = admin().await;
    let ns = "rbac-pods";
    let fx = fixture(&client, ns, "etcd", Mode::Mtls).await;
    let role = manifest_role("deploy/rbac-operate.yaml");
    let rules = role.rules.clone().unwrap();
    let get_only: Vec<_> = rules
        .iter()
        .cloned()
        .map(|mut r| {
            if r.resources.as_ref().unwrap().contains(&"pods".to_string()) {
                r.verbs.retain(|v| v != "list");
            }
            r
        })
        .collect();
    for (name, rules, want) in [
        (
            "full",
            rules,
            [("list", 200, 1), ("list", 403, 0), ("get", 200, 0)],
        ),
        (
            "pods-get-only",
            get_only,
            [("list", 200, 0), ("list", 403, 1), ("get", 200, 3)],
        ),
    ] {
        let kc = grant(&client, ns, &format!("kubectl-etcd-{name}"), rules, name).await;
        let argv = args(&["--connect=direct", "status", "etcd", "-o", "json"]);
        let doc = tool(
            &[vec![format!("--kubeconfig={}", kc.display())], argv].concat(),
            &[],
        )
        .await
        .expect_code(0)
        .json();
        assert_eq!(rows(&doc).len(), 3, "{name}: {doc}");
        assert_eq!(doc["gate"]["passed"], true, "{name}: {doc}");
        let user = format!("system:serviceaccount:{ns}:{name}");
        // The log is written as requests complete: wait for the last.
        let mut counted = Vec::new();
        for _ in 0..50 {
            counted = want
                .iter()
                .map(|&(verb, code, _)| pod_requests(audit, ns, &user, verb, code))
                .collect();
            if counted.iter().sum::<usize>() >= want.iter().map(|w| w.2).sum::<usize>() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let wanted: Vec<usize> = want.iter().map(|w| w.2).collect();
        assert_eq!(
            counted, wanted,
            "{name}: Pod requests (LIST answered, LIST refused, GET answered)"
        );
    }
    drop(fx);
}

/// This binary's API server, with its audit log.
async fn audited() -> &'static std::path::Path {
    support::k8s::audited("rbac").await
}

/// How many `verb` requests for Pods of `ns` made as `user` the API server
/// answered with `code`, from its audit log.
fn pod_requests(audit: &std::path::Path, ns: &str, user: &str, verb: &str, code: u64) -> usize {
    let text = std::fs::read_to_string(audit).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| {
            let who = e["impersonatedUser"]["username"]
                .as_str()
                .or_else(|| e["user"]["username"].as_str());
            e["stage"] == "ResponseComplete"
                && who == Some(user)
                && e["verb"] == verb
                && e["objectRef"]["resource"] == "pods"
                && e["objectRef"]["namespace"] == ns
                && e["responseStatus"]["code"].as_u64() == Some(code)
        })
        .count()
}

/// The Deployment, CronJob and RBAC manifests in `deploy/` are accepted by
/// the real API server (server-side dry run of every document), the
/// Deployment outlasts a Defragment on SIGTERM, and the container arguments
/// are ones the tool accepts.
#[tokio::test(flavor = "multi_thread")]
async fn deploy_manifests_are_valid_objects_and_arguments() {
    audited().await;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::batch::v1::CronJob;
    use k8s_openapi::api::core::v1::ServiceAccount;
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleBinding};
    use kube::api::{Api, PostParams};

    let client = admin().await;
    namespace(&client, "etcd").await;
    let dry = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let mut container_args: Vec<Vec<String>> = Vec::new();
    for path in [
        "deploy/rbac-operate.yaml",
        "deploy/rbac-view.yaml",
        "deploy/rbac-volume-stats.yaml",
        "deploy/rbac-traffic.yaml",
        "deploy/watch/rbac.yaml",
        "deploy/watch/deployment.yaml",
        "deploy/cronjob-defrag.yaml",
    ] {
        for doc in manifest(path) {
            let kind = doc["kind"].as_str().unwrap().to_string();
            let ns = doc["metadata"]["namespace"].as_str().unwrap_or("etcd");
            let outcome = match kind.as_str() {
                "ClusterRole" => Api::<ClusterRole>::all(client.clone())
                    .create(&dry, &serde_json::from_value(doc.clone()).unwrap())
                    .await
                    .map(|_| ()),
                "RoleBinding" => Api::<RoleBinding>::namespaced(client.clone(), ns)
                    .create(&dry, &serde_json::from_value(doc.clone()).unwrap())
                    .await
                    .map(|_| ()),
                "ClusterRoleBinding" => Api::<ClusterRoleBinding>::all(client.clone())
                    .create(&dry, &serde_json::from_value(doc.clone()).unwrap())
                    .await
                    .map(|_| ()),
                "ServiceAccount" => Api::<ServiceAccount>::namespaced(client.clone(), ns)
                    .create(&dry, &serde_json::from_value(doc.clone()).unwrap())
                    .await
                    .map(|_| ()),
                "Deployment" => {
                    let d: Deployment = serde_json::from_value(doc.clone()).unwrap();
                    let pod = d.spec.template.spec.as_ref().unwrap();
                    assert!(
                        pod.termination_grace_period_seconds.unwrap() > 300,
                        "{path}: the grace period must outlast a 5m Defragment"
                    );
                    container_args.push(pod.containers[0].args.clone().unwrap());
                    Api::<Deployment>::namespaced(client.clone(), ns)
                        .create(&dry, &d)
                        .await
                        .map(|_| ())
                }
                "CronJob" => {
                    let c: CronJob = serde_json::from_value(doc.clone()).unwrap();
                    let pod = c.spec.job_template.spec.as_ref().unwrap();
                    assert!(
                        pod.active_deadline_seconds.is_some_and(|d| d < 24 * 3600),
                        "{path}: a stuck run ends before the next one is due"
                    );
                    let pod = pod.template.spec.as_ref().unwrap();
                    // Issue 20: SIGTERM waits for the Defragment in flight.
                    assert!(
                        pod.termination_grace_period_seconds.unwrap() > 300,
                        "{path}: the grace period must outlast a 5m Defragment"
                    );
                    container_args.push(pod.containers[0].args.clone().unwrap());
                    Api::<CronJob>::namespaced(client.clone(), ns)
                        .create(&dry, &c)
                        .await
                        .map(|_| ())
                }
                other => panic!("{path}: no check for kind {other}"),
            };
            outcome.unwrap_or_else(|e| panic!("{path}: {kind} refused: {e}"));
        }
    }
    assert_eq!(container_args.len(), 2);
    // The arguments parse: the tool gets as far as looking for a Kubernetes
    // configuration (none here), never a usage error from the flags.
    for argv in container_args {
        let argv: Vec<String> = argv
            .into_iter()
            .map(|a| {
                if a.starts_with("--metrics-address=") {
                    "--metrics-address=127.0.0.1:0".to_string()
                } else {
                    a
                }
            })
            .collect();
        let run = tool(&argv, &[("HOME".into(), "/nonexistent".into())]).await;
        assert_eq!(run.code, 2, "{argv:?}: {run:?}");
        assert!(
            run.stderr.contains("no Kubernetes configuration"),
            "{argv:?}: {}",
            run.stderr
        );
    }
}
