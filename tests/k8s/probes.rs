//! Probe budgets in plugin mode, against a real kube-apiserver and real
//! etcd 3.7: a member whose Pod's liveness probe fails while etcd
//! defragments (an HTTP GET, as kubeadm's) and would have the kubelet
//! restart it before its predicted defrag ends is warned about by
//! `doctor`, held back by `defrag` and by `--watch`, and defragmented only
//! with `--allow-probe-restart`. Defragments are counted from each
//! member's own `/metrics`; the watcher's rows and events are read back
//! from the API server. (The kill itself, on a real kubelet, is
//! `tests/node/node_probes.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use serde_json::{json, Value};

use support::k8s::*;
use support::watch::*;
use support::*;

/// Replaces `member`'s Pod with one whose etcd container has `liveness`.
async fn with_liveness(pods: &Api<Pod>, cluster: &str, member: &str, ip: &str, liveness: Value) {
    replace_pod(
        pods,
        cluster,
        member,
        ip,
        json!({"name": "etcd", "image": "quay.io/coreos/etcd:v3.7.3", "livenessProbe": liveness}),
    )
    .await;
}

async fn counts(fx: &Fixture) -> Vec<u64> {
    let mut out = Vec::new();
    for i in 0..fx.members.len() {
        out.push(defrag_count(&fx.etcd, i).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_its_probe_would_restart_mid_defrag_is_held_back_unless_allowed() {
    let client = admin().await;
    kubelet().await;
    let ns = "probes";
    let kc = kubeconfig("probes.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    // About 105 MB in use on every member: the model predicts ~1.5 s.
    fx.etcd.fragment(200 << 20, 0.5).await.unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let m = &fx.members;
    // m0: restarted after 1-2 s of a failing /livez: over budget.
    with_liveness(
        &pods,
        "db",
        &m[0],
        &fx.etcd.host(0),
        json!({"httpGet": {"path": "/livez", "port": 2381},
               "periodSeconds": 1, "timeoutSeconds": 1, "failureThreshold": 1}),
    )
    .await;
    // m1: kubeadm's, 120 s at the earliest: room to spare.
    with_liveness(
        &pods,
        "db",
        &m[1],
        &fx.etcd.host(1),
        json!({"httpGet": {"path": "/livez", "port": 2381},
               "periodSeconds": 10, "timeoutSeconds": 15, "failureThreshold": 8}),
    )
    .await;
    // m2: the operator's TCP probe on the peer port, which a defrag never fails.
    with_liveness(
        &pods,
        "db",
        &m[2],
        &fx.etcd.host(2),
        json!({"tcpSocket": {"port": 2380}, "periodSeconds": 10, "failureThreshold": 3}),
    )
    .await;
    let kc_arg = format!("--kubeconfig={}", kc.display());
    let tool_in = |extra: &[&str]| {
        let mut a = vec![kc_arg.as_str(), "--connect=direct", "-n", ns];
        a.extend_from_slice(extra);
        args(&a)
    };

    // doctor: the warning with its numbers, for m0 only.
    let doctor = tool(&tool_in(&["doctor", "db", "-o", "json"]), &[]).await;
    let doc = doctor.json();
    let findings: Vec<&Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "probe-budget")
        .collect();
    assert_eq!(findings.len(), 1, "{doc}");
    assert_eq!(findings[0]["severity"], "warning", "{doc}");
    assert_eq!(findings[0]["member"], m[0].as_str());
    let message = findings[0]["message"].as_str().unwrap();
    for part in [
        "liveness probe (GET /livez on port 2381, every 1s, timeout 1s, 1 failure) fails while it defragments",
        "the kubelet restarts it after 1–2s of defrag",
        "at the model's 12s per GB",
    ] {
        assert!(message.contains(part), "{message}\nlacks {part}");
    }
    assert!(findings[0]["remedy"]
        .as_str()
        .unwrap()
        .contains("--allow-probe-restart"));

    // defrag: m0 held back, the others defragmented; exit 1 naming it.
    let before = counts(&fx).await;
    let run = tool(
        &tool_in(&["defrag", "db", "--all", "-y", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(1);
    let doc = run.json();
    let held = row(&doc, &m[0]);
    assert_eq!(
        (held["outcome"].as_str(), held["reason"].as_str()),
        (Some("Skipped"), Some("ProbeBudget")),
        "{doc}"
    );
    let detail = held["detail"].as_str().unwrap();
    assert!(
        detail.contains("pass --allow-probe-restart to defragment it anyway"),
        "{detail}"
    );
    for other in &m[1..] {
        assert_eq!(row(&doc, other)["outcome"], "Defragmented", "{doc}");
    }
    assert!(
        run.stderr.contains(&format!("{} held back", m[0])),
        "{}",
        run.stderr
    );
    // The plan's note on m1's probe, which leaves room.
    assert!(
        run.stderr.contains(&format!(
            "note: {}'s liveness probe (GET /livez on port 2381, every 10s, timeout 15s, 8 failures) fails while it defragments; the kubelet would restart it after 120s",
            m[1]
        )),
        "{}",
        run.stderr
    );
    let after = counts(&fx).await;
    assert_eq!(
        after[0], before[0],
        "m0 was defragmented: {before:?} → {after:?}"
    );
    assert_eq!(
        (after[1], after[2]),
        (before[1] + 1, before[2] + 1),
        "{before:?} → {after:?}"
    );

    // The flag named in the refusal, run as printed: m0 too.
    let run = tool(
        &tool_in(&[
            "defrag",
            "db",
            "--all",
            "-y",
            "--allow-probe-restart",
            "-o",
            "json",
        ]),
        &[],
    )
    .await;
    run.expect_code(0);
    let again = counts(&fx).await;
    assert_eq!(again, after.iter().map(|c| c + 1).collect::<Vec<_>>());

    // --watch holds it back too: its row says ProbeBudget, an event has
    // the numbers, and the run completes with the others done.
    let mut watcher = spawn_watcher(&kc, ns, &[]);
    create_run(&client, ns, "held", "db", json!({"all": true})).await;
    let status = wait_phase(&client, ns, "held", &["Complete", "Failed"]).await;
    watcher.kill().await.unwrap();
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 2, "{status}");
    let rows = status["members"].as_array().unwrap();
    let r0 = rows.iter().find(|r| r["name"] == m[0].as_str()).unwrap();
    assert_eq!(
        (r0["outcome"].as_str(), r0["reason"].as_str()),
        (Some("Skipped"), Some("ProbeBudget")),
        "{status}"
    );
    let watched = counts(&fx).await;
    assert_eq!(watched[0], again[0], "the watcher defragmented m0");
    assert_eq!((watched[1], watched[2]), (again[1] + 1, again[2] + 1));
    let events = events(&client, ns, "held").await;
    let (_, why) = events
        .iter()
        .find(|(reason, _)| reason == "DefragHeldBack")
        .unwrap_or_else(|| panic!("no DefragHeldBack event: {events:?}"));
    assert!(
        why.starts_with(&format!("member {} was not defragmented: ", m[0])),
        "{why}"
    );
    assert!(
        why.contains("after 1–2s of defrag") && why.contains("--allow-probe-restart"),
        "{why}"
    );
}
