//! Fleets across kubeconfig contexts (issue 41): `status -A`, `doctor -A`
//! and `defrag -A` over two real API servers of different releases (1.37
//! and 1.34) in one kubeconfig, and a third context whose server is not
//! there. The two servers are this module's own (not the binary's shared
//! one), so `-A` sees only the clusters published here.
//!
//! Judged by what the servers hold: each row's member IDs are those of the
//! etcd cluster published in that context (the two contexts hold a cluster
//! of the same namespace and name, each backed by a different etcd), and a
//! sweep by each member's own log.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use kubectl_etcd_testbed::{kubeconfig_across, ContextOn, EtcdVersion, KubeRelease};
use serde_json::Value;

use crate::support::k8s::*;
use crate::support::*;

/// The member IDs (16 hex digits) a `status` document's rows show.
fn row_ids(status: &Value) -> Vec<String> {
    let mut ids: Vec<String> = rows(status)
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// The member IDs etcd itself gives for `fx`'s members.
async fn etcd_ids(fx: &Fixture) -> Vec<String> {
    let mut ids: Vec<String> = fx
        .etcd
        .member_ids()
        .await
        .unwrap()
        .iter()
        .map(|id| format!("{id:016x}"))
        .collect();
    ids.sort();
    ids
}

/// The entry of `context`'s `ns/name` in a `-A` document.
fn in_context<'a>(doc: &'a Value, context: &str, ns: &str, name: &str) -> &'a Value {
    doc["clusters"]
        .as_array()
        .and_then(|all| {
            all.iter().find(|c| {
                c["cluster"]["context"] == context
                    && c["cluster"]["namespace"] == ns
                    && c["cluster"]["name"] == name
            })
        })
        .unwrap_or_else(|| panic!("no {context}: {ns}/{name} in {doc}"))
}

/// The contexts of a `-A` document: (name, clusters listed, error).
fn contexts_of(doc: &Value) -> Vec<(String, Value, bool)> {
    doc["contexts"]
        .as_array()
        .unwrap_or_else(|| panic!("no contexts in {doc}"))
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["clusters"].clone(),
                c["error"].is_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn fleets_span_the_contexts_of_one_kubeconfig() {
    let (east_server, west_server) = tokio::join!(
        start_apiserver(KubeRelease::Current, ""),
        start_apiserver(KubeRelease::V1_34, "")
    );
    let (east, west) = tokio::join!(
        east_server.admin_client(None),
        west_server.admin_client(None)
    );
    let (east, west) = (east.unwrap(), west.unwrap());
    // The same namespace and name in both contexts, each its own etcd (3.7
    // in east, 3.6 in west, with a quota of 128 MiB so that doctor's
    // default rule finds 30 MiB free worth a defrag), and a second cluster
    // in east.
    let (alpha_east, beta_east, alpha_west) = tokio::join!(
        fixture_logged(&east, "ctx", "alpha", Mode::Mtls),
        fixture_logged(&east, "ctx", "beta", Mode::Plain),
        fixture_logged_on(
            &west,
            "ctx",
            "alpha",
            Mode::Mtls,
            EtcdVersion::V3_6,
            Some(128 << 20)
        ),
    );
    let gone = format!(
        "https://127.0.0.1:{}",
        kubectl_etcd_testbed::ports::free_port().unwrap()
    );
    let kc = east_server.dir().join("contexts.yaml");
    std::fs::write(
        &kc,
        kubeconfig_across(&[
            ContextOn {
                name: "east",
                server: &east_server,
                url: None,
                namespace: Some("ctx"),
            },
            ContextOn {
                name: "west",
                server: &west_server,
                url: None,
                namespace: Some("ctx"),
            },
            ContextOn {
                name: "gone",
                server: &east_server,
                url: Some(gone.clone()),
                namespace: Some("ctx"),
            },
        ]),
    )
    .unwrap();

    // status -A over every context: each cluster in its context's place,
    // its members those of the etcd published there; the context not
    // reached a row of its own, and without --check the run succeeds.
    let run = tool(
        &plugin(&kc, &["status", "-A", "--all-contexts", "-o", "json"]),
        &[],
    )
    .await;
    run.expect_code(0);
    let doc = run.json();
    let order: Vec<(Value, Value)> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["cluster"]["context"].clone(),
                c["cluster"]["name"].clone(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            (Value::from("east"), Value::from("alpha")),
            (Value::from("east"), Value::from("beta")),
            (Value::from("west"), Value::from("alpha")),
        ],
        "{doc}"
    );
    for (context, fx) in [
        ("east", &alpha_east),
        ("east", &beta_east),
        ("west", &alpha_west),
    ] {
        let status = &in_context(&doc, context, "ctx", &fx.name)["status"];
        assert_eq!(row_ids(status), etcd_ids(fx).await, "{context}: {status}");
    }
    let west_version =
        rows(&in_context(&doc, "west", "ctx", "alpha")["status"])[0]["version"].clone();
    assert!(
        west_version.as_str().is_some_and(|v| v.starts_with("3.6.")),
        "{west_version}"
    );
    assert_eq!(
        contexts_of(&doc),
        [
            ("east".to_string(), Value::from(2), false),
            ("west".to_string(), Value::from(1), false),
            ("gone".to_string(), Value::Null, true),
        ],
        "{doc}"
    );
    let gone_row = &doc["contexts"][2];
    assert_eq!(gone_row["server"], gone.as_str(), "{doc}");

    // The table: a CONTEXT column, the context not reached one row naming
    // its server.
    let table = tool(&plugin(&kc, &["status", "-A", "--all-contexts"]), &[]).await;
    table.expect_code(0);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert!(lines[0].starts_with("CONTEXT"), "{}", table.stdout);
    let gone_lines: Vec<&&str> = lines.iter().filter(|l| l.starts_with("gone")).collect();
    assert_eq!(gone_lines.len(), 1, "{}", table.stdout);
    assert!(
        gone_lines[0].contains(&format!("context not reached ({gone})")),
        "{}",
        table.stdout
    );
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("west")).count(),
        3,
        "{}",
        table.stdout
    );

    // --check: the context not reached needs attention.
    let check = tool(
        &plugin(&kc, &["status", "-A", "--all-contexts", "--check"]),
        &[],
    )
    .await;
    check.expect_code(1);
    assert!(
        check.stderr.contains("context(s) not reached: gone"),
        "{}",
        check.stderr
    );
    // --context named twice: those two, in the order given; all healthy.
    let two = tool(
        &plugin(
            &kc,
            &[
                "status",
                "-A",
                "--context",
                "west",
                "--context",
                "east",
                "--check",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    two.expect_code(0);
    let doc = two.json();
    let contexts: Vec<&str> = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["cluster"]["context"].as_str())
        .collect();
    assert_eq!(contexts, ["west", "east", "east"], "{doc}");

    // doctor -A: the context not reached is critical (exit 1 by the
    // default --fail-on); each cluster's advice names its context, and
    // run as printed it reaches that context's cluster.
    for fx in [&alpha_east, &beta_east] {
        fx.etcd.fragment(16 << 20, 0.25).await.unwrap();
    }
    alpha_west.etcd.fragment(40 << 20, 0.25).await.unwrap();
    let doctor = tool(
        &plugin(&kc, &["doctor", "-A", "--all-contexts", "-o", "json"]),
        &[],
    )
    .await;
    doctor.expect_code(1);
    assert!(
        doctor
            .stderr
            .contains("context gone not reached (critical)"),
        "{}",
        doctor.stderr
    );
    let doc = doctor.json();
    let west_report = doc["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["cluster"]["context"] == "west")
        .unwrap_or_else(|| panic!("{doc}"));
    let remedies: Vec<String> = west_report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "fragmentation" && f["severity"] != "ok")
        .filter_map(|f| f["remedy"].as_str().map(str::to_string))
        .collect();
    assert!(
        !remedies.is_empty(),
        "no fragmentation finding: {west_report}"
    );
    let advice = suggested(&remedies[0])
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no command in the advice: {remedies:?}"));
    assert!(
        advice.contains("--context west"),
        "advice without its context: {advice}"
    );
    let mut followed = words(&advice);
    followed.extend(["--dry-run", "-o", "json"].map(String::from));
    let run = tool(
        &plugin(
            &kc,
            &followed.iter().map(String::as_str).collect::<Vec<_>>(),
        ),
        &[],
    )
    .await;
    run.expect_code(0);
    let plan = run.json();
    let mut planned: Vec<String> = plan["members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect();
    planned.sort();
    assert_eq!(planned, etcd_ids(&alpha_west).await, "{advice}: {plan}");
    let never = tool(
        &plugin(
            &kc,
            &[
                "doctor",
                "-A",
                "--all-contexts",
                "--fail-on",
                "never",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    never.expect_code(0);
    let doctor_table = tool(
        &plugin(
            &kc,
            &["doctor", "-A", "--all-contexts", "--fail-on", "never"],
        ),
        &[],
    )
    .await;
    assert!(
        doctor_table
            .stdout
            .contains("→ check that its API server answers and its credentials are current: kubectl --context gone version"),
        "{}",
        doctor_table.stdout
    );

    // defrag -A over every context: every cluster of the contexts reached
    // done, each member once and never two of a cluster at once (the
    // members' own logs), the context not reached a row, and exit 1
    // naming it.
    let fleet = [&alpha_east, &beta_east, &alpha_west];
    let dry = tool(
        &plugin(
            &kc,
            &[
                "defrag",
                "-A",
                "--all-contexts",
                "--all",
                "--dry-run",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    dry.expect_code(1);
    let doc = dry.json();
    assert_eq!(doc["totals"]["planned"], 3, "{doc}");
    for fx in fleet {
        assert!(
            fx.etcd.logged_defrags().is_empty(),
            "a dry run defragmented"
        );
    }
    let since = now();
    let sweep = tool(
        &plugin(
            &kc,
            &[
                "defrag",
                "-A",
                "--all-contexts",
                "--all",
                "--yes",
                "-o",
                "json",
            ],
        ),
        &[],
    )
    .await;
    sweep.expect_code(1);
    assert!(
        sweep
            .stderr
            .contains("not reached, so not looked at: context gone"),
        "{}",
        sweep.stderr
    );
    let doc = sweep.json();
    for (context, fx) in [
        ("east", &alpha_east),
        ("east", &beta_east),
        ("west", &alpha_west),
    ] {
        let e = in_context(&doc, context, "ctx", &fx.name);
        assert_eq!(e["outcome"], "Completed", "{e}");
        // The cluster's own report, opened again at its turn, names its
        // context too (its advice carries `--context`).
        assert_eq!(e["report"]["cluster"]["context"], context, "{e}");
        let logged: Vec<_> = fx
            .etcd
            .logged_defrags()
            .into_iter()
            .filter(|d| d.start >= since)
            .collect();
        every_member_once(fx, &logged);
        for pair in logged.windows(2) {
            assert!(pair[0].end <= pair[1].start, "two at once: {logged:?}");
        }
    }
    assert_eq!(
        contexts_of(&doc)[2],
        ("gone".to_string(), Value::Null, true),
        "{doc}"
    );

    // Bad input: exit 2, naming the flag, nothing contacted.
    for (args, says) in [
        (
            vec!["status", "-A", "--context", "east", "--context", "nowhere"],
            "--context nowhere: no such context in the kubeconfig (known: east, west, gone)",
        ),
        (
            vec!["members", "alpha", "--all-contexts"],
            "--all-contexts: only status -A, doctor -A and defrag -A (or -l) go over several contexts",
        ),
        (
            vec!["status", "--all-contexts"],
            "--all-contexts: status goes over several contexts with every cluster in them: add -A",
        ),
        (
            vec!["status", "-A", "--all-contexts", "--context", "east"],
            "cannot be used with",
        ),
    ] {
        let run = tool(&plugin(&kc, &args), &[]).await;
        run.expect_code(2);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
}
