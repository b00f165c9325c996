//! `deploy/monitoring/` (issue 43), judged by the real promtool
//! (`testbed/build.sh prometheus`): the rules load (`promtool check
//! rules`); every alert fires in `rules_test.yaml` and stays quiet where it
//! must (`promtool test rules`, annotations and all, so each printed
//! command is pinned as it renders); the PrometheusRule wraps exactly the
//! same groups; each alert's description names what to run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/monitoring")
}

fn yaml(name: &str) -> serde_yaml::Value {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

fn promtool(args: &[&str]) -> (bool, String) {
    let tool = kubectl_etcd_testbed::bins::prometheus("promtool").unwrap();
    let out = Command::new(tool)
        .args(args)
        .current_dir(dir())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn alerts() -> Vec<serde_yaml::Value> {
    yaml("rules.yaml")["groups"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_sequence().unwrap().clone())
        .collect()
}

#[test]
fn promtool_loads_the_rules_and_every_unit_test_passes() {
    let (ok, text) = promtool(&["check", "rules", "rules.yaml"]);
    assert!(ok, "{text}");
    assert!(text.contains("SUCCESS"), "{text}");
    let (ok, text) = promtool(&["test", "rules", "rules_test.yaml"]);
    assert!(ok, "{text}");
}

#[test]
fn every_alert_is_tested_firing_and_quiet() {
    let tests = yaml("rules_test.yaml");
    let (mut fired, mut quiet) = (BTreeSet::new(), BTreeSet::new());
    for t in tests["tests"].as_sequence().unwrap() {
        for case in t["alert_rule_test"].as_sequence().unwrap() {
            let name = case["alertname"].as_str().unwrap().to_string();
            match case["exp_alerts"].as_sequence().map_or(0, Vec::len) {
                0 => quiet.insert(name),
                _ => fired.insert(name),
            };
        }
    }
    for alert in alerts() {
        let name = alert["alert"].as_str().unwrap();
        assert!(fired.contains(name), "{name} is never tested firing");
        assert!(quiet.contains(name), "{name} is never tested quiet");
    }
}

#[test]
fn each_alert_says_what_to_run() {
    for alert in alerts() {
        let name = alert["alert"].as_str().unwrap();
        let description = alert["annotations"]["description"].as_str().unwrap();
        assert!(
            description.contains("`kubectl "),
            "{name}: no command in {description:?}"
        );
        let severity = alert["labels"]["severity"].as_str().unwrap();
        assert!(
            ["critical", "warning", "info"].contains(&severity),
            "{name}: {severity}"
        );
    }
}

#[test]
fn the_prometheusrule_wraps_the_same_groups() {
    let rules = yaml("rules.yaml");
    let wrapped = yaml("prometheusrule.yaml");
    assert_eq!(wrapped["kind"], "PrometheusRule");
    assert_eq!(wrapped["spec"]["groups"], rules["groups"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/monitoring.sh");
    let out = Command::new(script).arg("--check").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every query of the dashboard, its variables filled in.
fn dashboard_queries() -> Vec<String> {
    let text = std::fs::read_to_string(dir().join("dashboard.json")).unwrap();
    let dashboard: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap();
            queries.push(expr.replace("$namespace", "prod").replace("$cluster", "db"));
        }
    }
    queries
}

#[test]
fn every_dashboard_query_parses() {
    let queries = dashboard_queries();
    assert!(queries.len() >= 15, "{queries:?}");
    // promtool parses PromQL in rules: one recording rule per query.
    let rules: Vec<serde_json::Value> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| serde_json::json!({"record": format!("dashboard:query_{i}"), "expr": q}))
        .collect();
    let file = std::env::temp_dir().join(format!(
        "kubectl-etcd-dashboard-{}.yaml",
        std::process::id()
    ));
    let doc = serde_json::json!({"groups": [{"name": "dashboard", "rules": rules}]});
    std::fs::write(&file, serde_yaml::to_string(&doc).unwrap()).unwrap();
    let (ok, text) = promtool(&["check", "rules", file.to_str().unwrap()]);
    std::fs::remove_file(&file).unwrap();
    assert!(ok, "{text}");
}
