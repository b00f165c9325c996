//! Plugin mode against the real kube-apiserver of the test bed and real
//! etcd members: resolution of every TLS mode and auth, member filtering,
//! namespace/context handling, `-A`, and one-line errors.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::k8s::*;
use support::*;

/// Asserts a `status -o json` document shows every member of the fixture,
/// all reachable, with the leader etcd itself names.
async fn assert_status_matches(doc: &serde_json::Value, fx: &Fixture) {
    let rows = rows(doc);
    assert_eq!(rows.len(), fx.members.len(), "{doc}");
    let leader = fx.etcd.leader().await.unwrap();
    let ids = fx.etcd.member_ids().await.unwrap();
    assert_eq!(doc["leader"], format!("{:016x}", ids[leader]), "{doc}");
    for (i, name) in fx.members.iter().enumerate() {
        let m = row(doc, name);
        assert_eq!(m["reachable"], true, "{m}");
        assert_eq!(m["isLeader"], i == leader, "{m}");
        assert_eq!(
            m["endpoint"].as_str().unwrap().split("://").nth(1).unwrap(),
            format!("{}:2379", fx.etcd.host(i))
        );
    }
    assert_eq!(doc["cluster"]["namespace"], fx.namespace.as_str());
    assert_eq!(doc["cluster"]["name"], fx.name.as_str());
    assert_eq!(doc["gate"]["passed"], true, "{doc}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tls_mode_and_auth_resolves() {
    let client = admin().await;
    let kc = kubeconfig("tls-modes.yaml", &["tls-modes"]);
    for (name, mode) in [
        ("plain", Mode::Plain),
        ("server-tls", Mode::ServerTls),
        ("mtls", Mode::Mtls),
        ("cert-manager", Mode::MtlsCertManager),
        ("with-auth", Mode::MtlsAuth),
    ] {
        let fx = fixture(&client, "tls-modes", name, mode).await;
        let run = tool(&plugin(&kc, &["status", name, "-o", "json"]), &[]).await;
        run.expect_code(0);
        assert_status_matches(&run.json(), &fx).await;
    }
}

/// Issue 45, item 6: the operator's EtcdCluster status disagreeing with
/// the members — Available=False, fewer ready members, another version —
/// is said by `status` (table and JSON) and `doctor`; in agreement, nothing
/// is said and doctor's check passes.
#[tokio::test(flavor = "multi_thread")]
async fn the_operators_status_is_held_against_the_members() {
    let client = admin().await;
    let ns = "operator-says";
    let kc = kubeconfig("operator-says.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let doc = tool(&plugin(&kc, &["status", "db", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    assert!(doc.get("operatorDisagrees").is_none(), "{doc}");
    let doctor = |extra: &[&str]| {
        let mut a = vec!["doctor", "db", "-o", "json", "--fail-on", "never"];
        a.extend(extra);
        plugin(&kc, &a)
    };
    let agreed = tool(&doctor(&[]), &[]).await.expect_code(0).json();
    assert!(
        agreed["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "operator-status" && f["severity"] == "ok"),
        "{agreed}"
    );

    let clusters = dynamic(&client, ns, "EtcdCluster", "etcdclusters");
    patch_status(
        &clusters,
        "db",
        serde_json::json!({"status": {
            "readyMembers": 1,
            "observed": {"replicas": 3, "version": "3.6.16"},
            "conditions": [{"type": "Available", "status": "False", "reason": "QuorumLost",
                            "message": "1/3 members ready", "lastTransitionTime": "2026-12-05T00:00:00Z"}],
        }}),
    )
    .await;
    let run = tool(&plugin(&kc, &["status", "db", "-o", "json"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    let said: Vec<String> = doc["operatorDisagrees"]
        .as_array()
        .unwrap_or_else(|| panic!("{doc}"))
        .iter()
        .map(|d| d.as_str().unwrap().to_string())
        .collect();
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(said[0].starts_with("the operator reports Available=False (QuorumLost: 1/3 members ready), but all 3 members answer"), "{said:?}");
    assert_eq!(
        said[1],
        "the operator counts 1 of 3 members ready, but 3 answer"
    );
    assert!(
        said[2].starts_with("the operator's EtcdCluster is at version 3.6.16, but "),
        "{said:?}"
    );
    for m in &fx.members {
        assert!(said[2].contains(m.as_str()), "{said:?}");
    }
    let table = tool(&plugin(&kc, &["status", "db"]), &[]).await;
    assert!(
        table.stdout.contains("The operator's EtcdCluster status disagrees with the members:\n  - the operator reports Available=False"),
        "{}",
        table.stdout
    );
    let report = tool(&doctor(&[]), &[]).await.expect_code(0).json();
    let warned: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "operator-status")
        .collect();
    assert_eq!(warned.len(), 3, "{report}");
    assert!(
        warned.iter().all(|f| f["severity"] == "warning"),
        "{report}"
    );
    assert!(
        warned[0]["remedy"]
            .as_str()
            .unwrap()
            .contains("kubectl describe etcdcluster db -n operator-says"),
        "{report}"
    );
}

/// A dormant member and a member being deleted are not dialed, and the
/// cluster still resolves to its running members.
#[tokio::test(flavor = "multi_thread")]
async fn dormant_and_deleting_members_are_excluded() {
    let client = admin().await;
    let ns = "filtering";
    let fx = fixture(&client, ns, "etcd", Mode::Plain).await;
    let members = dynamic(&client, ns, "EtcdMember", "etcdmembers");
    add_member(
        &members,
        ns,
        "etcd",
        "etcd-dormant",
        serde_json::json!({"podName": "etcd-dormant"}),
    )
    .await;
    members
        .patch(
            "etcd-dormant",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({"spec": {"dormant": true}})),
        )
        .await
        .unwrap();
    // A finalizer keeps the deleted member around with a deletionTimestamp,
    // as the operator's member-cleanup finalizer does.
    add_member(
        &members,
        ns,
        "etcd",
        "etcd-leaving",
        serde_json::json!({"podName": "etcd-leaving"}),
    )
    .await;
    members
        .patch("etcd-leaving", &kube::api::PatchParams::default(), &kube::api::Patch::Merge(serde_json::json!({"metadata": {"finalizers": ["etcd-operator.cozystack.io/member-cleanup"]}})))
        .await
        .unwrap();
    members
        .delete("etcd-leaving", &Default::default())
        .await
        .unwrap();

    let kc = kubeconfig("filtering.yaml", &[ns]);
    let run = tool(&plugin(&kc, &["status", "-o", "json"]), &[]).await;
    run.expect_code(0);
    let doc = run.json();
    assert_status_matches(&doc, &fx).await;
    let names: Vec<_> = rows(&doc)
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.contains("dormant") || n.contains("leaving")),
        "{names:?}"
    );

    members
        .patch(
            "etcd-leaving",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
}

/// Namespace defaults to the context's, `--context` switches, `-n` wins,
/// a single cluster may be omitted, and `-A` covers every cluster in every
/// namespace in one table.
#[tokio::test(flavor = "multi_thread")]
async fn namespaces_contexts_and_all_namespaces() {
    let client = admin().await;
    let a = fixture(&client, "ns-alpha", "one", Mode::Plain).await;
    let b = fixture(&client, "ns-beta", "two", Mode::ServerTls).await;
    let c = fixture(&client, "ns-beta", "three", Mode::Mtls).await;
    let kc = kubeconfig("contexts.yaml", &["ns-alpha", "ns-beta"]);

    // Current context is ctx-ns-alpha; its only cluster may be omitted.
    let doc = tool(&plugin(&kc, &["status", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["cluster"]["name"], "one");
    assert_status_matches(&doc, &a).await;

    // ns-beta holds two clusters: omitting the name names both.
    let run = tool(&plugin(&kc, &["--context=ctx-ns-beta", "status"]), &[]).await;
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("namespace ns-beta has 2 EtcdClusters (three, two): name one"),
        "{}",
        run.stderr
    );

    let doc = tool(
        &plugin(
            &kc,
            &["--context=ctx-ns-beta", "status", "two", "-o", "json"],
        ),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_status_matches(&doc, &b).await;
    let doc = tool(
        &plugin(&kc, &["status", "-n", "ns-beta", "three", "-o", "json"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_status_matches(&doc, &c).await;

    // KUBECONFIG with several paths, as kubectl merges them.
    // Beside the kubeconfig, in the API server's folder (removed with it).
    let empty = kc.with_file_name("empty-kubeconfig.yaml");
    std::fs::write(&empty, "apiVersion: v1\nkind: Config\n").unwrap();
    let paths = format!("{}:{}", empty.display(), kc.display());
    let doc = tool(
        &args(&["--connect=direct", "status", "-o", "json"]),
        &[("KUBECONFIG".into(), paths)],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(doc["cluster"]["name"], "one");

    // -A: every cluster, one table; at least these three in two namespaces.
    // Other tests' broken clusters (`broken/*`) may be listed too: then
    // the run says so and exits 1; these three read.
    let doc = tool(&plugin(&kc, &["status", "-A", "-o", "json"]), &[])
        .await
        .expect_read_or_others_unread()
        .json();
    let clusters = doc["clusters"].as_array().unwrap();
    for fx in [&a, &b, &c] {
        let entry = clusters
            .iter()
            .find(|e| {
                e["cluster"]["namespace"] == fx.namespace.as_str()
                    && e["cluster"]["name"] == fx.name.as_str()
            })
            .unwrap_or_else(|| panic!("{}/{} missing from {doc}", fx.namespace, fx.name));
        assert_eq!(entry["error"], serde_json::Value::Null, "{entry}");
        assert_status_matches(&entry["status"], fx).await;
    }
    let table = tool(&plugin(&kc, &["status", "-A"]), &[]).await;
    table.expect_read_or_others_unread();
    let mut header: Vec<&str> = table
        .stdout
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .take(5)
        .collect();
    // KIND is there when the clusters listed are of more than one kind:
    // on this shared API server, only once `etcdio::` has published its
    // etcd-io clusters (which asserts the column for itself). Then the
    // rows say more than one kind.
    if header.get(2) == Some(&"KIND") {
        header.remove(2);
        let kinds: std::collections::BTreeSet<&str> = table
            .stdout
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().nth(2))
            .filter(|k| ["cozystack", "etcd-io"].contains(k))
            .collect();
        assert_eq!(
            kinds.len(),
            2,
            "a KIND column with one kind:\n{}",
            table.stdout
        );
    }
    assert_eq!(
        header[..4],
        ["NAMESPACE", "CLUSTER", "RUN", "NAME"],
        "{}",
        table.stdout
    );
    for fx in [&a, &b, &c] {
        for m in &fx.members {
            assert!(
                table
                    .stdout
                    .lines()
                    .any(|l| l.starts_with(&fx.namespace) && l.contains(m.as_str())),
                "{m}:\n{}",
                table.stdout
            );
        }
    }
}

/// The JSON of plugin mode is the JSON of standalone mode plus `cluster`
/// and `defrag` (the cluster's EtcdDefrag runs and policies).
#[tokio::test(flavor = "multi_thread")]
async fn same_json_schema_in_both_modes() {
    let client = admin().await;
    let fx = fixture(&client, "schema", "etcd", Mode::Plain).await;
    let kc = kubeconfig("schema.yaml", &["schema"]);
    let plugin_doc = tool(&plugin(&kc, &["status", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    let standalone = vec![
        format!("--endpoints={}", fx.etcd.endpoints()[0]),
        "status".into(),
        "-o".into(),
        "json".into(),
    ];
    let standalone_doc = tool(&standalone, &[]).await.expect_code(0).json();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let mut with_cluster = keys(&standalone_doc);
    with_cluster.push("cluster".into());
    with_cluster.push("defrag".into());
    with_cluster.sort();
    assert_eq!(keys(&plugin_doc), with_cluster);
    assert!(standalone_doc.get("cluster").is_none());
    for (p, s) in rows(&plugin_doc).iter().zip(rows(&standalone_doc).iter()) {
        assert_eq!(keys(p), keys(s));
        for field in ["name", "id", "endpoint", "isLeader", "verdict"] {
            assert_eq!(p[field], s[field], "{field}: {p} vs {s}");
        }
    }
    let members_plugin = tool(&plugin(&kc, &["members", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    assert_eq!(members_plugin["cluster"]["name"], "etcd");
    assert_eq!(rows(&members_plugin).len(), 3);
}

/// Each resolution problem is one line naming the object, exit 2.
#[tokio::test(flavor = "multi_thread")]
async fn resolution_errors_name_the_object() {
    let client = admin().await;
    let ns = "broken";
    namespace(&client, ns).await;
    let kc = kubeconfig("broken.yaml", &[ns]);
    let clusters = dynamic(&client, ns, "EtcdCluster", "etcdclusters");
    let secrets: kube::Api<k8s_openapi::api::core::v1::Secret> =
        kube::Api::namespaced(client.clone(), ns);
    let cluster = |name: &str, spec: serde_json::Value| {
        let mut s =
            serde_json::json!({"replicas": 3, "version": "3.6.16", "storage": {"size": "1Gi"}});
        if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
            base.extend(extra.clone());
        }
        serde_json::json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdCluster",
            "metadata": {"name": name, "namespace": ns}, "spec": s,
        })
    };
    let members = dynamic(&client, ns, "EtcdMember", "etcdmembers");

    // No members at all.
    create(&clusters, cluster("empty", serde_json::json!({}))).await;
    // Server Secret without ca.crt.
    create(
        &clusters,
        cluster(
            "no-ca",
            serde_json::json!({"tls": {"client": {"serverSecretRef": {"name": "no-ca-srv"}}}}),
        ),
    )
    .await;
    add_member(
        &members,
        ns,
        "no-ca",
        "no-ca-aaaaa",
        serde_json::json!({"podName": "no-ca-aaaaa"}),
    )
    .await;
    create_secret(
        &secrets,
        "no-ca-srv",
        "Opaque",
        &[("tls.crt", "x".into()), ("tls.key", "y".into())],
    )
    .await;
    // Operator-client Secret without tls.key.
    create(&clusters, cluster("no-key", serde_json::json!({"tls": {"client": {
        "serverSecretRef": {"name": "no-key-srv"}, "operatorClientSecretRef": {"name": "no-key-cli"}}}}))).await;
    add_member(
        &members,
        ns,
        "no-key",
        "no-key-aaaaa",
        serde_json::json!({"podName": "no-key-aaaaa"}),
    )
    .await;
    let ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".to_string();
    create_secret(&secrets, "no-key-srv", "Opaque", &[("ca.crt", ca.clone())]).await;
    create_secret(&secrets, "no-key-cli", "Opaque", &[("tls.crt", "x".into())]).await;
    // basic-auth Secret without password, auth already enabled.
    create(
        &clusters,
        cluster(
            "no-pw",
            serde_json::json!({
        "tls": {"client": {"serverSecretRef": {"name": "no-pw-srv"}}},
        "auth": {"enabled": true, "rootCredentialsSecretRef": {"name": "no-pw-root"}}}),
        ),
    )
    .await;
    patch_status(
        &clusters,
        "no-pw",
        serde_json::json!({"status": {"authEnabled": true}}),
    )
    .await;
    add_member(
        &members,
        ns,
        "no-pw",
        "no-pw-aaaaa",
        serde_json::json!({"podName": "no-pw-aaaaa"}),
    )
    .await;
    create_secret(&secrets, "no-pw-srv", "Opaque", &[("ca.crt", ca)]).await;
    create_secret(
        &secrets,
        "no-pw-root",
        "Opaque",
        &[("username", "root".into())],
    )
    .await;

    let closed = kubectl_etcd_testbed::ports::free_port().unwrap();
    let unreachable = kc.with_file_name("unreachable-kubeconfig.yaml");
    std::fs::write(
        &unreachable,
        std::fs::read_to_string(&kc).unwrap().replace(
            &apiserver().await.url,
            &format!("https://127.0.0.1:{closed}"),
        ),
    )
    .unwrap();

    let unreachable_message =
        format!("cannot reach the Kubernetes API server at https://127.0.0.1:{closed}");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (plugin(&kc, &["status", "missing"]), "EtcdCluster broken/missing not found (EtcdClusters there: empty, no-ca, no-key, no-pw)"),
        (plugin(&kc, &["status", "-n", "nowhere", "missing"]), "EtcdCluster nowhere/missing not found (there is no EtcdCluster in namespace nowhere)"),
        (plugin(&kc, &["status", "empty"]), "EtcdCluster broken/empty has no running members"),
        (plugin(&kc, &["status", "no-ca"]), "server TLS Secret broken/no-ca-srv has no \"ca.crt\" key"),
        (plugin(&kc, &["status", "no-key"]), "operator-client TLS Secret broken/no-key-cli has no \"tls.key\" key"),
        (plugin(&kc, &["status", "no-pw"]), "root credentials Secret broken/no-pw-root has no \"password\" key"),
        (plugin(&unreachable, &["status", "empty"]), &unreachable_message),
        (plugin(&kc, &["--context=nope", "status"]), "--context nope: no such context"),
        (args(&["--kubeconfig=/nonexistent/kubeconfig", "status"]), "--kubeconfig /nonexistent/kubeconfig"),
    ];
    for (argv, want) in cases {
        let run = tool(&argv, &[]).await;
        assert_eq!(run.code, 2, "{argv:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{argv:?}: {}", run.stdout);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{argv:?}: {}", run.stderr);
        assert!(
            lines[0].contains(want),
            "{argv:?}: {:?} lacks {want:?}",
            lines[0]
        );
    }

    // status -A: each of these is a row saying why, the others are read,
    // and the run ends with exit 1 naming what could not be read (issue
    // 46: it exited 0).
    let run = tool(&plugin(&kc, &["status", "-A", "-o", "json"]), &[]).await;
    run.expect_code(1);
    let doc = run.json();
    let last = run.stderr.lines().last().unwrap_or_default();
    assert!(
        last.contains("clusters could not be read ("),
        "{}",
        run.stderr
    );
    for name in ["empty", "no-ca", "no-key", "no-pw"] {
        let row = doc["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["cluster"]["namespace"] == ns && c["cluster"]["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {doc}"));
        assert!(row["error"].is_string(), "{row}");
        assert!(last.contains(&format!("{ns}/{name}")), "{last}");
    }
}

/// `--connect port-forward` opens one tunnel per member Pod through the API
/// server. The member Pods are on a Node no kubelet serves (this binary's
/// fake kubelet serves only `NODE`, for `portforward`), so the API server
/// cannot reach one: the failure is one clear line naming the Pod.
/// (Forwards that carry traffic, in every TLS mode: tests/k8s/portforward.rs.)
#[tokio::test(flavor = "multi_thread")]
async fn port_forward_failure_names_the_pod() {
    let client = admin().await;
    let fx = fixture(&client, "forwarding", "etcd", Mode::Mtls).await;
    let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
        kube::Api::namespaced(client.clone(), "forwarding");
    for (i, member) in fx.members.iter().enumerate() {
        replace_pod_on(
            &pods,
            "etcd",
            member,
            &fx.etcd.host(i),
            "no-kubelet-here",
            serde_json::json!({"name": "etcd", "image": "quay.io/coreos/etcd:v3.6.16"}),
        )
        .await;
    }
    let kc = kubeconfig("forwarding.yaml", &["forwarding"]);
    let mut argv = vec![
        format!("--kubeconfig={}", kc.display()),
        "--connect=port-forward".into(),
    ];
    argv.extend(args(&["status", "etcd"]));
    let run = tool(&argv, &[]).await;
    assert_eq!(run.code, 2, "{run:?}");
    let first = &fx.members[0];
    assert!(
        run.stderr
            .contains(&format!("port-forward to Pod forwarding/{first}:2379")),
        "{}",
        run.stderr
    );
    // Issue 46: what failed (the node's kubelet, not the Pod) and what to
    // try.
    assert!(
        run.stderr
            .contains("could not reach the kubelet of the Pod's node")
            && run.stderr.contains("add --connect direct"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

/// Issue 9: in plugin mode a member that does not answer is exactly one
/// row, with its EtcdMember name and id, one `MemberUnreachable` reason
/// naming it, and no standalone-mode hints (it used to be a nameless row
/// keyed by the Pod's URL plus the same member "not probed … --no-discover
/// is set").
#[tokio::test(flavor = "multi_thread")]
async fn issue9_silent_member_is_one_named_row() {
    let client = admin().await;
    namespace(&client, "issue9-silent").await;
    let kc = kubeconfig("issue9-silent.yaml", &["issue9-silent"]);
    let fx = fixture(&client, "issue9-silent", "quiet", Mode::Mtls).await;
    let ids = fx.etcd.member_ids().await.unwrap();
    let silent = 1;
    fx.etcd.pause(silent).unwrap();
    let run = tool(
        &plugin(
            &kc,
            &[
                "status",
                "quiet",
                "--check",
                "--command-timeout=1s",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    fx.etcd.resume(silent).unwrap();
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    let name = &fx.members[silent];
    let m = row(&doc, name);
    assert_eq!(m["reachable"], false, "{m}");
    assert_eq!(m["id"], format!("{:016x}", ids[silent]), "{m}");
    assert_eq!(
        m["reasons"],
        serde_json::json!(["MemberUnreachable"]),
        "{m}"
    );
    let reasons = doc["gate"]["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{doc}");
    assert_eq!(reasons[0]["code"], "MemberUnreachable");
    assert_eq!(reasons[0]["member"], name.as_str());
    let everything = format!("{}{}", run.stdout, run.stderr);
    for hint in ["--no-discover", "--cacert", "--cert", "--endpoints"] {
        assert!(!everything.contains(hint), "{hint} in: {everything}");
    }
    assert!(run.stderr.contains(name.as_str()), "{}", run.stderr);
}

/// Issue 39: in plugin mode every member's address is known before any
/// dial, so MemberList, AlarmList and every member's Status (with its
/// /metrics beside it on a release that keeps the quota there, as the
/// EtcdCluster's version says) go out at once: a TLS handshake and one
/// round trip to etcd, on 3.5 as on 3.7, one connection per member.
/// `doctor` adds one (the compacted revision, and on 3.7 the /metrics it
/// reads), `usage` its first page. The API server sits as far away,
/// behind a proxy of its own: `status` reads the EtcdCluster, its
/// EtcdMembers, its Pods and the namespace's runs and policies side by
/// side, then its Secrets: a TLS handshake and two round trips, counted
/// three or four (below), where it was eight (the other commands' are in
/// `bench/distance.sh`'s report).
#[tokio::test(flavor = "multi_thread")]
async fn plugin_mode_asks_every_member_at_once() {
    use kubectl_etcd_testbed::delay::Delay;
    let client = admin().await;
    let ns = "round-trips";
    let api = apiserver_proxy(Delay::rtt_ms(400)).await;
    let url = format!("https://{}", api.addr());
    let kc = kubeconfig_via(&url, "round-trips.yaml", &[ns]);
    for (name, version) in [("v35", EtcdVersion::V3_5), ("v37", EtcdVersion::V3_7)] {
        let fx = fixture_at(
            &client,
            ns,
            name,
            Mode::Mtls,
            version,
            3,
            // Far enough that a client slowed by a loaded machine (between
            // two writes of one round) is not counted a round deeper: only
            // a wait for an answer is. At 200 ms, with the k8s doctor and
            // traffic tests running beside it, `alarm list` on 3.5 was once
            // counted 3 (a write of its one round 100 ms late).
            Some(Delay::rtt_ms(400)),
        )
        .await;
        for (command, rounds) in [
            (&["status", "-o", "json"][..], 2),
            (&["status", "-o", "wide"], 2),
            (&["alarm", "list", "-o", "json"], 2),
            (&["defrag", "--dry-run", "-o", "json"], 2),
            (&["doctor", "-o", "json", "--fail-on", "never"], 3),
            (&["usage", "--window", "0", "-o", "json"], 3),
        ] {
            // A roomy dial timeout: a handshake is two round trips here,
            // and one given up on a loaded machine would be dialed again.
            let mut words = vec!["--dial-timeout=20s", command[0]];
            if command[0] == "alarm" {
                words.push(command[1]);
                words.extend([name, "-n", ns]);
                words.extend(&command[2..]);
            } else {
                words.extend([name, "-n", ns]);
                words.extend(&command[1..]);
            }
            // The proxies count whatever crosses them: in three CI runs
            // other tests' `status -A`, `doctor -A` and `defrag -A`, which
            // reach these clusters too, opened connections of their own
            // ([3,3,3] with 4 rounds) or talked on ones opened before a
            // try ([1,1,1] with 3), so each try runs with no command over
            // every namespace running. And a write of one round sent late
            // enough on a loaded machine to count as the next is the
            // machine's, not the command's: each command gets three
            // tries, and its round trips are the fewest any try with one
            // connection per member made (a command that needs more
            // rounds makes them every time).
            let mut seen = Vec::new();
            for _ in 0..3 {
                let alone = support::counting_alone().await;
                let before = fx.etcd.traffic();
                fx.etcd.reset_round_trips();
                api.reset_round_trips();
                let run = tool(&plugin(&kc, &words), &[]).await;
                run.expect_code(0);
                let opened: Vec<u64> = fx
                    .etcd
                    .traffic()
                    .iter()
                    .zip(&before)
                    .map(|(now, before)| now.connections - before.connections)
                    .collect();
                seen.push((fx.etcd.round_trips(), opened));
                drop(alone);
                if seen
                    .last()
                    .is_some_and(|(r, o)| o == &[1, 1, 1] && *r <= rounds)
                {
                    break;
                }
            }
            let Some(made) = seen
                .iter()
                .filter(|(_, o)| o == &[1, 1, 1])
                .map(|(r, _)| *r)
                .min()
            else {
                panic!("{version:?} {command:?}: one connection per member in none of three runs: {seen:?}");
            };
            assert_eq!(
                made, rounds,
                "{version:?} {command:?}: round trips to etcd ({seen:?})"
            );
            if command == ["status", "-o", "json"] {
                // A third round is counted when hyper's pool, finding no
                // idle connection for a Secret's GET, dials one while the
                // answered ones are handed back (the GET then takes one of
                // those, and the new handshake completes unawaited).
                let api_rounds = api.round_trips();
                assert!(
                    (3..=4).contains(&api_rounds),
                    "{version:?}: {api_rounds} round trips to the API server"
                );
            }
        }
    }
}
