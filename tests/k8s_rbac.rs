//! The RBAC manifests in `deploy/` are proven by impersonation on the real
//! API server: `status` works with exactly the read-only ClusterRole, and
//! removing any one rule it needs yields an error naming the verb and the
//! resource; and each unit of `deploy/` applies on its own, creating what
//! it references. (`deploy/watch/rbac.yaml` is proven on the in-cluster path in
//! `tests/k8s/incluster.rs`.)
//!
//! Each unit of `deploy/` is applied here with `kubectl apply -k`, under a
//! name prefix of its own, so its objects never meet the roles the other
//! tests grant; the workloads are created with dry run, which the API
//! server refuses once an object of that name exists, so this is its own
//! test binary (the other modules create some of them for real).

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

    let role = manifest_role("deploy/operate");
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

/// Issue 45, item 7: `deploy/view` is truly read-only. Bound to
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
    let role = manifest_role("deploy/view");
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
        status.stderr.contains("no member was dialed") && status.stderr.contains("deploy/operate"),
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
    let role = manifest_role("deploy/operate");
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

/// Every unit of `deploy/`: what `kubectl apply -k deploy/UNIT` applies.
const UNITS: [&str; 11] = [
    "operate/role",
    "operate",
    "view",
    "traffic",
    "volume-stats",
    "cronjob",
    "watch",
    "kubeadm/agent",
    "kubeadm/cronjob",
    "monitoring/doctor",
    "monitoring/control-plane",
];

/// Issue 46, item 2: each unit of `deploy/` applies on its own with one
/// `kubectl apply -k`, from nothing but the namespace it is pointed at,
/// and creates everything it references, once. Each is applied for real
/// through an overlay that sets only a fresh namespace, a name prefix and
/// the image — the three things a user sets — and judged by what the API
/// server then holds (`kubectl get -k`): every object created; every
/// binding's role and ServiceAccount, and every workload's
/// ServiceAccount, among them (the prefix renames only what the unit
/// itself creates, so a reference to anything else stays unprefixed and
/// is caught); nothing in another namespace (no `etcd` left); no role
/// bound twice to one subject; every image the overlay's. A second apply
/// changes nothing. As committed, the units' images are this release's
/// tag (set in `deploy/image` only).
#[tokio::test(flavor = "multi_thread")]
async fn each_deploy_unit_applies_alone_and_creates_what_it_references() {
    audited().await;
    let client = admin().await;
    let kc = kubeconfig("units.yaml", &["default"]);
    let kc = format!("--kubeconfig={}", kc.display());
    // The test bed's kubectl as the suites run it (its own PATH, no
    // terminal, a time limit).
    let path = support::plugin::plugin_path("units", support::plugin::Completer::Script);
    let release = format!("kubectl-etcd:v{}", env!("CARGO_PKG_VERSION"));
    // Overlays beside a copy of deploy/ (kustomize takes a base only by a
    // relative path).
    let work = tempfile::tempdir().unwrap();
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy"))
        .arg(work.path())
        .status()
        .unwrap();
    assert!(copy.success());
    for (i, unit) in UNITS.iter().enumerate() {
        // As committed: this release's image, everywhere.
        let committed = manifest(&format!("deploy/{unit}"));
        for doc in &committed {
            for image in images(doc) {
                assert_eq!(image, release, "deploy/{unit}");
            }
        }
        let ns = format!("unit-{i}");
        let prefix = format!("u{i}-");
        let image = format!("registry.example/kubectl-etcd:t{i}");
        namespace(&client, &ns).await;
        let overlay = work.path().join(format!("overlay-{i}"));
        std::fs::create_dir(&overlay).unwrap();
        std::fs::write(
            overlay.join("kustomization.yaml"),
            format!(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n\
                 namespace: {ns}\nnamePrefix: {prefix}\nresources:\n  - ../deploy/{unit}\n\
                 images:\n  - name: kubectl-etcd\n    newName: registry.example/kubectl-etcd\n    \
                 newTag: t{i}\n"
            ),
        )
        .unwrap();
        let dir = overlay.to_str().unwrap();
        let applied = support::plugin::kubectl(&path, &[&kc, "apply", "-k", dir], &[]).await;
        assert_eq!(applied.code, 0, "deploy/{unit}: {applied:?}");

        // What the server holds.
        let held =
            support::plugin::kubectl(&path, &[&kc, "get", "-k", dir, "-o", "json"], &[]).await;
        assert_eq!(held.code, 0, "deploy/{unit}: {held:?}");
        // A List, or the one object itself.
        let held = held.json();
        let items = match held["items"].as_array() {
            Some(items) => items.clone(),
            None => vec![held],
        };
        assert_eq!(items.len(), committed.len(), "deploy/{unit}: {items:?}");
        held_together(unit, &ns, &prefix, &image, &items);
        // Applied again: nothing changes.
        let again = support::plugin::kubectl(&path, &[&kc, "apply", "-k", dir], &[]).await;
        assert_eq!(again.code, 0, "deploy/{unit}: {again:?}");
        for line in again.stdout.lines() {
            assert!(line.ends_with(" unchanged"), "deploy/{unit}: {line}");
        }
    }
}

/// What the API server holds of unit `unit` applied into `ns` with
/// `prefix` and `image`: each object once, named with the prefix, in `ns`;
/// every role and ServiceAccount a binding or workload names among them;
/// no role bound twice to one subject; every image `image`.
fn held_together(unit: &str, ns: &str, prefix: &str, image: &str, items: &[serde_json::Value]) {
    use std::collections::BTreeSet;
    let key =
        |kind: &str, name: &str, ns: Option<&str>| format!("{kind}/{}/{name}", ns.unwrap_or(""));
    let mut created = BTreeSet::new();
    for item in items {
        let meta = &item["metadata"];
        assert!(meta["uid"].is_string(), "deploy/{unit}: {item}");
        let name = meta["name"].as_str().unwrap();
        assert!(name.starts_with(prefix), "deploy/{unit}: {name}");
        if let Some(at) = meta["namespace"].as_str() {
            assert_eq!(at, ns, "deploy/{unit}: {name}");
        }
        let kind = item["kind"].as_str().unwrap();
        assert!(
            created.insert(key(kind, name, meta["namespace"].as_str())),
            "deploy/{unit}: {kind} {name} twice"
        );
    }
    let mut bound = BTreeSet::new();
    for item in items {
        let kind = item["kind"].as_str().unwrap();
        let name = item["metadata"]["name"].as_str().unwrap();
        let here = item["metadata"]["namespace"].as_str();
        if kind == "RoleBinding" || kind == "ClusterRoleBinding" {
            let role = &item["roleRef"];
            let role_kind = role["kind"].as_str().unwrap();
            let role_ns = if role_kind == "Role" { here } else { None };
            let role_name = role["name"].as_str().unwrap();
            assert!(
                created.contains(&key(role_kind, role_name, role_ns)),
                "deploy/{unit}: {kind} {name} binds {role_kind} {role_name}, which the unit does not create"
            );
            for subject in item["subjects"].as_array().unwrap() {
                let who = subject["name"].as_str().unwrap();
                if subject["kind"] == "ServiceAccount" {
                    let at = subject["namespace"].as_str();
                    assert_eq!(at, Some(ns), "deploy/{unit}: {name}");
                    assert!(
                        created.contains(&key("ServiceAccount", who, at)),
                        "deploy/{unit}: {name} binds ServiceAccount {who}, which the unit does not create"
                    );
                }
                assert!(
                    bound.insert(format!("{role_kind}/{role_name} {who}")),
                    "deploy/{unit}: {role_kind} {role_name} bound to {who} twice"
                );
            }
        }
        if let Some(pod) = pod_spec(item) {
            if let Some(account) = pod["serviceAccountName"].as_str() {
                assert!(
                    created.contains(&key("ServiceAccount", account, here)),
                    "deploy/{unit}: {kind} {name} runs as {account}, which the unit does not create"
                );
            }
            for got in images(item) {
                assert_eq!(got, image, "deploy/{unit}: {kind} {name}");
            }
        }
    }
}

/// The Pod template of a Deployment, CronJob or Job.
fn pod_spec(doc: &serde_json::Value) -> Option<&serde_json::Value> {
    match doc["kind"].as_str()? {
        "Deployment" | "Job" => Some(&doc["spec"]["template"]["spec"]),
        "CronJob" => Some(&doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]),
        _ => None,
    }
}

/// Every container image of `doc`'s Pod template.
fn images(doc: &serde_json::Value) -> Vec<String> {
    let Some(pod) = pod_spec(doc) else {
        return Vec::new();
    };
    ["initContainers", "containers"]
        .iter()
        .filter_map(|list| pod[*list].as_array())
        .flatten()
        .map(|c| c["image"].as_str().unwrap().to_string())
        .collect()
}

/// The workloads in `deploy/` are accepted by the real API server
/// (server-side dry run), the sweeps outlast a Defragment on SIGTERM, and
/// the container arguments are ones the tool accepts.
#[tokio::test(flavor = "multi_thread")]
async fn deploy_workloads_are_valid_objects_and_arguments() {
    audited().await;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::batch::v1::CronJob;
    use kube::api::{Api, PostParams};

    let client = admin().await;
    namespace(&client, "etcd").await;
    let dry = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let mut container_args: Vec<Vec<String>> = Vec::new();
    for unit in ["watch", "cronjob"] {
        let path = format!("deploy/{unit}");
        for doc in manifest(&path) {
            let kind = doc["kind"].as_str().unwrap().to_string();
            let ns = doc["metadata"]["namespace"].as_str().unwrap_or("etcd");
            let outcome = match kind.as_str() {
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
                    let job = c.spec.job_template.spec.as_ref().unwrap();
                    assert!(
                        job.active_deadline_seconds.is_some_and(|d| d < 24 * 3600),
                        "{path}: a stuck run ends before the next one is due"
                    );
                    let pod = job.template.spec.as_ref().unwrap();
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
                _ => Ok(()),
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
