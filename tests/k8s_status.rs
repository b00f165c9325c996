//! Plugin mode against the real kube-apiserver of the test bed and real
//! etcd members: resolution of every TLS mode and auth, member filtering,
//! namespace/context handling, `-A`, and one-line errors.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::k8s::*;
use support::*;

fn plugin(kubeconfig: &std::path::Path, rest: &[&str]) -> Vec<String> {
    let mut a = vec![
        format!("--kubeconfig={}", kubeconfig.display()),
        "--connect=direct".to_string(),
    ];
    a.extend(rest.iter().map(|s| s.to_string()));
    a
}

/// Asserts a `status -o json` document shows every member of the fixture,
/// all reachable, with the leader etcd itself names.
async fn assert_status_matches(doc: &serde_json::Value, fx: &Fixture) {
    let rows = rows(doc);
    assert_eq!(rows.len(), fx.members.len(), "{doc}");
    let leader = fx.etcd.leader().await.unwrap();
    let ids = fx.etcd.member_ids().await.unwrap();
    assert_eq!(doc["leader"], format!("{:x}", ids[leader]), "{doc}");
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
