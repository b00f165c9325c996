//! Fleet sweeps (`defrag -A`, `defrag -l SELECTOR`) on the real
//! kube-apiserver of the test bed and real etcd clusters: which clusters
//! are swept, that a refused cluster is left alone while the others are
//! done, the concurrency limits read from etcd's own logs, Ctrl-C, and the
//! usage errors reported before anything is contacted.
//!
//! Its own test binary: `defrag -A` sweeps every EtcdCluster of the API
//! server its process started, and the tests count them (three clusters,
//! two completed, one refused), so no other module's cluster may be there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;

use kubectl_etcd_testbed::LoggedDefrag;
use serde_json::Value;
use support::k8s::*;
use support::*;

fn label(fx: &Fixture) -> String {
    format!("{}/{}", fx.namespace, fx.name)
}

/// The defragmentations each fixture's members logged since `since`
/// (seconds since the epoch), by cluster label.
fn logged_since(fleet: &[&Fixture], since: f64) -> BTreeMap<String, Vec<LoggedDefrag>> {
    fleet
        .iter()
        .map(|fx| {
            let mine = fx
                .etcd
                .logged_defrags()
                .into_iter()
                .filter(|d| d.start >= since)
                .collect();
            (label(fx), mine)
        })
        .collect()
}

/// Within each cluster no two defragmentations overlap; across clusters,
/// no more than `max` clusters have a member defragmenting at any moment.
fn assert_concurrency(logged: &BTreeMap<String, Vec<LoggedDefrag>>, max: usize) {
    for (cluster, defrags) in logged {
        for pair in defrags.windows(2) {
            assert!(
                pair[0].end <= pair[1].start,
                "{cluster}: two members at once: {defrags:?}"
            );
        }
    }
    for (cluster, defrags) in logged {
        for d in defrags {
            let busy: Vec<&String> = logged
                .iter()
                .filter(|(_, other)| other.iter().any(|o| o.start <= d.start && d.start < o.end))
                .map(|(c, _)| c)
                .collect();
            assert!(
                busy.len() <= max,
                "{} clusters defragmenting at once when {cluster} started one (max {max}): {busy:?}\n{logged:?}",
                busy.len()
            );
        }
    }
}

/// Three fragmented EtcdClusters in two namespaces, swept in turn: a dry
/// run that changes nothing; `-l` that sweeps only the labelled one; `-A`
/// with one cluster's member SIGSTOPped (that cluster refused and
/// untouched, the other two fully done, exit 1 naming it); `-A
/// --max-concurrent 1` (no two clusters at once); and Ctrl-C in the middle
/// (the cluster in flight stops after its member, the next is never
/// started).
#[tokio::test(flavor = "multi_thread")]
async fn fleet_sweeps_every_cluster_and_leaves_a_refused_one_alone() {
    let client = admin().await;
    let one = fixture_logged(&client, "fleet-a", "one", Mode::Mtls).await;
    let two = fixture_logged(&client, "fleet-b", "two", Mode::Plain).await;
    let three = fixture_logged(&client, "fleet-b", "three", Mode::ServerTls).await;
    for fx in [&one, &two, &three] {
        fx.etcd.fragment(40 * 1024 * 1024, 0.25).await.unwrap();
    }
    let fleet = [&one, &two, &three];
    let kc = kubeconfig("fleet.yaml", &["fleet-a", "fleet-b"]);

    // A dry run: every cluster's plan, nothing changed.
    let run = tool(
        &plugin(&kc, &["defrag", "-A", "--all", "--dry-run", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    assert_eq!(doc["dryRun"], true, "{doc}");
    assert_eq!(doc["clusters"].as_array().unwrap().len(), 3, "{doc}");
    for fx in fleet {
        let e = entry(&doc, &fx.namespace, &fx.name);
        assert_eq!(e["outcome"], "Planned", "{e}");
        assert_eq!(e["report"]["dryRun"], true, "{e}");
        let members = e["report"]["members"].as_array().unwrap();
        assert_eq!(members.len(), 3, "{e}");
        assert!(members.iter().all(|m| m["outcome"] == "Pending"), "{e}");
    }
    assert_eq!(doc["totals"]["planned"], 3, "{doc}");
    let table = tool(&plugin(&kc, &["defrag", "-A", "--all", "--dry-run"]), &[]).await;
    table.expect_code(0);
    for fx in fleet {
        assert!(
            table.stdout.contains(&format!("{}:\n", label(fx))),
            "each plan under its cluster:\n{}",
            table.stdout
        );
    }
    let summary: Vec<&str> = table
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("NAMESPACE"))
        .collect();
    assert_eq!(
        summary.len(),
        5,
        "header, 3 rows, totals:\n{}",
        table.stdout
    );
    assert!(
        summary[1..4]
            .iter()
            .all(|l| l.contains("Planned") && l.contains("3 planned")),
        "{}",
        table.stdout
    );
    for fx in fleet {
        assert!(fx.etcd.logged_defrags().is_empty(), "dry run defragmented");
    }

    // -l: only the labelled EtcdCluster, with -A in every namespace; in the
    // current namespace (fleet-a) nothing matches.
    dynamic(&client, "fleet-b", "EtcdCluster", "etcdclusters")
        .patch(
            "three",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(
                serde_json::json!({"metadata": {"labels": {"fleet-test": "picked"}}}),
            ),
        )
        .await
        .unwrap();
    let none = tool(
        &plugin(
            &kc,
            &[
                "defrag",
                "-l",
                "fleet-test=picked",
                "--all",
                "--yes",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    none.expect_code(0);
    assert_eq!(none.json()["clusters"], serde_json::json!([]));
    assert!(
        none.stderr
            .contains("no EtcdCluster in namespace fleet-a with labels fleet-test=picked"),
        "{}",
        none.stderr
    );
    let since = now();
    let picked = tool(
        &plugin(
            &kc,
            &[
                "defrag",
                "-A",
                "-l",
                "fleet-test=picked",
                "--all",
                "--yes",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    picked.expect_code(0);
    let doc = picked.json();
    assert_eq!(doc["clusters"].as_array().unwrap().len(), 1, "{doc}");
    assert_eq!(entry(&doc, "fleet-b", "three")["outcome"], "Completed");
    let logged = logged_since(&fleet, since);
    every_member_once(&three, &logged[&label(&three)]);
    assert!(logged[&label(&one)].is_empty(), "{logged:?}");
    assert!(logged[&label(&two)].is_empty(), "{logged:?}");

    // -A with one member of `one` hung: `one` is refused and untouched, the
    // other two are fully defragmented, exit 1 names `one`.
    let stopped = (one.etcd.leader().await.unwrap() + 1) % 3;
    one.etcd.pause(stopped).unwrap();
    let since = now();
    let run = tool(
        &plugin(
            &kc,
            &[
                "defrag",
                "-A",
                "--all",
                "--yes",
                "-o",
                "json",
                "--max-concurrent",
                "2",
            ],
        ),
        &[],
    )
    .await;
    run.expect_code(1);
    let doc = run.json();
    assert_eq!(doc["maxConcurrent"], 2);
    let refused = entry(&doc, "fleet-a", "one");
    assert_eq!(refused["outcome"], "Refused", "{refused}");
    assert_eq!(refused["report"]["stopReason"], "GateRefused", "{refused}");
    assert!(
        refused["why"]
            .as_str()
            .unwrap()
            .contains(&format!("member {} is unreachable", one.members[stopped])),
        "{refused}"
    );
    for fx in [&two, &three] {
        let done = entry(&doc, &fx.namespace, &fx.name);
        assert_eq!(done["outcome"], "Completed", "{done}");
        assert_eq!(done["why"], Value::Null, "{done}");
        let members = done["report"]["members"].as_array().unwrap();
        assert!(
            members.iter().all(|m| m["outcome"] == "Defragmented"),
            "{done}"
        );
    }
    assert_eq!(doc["totals"]["completed"], 2, "{doc}");
    assert_eq!(doc["totals"]["refused"], 1, "{doc}");
    assert_eq!(doc["totals"]["membersDefragmented"], 6, "{doc}");
    assert!(
        run.stderr
            .contains("1 of 3 cluster(s) not done: fleet-a/one Refused"),
        "{}",
        run.stderr
    );
    let logged = logged_since(&fleet, since);
    assert!(logged[&label(&one)].is_empty(), "refused, yet: {logged:?}");
    every_member_once(&two, &logged[&label(&two)]);
    every_member_once(&three, &logged[&label(&three)]);
    assert_concurrency(&logged, 2);

    // The table: a row per cluster and the totals.
    let since = now();
    let table = tool(
        &plugin(
            &kc,
            &["defrag", "-A", "--all", "--yes", "--max-concurrent", "1"],
        ),
        &[],
    )
    .await;
    table.expect_code(1);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert!(
        lines[0].starts_with("NAMESPACE") && lines[0].contains("DEFRAGMENTED"),
        "{}",
        table.stdout
    );
    assert!(lines[1].starts_with("fleet-a") && lines[1].contains("Refused"));
    assert!(
        lines[2].contains("three") && lines[2].contains("Completed") && lines[2].contains("3/3")
    );
    assert!(lines[3].contains("two") && lines[3].contains("Completed"));
    assert!(
        lines[4]
            .starts_with("Total: 3 clusters (2 Completed, 1 Refused); 6 member(s) defragmented"),
        "{}",
        table.stdout
    );
    // --max-concurrent 1: the two healthy clusters strictly one after the
    // other.
    let logged = logged_since(&fleet, since);
    assert_concurrency(&logged, 1);
    let (a, b) = (&logged[&label(&three)], &logged[&label(&two)]);
    assert_eq!((a.len(), b.len()), (3, 3), "{logged:?}");
    assert!(a[2].end <= b[0].start, "three before two: {logged:?}");

    // Ctrl-C while the first healthy cluster is at its first member: it
    // stops after that member, the next cluster is never started.
    let since = now();
    let mut running = spawn_tool(&plugin(
        &kc,
        &[
            "defrag",
            "-A",
            "--all",
            "--yes",
            "-o",
            "json",
            "--max-concurrent",
            "1",
            "-v",
        ],
    ));
    running
        .wait_for("fleet-b/three starting a defrag", |l| {
            l.contains("fleet-b/three: defragmenting ")
        })
        .await;
    running.interrupt();
    let done = running.finish().await;
    done.expect_code(1);
    assert!(
        done.stderr
            .contains("interrupted: stopping every cluster after its member in flight"),
        "{}",
        done.stderr
    );
    let doc = done.json();
    assert_eq!(entry(&doc, "fleet-b", "three")["outcome"], "Interrupted");
    assert_eq!(entry(&doc, "fleet-b", "two")["outcome"], "NotStarted");
    assert_eq!(entry(&doc, "fleet-b", "two")["report"], Value::Null);
    let logged = logged_since(&fleet, since);
    // The member in flight (if its Defragment was sent before the stop
    // came: the run fences between announcing a step and sending it) is
    // finished and reported; nothing after it is touched.
    let reported = entry(&doc, "fleet-b", "three")["report"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["outcome"] == "Defragmented")
        .count();
    assert!(reported <= 1, "{doc}");
    assert_eq!(
        logged[&label(&three)].len(),
        reported,
        "{logged:?}\n{doc}\n{}",
        done.stderr
    );
    assert!(logged[&label(&two)].is_empty(), "{logged:?}");
    one.etcd.resume(stopped).unwrap();
}

/// Mistakes are exit 2 with one line naming the flag, before any cluster
/// is contacted; a selector the API server cannot parse names `-l`.
#[tokio::test(flavor = "multi_thread")]
async fn fleet_usage_errors_exit_2_naming_the_flag() {
    admin().await;
    let kc = kubeconfig("fleet-usage.yaml", &["fleet-usage"]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["defrag", "--all", "--yes", "--max-concurrent", "3"],
            "--max-concurrent is for fleet sweeps",
        ),
        (
            &["defrag", "--watch", "-A", "--max-concurrent", "3"],
            "--max-concurrent is for fleet sweeps",
        ),
        (
            &["defrag", "-A", "--all", "--yes", "--member", "m0"],
            "--member names members of one cluster",
        ),
        (
            &["defrag", "-A", "--all"],
            "refusing to defragment without --yes",
        ),
        (
            &["defrag", "-l", " ", "--all", "--yes"],
            "-l needs a label selector",
        ),
        (
            &[
                "defrag",
                "-A",
                "--all",
                "--free-space-above",
                "1Mi",
                "--yes",
            ],
            "--all cannot be combined with --free-space-above",
        ),
        (
            &["defrag", "-A", "-l", "tier in (a", "--all", "--yes"],
            "-l tier in (a: the API server rejected the label selector",
        ),
        (
            &["defrag", "-A", "--max-concurrent", "0", "--all", "--yes"],
            "--max-concurrent",
        ),
    ];
    for (rest, want) in cases {
        let run = tool(&plugin(&kc, rest), &[]).await;
        assert_eq!(run.code, 2, "{rest:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{rest:?}: {}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{rest:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(want),
            "{rest:?}: {} lacks {want:?}",
            run.stderr
        );
    }
}
