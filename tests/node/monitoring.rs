//! `deploy/monitoring/` where users run it (issue 43): `doctor --serve` as
//! the Deployment of `doctor.yaml` on the test bed's real node (from the
//! image the project's `Containerfile` makes, its ClusterRole as
//! committed), scraped by a real Prometheus that evaluates `rules.yaml`.
//! A cluster the real etcd-operator runs is broken three ways at once — a
//! member frozen, the backend filled to its quota until etcd raises
//! NOSPACE, then everything deleted and compacted so that a defrag is
//! worthwhile — and Prometheus's own API says the matching alerts fire.
//! Then each firing alert's advice is run exactly as its description
//! prints it (and the command `doctor`'s NOSPACE finding prints, at a
//! terminal, answering its question), and the alerts clear. Every query of
//! `dashboard.json` returns series from that Prometheus.
//!
//! The one change to the committed files: each rule's `for:` is cut to
//! 10 s (the committed ones run to a day) and the examination interval to
//! 5 s, so that the test takes minutes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use nix::sys::signal::{kill, Signal};
use serde_json::{json, Value};
use support::k8s::manifest;
use support::operator::*;

const NS: &str = "etcd";
const CLUSTER: &str = "etcd";
/// The members' backend quota: small, so NOSPACE comes quickly.
const QUOTA: u64 = 48 << 20;

/// A Prometheus process of the test bed's, stopped (by its PID) on drop.
struct Prometheus {
    child: std::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Prometheus {
    /// Starts Prometheus scraping `target` every 2 s and evaluating the
    /// committed rules every 2 s, their `for:` cut to 10 s.
    fn start(target: &str) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let committed = std::fs::read_to_string(monitoring().join("rules.yaml")).unwrap();
        let mut cut = 0;
        let rules: Vec<String> = committed
            .lines()
            .map(|l| match l.trim_start().strip_prefix("for: ") {
                Some(_) => {
                    cut += 1;
                    format!("{}for: 10s", &l[..l.len() - l.trim_start().len()])
                }
                None => l.to_string(),
            })
            .collect();
        assert!(cut >= 10, "the rules' for: clauses were not found");
        std::fs::write(dir.path().join("rules.yaml"), rules.join("\n")).unwrap();
        let config = json!({
            "global": {"scrape_interval": "2s", "evaluation_interval": "2s"},
            "rule_files": ["rules.yaml"],
            "scrape_configs": [{
                "job_name": "kubectl-etcd-doctor",
                "static_configs": [{"targets": [target]}],
            }],
        });
        std::fs::write(
            dir.path().join("prometheus.yml"),
            serde_yaml::to_string(&config).unwrap(),
        )
        .unwrap();
        let port = kubectl_etcd_testbed::ports::free_port().unwrap();
        let binary = kubectl_etcd_testbed::bins::prometheus("prometheus").unwrap();
        let child = std::process::Command::new(binary)
            .current_dir(dir.path())
            .arg("--config.file=prometheus.yml")
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--log.level=warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("prometheus.log")).unwrap())
            .spawn()
            .unwrap();
        let prometheus = Prometheus {
            child,
            url: format!("http://127.0.0.1:{port}"),
            _dir: dir,
        };
        prometheus.wait_ready();
        prometheus
    }

    /// Waits (at most a minute) until its `/-/ready` answers 200.
    fn wait_ready(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let out = std::process::Command::new("curl")
                .args(["-sS", "-o", "/dev/null", "-w", "%{http_code}"])
                .arg(format!("{}/-/ready", self.url))
                .output()
                .unwrap();
            if out.stdout == b"200" {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "Prometheus never became ready: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("prometheus.log")).unwrap_or_default()
    }

    /// `GET /api/v1/<path>` with the query parameters `params`: its `data`.
    fn api(&self, path: &str, params: &[(&str, &str)]) -> Option<Value> {
        let mut curl = std::process::Command::new("curl");
        curl.args(["-sS", "--max-time", "10", "--get"]);
        for (k, v) in params {
            curl.arg("--data-urlencode").arg(format!("{k}={v}"));
        }
        let out = curl
            .arg(format!("{}/api/v1/{path}", self.url))
            .output()
            .unwrap();
        let body: Value = serde_json::from_slice(&out.stdout).ok()?;
        (body["status"] == "success").then(|| body["data"].clone())
    }

    /// The series `expr` returns now.
    fn query(&self, expr: &str) -> Vec<Value> {
        let data = self
            .api("query", &[("query", expr)])
            .unwrap_or_else(|| panic!("Prometheus refused {expr}: {}", self.log()));
        data["result"].as_array().cloned().unwrap_or_default()
    }

    /// The alerts of the cluster firing now: name → description.
    fn firing(&self) -> BTreeMap<String, String> {
        let Some(data) = self.api("alerts", &[]) else {
            return BTreeMap::new();
        };
        data["alerts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["state"] == "firing" && a["labels"]["etcdcluster"] == CLUSTER)
            .map(|a| {
                (
                    a["labels"]["alertname"].as_str().unwrap().to_string(),
                    a["annotations"]["description"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            })
            .collect()
    }

    /// Waits (at most `limit`) until `done` holds of the firing alerts.
    async fn wait_alerts(
        &self,
        limit: Duration,
        what: &str,
        done: impl Fn(&BTreeMap<String, String>) -> bool,
    ) -> BTreeMap<String, String> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let firing = self.firing();
            if done(&firing) {
                return firing;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{what}: firing {:?}",
                firing.keys()
            );
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
}

fn monitoring() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/monitoring")
}

/// Every query of `dashboard.json`, its variables set to the cluster.
fn dashboard_queries() -> Vec<String> {
    let text = std::fs::read_to_string(monitoring().join("dashboard.json")).unwrap();
    let dashboard: Value = serde_json::from_str(&text).unwrap();
    let mut queries = Vec::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap();
            queries.push(expr.replace("$namespace", NS).replace("$cluster", CLUSTER));
        }
    }
    queries
}

/// The `kubectl etcd …` commands a description or remedy names, as
/// printed (between backticks, or up to a parenthesis).
fn commands_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("kubectl etcd "))
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    if out.is_empty() && text.starts_with("kubectl etcd ") {
        let command = text.split(" (").next().unwrap_or(text);
        out.push(command.trim().to_string());
    }
    out
}

/// Runs `command` exactly as printed, in a shell on a terminal (util-linux
/// `script`), with kubectl and the plugin on PATH, answering `y` to a
/// question. Returns (exit code, what it printed).
async fn run_as_printed(bed: &Bed, command: &str) -> (i32, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut child = tokio::process::Command::new("script")
        .args(["-qefc", command, "/dev/null"])
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bed.path.path))
        .env("HOME", std::env::temp_dir())
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("KUBECONFIG", &bed.kubeconfig)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut printed = String::new();
    let mut answered = false;
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    loop {
        let n = tokio::time::timeout_at(deadline, stdout.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("{command} did not finish:\n{printed}"))
            .unwrap();
        if n == 0 {
            break;
        }
        printed.push_str(&String::from_utf8_lossy(&buf[..n]));
        if !answered && printed.contains("?") && printed.contains("[y/N]") {
            stdin.write_all(b"y").await.unwrap();
            stdin.flush().await.unwrap();
            answered = true;
        }
    }
    let status = child.wait().await.unwrap();
    (status.code().unwrap_or(-1), printed)
}

/// Writes 100 KiB values until etcd refuses for lack of space.
async fn fill_to_nospace(etcd: &mut etcd_client::Client) {
    let value = vec![b'x'; 100 << 10];
    for i in 0..10_000 {
        match etcd.put(format!("/fill/{i:05}"), value.clone(), None).await {
            Ok(_) => {}
            Err(e) if e.to_string().contains("database space exceeded") => return,
            Err(e) => panic!("put /fill/{i:05}: {e}"),
        }
    }
    panic!("etcd never ran out of space");
}

/// How many alarms etcd has raised, by its own list.
async fn alarms_raised(etcd: &mut etcd_client::Client) -> usize {
    support::alarms_listed(etcd).await.len()
}

#[tokio::test(flavor = "multi_thread")]
async fn prometheus_fires_the_alerts_of_a_broken_cluster_and_they_clear_as_advised() {
    let mut bed = Bed::start(NS).await;
    let image = support::tool_image(&mut bed.node);
    bed.create_cluster_spec(
        CLUSTER,
        json!({
            "replicas": 3,
            "version": VERSION,
            "storage": {"size": "1Gi"},
            "options": {"quotaBackendBytes": QUOTA},
        }),
    )
    .await;
    bed.wait_ready(CLUSTER, 3).await;
    let members = bed.members(CLUSTER).await;

    // doctor --serve as committed, examining every 5 s.
    let mut docs = Vec::new();
    for mut doc in manifest("deploy/monitoring/doctor") {
        if doc["kind"] == "Deployment" {
            let container = &mut doc["spec"]["template"]["spec"]["containers"][0];
            assert_eq!(container["image"], image.as_str(), "the image it runs");
            let args = container["args"].as_array_mut().unwrap();
            let interval = args.iter().position(|a| a == "--interval=1m").unwrap();
            args[interval] = json!("--interval=5s");
        }
        docs.push(doc);
    }
    bed.apply(docs).await;
    bed.wait_deployment_ready(NS, "kubectl-etcd-doctor").await;
    let pods: Api<Pod> = Api::namespaced(bed.client.clone(), NS);
    let doctor = pods
        .list(&ListParams::default().labels("app.kubernetes.io/component=doctor"))
        .await
        .unwrap()
        .items
        .into_iter()
        .next()
        .unwrap();
    let ip = doctor.status.and_then(|s| s.pod_ip).unwrap();
    let prometheus = Prometheus::start(&format!("{ip}:9464"));

    // Scraped, the cluster examined, and quiet.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        let up = prometheus.query(&format!(
            "kubectl_etcd_examination_up{{etcdcluster_namespace=\"{NS}\",etcdcluster=\"{CLUSTER}\"}} == 1"
        ));
        if !up.is_empty() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "Prometheus never saw the cluster examined"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let broken_alerts: BTreeSet<&str> = [
        "EtcdNospaceAlarm",
        "EtcdMemberDown",
        "EtcdQuorumMarginZero",
        "EtcdDefragWorthwhile",
    ]
    .into();
    // Long enough for a 10 s `for:` to have passed.
    tokio::time::sleep(Duration::from_secs(15)).await;
    let quiet = prometheus.firing();
    assert!(
        quiet.keys().all(|a| !broken_alerts.contains(a.as_str())),
        "firing before anything was broken: {quiet:?}"
    );

    // 1. Broken: NOSPACE raised by etcd, then everything deleted and
    // compacted (a defrag would give most of the file back), then a member
    // frozen.
    let mut etcd = bed.plain_client(CLUSTER).await;
    for i in 0..4 {
        etcd.put(format!("/spare/{i}"), "x", None).await.unwrap();
    }
    fill_to_nospace(&mut etcd).await;
    etcd.delete(
        "/fill/",
        Some(etcd_client::DeleteOptions::new().with_prefix()),
    )
    .await
    .unwrap();
    let revision = etcd
        .get("none", None)
        .await
        .unwrap()
        .header()
        .unwrap()
        .revision();
    etcd.compact(
        revision,
        Some(etcd_client::CompactionOptions::new().with_physical()),
    )
    .await
    .unwrap();
    // The pages a compaction frees count as in use until later write
    // transactions commit (docs/etcd-facts.md); NOSPACE refuses puts and
    // leases, not deletes.
    for i in 0..4 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        etcd.delete(format!("/spare/{i}"), None).await.unwrap();
    }
    assert!(alarms_raised(&mut etcd).await > 0, "etcd raised no alarm");
    let frozen = &members[2];
    let pid = bed.member_pid(frozen).await;
    kill(pid, Signal::SIGSTOP).unwrap();

    let firing = prometheus
        .wait_alerts(Duration::from_secs(180), "the alerts never fired", |f| {
            broken_alerts.iter().all(|a| f.contains_key(*a))
        })
        .await;
    let down = prometheus.query(&format!(
        "kubectl_etcd_member_up{{etcdcluster=\"{CLUSTER}\"}} == 0"
    ));
    assert_eq!(down.len(), 1, "{down:?}");
    assert_eq!(down[0]["metric"]["member"], frozen.as_str(), "{down:?}");
    let mut answered: BTreeSet<String> = BTreeSet::new();
    for q in dashboard_queries() {
        if !prometheus.query(&q).is_empty() {
            answered.insert(q);
        }
    }

    // 2. Fixed as advised: the member resumes; then each firing alert's
    // commands, as printed, and the one doctor's NOSPACE finding prints.
    kill(pid, Signal::SIGCONT).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while prometheus
        .query(&format!(
            "kubectl_etcd_member_up{{etcdcluster=\"{CLUSTER}\",member=\"{frozen}\"}} == 1"
        ))
        .is_empty()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{frozen} never answered again"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    // The critical ones first, as an SRE would: NOSPACE before the rest.
    let mut order: Vec<(&String, &String)> = firing.iter().collect();
    order.sort_by_key(|(alert, _)| *alert != "EtcdNospaceAlarm");
    let mut ran = Vec::new();
    for (alert, description) in order {
        let commands = commands_in(description);
        assert!(
            !commands.is_empty(),
            "{alert} names no command: {description}"
        );
        for command in commands {
            let (code, printed) = run_as_printed(&bed, &command).await;
            ran.push(format!("{alert}: {command} → {code}"));
            if command.starts_with("kubectl etcd defrag") {
                assert_eq!(code, 0, "{command}:\n{printed}");
            } else {
                // status and doctor only read: 0, or 1 for a finding.
                assert!(code == 0 || code == 1, "{command} → {code}:\n{printed}");
            }
            // The NOSPACE alert sends to doctor, whose finding names the
            // one command that frees the space (the same words in its
            // JSON, which a wrapped table line cannot cut): run it too.
            if alert == "EtcdNospaceAlarm" {
                assert!(printed.contains("alarm/NOSPACE"), "{command}:\n{printed}");
                let json = bed
                    .etcd(&["doctor", CLUSTER, "-o", "json", "--fail-on", "never"])
                    .await;
                let report: Value = serde_json::from_str(&json.stdout).unwrap();
                let remedy = report["findings"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|f| f["check"] == "alarm/NOSPACE")
                    .and_then(|f| f["remedy"].as_str())
                    .unwrap_or_else(|| panic!("no NOSPACE remedy: {report}"))
                    .to_string();
                assert!(
                    printed.contains(remedy.split(" (").next().unwrap()),
                    "{printed}"
                );
                let remedies = commands_in(&remedy);
                assert_eq!(remedies.len(), 1, "{remedy}");
                let (code, done) = run_as_printed(&bed, &remedies[0]).await;
                assert_eq!(code, 0, "{}:\n{done}", remedies[0]);
                ran.push(format!("doctor's alarm/NOSPACE: {} → {code}", remedies[0]));
            }
        }
    }
    assert!(
        ran.iter().any(
            |r| r.starts_with("doctor's alarm/NOSPACE: kubectl etcd defrag") && r.ends_with("→ 0")
        ),
        "{ran:#?}"
    );

    // 3. Quiet again, by Prometheus.
    prometheus
        .wait_alerts(Duration::from_secs(180), "the alerts never cleared", |f| {
            f.keys().all(|a| !firing.contains_key(a))
        })
        .await;
    assert_eq!(
        alarms_raised(&mut etcd).await,
        0,
        "an alarm is still raised"
    );

    // A run the operator's own controller finishes: the members' last
    // defrag is known.
    bed.apply(vec![json!({
        "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
        "kind": "EtcdDefrag",
        "metadata": {"name": "after", "namespace": NS},
        "spec": {"clusterRef": {"name": CLUSTER}, "rule": {"all": true}},
    })])
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(180);
    loop {
        let last = prometheus.query(&format!(
            "kubectl_etcd_member_last_defrag_timestamp_seconds{{etcdcluster=\"{CLUSTER}\"}}"
        ));
        if last.len() == 3 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the members' last defrag never showed: {last:?}"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let queries = dashboard_queries();
    let mut silent = Vec::new();
    for q in &queries {
        if !answered.contains(q) && prometheus.query(q).is_empty() {
            silent.push(q.clone());
        }
    }
    assert!(
        silent.is_empty(),
        "dashboard queries without series: {silent:#?}"
    );
}
