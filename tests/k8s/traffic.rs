//! `traffic show | set | clear` on real kube-apiservers of the test bed:
//! the current release (1.34) with default gates, the same release with
//! `PreferSameTrafficDistribution=false` (a server that rejects the newer
//! values with 422), and 1.30 (where the field is alpha and off, so the
//! server accepts it and drops it). Every test checks the Service object,
//! its managedFields and the EtcdCluster annotation as the API server holds
//! them, and that the headless Service was never written.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::Client;
use kubectl_etcd_testbed::KubeRelease;
use serde_json::json;
use support::k8s::*;
use support::*;

const MANAGER: &str = "etcd-operator-traffic-distribution";
const ANNOTATION: &str = "etcd-operator.cozystack.io/client-service-traffic-distribution";

/// What the API server holds for one cluster.
#[derive(Debug, Clone, PartialEq)]
struct Held {
    value: Option<String>,
    /// Managers whose managedFields hold spec.trafficDistribution.
    owners: Vec<String>,
    annotation: Option<String>,
    service_rv: String,
    headless_rv: String,
    cluster_rv: String,
}

async fn held(client: &Client, ns: &str, name: &str) -> Held {
    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    let svc = services.get(&format!("{name}-client")).await.unwrap();
    let headless = services.get(name).await.unwrap();
    let cluster = dynamic(client, ns, "EtcdCluster", "etcdclusters")
        .get(name)
        .await
        .unwrap();
    let owners = svc
        .metadata
        .managed_fields
        .clone()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            e.fields_v1
                .as_ref()
                .map(|f| !f.0["f:spec"]["f:trafficDistribution"].is_null())
                .unwrap_or(false)
        })
        .map(|e| e.manager.unwrap_or_default())
        .collect();
    Held {
        value: svc.spec.unwrap().traffic_distribution,
        owners,
        annotation: cluster
            .metadata
            .annotations
            .unwrap_or_default()
            .get(ANNOTATION)
            .cloned(),
        service_rv: svc.metadata.resource_version.unwrap(),
        headless_rv: headless.metadata.resource_version.unwrap(),
        cluster_rv: cluster.metadata.resource_version.unwrap(),
    }
}

/// `kubectl-etcd --kubeconfig=KC traffic ARGS…`
async fn traffic(kc: &Path, rest: &[&str]) -> Run {
    let mut argv = vec![format!("--kubeconfig={}", kc.display()), "traffic".into()];
    argv.extend(rest.iter().map(|s| s.to_string()));
    tool(&argv, &[]).await
}

/// Writes the field as someone else would: a plain update (`kubectl edit`)
/// or, with `apply`, a server-side apply under `manager` (forced).
async fn hand_write(
    client: &Client,
    ns: &str,
    service: &str,
    manager: &str,
    value: &str,
    apply: bool,
) {
    let api: Api<Service> = Api::namespaced(client.clone(), ns);
    if apply {
        let intent = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": service, "namespace": ns},
            "spec": {"trafficDistribution": value}});
        api.patch(
            service,
            &PatchParams::apply(manager).force(),
            &Patch::Apply(intent),
        )
        .await
        .unwrap();
    } else {
        let params = PatchParams {
            field_manager: Some(manager.into()),
            ..Default::default()
        };
        api.patch(
            service,
            &params,
            &Patch::Merge(json!({"spec": {"trafficDistribution": value}})),
        )
        .await
        .unwrap();
    }
}

fn ctx(file: &str, ns: &str) -> PathBuf {
    kubeconfig(file, &[ns])
}

#[tokio::test(flavor = "multi_thread")]
async fn set_show_clear_cycle_writes_only_the_client_service() {
    let client = admin().await;
    let (ns, name) = ("traffic-cycle", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = ctx("traffic-cycle.yaml", ns);
    let start = held(&client, ns, name).await;
    assert_eq!(
        (start.value.as_deref(), start.annotation.as_deref()),
        (None, None)
    );

    let doc = traffic(&kc, &["show", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["state"], "unset", "{doc}");
    assert_eq!(doc["service"], "db-client");
    assert!(
        doc["server"]["version"]
            .as_str()
            .unwrap()
            .starts_with("v1.37"),
        "{doc}"
    );
    for v in doc["server"]["values"].as_array().unwrap() {
        assert_eq!(v["supported"], true, "{doc}");
    }

    // set: annotation and value, owned by the operator's field manager only.
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    let after_set = held(&client, ns, name).await;
    assert_eq!(after_set.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(after_set.owners, [MANAGER]);
    assert_eq!(after_set.annotation.as_deref(), Some("PreferSameZone"));
    assert_eq!(
        after_set.headless_rv, start.headless_rv,
        "headless Service written"
    );

    let doc = traffic(&kc, &["show", "db", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["state"], "in-step", "{doc}");
    assert_eq!(doc["value"], "PreferSameZone");
    assert_eq!(doc["annotation"], "PreferSameZone");
    assert_eq!(doc["ownedByFieldManager"], true);
    assert_eq!(doc["owners"][0]["manager"], MANAGER);
    assert_eq!(doc["owners"][0]["operation"], "Apply");
    let table = traffic(&kc, &["show"]).await.expect_code(0).stdout.clone();
    assert!(table.contains("VALUE       PreferSameZone"), "{table}");
    assert!(table.contains("STATE       in step"), "{table}");

    // The same value again: no write at all.
    let run = traffic(&kc, &["set", "PreferSameZone", "--yes"]).await;
    run.expect_code(0);
    assert!(run.stdout.contains("nothing to do"), "{}", run.stdout);
    assert_eq!(
        held(&client, ns, name).await,
        after_set,
        "a no-op set wrote"
    );

    // Another value replaces it.
    traffic(&kc, &["set", "PreferSameNode", "--yes"])
        .await
        .expect_code(0);
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameNode"));
    assert_eq!(h.owners, [MANAGER]);
    assert_eq!(h.annotation.as_deref(), Some("PreferSameNode"));

    // clear: value, ownership and annotation gone.
    let run = traffic(&kc, &["clear", "--yes", "-o", "json"]).await;
    let doc = run.expect_code(0).json();
    assert_eq!(doc["change"]["serviceAction"]["action"], "release", "{doc}");
    let h = held(&client, ns, name).await;
    assert_eq!(h.value, None);
    assert!(h.owners.is_empty(), "{:?}", h.owners);
    assert_eq!(h.annotation, None);
    assert_eq!(h.headless_rv, start.headless_rv, "headless Service written");
    let doc = traffic(&kc, &["show", "-o", "yaml"])
        .await
        .expect_code(0)
        .stdout
        .clone();
    assert!(doc.contains("state: unset"), "{doc}");
}

#[tokio::test(flavor = "multi_thread")]
async fn set_restores_hand_edits_of_value_and_of_ownership() {
    let client = admin().await;
    let (ns, name) = ("traffic-drift", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = ctx("traffic-drift.yaml", ns);
    let start = held(&client, ns, name).await;
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);

    // A hand edit of the value moves ownership to the editor.
    hand_write(
        &client,
        ns,
        "db-client",
        "kubectl-edit",
        "PreferSameNode",
        false,
    )
    .await;
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameNode"));
    assert_eq!(h.owners, ["kubectl-edit"]);
    let doc = traffic(&kc, &["show", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["state"], "pending-apply", "{doc}");
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.owners, [MANAGER]);

    // A forced apply by another server-side-apply manager (a GitOps
    // controller) takes ownership: issue 45, it is not taken from that
    // manager without consent naming it — its next apply would conflict.
    hand_write(
        &client,
        ns,
        "db-client",
        "platform-apply",
        "PreferSameNode",
        true,
    )
    .await;
    let before = held(&client, ns, name).await;
    assert_eq!(before.owners, ["platform-apply"]);
    let refused = traffic(&kc, &["set", "PreferSameZone", "--yes"]).await;
    refused.expect_code(1);
    assert!(
        refused
            .stderr
            .contains("held by server-side-apply field manager platform-apply")
            && refused.stderr.contains("Nothing was changed"),
        "{}",
        refused.stderr
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameNode"));
    assert_eq!(h.owners, ["platform-apply"]);
    assert_eq!(
        h.cluster_rv, before.cluster_rv,
        "the annotation was written"
    );
    // The advice, run as printed: consent named, the field taken.
    let advice = refused
        .stderr
        .split("take it anyway: kubectl etcd ")
        .nth(1)
        .unwrap()
        .trim()
        .to_string();
    assert!(
        advice.ends_with("--take-from platform-apply --yes"),
        "{advice}"
    );
    let mut argv = vec![format!("--kubeconfig={}", kc.display())];
    argv.extend(advice.split_whitespace().map(str::to_string));
    tool(&argv, &[]).await.expect_code(0);
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.owners, [MANAGER]);

    // The value put back by hand, ownership still the editor's: `set`
    // re-applies although the value already matches.
    hand_write(
        &client,
        ns,
        "db-client",
        "kubectl-edit",
        "PreferSameNode",
        false,
    )
    .await;
    hand_write(
        &client,
        ns,
        "db-client",
        "kubectl-edit",
        "PreferSameZone",
        false,
    )
    .await;
    let h = held(&client, ns, name).await;
    assert_eq!(
        (h.value.as_deref(), h.owners.clone()),
        (Some("PreferSameZone"), vec!["kubectl-edit".to_string()])
    );
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    let h = held(&client, ns, name).await;
    assert!(h.owners.contains(&MANAGER.to_string()), "{:?}", h.owners);
    assert_eq!(h.headless_rv, start.headless_rv, "headless Service written");
}

#[tokio::test(flavor = "multi_thread")]
async fn clear_leaves_a_value_another_manager_also_holds() {
    let client = admin().await;
    let (ns, name) = ("traffic-shared", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = ctx("traffic-shared.yaml", ns);
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    // The same value applied by a second manager: shared ownership.
    let api: Api<Service> = Api::namespaced(client.clone(), ns);
    let intent = json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "db-client", "namespace": ns},
        "spec": {"trafficDistribution": "PreferSameZone"}});
    api.patch(
        "db-client",
        &PatchParams::apply("platform-team"),
        &Patch::Apply(intent),
    )
    .await
    .unwrap();
    let mut owners = held(&client, ns, name).await.owners;
    owners.sort();
    assert_eq!(owners, [MANAGER, "platform-team"]);

    let run = traffic(&kc, &["clear", "--yes"]).await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("stays") && run.stdout.contains("platform-team"),
        "{}",
        run.stdout
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.owners, ["platform-team"]);
    assert_eq!(h.annotation, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hand_set_value_without_annotation_is_reported_and_left_alone() {
    let client = admin().await;
    let (ns, name) = ("traffic-hand", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = ctx("traffic-hand.yaml", ns);
    hand_write(
        &client,
        ns,
        "db-client",
        "kubectl-edit",
        "PreferSameZone",
        false,
    )
    .await;

    let doc = traffic(&kc, &["show", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["state"], "hand-set", "{doc}");
    assert_eq!(doc["value"], "PreferSameZone");
    assert_eq!(doc["annotation"], serde_json::Value::Null);
    assert_eq!(doc["ownedByFieldManager"], false);
    assert_eq!(doc["owners"][0]["manager"], "kubectl-edit");

    let before = held(&client, ns, name).await;
    let run = traffic(&kc, &["clear", "--yes"]).await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("left alone") && run.stdout.contains("kubectl-edit"),
        "{}",
        run.stdout
    );
    assert_eq!(held(&client, ns, name).await, before, "clear wrote");
}

#[tokio::test(flavor = "multi_thread")]
async fn dry_run_asks_the_server_and_changes_nothing() {
    let client = admin().await;
    let (ns, name) = ("traffic-dry", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = ctx("traffic-dry.yaml", ns);
    let before = held(&client, ns, name).await;
    let run = traffic(&kc, &["set", "PreferSameNode", "--dry-run", "-o", "json"]).await;
    let doc = run.expect_code(0).json();
    assert_eq!(doc["change"]["dryRun"], true, "{doc}");
    assert_eq!(
        doc["value"], "PreferSameNode",
        "the server's dry-run answer: {doc}"
    );
    assert_eq!(doc["annotation"], "PreferSameNode", "{doc}");
    assert_eq!(held(&client, ns, name).await, before, "dry run wrote");

    traffic(&kc, &["set", "PreferSameNode", "--yes"])
        .await
        .expect_code(0);
    let before = held(&client, ns, name).await;
    let run = traffic(&kc, &["clear", "--dry-run"]).await;
    run.expect_code(0);
    assert!(run.stdout.contains("would be"), "{}", run.stdout);
    assert_eq!(held(&client, ns, name).await, before, "dry run wrote");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_and_missing_objects_exit_2_and_change_nothing() {
    let client = admin().await;
    let ns = "traffic-errors";
    services_fixture(&client, ns, "db", true).await;
    services_fixture(&client, ns, "noservice", false).await;
    let kc = ctx("traffic-errors.yaml", ns);

    // An invalid value is refused before any request: the kubeconfig here
    // points nowhere, and the message lists the valid values.
    for bad in ["preferclose", "PreferZone", ""] {
        let run = tool(
            &args(&["--kubeconfig=/nonexistent", "traffic", "set", bad, "db"]),
            &[],
        )
        .await;
        assert_eq!(run.code, 2, "{bad:?}: {run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("PreferClose, PreferSameZone, PreferSameNode"),
            "{}",
            run.stderr
        );
    }

    let run = traffic(&kc, &["show", "nope"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("EtcdCluster traffic-errors/nope not found"),
        "{}",
        run.stderr
    );

    // No client Service: an error, and no Service is created.
    let run = traffic(&kc, &["set", "PreferSameZone", "noservice", "--yes"]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("Service traffic-errors/noservice-client not found")
            && run.stderr.contains("never creates"),
        "{}",
        run.stderr
    );
    let services: Api<Service> = Api::namespaced(client.clone(), ns);
    assert!(services
        .get_opt("noservice-client")
        .await
        .unwrap()
        .is_none());
    let cluster = dynamic(&client, ns, "EtcdCluster", "etcdclusters")
        .get("noservice")
        .await
        .unwrap();
    assert!(!cluster
        .metadata
        .annotations
        .unwrap_or_default()
        .contains_key(ANNOTATION));

    // Not on a terminal and no --yes: refused before contacting anything.
    let run = tool(
        &args(&["--kubeconfig=/nonexistent", "traffic", "clear", "db"]),
        &[],
    )
    .await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_value_the_server_rejects_is_an_error_and_leaves_nothing() {
    // 1.34 with the newer values' gate off answers 422 (from 1.35 the gate
    // is GA and locked on).
    let server = start_apiserver(KubeRelease::V1_34, "PreferSameTrafficDistribution=false").await;
    let client = server.admin_client(None).await.unwrap();
    let (ns, name) = ("traffic-gate", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = kubeconfig_on(&server, "traffic-gate.yaml", &[ns]);
    let before = held(&client, ns, name).await;

    for extra in [&["--yes"][..], &["--dry-run"][..]] {
        let mut argv = vec!["set", "PreferSameZone"];
        argv.extend_from_slice(extra);
        let run = traffic(&kc, &argv).await;
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("rejects trafficDistribution PreferSameZone")
                && run.stderr.contains("v1.34.")
                && run.stderr.contains("nothing was changed"),
            "{}",
            run.stderr
        );
        assert_eq!(
            held(&client, ns, name).await,
            before,
            "a rejected set wrote"
        );
    }

    // With an annotation already there, it stays as it was.
    dynamic(&client, ns, "EtcdCluster", "etcdclusters")
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"annotations": {ANNOTATION: "PreferClose"}}})),
        )
        .await
        .unwrap();
    let before = held(&client, ns, name).await;
    let run = traffic(&kc, &["set", "PreferSameNode", "--yes"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    let h = held(&client, ns, name).await;
    assert_eq!(h, before, "a rejected set wrote");
    assert_eq!(h.annotation.as_deref(), Some("PreferClose"));
    assert!(!h.owners.contains(&MANAGER.to_string()));

    // PreferClose is not behind that gate, and 1.34 does not deprecate it.
    let run = traffic(&kc, &["set", "PreferClose", "--yes", "-o", "json"]).await;
    run.expect_code(0);
    assert_eq!(held(&client, ns, name).await.owners, [MANAGER]);
    let doc = run.json();
    assert!(doc["change"].get("serverWarnings").is_none(), "{doc}");
    assert!(!run.stderr.contains("deprecated"), "{}", run.stderr);
    drop(server);
}

/// Kubernetes 1.37 (PreferSameZone GA since 1.35) names PreferClose
/// PreferSameZone: `set PreferClose` writes that name to the annotation
/// and the Service alike, and draws no warning. With `--exact` the server
/// answers the deprecated name with a warning: the tool passes on the
/// server's own words, writes exactly the value asked for, and says how to
/// move on.
#[tokio::test(flavor = "multi_thread")]
async fn the_api_servers_deprecation_warning_is_passed_on() {
    let server = start_apiserver(KubeRelease::Current, "").await;
    let client = server.admin_client(None).await.unwrap();
    let (ns, name) = ("traffic-warn", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = kubeconfig_on(&server, "traffic-warn.yaml", &[ns]);
    let said = "spec.trafficDistribution: \"PreferClose\" is deprecated; use \"PreferSameZone\"";

    let run = traffic(&kc, &["set", "PreferClose", "--yes", "-o", "json"]).await;
    run.expect_code(0);
    let doc = run.json();
    assert!(doc["change"].get("serverWarnings").is_none(), "{doc}");
    assert!(
        doc["change"]["notes"].to_string().contains(
            "PreferClose is written as PreferSameZone, the same routing: Kubernetes 1.35 and later name PreferClose PreferSameZone"
        ),
        "{doc}"
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.annotation.as_deref(), Some("PreferSameZone"));

    let run = traffic(
        &kc,
        &["set", "PreferClose", "--exact", "--yes", "-o", "json"],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(
        doc["server"]["version"]
            .as_str()
            .map(|v| v.starts_with("v1.37.")),
        Some(true),
        "{doc}"
    );
    assert_eq!(doc["change"]["serverWarnings"], json!([said]), "{doc}");
    assert!(
        run.stderr.contains(said),
        "warned on stderr too: {}",
        run.stderr
    );
    let close = doc["server"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["value"] == "PreferClose")
        .unwrap();
    assert_eq!(close["deprecated"], "1.35: use PreferSameZone", "{doc}");
    let notes = doc["change"]["notes"].to_string();
    assert!(
        notes.contains(&format!(
            "kubectl etcd traffic set PreferSameZone {name} -n {ns}"
        )),
        "{notes}"
    );
    // Read back from the API server: exactly the value asked for, and the
    // annotation the operator reads says the same.
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferClose"));
    assert_eq!(h.annotation.as_deref(), Some("PreferClose"));

    // The advice, run as printed, draws no warning.
    let run = traffic(
        &kc,
        &[
            "set",
            "PreferSameZone",
            name,
            "-n",
            ns,
            "--yes",
            "-o",
            "json",
        ],
    )
    .await;
    run.expect_code(0);
    assert!(
        run.json()["change"].get("serverWarnings").is_none(),
        "{}",
        run.stdout
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.annotation.as_deref(), Some("PreferSameZone"));
    drop(server);
}

/// Before 1.34 PreferSameZone is named PreferClose: on 1.30 with the
/// field's gate on, `set PreferSameZone` writes PreferClose to the
/// annotation and the Service, which the server keeps; `--exact` writes
/// PreferSameZone as given, which the server rejects, leaving nothing.
#[tokio::test(flavor = "multi_thread")]
async fn an_older_server_gets_the_older_name_of_the_same_value() {
    let server = start_apiserver(KubeRelease::V1_30, "ServiceTrafficDistribution=true").await;
    let client = server.admin_client(None).await.unwrap();
    let (ns, name) = ("traffic-rename", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = kubeconfig_on(&server, "traffic-rename.yaml", &[ns]);

    let run = traffic(&kc, &["set", "PreferSameZone", "--exact", "--yes"]).await;
    assert_ne!(run.code, 0, "{}", run.stdout);
    let h = held(&client, ns, name).await;
    assert_eq!((h.value, h.annotation), (None, None));

    let run = traffic(&kc, &["set", "PreferSameZone", "--yes", "-o", "json"]).await;
    run.expect_code(0);
    let notes = run.json()["change"]["notes"].to_string();
    assert!(
        notes.contains("PreferSameZone is written as PreferClose, the same routing: before Kubernetes 1.34 PreferSameZone is named PreferClose, and this API server is 1.30"),
        "{notes}"
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.value.as_deref(), Some("PreferClose"));
    assert_eq!(h.annotation.as_deref(), Some("PreferClose"));
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_value_an_old_server_drops_is_a_distinct_error_and_leaves_nothing() {
    // 1.30: the field is alpha and off; the server answers 200 and drops it.
    let server = start_apiserver(KubeRelease::V1_30, "").await;
    let client = server.admin_client(None).await.unwrap();
    let (ns, name) = ("traffic-old", "db");
    services_fixture(&client, ns, name, true).await;
    let kc = kubeconfig_on(&server, "traffic-old.yaml", &[ns]);
    let before = held(&client, ns, name).await;

    let doc = traffic(&kc, &["show", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert!(
        doc["server"]["version"]
            .as_str()
            .unwrap()
            .starts_with("v1.30."),
        "{doc}"
    );
    for v in doc["server"]["values"].as_array().unwrap() {
        assert_eq!(v["supported"], false, "{doc}");
    }

    for value in ["PreferClose", "PreferSameNode"] {
        let run = traffic(&kc, &["set", value, "--yes"]).await;
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("accepts trafficDistribution {value}"))
                && run.stderr.contains("does not keep it")
                && run.stderr.contains("v1.30."),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("rejects"), "{}", run.stderr);
        let h = held(&client, ns, name).await;
        assert_eq!(h, before, "a dropped set wrote");
        assert!(h.owners.is_empty(), "{:?}", h.owners);
    }
    drop(server);
}

/// A ValidatingAdmissionPolicy that lets dry runs through but refuses the
/// real write of PreferSameNode in namespace `ns`: the server-side dry run
/// passes, the annotation is written, the apply fails, and `set` must put
/// the annotation back.
async fn refuse_real_writes(client: &Client, ns: &str) {
    use k8s_openapi::api::admissionregistration::v1::{
        ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
    };
    let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
        "metadata": {"name": "refuse-samenode"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"], "resources": ["services"]}]},
            "validations": [{
                "expression": "request.dryRun == true || !has(object.spec.trafficDistribution) || object.spec.trafficDistribution != 'PreferSameNode'",
                "message": "test policy: PreferSameNode only in dry runs",
                "reason": "Invalid"}]}
    }))
    .unwrap();
    let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
        "metadata": {"name": "refuse-samenode"},
        "spec": {"policyName": "refuse-samenode", "validationActions": ["Deny"],
            "matchResources": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}}}}
    }))
    .unwrap();
    Api::<ValidatingAdmissionPolicy>::all(client.clone())
        .create(&PostParams::default(), &policy)
        .await
        .unwrap();
    Api::<ValidatingAdmissionPolicyBinding>::all(client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    // The policy takes effect asynchronously: wait until a real write on a
    // scratch Service is refused.
    let api: Api<Service> = Api::namespaced(client.clone(), ns);
    let scratch: Service = serde_json::from_value(json!({"metadata": {"name": "scratch"},
        "spec": {"ports": [{"port": 80}]}}))
    .unwrap();
    api.create(&PostParams::default(), &scratch).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let r = api
            .patch(
                "scratch",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"trafficDistribution": "PreferSameNode"}})),
            )
            .await;
        match r {
            Err(kube::Error::Api(e)) if e.code == 422 => break,
            _ => {
                let _ = api
                    .patch(
                        "scratch",
                        &PatchParams::default(),
                        &Patch::Merge(json!({"spec": {"trafficDistribution": null}})),
                    )
                    .await;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "policy never took effect"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_apply_after_the_annotation_puts_the_annotation_back() {
    let client = admin().await;
    let (ns, name) = ("traffic-undo", "db");
    services_fixture(&client, ns, name, true).await;
    refuse_real_writes(&client, ns).await;
    let kc = ctx("traffic-undo.yaml", ns);

    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    let before = held(&client, ns, name).await;
    let run = traffic(&kc, &["set", "PreferSameNode", "--yes"]).await;
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("test policy")
            && run
                .stderr
                .contains("restored the annotation to PreferSameZone"),
        "{}",
        run.stderr
    );
    let h = held(&client, ns, name).await;
    assert_eq!(h.annotation.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.value.as_deref(), Some("PreferSameZone"));
    assert_eq!(h.owners, [MANAGER]);
    assert_eq!(
        (h.service_rv, h.headless_rv),
        (before.service_rv, before.headless_rv)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn traffic_role_is_sufficient_and_every_rule_is_needed() {
    let client = admin().await;
    let (ns, name) = ("traffic-rbac", "db");
    services_fixture(&client, ns, name, true).await;

    let role = manifest_role("deploy/traffic");
    let rules = role.rules.clone().unwrap();
    let kc = grant(
        &client,
        ns,
        role.metadata.name.as_ref().unwrap(),
        rules.clone(),
        "full",
    )
    .await;

    // With exactly the manifest's rules: show, set and clear all work (the
    // cluster name omitted, so the list permission is used too).
    traffic(&kc, &["show"]).await.expect_code(0);
    traffic(&kc, &["set", "PreferSameZone", "--yes"])
        .await
        .expect_code(0);
    let h = held(&client, ns, name).await;
    assert_eq!(
        (h.value.as_deref(), h.annotation.as_deref()),
        (Some("PreferSameZone"), Some("PreferSameZone"))
    );
    traffic(&kc, &["clear", "--yes"]).await.expect_code(0);
    let h = held(&client, ns, name).await;
    assert_eq!((h.value.as_deref(), h.annotation.as_deref()), (None, None));

    // Without any one permission: exit 2 with the server's words, nothing
    // changed.
    let needed = [
        ("services", "get"),
        ("services", "patch"),
        ("etcdclusters", "get"),
        ("etcdclusters", "patch"),
    ];
    for (resource, verb) in needed {
        let account = format!("no-{resource}-{verb}");
        let reduced = rules
            .iter()
            .cloned()
            .map(|mut r| {
                if r.resources
                    .as_ref()
                    .unwrap()
                    .contains(&resource.to_string())
                {
                    r.verbs.retain(|v| v != verb);
                }
                r
            })
            .collect();
        let kc = grant(
            &client,
            ns,
            &format!("kubectl-etcd-traffic-{account}"),
            reduced,
            &account,
        )
        .await;
        let before = held(&client, ns, name).await;
        // PreferSameZone: a PreferClose write would also draw 1.37's
        // deprecation warning on stderr.
        let run = traffic(&kc, &["set", "PreferSameZone", "db", "--yes"]).await;
        assert_eq!(run.code, 2, "{resource}/{verb}: {run:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        let want = format!("cannot {verb} resource \"{resource}\"");
        assert!(
            run.stderr.contains(&want),
            "{:?} lacks {want:?}",
            run.stderr
        );
        assert_eq!(
            held(&client, ns, name).await,
            before,
            "{resource}/{verb}: wrote"
        );
    }
}

/// Issue 38: `traffic set` treats SIGTERM as the first Ctrl-C: the writes
/// under way finish and are reported, so the annotation and the Service
/// never disagree (it used to die between them). A 1.2 s round trip to the
/// API server stretches the writes; the signal is sent as soon as the
/// server holds the annotation, while the apply is still to come.
#[tokio::test(flavor = "multi_thread")]
async fn sigterm_between_the_annotation_and_the_apply_finishes_both() {
    let client = admin().await;
    let (ns, name) = ("traffic-signal", "db");
    services_fixture(&client, ns, name, true).await;
    let proxy = apiserver_proxy(kubectl_etcd_testbed::delay::Delay::rtt_ms(1200)).await;
    let kc = kubeconfig_via(
        &format!("https://{}", proxy.addr()),
        "traffic-signal.yaml",
        &[ns],
    );
    let argv: Vec<String> = [
        &format!("--kubeconfig={}", kc.display()),
        "traffic",
        "set",
        "PreferSameZone",
        "--yes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let running = spawn_tool(&argv);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let now = held(&client, ns, name).await;
        if now.annotation.is_some() {
            assert_eq!(now.value, None, "the apply came with the annotation");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the annotation never came"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    running.terminate();
    let run = running.finish().await;
    assert_eq!(run.code, 143, "{run:?}");
    assert!(
        run.stderr.contains("finishing the writes under way"),
        "{}",
        run.stderr
    );
    let after = held(&client, ns, name).await;
    assert_eq!(
        (after.annotation.as_deref(), after.value.as_deref()),
        (Some("PreferSameZone"), Some("PreferSameZone")),
        "{}",
        run.stderr
    );
    assert_eq!(after.owners, [MANAGER]);
    assert!(run.stdout.contains("PreferSameZone"), "{}", run.stdout);
}
