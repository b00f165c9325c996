//! Plugin mode on the etcd project's own operator's clusters
//! (`operator.etcd.io`, issue 41): real etcd members published as that
//! operator publishes them (`support::k8s::etcdio_fixture`), read through
//! the real kube-apiserver. What each member's own log and state record
//! decides: status and members read what etcd says, `defrag` defragments
//! every member one at a time, `snapshot save` writes a snapshot etcd
//! wrote. A name both kinds hold is refused until `--kind` picks one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::json;
use support::k8s::*;
use support::*;

fn with(kc: &std::path::Path, rest: &[&str]) -> Vec<String> {
    let mut argv = vec![
        format!("--kubeconfig={}", kc.display()),
        "--connect=direct".into(),
    ];
    argv.extend(rest.iter().map(|s| s.to_string()));
    argv
}

#[tokio::test(flavor = "multi_thread")]
async fn the_etcd_projects_operator_clusters_work_like_cozystacks() {
    let client = admin().await;
    let ns = "etcdio";
    let fx = etcdio_fixture(
        &client,
        ns,
        "db",
        3,
        json!({"etcdOptions": ["--quota-backend-bytes=104857600", "--auto-compaction-mode=revision"]}),
    )
    .await;
    let kc = kubeconfig("etcdio.yaml", &[ns]);

    // status: every member, reachable at its Pod's address, the leader and
    // the IDs etcd itself gives.
    let doc = tool(&with(&kc, &["status", "db", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    let ids = fx.etcd.member_ids().await.unwrap();
    let leader = fx.etcd.leader().await.unwrap();
    assert_eq!(doc["leader"], format!("{:016x}", ids[leader]), "{doc}");
    for (i, name) in fx.members.iter().enumerate() {
        let m = row(&doc, name);
        assert_eq!(m["reachable"], true, "{m}");
        assert_eq!(
            m["endpoint"],
            format!("http://{}:2379", fx.etcd.host(i)),
            "{m}"
        );
    }
    assert_eq!(doc["cluster"]["name"], "db", "{doc}");
    assert_eq!(doc["gate"]["passed"], true, "{doc}");

    // The namespace's only cluster is chosen without a name; members lists
    // what etcd's MemberList says.
    let doc = tool(&with(&kc, &["members", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    let mut listed: Vec<String> = rows(&doc)
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    listed.sort();
    assert_eq!(listed, fx.members, "{doc}");

    // -p POD, as the operator plugins take it: the Pod's cluster (from its
    // app/controller labels) and, for snapshot save, its member.
    let doc = tool(&with(&kc, &["status", "-p", "db-1", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    assert_eq!(doc["cluster"]["name"], "db", "{doc}");
    let run = tool(&with(&kc, &["status", "-p", "not-a-member"]), &[]).await;
    assert_eq!(run.code, 2, "{run:?}");

    // doctor: nothing failing; the compaction flag of spec.etcdOptions is
    // read (no "auto-compaction off" finding).
    let run = tool(&with(&kc, &["doctor", "db", "-o", "json"]), &[]).await;
    let report = run.json();
    assert!(
        !report.to_string().contains("\"critical\""),
        "doctor:\n{report}\n{}",
        run.stderr
    );

    // defrag: every member once, one at a time, per etcd's own logs.
    let before = fx.etcd.logged_defrags().len();
    tool(
        &with(&kc, &["defrag", "db", "--yes", "--all", "-o", "json"]),
        &[],
    )
    .await
    .expect_code(0);
    let defrags = fx.etcd.logged_defrags();
    let ours = &defrags[before..];
    assert_eq!(ours.len(), 3, "{defrags:?}");
    for pair in ours.windows(2) {
        assert!(pair[0].end <= pair[1].start, "two at once: {ours:?}");
    }

    // snapshot save: a snapshot etcd wrote, whose revision is the
    // cluster's.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("db.snap");
    tool(
        &with(&kc, &["snapshot", "save", file.to_str().unwrap(), "db"]),
        &[],
    )
    .await
    .expect_code(0);
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size > 0, "an empty snapshot");

    // alarm list reaches the same members.
    tool(&with(&kc, &["alarm", "list", "db"]), &[])
        .await
        .expect_code(0);

    // Over port-forward (through the API server to each Pod): every
    // member answers, and a member's defragmentation goes through too.
    forward_members(&fx).await;
    let forwarded = |rest: &[&str]| {
        let mut argv = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=port-forward".to_string(),
        ];
        argv.extend(rest.iter().map(|s| s.to_string()));
        argv
    };
    let doc = tool(&forwarded(&["status", "db", "-o", "json"]), &[])
        .await
        .expect_code(0)
        .json();
    for name in &fx.members {
        assert_eq!(row(&doc, name)["reachable"], true, "{doc}");
    }
    let before = fx.etcd.logged_defrags().len();
    tool(
        &forwarded(&["defrag", "db", "--yes", "--all", "--member", &fx.members[1]]),
        &[],
    )
    .await
    .expect_code(0);
    let defrags = fx.etcd.logged_defrags();
    let members: Vec<usize> = defrags[before..].iter().map(|d| d.member).collect();
    assert_eq!(members, [1], "{defrags:?}");

    // traffic: refused, saying why (no client Service), and nothing made.
    for argv in [
        vec!["traffic", "show", "db"],
        vec!["traffic", "set", "PreferSameZone", "db", "--yes"],
        vec!["traffic", "show", "db", "--kind", "etcd-io"],
    ] {
        let run = tool(&with(&kc, &argv), &[]).await;
        assert_eq!(run.code, 2, "{argv:?}: {run:?}");
        assert!(
            run.stderr.contains("makes no client Service"),
            "{argv:?}: {}",
            run.stderr
        );
    }
    let services: kube::Api<k8s_openapi::api::core::v1::Service> =
        kube::Api::namespaced(client.clone(), ns);
    let listed = services.list(&Default::default()).await.unwrap();
    assert!(listed.items.is_empty(), "{:?}", listed.items);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_name_both_kinds_hold_is_refused_until_kind_picks_one() {
    let client = admin().await;
    let ns = "two-kinds";
    let fx = etcdio_fixture(&client, ns, "etcd", 1, json!({})).await;
    // A cozystack EtcdCluster of the same name, nothing behind it.
    create_cluster_object(
        &dynamic(&client, ns, "EtcdCluster", "etcdclusters"),
        ns,
        "etcd",
    )
    .await;
    let kc = kubeconfig("two-kinds.yaml", &[ns]);

    let run = tool(&with(&kc, &["status", "etcd"]), &[]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    for want in [
        "etcd-operator.cozystack.io",
        "operator.etcd.io",
        "--kind cozystack",
        "--kind etcd-io",
    ] {
        assert!(run.stderr.contains(want), "{want}: {}", run.stderr);
    }
    // Without a name, the namespace's two clusters are named with their
    // kinds.
    let run = tool(&with(&kc, &["status"]), &[]).await;
    assert_ne!(run.code, 0, "{run:?}");
    assert!(
        run.stderr.contains("etcd (cozystack), etcd (etcd-io)"),
        "{}",
        run.stderr
    );

    // -A lists both, each with its kind: in JSON, and a KIND column.
    let doc = tool(&with(&kc, &["status", "-A", "-o", "json"]), &[])
        .await
        .json();
    let mut here: Vec<(String, String)> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cluster"]["namespace"] == ns)
        .map(|c| {
            (
                c["cluster"]["name"].as_str().unwrap().to_string(),
                c["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    here.sort();
    assert_eq!(
        here,
        [
            ("etcd".into(), "cozystack".into()),
            ("etcd".into(), "etcd-io".into())
        ],
        "{doc}"
    );
    let table = tool(&with(&kc, &["status", "-A"]), &[]).await.stdout;
    let header = table.lines().next().unwrap_or_default();
    assert!(header.contains("KIND"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.contains(ns) && l.contains("etcd-io") && l.contains(&fx.members[0])),
        "{table}"
    );

    // doctor -A and defrag -A --dry-run say each cluster's kind.
    let doc = tool(&with(&kc, &["doctor", "-A", "-o", "json"]), &[])
        .await
        .json();
    let kinds: Vec<&str> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cluster"]["namespace"] == ns)
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["cozystack", "etcd-io"], "{doc}");
    // A sweep selected by label opens each cluster in its own kind: the
    // shared name is no obstacle, and the etcd project's member is
    // defragmented (its own log says so).
    etcdio_clusters(&client, ns)
        .patch(
            "etcd",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"metadata": {"labels": {"tier": "test"}}})),
        )
        .await
        .unwrap();
    let before = fx.etcd.logged_defrags().len();
    let doc = tool(
        &with(
            &kc,
            &[
                "defrag",
                "-l",
                "tier=test",
                "--all",
                "--yes",
                // One member: the gate's own advice, taken.
                "--allow-quorum-loss",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    let swept: Vec<(&str, &str)> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(swept, [("etcd-io", "Completed")], "{doc}");
    assert_eq!(fx.etcd.logged_defrags().len(), before + 1);

    // The advice, run as printed: --kind etcd-io reads the etcd project's
    // cluster.
    let doc = tool(
        &with(&kc, &["status", "etcd", "--kind", "etcd-io", "-o", "json"]),
        &[],
    )
    .await
    .expect_code(0)
    .json();
    assert_eq!(rows(&doc).len(), 1, "{doc}");
    assert_eq!(row(&doc, &fx.members[0])["reachable"], true, "{doc}");
    // --kind cozystack reads the other, which has no members.
    let run = tool(&with(&kc, &["status", "etcd", "--kind", "cozystack"]), &[]).await;
    assert_ne!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("no running members"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn plain_http_beside_its_tls_secrets_is_said() {
    let client = admin().await;
    let ns = "etcdio-tls";
    let fx = etcdio_fixture(&client, ns, "db", 1, json!({"tls": {"provider": "auto"}})).await;
    let kc = kubeconfig("etcdio-tls.yaml", &[ns]);
    let run = tool(&with(&kc, &["status", "db", "-o", "json"]), &[]).await;
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("anyone on the cluster network can read and write the keyspace"),
        "{}",
        run.stderr
    );
    assert_eq!(row(&run.json(), &fx.members[0])["reachable"], true);
    // doctor: critical, naming the Secret, with the remedy.
    let run = tool(&with(&kc, &["doctor", "db", "-o", "json"]), &[]).await;
    let report = run.json();
    let found: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "plaintext-client")
        .collect();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["severity"], "critical", "{report}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("etcdio-tls/db-client-tls"),
        "{report}"
    );
    assert_ne!(run.code, 0, "a critical finding fails doctor: {run:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn once_its_members_serve_tls_the_same_code_reaches_them_over_tls() {
    let client = admin().await;
    let ns = "etcdio-mtls";
    let fx = etcdio_tls_fixture(&client, ns, "db", 3).await;
    let kc = kubeconfig("etcdio-mtls.yaml", &[ns]);
    let run = tool(&with(&kc, &["status", "db", "-o", "json"]), &[]).await;
    assert_eq!(run.code, 0, "{run:?}");
    // Nothing said of plain HTTP: it is not.
    assert!(!run.stderr.contains("plain HTTP"), "{}", run.stderr);
    let doc = run.json();
    for (i, name) in fx.members.iter().enumerate() {
        let m = row(&doc, name);
        assert_eq!(m["reachable"], true, "{m}");
        assert_eq!(
            m["endpoint"],
            format!("https://{}:2379", fx.etcd.host(i)),
            "{m}"
        );
    }
    // doctor: no plaintext finding; defrag over mutual TLS, per etcd's logs.
    let report = tool(&with(&kc, &["doctor", "db", "-o", "json"]), &[])
        .await
        .json();
    assert!(!report.to_string().contains("plaintext-client"), "{report}");
    let before = fx.etcd.logged_defrags().len();
    tool(&with(&kc, &["defrag", "db", "--yes", "--all"]), &[])
        .await
        .expect_code(0);
    assert_eq!(fx.etcd.logged_defrags().len(), before + 3);
    // Without its client Secret the cluster is not reached with less: the
    // error names the Secret.
    let secrets: kube::Api<k8s_openapi::api::core::v1::Secret> =
        kube::Api::namespaced(client.clone(), ns);
    secrets
        .delete("db-client-tls", &Default::default())
        .await
        .unwrap();
    let run = tool(&with(&kc, &["status", "db"]), &[]).await;
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("client TLS Secret etcdio-mtls/db-client-tls not found"),
        "{}",
        run.stderr
    );
}

/// An API server of its own serving only `crds` (most serve one kind of
/// EtcdCluster, or none).
async fn server_with(crds: Vec<std::path::PathBuf>) -> kubectl_etcd_testbed::ApiServer {
    let server = kubectl_etcd_testbed::ApiServer::start_release(
        kubectl_etcd_testbed::KubeRelease::Current,
        &crds,
        "",
    )
    .await
    .unwrap_or_else(|e| panic!("test bed API server: {e}"));
    kubectl_etcd_testbed::apiserver::watchdog(&server.pids(), &server.dirs()).expect("watchdog");
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kind_the_api_server_does_not_serve_is_passed_over() {
    let (cozystack_only, etcdio_only): (Vec<_>, Vec<_>) = crd_files()
        .into_iter()
        .partition(|f| !f.to_string_lossy().contains("operator.etcd.io"));
    assert_eq!(etcdio_only.len(), 1, "{etcdio_only:?}");
    for (label, crds) in [("cozystack", cozystack_only), ("etcd-io", etcdio_only)] {
        let server = server_with(crds).await;
        let client = server.admin_client(None).await.unwrap();
        let ns = "one-kind";
        let fx = match label {
            "cozystack" => fixture(&client, ns, "db", Mode::Plain).await,
            _ => etcdio_fixture(&client, ns, "db", 1, json!({})).await,
        };
        let kc = kubeconfig_on(&server, &format!("one-kind-{label}.yaml"), &[ns]);
        // By name, as the namespace's only cluster, and in a listing of all.
        for argv in [
            vec!["status", "db", "-o", "json"],
            vec!["status", "-o", "json"],
        ] {
            let doc = tool(&with(&kc, &argv), &[]).await.expect_code(0).json();
            assert_eq!(
                rows(&doc).len(),
                fx.members.len(),
                "{label} {argv:?}: {doc}"
            );
        }
        let doc = tool(&with(&kc, &["status", "-A", "-o", "json"]), &[])
            .await
            .expect_code(0)
            .json();
        let kinds: Vec<&str> = doc["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, [label], "{doc}");
        // --kind naming the kind it does not serve: said so, with the
        // server's own word.
        let other = if label == "cozystack" {
            "etcd-io"
        } else {
            "cozystack"
        };
        let run = tool(&with(&kc, &["status", "-A", "--kind", other]), &[]).await;
        assert_eq!(run.code, 2, "{label}: {run:?}");
        assert!(
            run.stderr
                .contains("this API server serves no EtcdCluster of")
                && run
                    .stderr
                    .contains(&format!("(--kind {other}): is its operator installed?"))
                && run.stderr.contains("404"),
            "{label}: {}",
            run.stderr
        );
    }
}
