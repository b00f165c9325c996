//! The one-shot sweep beside another processor of EtcdDefrag (issue 37):
//! the etcd-operator's own controller (from its v0.5.5 it processes every
//! EtcdDefrag) or a `defrag --watch`. On the test bed's real kube-apiserver
//! and real etcd clusters; judged by each member's own log and the objects
//! read back from the API server. A binary of its own: its fleet sweep
//! must not meet other tests' clusters, and the operator's grant it
//! installs (EtcdDefrag status, by a ClusterRoleBinding) would make every
//! other `defrag --watch` on the API server refuse to start.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use kubectl_etcd_testbed::LoggedDefrag;
use support::k8s::*;
use support::*;

/// The defragmentations `fx`'s members logged since `since`.
fn logged_since(fx: &Fixture, since: f64) -> Vec<LoggedDefrag> {
    fx.etcd
        .logged_defrags()
        .into_iter()
        .filter(|d| d.start >= since)
        .collect()
}

/// Another processor's run of a cluster (an unfinished EtcdDefrag naming
/// it, with status written as the operator's controller writes it) keeps
/// the one-shot sweep off that cluster, alone and in a fleet, while the
/// fleet's other cluster is swept (issue 37: never two sweeps at once,
/// whoever starts them). Judged by each member's own log and the run read
/// back from the API server.
#[tokio::test(flavor = "multi_thread")]
async fn another_processors_run_keeps_the_sweep_off_its_cluster() {
    let client = admin().await;
    let busy = fixture_logged(&client, "beside-a", "busy", Mode::Plain).await;
    let free = fixture_logged(&client, "beside-b", "free", Mode::Plain).await;
    let kc = kubeconfig("beside.yaml", &["beside-a", "beside-b"]);
    let runs = dynamic(&client, "beside-a", "EtcdDefrag", "etcddefrags");
    create(
        &runs,
        serde_json::json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": "nightly-1", "namespace": "beside-a"},
            "spec": {"clusterRef": {"name": "busy"}, "rule": {"all": true}},
        }),
    )
    .await;
    // The status the operator's controller writes once it acts, under the
    // field manager the API server records for it.
    let as_operator = kube::api::PatchParams {
        field_manager: Some("manager".into()),
        ..Default::default()
    };
    let set_phase = |phase: &'static str| {
        let runs = runs.clone();
        let params = as_operator.clone();
        async move {
            runs.patch_status(
                "nightly-1",
                &params,
                &kube::api::Patch::Merge(serde_json::json!({"status": {"phase": phase}})),
            )
            .await
            .unwrap();
        }
    };
    set_phase("Running").await;
    let since = now();

    // One cluster: refused before any member, the run named with who
    // drives it, and advice that is a real kubectl command.
    let run = tool(
        &plugin(
            &kc,
            &[
                "defrag", "busy", "-n", "beside-a", "--all", "--yes", "-o", "json",
            ],
        ),
        &[],
    )
    .await;
    run.expect_code(1);
    let doc = run.json();
    let refusal = &doc["refusal"][0];
    assert_eq!(refusal["code"], "DefragRunActive", "{doc}");
    let message = refusal["message"].as_str().unwrap();
    assert!(
        message.contains("EtcdDefrag beside-a/nightly-1 is Running")
            && message.contains("etcd-operator's defrag controller")
            && message.contains("kubectl get etcddefrag nightly-1 -n beside-a -w"),
        "{message}"
    );
    // The dry run says the same before anything is asked of anyone.
    let dry = tool(
        &plugin(
            &kc,
            &["defrag", "busy", "-n", "beside-a", "--all", "--dry-run"],
        ),
        &[],
    )
    .await;
    dry.expect_code(1);
    assert!(
        dry.stderr.contains("DefragRunActive") || dry.stderr.contains("nightly-1"),
        "{dry:?}"
    );

    // A fleet: the busy cluster is refused, the free one swept.
    let fleet = tool(
        &plugin(&kc, &["defrag", "-A", "--all", "--yes", "-o", "json"]),
        &[],
    )
    .await;
    fleet.expect_code(1);
    let doc = fleet.json();
    let busy_entry = entry(&doc, "beside-a", "busy");
    assert_eq!(busy_entry["outcome"], "Refused", "{busy_entry}");
    assert_eq!(
        busy_entry["report"]["refusal"][0]["code"], "DefragRunActive",
        "{busy_entry}"
    );
    assert!(
        busy_entry["why"].as_str().unwrap().contains("nightly-1"),
        "{busy_entry}"
    );
    let free_entry = entry(&doc, "beside-b", "free");
    assert_eq!(free_entry["outcome"], "Completed", "{free_entry}");
    let logged = logged_since(&busy, since);
    assert!(
        logged.is_empty(),
        "a member of the busy cluster was defragmented beside the other processor's run: {logged:?}"
    );
    every_member_once(&free, &logged_since(&free, since));

    // Once the run has finished, the sweep goes ahead.
    set_phase("Complete").await;
    let since = now();
    tool(
        &plugin(&kc, &["defrag", "busy", "-n", "beside-a", "--all", "--yes"]),
        &[],
    )
    .await
    .expect_code(0);
    every_member_once(&busy, &logged_since(&busy, since));
    // The run itself was only read.
    let read_back = runs.get("nightly-1").await.unwrap();
    assert_eq!(read_back.data["status"]["phase"], "Complete");

    // A policy of the cluster that ticks every second always has a tick
    // inside the next member's defrag: the sweep waits three ticks out,
    // then refuses naming it, before any member. Suspended, it stamps
    // nothing, and the sweep goes ahead.
    let policies = dynamic(
        &client,
        "beside-a",
        "EtcdDefragPolicy",
        "etcddefragpolicies",
    );
    create(
        &policies,
        serde_json::json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefragPolicy",
            "metadata": {"name": "often", "namespace": "beside-a"},
            "spec": {"clusterRef": {"name": "busy"}, "schedule": "@every 1s", "rule": {"all": true}},
        }),
    )
    .await;
    let since = now();
    let run = tool(
        &plugin(
            &kc,
            &[
                "defrag", "busy", "-n", "beside-a", "--all", "--yes", "-o", "json",
            ],
        ),
        &[],
    )
    .await;
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["refusal"][0]["code"], "PolicyTickDue", "{doc}");
    let message = doc["refusal"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("EtcdDefragPolicy beside-a/often")
            && message.contains("kubectl patch etcddefragpolicy often -n beside-a --type merge"),
        "{message}"
    );
    assert!(logged_since(&busy, since).is_empty());
    // The advice, run as printed (through a shell, as a user pastes it).
    let advice = message
        .split("suspend it for the sweep (")
        .nth(1)
        .and_then(|rest| rest.split(") and resume it after").next())
        .unwrap()
        .to_string();
    paste(&kc, &advice);
    let since = now();
    tool(
        &plugin(&kc, &["defrag", "busy", "-n", "beside-a", "--all", "--yes"]),
        &[],
    )
    .await
    .expect_code(0);
    every_member_once(&busy, &logged_since(&busy, since));
}

/// `defrag --watch` against the ClusterRole rules the operator's own chart
/// generates, read from each build: the release with its EtcdDefrag
/// controller grants its manager EtcdDefrag status, and the watcher
/// refuses to start beside it (exit 2, naming the grant and how to remove
/// it); the release before it grants nothing of the kind, and the watcher
/// runs. Installed while the watcher runs (the operator upgraded under
/// it), the grant stops it at its next look, exit 2.
#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_refuses_beside_the_operators_controller_and_stands_down_when_it_appears() {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule};
    use kube::api::{Api, PostParams};
    use kubectl_etcd_testbed::operator::Operator;
    use std::process::Stdio;
    use std::time::Duration;

    let client = admin().await;
    let ns = "beside-watch";
    namespace(&client, ns).await;
    let kc = kubeconfig("beside-watch.yaml", &[ns]);
    let roles: Api<ClusterRole> = Api::all(client.clone());
    for which in [Operator::Inert, Operator::WithDefrag] {
        let file = kubectl_etcd_testbed::bins::operator_dir(which)
            .unwrap()
            .join("manager-role-rules.yaml");
        let rules: Vec<PolicyRule> =
            serde_yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let role: ClusterRole = serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("etcd-operator-manager-role-{}", which.dir())},
        }))
        .unwrap();
        roles
            .create(
                &PostParams::default(),
                &ClusterRole {
                    rules: Some(rules),
                    ..role
                },
            )
            .await
            .unwrap();
    }
    let bindings: Api<ClusterRoleBinding> = Api::all(client.clone());
    let bind_to = |which: Operator| {
        serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "etcd-operator-manager-rolebinding"},
            "subjects": [{"kind": "ServiceAccount", "name": "etcd-operator", "namespace": "etcd-operator-system"}],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": format!("etcd-operator-manager-role-{}", which.dir())},
        })
    };
    let watcher = |recheck: &str| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
            .arg(format!("--kubeconfig={}", kc.display()))
            .args([
                "-n",
                ns,
                "defrag",
                "--watch",
                "--recheck-processors",
                recheck,
            ])
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap()
    };

    // The operator before its controller: the watcher runs; then the
    // grant of the release with the controller replaces it, and the
    // running watcher stands down at its next look.
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(bind_to(Operator::Inert)).unwrap(),
        )
        .await
        .unwrap();
    let mut running = watcher("2s");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(
        running.try_wait().unwrap().is_none(),
        "the watcher refused beside the operator without the controller"
    );
    // A roleRef cannot change: the binding is made anew.
    bindings
        .delete("etcd-operator-manager-rolebinding", &Default::default())
        .await
        .unwrap();
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(bind_to(Operator::WithDefrag)).unwrap(),
        )
        .await
        .unwrap();
    let out = tokio::time::timeout(Duration::from_secs(30), running.wait_with_output())
        .await
        .expect("the running watcher stood down")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("standing down"), "{stderr}");

    // Started beside it: refused at once, naming the grant and the way out.
    let out = tokio::time::timeout(Duration::from_secs(30), watcher("60s").wait_with_output())
        .await
        .expect("the watcher refuses at once")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "ServiceAccount etcd-operator-system/etcd-operator may write EtcdDefrag status"
        ) && stderr.contains("kubectl delete clusterrolebinding etcd-operator-manager-rolebinding"),
        "{stderr}"
    );
    // No Lease was taken by the refused watcher.
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
        Api::namespaced(client.clone(), ns);
    let lease = leases.get_opt("kubectl-etcd-watch").await.unwrap();
    assert!(
        lease.is_none_or(|l| l
            .spec
            .and_then(|s| s.holder_identity)
            .unwrap_or_default()
            .is_empty()),
        "the refused watcher holds the Lease"
    );
}
