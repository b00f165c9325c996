//! `usage` on the etcd of a real kube-apiserver, while Events are created
//! through the API: the busiest prefix is the Events', narrowing to it
//! shows the namespace, its key count is what the API server lists, and a
//! snapshot of that etcd has the same live keys per prefix.
//!
//! Its own test binary: the etcd read is the API server's own, its keys
//! counted live and again from a snapshot taken a moment later, so no
//! other module may be writing objects through that API server meanwhile.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;

use support::k8s::*;
use support::*;

fn usage(endpoint: &str, extra: &[&str]) -> Vec<String> {
    let mut a = vec![format!("--endpoints={endpoint}")];
    a.extend(args(&["usage", "-o", "json"]));
    a.extend(args(extra));
    a
}

/// (prefix, keys) of every group.
fn groups(doc: &serde_json::Value) -> Vec<(String, u64)> {
    usage_groups(doc)
        .into_iter()
        .map(|(p, k, _)| (p, k))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn events_created_through_the_api_are_the_busiest_prefix() {
    let client = admin().await;
    let ns = "noisy";
    namespace(&client, ns).await;
    let endpoint = apiserver().await.etcd().endpoints()[0].clone();
    let events: Api<Event> = Api::namespaced(client.clone(), ns);

    // A component emitting Events as fast as the API server takes them.
    let stop = Arc::new(AtomicBool::new(false));
    let created = Arc::new(AtomicU64::new(0));
    let emitter = {
        let (events, stop, created) = (events.clone(), stop.clone(), created.clone());
        tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let event: Event = serde_json::from_value(json!({
                    "metadata": {"name": format!("noisy-pod.{n:06}")},
                    "involvedObject": {"kind": "Pod", "namespace": "noisy", "name": "noisy-pod"},
                    "reason": "BackOff",
                    "message": "Back-off restarting failed container",
                    "type": "Warning",
                }))
                .unwrap();
                events.create(&PostParams::default(), &event).await.unwrap();
                created.fetch_add(1, Ordering::Relaxed);
                n += 1;
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let run = tool(&usage(&endpoint, &["--window", "4s"]), &[]).await;
    stop.store(true, Ordering::Relaxed);
    emitter.await.unwrap();
    run.expect_code(0);
    let doc = run.json();
    let busiest = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["churn"]["puts"].as_u64().unwrap_or(0) > 0)
        .max_by_key(|g| g["churn"]["puts"].as_u64().unwrap())
        .unwrap_or_else(|| panic!("no write seen: {doc}"));
    assert_eq!(busiest["prefix"], "/registry/events/", "{doc}");
    assert!(
        busiest["churn"]["keysWritten"].as_u64().unwrap() > 10,
        "each Event is a new key: {busiest}"
    );
    assert!(
        busiest["churn"]["puts"].as_u64().unwrap() <= created.load(Ordering::Relaxed),
        "no more Events counted than were created: {busiest}"
    );

    // Narrowed to the Events: by namespace, with as many keys as the API
    // server lists.
    let listed = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .len() as u64;
    let run = tool(
        &usage(
            &endpoint,
            &["--window", "0", "--prefix", "/registry/events/"],
        ),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    let noisy = groups(&doc)
        .into_iter()
        .find(|(p, _)| p == "/registry/events/noisy/")
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(noisy.1, listed, "{doc}");

    // A snapshot of the same etcd, read offline: the same keys per prefix.
    let live = tool(&usage(&endpoint, &["--window", "0"]), &[])
        .await
        .json();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("apiserver.db");
    let mut save = vec![format!("--endpoints={endpoint}")];
    save.extend(args(&["snapshot", "save"]));
    save.push(file.display().to_string());
    tool(&save, &[]).await.expect_code(0);
    let mut read = args(&["snapshot", "usage", "-o", "json"]);
    read.push(file.display().to_string());
    let offline = tool(&read, &[]).await;
    offline.expect_code(0);
    let offline = offline.json();
    let mut a = groups(&live);
    let mut b = groups(&offline);
    a.sort();
    b.sort();
    assert_eq!(a, b, "live {live}\nsnapshot {offline}");
    assert!(b.iter().any(|(p, _)| p == "/registry/events/"), "{offline}");
}

/// Plugin mode: `usage CLUSTER -n NS` reads a follower of the EtcdCluster
/// it names (TLS from the cluster's Secrets), and the next step it prints
/// names that cluster and runs as printed.
#[tokio::test(flavor = "multi_thread")]
async fn usage_in_plugin_mode_names_the_cluster_in_its_advice() {
    let client = admin().await;
    let ns = "usage";
    let fx = fixture(&client, ns, "etcd", Mode::Mtls).await;
    let mut c = fx.etcd.client(0).await.unwrap();
    for i in 0..30 {
        c.put(
            format!("/registry/configmaps/team-a/c{i}"),
            vec![b'c'; 900],
            None,
        )
        .await
        .unwrap();
    }
    c.put("/registry/pods/team-a/p0", vec![b'p'; 100], None)
        .await
        .unwrap();
    let kc = kubeconfig("usage.yaml", &[ns]);
    let base = vec![
        format!("--kubeconfig={}", kc.display()),
        "--connect=direct".into(),
    ];
    let run = tool(
        &[
            base.clone(),
            args(&["usage", "etcd", "-n", ns, "--window", "0"]),
        ]
        .concat(),
        &[],
    )
    .await;
    run.expect_code(0);
    assert!(run.stdout.contains("(a follower)"), "{}", run.stdout);
    let advice = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Narrow it down: kubectl etcd "))
        .unwrap_or_else(|| panic!("{}", run.stdout))
        .to_string();
    assert_eq!(
        advice, "usage etcd -n usage --prefix /registry/configmaps/",
        "{}",
        run.stdout
    );
    let mut again = base;
    again.extend(advice.split_whitespace().map(str::to_string));
    again.extend(args(&["--window", "0", "-o", "json"]));
    let run = tool(&again, &[]).await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    assert_eq!(
        groups(&doc),
        [("/registry/configmaps/team-a/".to_string(), 30)],
        "{doc}"
    );
}
