//! The one-shot sweep beside another processor of EtcdDefrag (issue 37):
//! the etcd-operator's own controller (from its v0.5.5 it processes every
//! EtcdDefrag) or a `defrag --watch`. On the test bed's real kube-apiserver
//! and real etcd clusters; judged by each member's own log and the objects
//! read back from the API server. A binary of its own: its fleet sweep
//! must not meet other tests' clusters.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use kubectl_etcd_testbed::LoggedDefrag;
use serde_json::Value;
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

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The defragmentations `fx`'s members logged since `since`.
fn logged_since(fx: &Fixture, since: f64) -> Vec<LoggedDefrag> {
    fx.etcd
        .logged_defrags()
        .into_iter()
        .filter(|d| d.start >= since)
        .collect()
}

/// Each member of `fx` defragmented exactly once.
fn every_member_once(fx: &Fixture, defrags: &[LoggedDefrag]) {
    let mut members: Vec<usize> = defrags.iter().map(|d| d.member).collect();
    members.sort();
    assert_eq!(
        members,
        (0..fx.members.len()).collect::<Vec<_>>(),
        "{}/{}: {defrags:?}",
        fx.namespace,
        fx.name
    );
}

/// The entry of `ns/name` in a fleet report.
fn entry<'a>(doc: &'a Value, ns: &str, name: &str) -> &'a Value {
    doc["clusters"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|c| c["cluster"]["namespace"] == ns && c["cluster"]["name"] == name)
        })
        .unwrap_or_else(|| panic!("no cluster {ns}/{name} in {doc}"))
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
}
