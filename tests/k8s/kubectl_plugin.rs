//! The plugin as users reach it: through the test bed's real `kubectl`
//! (built from the same k8s.io/kubernetes module as its API server), found
//! by kubectl's own plugin discovery on PATH, with kubectl's flags after
//! `etcd`; and `kubectl etcd <TAB>` through kubectl's plugin-completion
//! convention (`kubectl_complete-etcd` on PATH), against the real API
//! server and real etcd members.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use support::k8s::*;
use support::plugin::*;
use support::*;

/// The candidates of a `kubectl __complete …` answer, and its directive.
fn completions(run: &Run) -> (Vec<String>, String) {
    run.expect_code(0);
    let mut lines: Vec<&str> = run.stdout.lines().filter(|l| !l.is_empty()).collect();
    let directive = lines.pop().unwrap_or_default().to_string();
    assert!(
        directive.starts_with(':'),
        "no directive line: {}",
        run.stdout
    );
    let values = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    (values, directive)
}

#[tokio::test(flavor = "multi_thread")]
async fn plugin_list_finds_it_without_warnings() {
    let path = plugin_path("list", Completer::Script);
    let run = kubectl(&path, &["plugin", "list"], &[]).await;
    run.expect_code(0);
    let listed: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with('/')).collect();
    assert_eq!(listed.len(), 1, "{}", run.stdout);
    assert!(listed[0].ends_with("/kubectl-etcd"), "{}", run.stdout);
    assert!(
        !run.stderr.to_lowercase().contains("warning")
            && !run.stdout.to_lowercase().contains("warning"),
        "kubectl plugin list warned:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    let version = kubectl(&path, &["etcd", "version"], &[]).await;
    version.expect_code(0);
    assert_eq!(
        version.stdout.trim(),
        format!("kubectl-etcd {}", env!("CARGO_PKG_VERSION"))
    );
}

/// status, the defrag plan and traffic show through `kubectl etcd`, with
/// kubectl's own flags after `etcd` or in KUBECONFIG; and kubectl's refusal
/// of its flags before the plugin name, which is why every example puts
/// them after `etcd`.
#[tokio::test(flavor = "multi_thread")]
async fn status_defrag_plan_and_traffic_through_kubectl() {
    let client = admin().await;
    let fx = fixture(&client, "through-kubectl", "etcd", Mode::Mtls).await;
    services_fixture(&client, "through-kubectl-svc", "db", true).await;
    let kc = kubeconfig(
        "through-kubectl.yaml",
        &["through-kubectl", "through-kubectl-svc"],
    );
    let kc = kc.to_str().unwrap();
    let path = plugin_path("run", Completer::Script);

    // --kubeconfig after `etcd`; the current context's namespace.
    let status = kubectl(
        &path,
        &[
            "etcd",
            "--kubeconfig",
            kc,
            "status",
            "etcd",
            "--connect=direct",
            "-o",
            "json",
        ],
        &[],
    )
    .await;
    status.expect_code(0);
    let doc = status.json();
    assert_eq!(doc["cluster"]["namespace"], "through-kubectl", "{doc}");
    assert_eq!(rows(&doc).len(), 3, "{doc}");
    let leader = fx.etcd.leader().await.unwrap();
    let ids = fx.etcd.member_ids().await.unwrap();
    assert_eq!(doc["leader"], format!("{:016x}", ids[leader]), "{doc}");
    for name in &fx.members {
        assert_eq!(row(&doc, name)["reachable"], true, "{doc}");
    }

    // KUBECONFIG and -n, the table a person reads.
    let table = kubectl(
        &path,
        &[
            "etcd",
            "status",
            "-n",
            "through-kubectl",
            "--connect=direct",
        ],
        &[("KUBECONFIG", kc)],
    )
    .await;
    table.expect_code(0);
    for name in &fx.members {
        assert!(table.stdout.contains(name.as_str()), "{}", table.stdout);
    }

    // The defrag plan, changing nothing.
    let plan = kubectl(
        &path,
        &[
            "etcd",
            "defrag",
            "etcd",
            "--dry-run",
            "--context",
            "ctx-through-kubectl",
            "--connect=direct",
            "-o",
            "json",
        ],
        &[("KUBECONFIG", kc)],
    )
    .await;
    plan.expect_code(0);
    let doc = plan.json();
    assert_eq!(doc["dryRun"], true, "{doc}");
    assert_eq!(doc["cluster"]["name"], "etcd", "{doc}");
    let mut planned: Vec<String> = rows(&doc)
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    planned.sort();
    let mut members = fx.members.clone();
    members.sort();
    assert_eq!(planned, members, "{doc}");
    assert!(
        fx.etcd.logged_defrags().is_empty(),
        "a dry run defragments nothing"
    );

    // traffic show against the other context.
    let traffic = kubectl(
        &path,
        &[
            "etcd",
            "traffic",
            "show",
            "db",
            "--context",
            "ctx-through-kubectl-svc",
            "-o",
            "json",
        ],
        &[("KUBECONFIG", kc)],
    )
    .await;
    traffic.expect_code(0);
    let doc = traffic.json();
    assert_eq!(doc["service"], "db-client", "{doc}");

    // kubectl refuses its own flags before a plugin name.
    let refused = kubectl(&path, &["--kubeconfig", kc, "etcd", "status"], &[]).await;
    assert_ne!(refused.code, 0);
    assert!(
        refused
            .stderr
            .contains("flags cannot be placed before plugin name"),
        "{}",
        refused.stderr
    );
}

/// `kubectl etcd <TAB>` through kubectl's plugin completion: subcommands,
/// flags and fixed values from the clap definition, EtcdCluster, member,
/// namespace and context names from the API server of the current
/// context — with the shipped script and with a symlink to the binary.
#[tokio::test(flavor = "multi_thread")]
async fn completion_through_kubectl() {
    let client = admin().await;
    let fx = fixture(&client, "completion", "etcd-a", Mode::Plain).await;
    services_fixture(&client, "completion", "etcd-b", false).await;
    services_fixture(&client, "completion-other", "elsewhere", false).await;
    let kc = kubeconfig("completion.yaml", &["completion", "completion-other"]);
    let kc = kc.to_str().unwrap();
    let env = [("KUBECONFIG", kc)];

    for completer in [Completer::Script, Completer::Symlink] {
        let path = plugin_path("complete", completer);
        let ask = |words: &'static [&'static str]| {
            let path = &path;
            async move {
                let mut args = vec!["__complete", "etcd"];
                args.extend_from_slice(words);
                completions(&kubectl(path, &args, &env).await)
            }
        };

        let (top, directive) = ask(&[""]).await;
        for want in ["status", "defrag", "traffic", "alarm", "move-leader"] {
            assert!(top.iter().any(|c| c == want), "{want} in {top:?}");
        }
        assert_eq!(directive, ":4");
        assert_eq!(ask(&["de"]).await.0, ["defrag"]);
        assert_eq!(ask(&["defrag", "--dry"]).await.0, ["--dry-run"]);
        assert_eq!(
            ask(&["status", "-o", ""]).await.0,
            ["table", "wide", "json", "yaml"]
        );
        assert_eq!(
            ask(&["traffic", "set", "PreferSame"]).await.0,
            ["PreferSameZone", "PreferSameNode"]
        );

        // From the API server: the current context's namespace…
        assert_eq!(ask(&["status", ""]).await.0, ["etcd-a", "etcd-b"]);
        assert_eq!(ask(&["defrag", "etcd-"]).await.0, ["etcd-a", "etcd-b"]);
        // …another namespace, or another context's.
        assert_eq!(
            ask(&["status", "-n", "completion-other", ""]).await.0,
            ["elsewhere"]
        );
        assert_eq!(
            ask(&["status", "--context", "ctx-completion-other", ""])
                .await
                .0,
            ["elsewhere"]
        );
        // Members of the cluster named on the line.
        let mut members = fx.members.clone();
        members.sort();
        assert_eq!(ask(&["defrag", "etcd-a", "--member", ""]).await.0, members);
        let glued: Vec<String> = members.iter().map(|m| format!("--member={m}")).collect();
        assert_eq!(ask(&["defrag", "etcd-a", "--member="]).await.0, glued);
        assert_eq!(ask(&["move-leader", "etcd-a", "--to", ""]).await.0, members);
        // Namespaces and contexts.
        let (namespaces, _) = ask(&["status", "-n", "completion"]).await;
        assert_eq!(namespaces, ["completion", "completion-other"]);
        assert_eq!(
            ask(&["--context", ""]).await.0,
            ["ctx-completion", "ctx-completion-other"]
        );
        // A file flag lets the shell complete file names.
        assert_eq!(ask(&["status", "--kubeconfig", ""]).await.1, ":0");
    }

    // An unreachable API server: no candidates and the error directive,
    // quickly, not a hung shell.
    let path = plugin_path("complete-down", Completer::Symlink);
    let dead = std::env::temp_dir().join(format!("kubectl-etcd-dead-{}.yaml", std::process::id()));
    std::fs::write(
        &dead,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\n\
         contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n",
    )
    .unwrap();
    let run = kubectl(
        &path,
        &["__complete", "etcd", "status", ""],
        &[("KUBECONFIG", dead.to_str().unwrap())],
    )
    .await;
    let (values, directive) = completions(&run);
    assert!(values.is_empty(), "{values:?}");
    assert_eq!(directive, ":1");
    let _ = std::fs::remove_file(dead);
}
