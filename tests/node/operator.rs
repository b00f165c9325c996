//! Plugin mode where users run it (issue 22): on the test bed's real node,
//! the real etcd-operator (built from its own source) runs EtcdClusters
//! created the way a user creates them — plaintext, and mutual TLS from
//! Secrets the user brings — with members in containers on volumes the
//! scheduler bound. `kubectl etcd …` goes through the real kubectl and the
//! real kubelet's port-forward. Every verdict comes from what the servers
//! recorded: each member's own log as the kubelet serves it, the objects
//! the API server holds, and the snapshot file read back by etcd's own
//! `etcdutl`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Secret, Service};
use kube::api::{Api, Patch, PatchParams};
use kube::Client;
use kubectl_etcd_testbed::certs::Ca;
use kubectl_etcd_testbed::cluster::defrags_in_logs;
use serde_json::{json, Value};
use support::k8s::*;
use support::operator::*;
use support::rows;

const NS: &str = "op";
const TRAFFIC_MANAGER: &str = "etcd-operator-traffic-distribution";

/// A user's mutual-TLS material, as Secrets in the namespace: the server
/// and peer certificates with the names the operator's own cert-manager
/// mode would give them, and the client identity the operator (and the
/// tool) present.
struct Pki {
    ca: String,
    client: kubectl_etcd_testbed::certs::Issued,
}

async fn bring_your_own_tls(client: &Client, cluster: &str) -> Pki {
    let ca = Ca::new("op-test-ca").unwrap();
    let wild = format!("*.{cluster}.{NS}.svc");
    let svc = format!("{cluster}.{NS}.svc");
    let client_svc = format!("{cluster}-client.{NS}.svc");
    let local = |n: &str| format!("{n}.cluster.local");
    let server_names = [
        wild.clone(),
        local(&wild),
        svc.clone(),
        local(&svc),
        client_svc.clone(),
        local(&client_svc),
        "localhost".into(),
        "127.0.0.1".into(),
    ];
    let server = ca
        .issue(
            &format!("{cluster}-server"),
            None,
            &server_names.iter().map(String::as_str).collect::<Vec<_>>(),
        )
        .unwrap();
    let peer = ca
        .issue(&format!("{cluster}-peer"), None, &[&wild, &local(&wild)])
        .unwrap();
    let operator = ca
        .issue(&format!("{cluster}-operator-client"), None, &[])
        .unwrap();
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NS);
    for (name, cert) in [
        (format!("{cluster}-server"), &server),
        (format!("{cluster}-peer"), &peer),
        (format!("{cluster}-operator-client"), &operator),
    ] {
        create_secret(
            &secrets,
            &name,
            "kubernetes.io/tls",
            &[
                ("ca.crt", ca.pem()),
                ("tls.crt", cert.cert_pem.clone()),
                ("tls.key", cert.key_pem.clone()),
            ],
        )
        .await;
    }
    Pki {
        ca: ca.pem(),
        client: operator,
    }
}

/// The leader's name in a `status -o json` document.
fn leader_of(doc: &Value) -> String {
    rows(doc)
        .iter()
        .find(|r| r["isLeader"] == true)
        .and_then(|r| r["name"].as_str())
        .unwrap_or_else(|| panic!("no leader in {doc}"))
        .to_string()
}

/// Who owns `spec.trafficDistribution` of a Service, and its value.
fn traffic_of(svc: &Service) -> (Option<String>, Vec<String>) {
    let owners = svc
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|f| {
            f.fields_v1
                .as_ref()
                .is_some_and(|v| !v.0["f:spec"]["f:trafficDistribution"].is_null())
        })
        .filter_map(|f| f.manager.clone())
        .collect();
    (
        svc.spec
            .as_ref()
            .and_then(|s| s.traffic_distribution.clone()),
        owners,
    )
}

/// JSON flattened to `path → value` (objects by key, arrays by index).
fn flatten(v: &Value, path: &str, out: &mut std::collections::BTreeMap<String, Value>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(v, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(v, &format!("{path}[{i}]"), out);
            }
        }
        other => {
            out.insert(path.to_string(), other.clone());
        }
    }
}

/// What is compared of an object: its labels, annotations and owner kinds,
/// its spec and status (what the tool reads of it), with names made
/// comparable: each `(from, to)` replaced in every string.
fn shape(obj: &Value, names: &[(String, String)]) -> std::collections::BTreeMap<String, Value> {
    let mut text = serde_json::to_string(&json!({
        "labels": obj["metadata"]["labels"],
        "annotations": obj["metadata"]["annotations"],
        "owners": obj["metadata"]["ownerReferences"].as_array().map(|o| {
            o.iter().map(|r| r["kind"].clone()).collect::<Vec<_>>()
        }),
        "spec": obj["spec"],
        "status": obj["status"],
    }))
    .unwrap();
    for (from, to) in names {
        text = text.replace(from.as_str(), to);
    }
    let mut out = std::collections::BTreeMap::new();
    flatten(&serde_json::from_str(&text).unwrap(), "", &mut out);
    out.retain(|_, v| !v.is_null());
    out
}

/// Paths whose values differ by nature between two clusters (identities,
/// times, addresses, where the image comes from): only their presence is
/// compared.
fn volatile(path: &str) -> bool {
    [
        ".status.clusterID",
        ".status.clusterToken",
        ".spec.clusterToken",
        ".status.memberID",
        ".status.conditions",
        ".status.podIP",
        ".status.hostIP",
        ".status.startTime",
        ".status.containerStatuses",
        ".status.observedGeneration",
        ".spec.containers[0].image",
        ".spec.initialCluster",
        ".status.lastTransitionTime",
        ".status.qosClass",
        ".spec.clusterIP",
    ]
    .iter()
    .any(|p| path.starts_with(p))
}

/// Every difference between what the fixture published (`fixture`) and
/// what the operator wrote (`real`) for the same object: a path only the
/// fixture has, or a shared path with another value.
fn differences(
    kind: &str,
    fixture: &Value,
    real: &Value,
    fixture_names: &[(String, String)],
    real_names: &[(String, String)],
) -> Vec<String> {
    let f = shape(fixture, fixture_names);
    let r = shape(real, real_names);
    let mut out = Vec::new();
    for (path, value) in &f {
        match r.get(path) {
            None => out.push(format!(
                "{kind}{path}: the fixture has {value}, the operator nothing"
            )),
            Some(v) if v != value && !volatile(path) => out.push(format!(
                "{kind}{path}: the fixture has {value}, the operator {v}"
            )),
            _ => {}
        }
    }
    // What every reader of these objects relies on: the labels.
    for (path, value) in &r {
        if path.starts_with(".labels.") && !f.contains_key(path) {
            out.push(format!(
                "{kind}{path}: the operator has {value}, the fixture nothing"
            ));
        }
    }
    out
}

/// The fast suite's fixture (`support::k8s::publish` and
/// `services_fixture`) against what the real operator wrote for the same
/// spec: labels, annotations, owners, spec and status of the EtcdCluster,
/// its EtcdMembers and member Pods, and the two Services.
async fn the_fixture_publishes_what_the_operator_writes(bed: &Bed) {
    // The fixture on the fast suite's own API server, as its tests use it
    // (on the node's, the real operator would act on its EtcdMembers).
    let fast = admin().await;
    // The release the operator runs here: the fixture publishes the one
    // its members run.
    let etcd = support::start(
        support::ClusterSpec::new(3, support::Security::Plain).version(support::EtcdVersion::V3_6),
    )
    .await;
    let fixture = publish(
        &fast,
        "fixture",
        "plain",
        Mode::Plain,
        etcd,
        member_names("plain", 3),
    )
    .await;
    services_fixture(&fast, "fixture-services", "plain", true).await;
    let client = &bed.client;
    let real_members = bed.members("plain").await;
    let rename = |ns: &str, members: &[String]| -> Vec<(String, String)> {
        let mut names: Vec<(String, String)> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.clone(), format!("<member-{i}>")))
            .collect();
        names.push((format!(".{ns}."), ".<ns>.".into()));
        names.push((format!("\"{ns}\""), "\"<ns>\"".into()));
        names
    };
    let real_names = rename(NS, &real_members);
    let mut fixture_members = fixture.members.clone();
    fixture_members.sort();
    let fixture_names = rename("fixture", &fixture_members);
    let get = |ns: &str, kind: &str, plural: &str, name: &str| {
        let on = if ns == NS { client } else { &fast };
        let api = dynamic(on, ns, kind, plural);
        let name = name.to_string();
        async move { serde_json::to_value(api.get(&name).await.unwrap()).unwrap() }
    };
    let on = |ns: &str| {
        if ns == NS {
            client.clone()
        } else {
            fast.clone()
        }
    };
    let pods = |ns: &str| Api::<k8s_openapi::api::core::v1::Pod>::namespaced(on(ns), ns);
    let services = |ns: &str| Api::<Service>::namespaced(on(ns), ns);
    let mut found = Vec::new();
    found.extend(differences(
        "EtcdCluster",
        &get("fixture", "EtcdCluster", "etcdclusters", "plain").await,
        &get(NS, "EtcdCluster", "etcdclusters", "plain").await,
        &fixture_names,
        &real_names,
    ));
    for (f, r) in fixture_members.iter().zip(&real_members) {
        found.extend(differences(
            "EtcdMember",
            &get("fixture", "EtcdMember", "etcdmembers", f).await,
            &get(NS, "EtcdMember", "etcdmembers", r).await,
            &fixture_names,
            &real_names,
        ));
        found.extend(differences(
            "Pod",
            &serde_json::to_value(pods("fixture").get(f).await.unwrap()).unwrap(),
            &serde_json::to_value(pods(NS).get(r).await.unwrap()).unwrap(),
            &fixture_names,
            &real_names,
        ));
    }
    let service_names = rename("fixture-services", &[]);
    for name in ["plain", "plain-client"] {
        found.extend(differences(
            "Service",
            &serde_json::to_value(services("fixture-services").get(name).await.unwrap()).unwrap(),
            &serde_json::to_value(services(NS).get(name).await.unwrap()).unwrap(),
            &service_names,
            &real_names,
        ));
    }
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "the fixture differs from the real operator:\n{}",
        found.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plugin_mode_on_clusters_the_real_operator_runs() {
    let bed = Bed::start(NS).await;
    let pki = bring_your_own_tls(&bed.client, "secure").await;
    bed.create_cluster("plain", 3, "1Gi", Value::Null).await;
    bed.create_cluster(
        "secure",
        3,
        "1Gi",
        json!({
            "client": {"serverSecretRef": {"name": "secure-server"},
                       "operatorClientSecretRef": {"name": "secure-operator-client"}},
            "peer": {"secretRef": {"name": "secure-peer"}},
        }),
    )
    .await;
    let plain_status = bed.wait_ready("plain", 3).await;
    bed.wait_ready("secure", 3).await;
    let members = bed.members("plain").await;
    assert_eq!(members.len(), 3, "{members:?}");
    the_fixture_publishes_what_the_operator_writes(&bed).await;

    // status: every member the operator made, by the names and IDs it
    // recorded, answering through the kubelet's port-forward.
    let status = bed
        .etcd(&["status", "plain", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    let mut names: Vec<String> = rows(&status)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, members, "{status}");
    let etcd_members = dynamic(&bed.client, NS, "EtcdMember", "etcdmembers");
    for row in rows(&status) {
        assert_eq!(row["version"], VERSION, "{row}");
        let recorded = etcd_members
            .get(row["name"].as_str().unwrap())
            .await
            .unwrap();
        assert_eq!(
            row["id"].as_str(),
            recorded.data["status"]["memberID"].as_str(),
            "the member ID the operator recorded: {row}"
        );
    }
    assert!(plain_status["clusterID"].is_string(), "{plain_status}");

    // doctor: nothing fails on a cluster the operator just made.
    let doctor = bed.etcd(&["doctor", "plain", "-o", "json"]).await;
    doctor.expect_code(0);
    assert!(
        !doctor.stdout.contains("\"fail\""),
        "doctor: {}",
        doctor.stdout
    );

    // defrag of a cluster a client fragmented: one member at a time, each
    // exactly once, the leader last (the members' own logs say so).
    let etcd = bed.plain_client("plain").await;
    let revision = fragment(etcd, 6 << 20, 0).await;
    let leader = leader_of(&status);
    let before = bed.logs(&members).await;
    assert!(defrags_in_logs(&before).is_empty(), "defragmented before");
    let run = bed
        .etcd(&["defrag", "plain", "--all", "--yes", "-o", "json"])
        .await;
    run.expect_code(0);
    // This operator runs EtcdDefrag itself (its chart's ClusterRole says
    // so): the direct sweep says once that --via-operator exists.
    assert_eq!(
        run.stderr.matches("runs EtcdDefrag itself").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("`--via-operator` hands this sweep to it"));
    let report = run.json();
    for row in rows(&report) {
        assert_eq!(row["outcome"], "Defragmented", "{report}");
    }
    let order = one_each_never_together(&members, &bed.logs(&members).await);
    assert_eq!(order.last(), Some(&leader), "the leader last: {order:?}");

    // --via-operator: the operator's own defrag controller runs the sweep
    // the tool hands it as an EtcdDefrag; the tool follows it live and
    // reports it like a direct run. The members' logs show each member
    // once, never two at once, the leader last; the run read back is the
    // operator's (its field manager wrote the status).
    let etcd = bed.plain_client("plain").await;
    fragment(etcd, 4 << 20, 0).await;
    let since = now();
    let handed = bed
        .etcd(&[
            "defrag",
            "plain",
            "--via-operator",
            "--all",
            "--yes",
            "-o",
            "json",
        ])
        .await;
    handed.expect_code(0);
    let report = handed.json();
    let run_name = report["run"]["name"].as_str().unwrap().to_string();
    assert_eq!(report["run"]["phase"], "Complete", "{report}");
    assert_eq!(rows(&report).len(), 3, "{report}");
    for row in rows(&report) {
        assert_eq!(row["outcome"], "Defragmented", "{report}");
        assert!(row["reclaimedBytes"].as_u64().is_some(), "{row}");
        let recorded = etcd_members
            .get(row["name"].as_str().unwrap())
            .await
            .unwrap();
        assert_eq!(
            row["id"].as_str(),
            recorded.data["status"]["memberID"].as_str()
        );
    }
    for said in [
        "order:",
        "phase Running",
        "(leader): Defragmented",
        "phase Complete",
    ] {
        assert!(handed.stderr.contains(said), "{said}: {}", handed.stderr);
    }
    let logged: Vec<_> = defrags_in_logs(&bed.logs(&members).await)
        .into_iter()
        .filter(|d| d.start >= since)
        .collect();
    never_together(&logged);
    let by_operator: Vec<String> = logged.iter().map(|d| members[d.member].clone()).collect();
    let mut distinct = by_operator.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        (by_operator.len(), distinct.len()),
        (3, 3),
        "each member once: {by_operator:?}"
    );
    let current_leader = leader_of(
        &bed.etcd(&["status", "plain", "-o", "json"])
            .await
            .expect_code(0)
            .json(),
    );
    assert_eq!(
        by_operator.last(),
        Some(&current_leader),
        "the leader last: {by_operator:?}"
    );
    let runs = dynamic(&bed.client, NS, "EtcdDefrag", "etcddefrags");
    let run = runs.get(&run_name).await.unwrap();
    assert_eq!(run.data["status"]["phase"], "Complete", "{:?}", run.data);
    assert_eq!(run.data["spec"]["ttlSecondsAfterFinished"], 86_400);
    assert_eq!(run.data["spec"]["rule"]["all"], true);
    assert_eq!(
        run.metadata.labels.as_ref().unwrap()["app.kubernetes.io/managed-by"],
        "kubectl-etcd"
    );
    let status_writers: Vec<&str> = run
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|f| f.subresource.as_deref() == Some("status"))
        .filter_map(|f| f.manager.as_deref())
        .collect();
    assert_eq!(status_writers, ["manager"], "the operator drove it");

    // status: the run just finished is the last one, and a policy's next
    // tick is the one its schedule gives (a yearly one: it stamps nothing
    // during the test).
    bed.apply(vec![json!({
        "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
        "kind": "EtcdDefragPolicy",
        "metadata": {"name": "yearly", "namespace": NS},
        "spec": {"clusterRef": {"name": "plain"}, "schedule": "0 3 1 1 *", "rule": {"all": true}},
    })])
    .await;
    let status = bed
        .etcd(&["status", "plain", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    let last = &status["defrag"]["lastFinished"];
    assert_eq!(last["name"], run_name.as_str(), "{status}");
    assert_eq!(last["phase"], "Complete");
    assert_eq!(last["defragmented"], 3);
    assert!(status["defrag"]["active"].is_null(), "{status}");
    let policy = &status["defrag"]["policies"][0];
    assert_eq!(policy["name"], "yearly", "{status}");
    let next: String = policy["nextTick"].as_str().unwrap().to_string();
    assert!(next.ends_with("-01-01T03:00:00Z"), "{next}");

    // snapshot save: a file etcd's own etcdutl reads, holding what the
    // client wrote.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.db");
    bed.etcd(&["snapshot", "save", file.to_str().unwrap(), "plain"])
        .await
        .expect_code(0);
    let etcdutl =
        kubectl_etcd_testbed::bins::etcdutl(kubectl_etcd_testbed::EtcdVersion::V3_6).unwrap();
    let out = std::process::Command::new(etcdutl)
        .args(["snapshot", "status", "-w", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let snap: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        snap["revision"].as_i64().unwrap() >= revision,
        "snapshot {snap} older than revision {revision}"
    );

    // The mutual-TLS cluster: the tool reads the Secrets the user brought
    // and the operator uses, and defragments each member once.
    let secure = bed.members("secure").await;
    let status = bed
        .etcd(&["status", "secure", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert_eq!(rows(&status).len(), 3, "{status}");
    for row in rows(&status) {
        assert!(
            row["endpoint"].as_str().unwrap().starts_with("https://"),
            "{row}"
        );
    }
    let (_fwd, port) = bed.forward("svc/secure-client", 2379).await;
    let tls = etcd_client::TlsOptions::new()
        .ca_certificate(etcd_client::Certificate::from_pem(&pki.ca))
        .identity(etcd_client::Identity::from_pem(
            &pki.client.cert_pem,
            &pki.client.key_pem,
        ))
        .domain_name("localhost");
    let etcd = etcd_client::Client::connect(
        [format!("https://127.0.0.1:{port}")],
        Some(etcd_client::ConnectOptions::new().with_tls(tls)),
    )
    .await
    .unwrap();
    fragment(etcd, 2 << 20, 0).await;
    bed.etcd(&["defrag", "secure", "--all", "--yes", "-o", "json"])
        .await
        .expect_code(0);
    one_each_never_together(&secure, &bed.logs(&secure).await);

    // traffic: the tool's field manager owns spec.trafficDistribution of
    // the client Service the operator made; when the operator puts its own
    // fields back (a hand edit of the selector), the value and its owner
    // stay — no flapping between the two.
    bed.etcd(&["traffic", "set", "PreferSameZone", "plain", "--yes"])
        .await
        .expect_code(0);
    let services: Api<Service> = Api::namespaced(bed.client.clone(), NS);
    let svc = services.get("plain-client").await.unwrap();
    assert_eq!(
        traffic_of(&svc),
        (Some("PreferSameZone".into()), vec![TRAFFIC_MANAGER.into()])
    );
    let selector = svc.spec.as_ref().unwrap().selector.clone();
    services
        .patch(
            "plain-client",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"selector": {"etcd-operator.cozystack.io/cluster": "drifted"}}}),
            ),
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let svc = services.get("plain-client").await.unwrap();
        assert_eq!(
            traffic_of(&svc),
            (Some("PreferSameZone".into()), vec![TRAFFIC_MANAGER.into()]),
            "while the operator reconciles the Service"
        );
        if svc.spec.as_ref().unwrap().selector == selector {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the operator did not put the selector back"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let show = bed
        .etcd(&["traffic", "show", "plain", "-o", "json"])
        .await
        .expect_code(0)
        .json();
    assert!(show.to_string().contains("PreferSameZone"), "{show}");
    bed.etcd(&["traffic", "clear", "plain", "--yes"])
        .await
        .expect_code(0);
    let svc = services.get("plain-client").await.unwrap();
    assert_eq!(traffic_of(&svc), (None, Vec::<String>::new()));
    let annotations = bed
        .clusters()
        .get("plain")
        .await
        .unwrap()
        .metadata
        .annotations;
    assert!(
        !annotations
            .unwrap_or_default()
            .contains_key("etcd-operator.cozystack.io/client-service-traffic-distribution"),
        "the annotation is gone"
    );
}
