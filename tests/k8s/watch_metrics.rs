//! `defrag --watch --metrics-address`: the watcher's `/healthz`, `/readyz`
//! and Prometheus `/metrics` over real HTTP, while it drives a real
//! EtcdDefrag on a real etcd cluster published through the real
//! kube-apiserver. Defragment calls are cross-checked against each member's
//! own `/metrics`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use kube::api::Api;
use serde_json::json;
use support::k8s::*;
use support::watch::*;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A running watcher, killed when dropped.
struct Watcher {
    child: tokio::process::Child,
}

fn watch(kubeconfig: &std::path::Path, ns: &str, metrics: &str) -> Watcher {
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args([
            &format!("--kubeconfig={}", kubeconfig.display()),
            "--connect=direct",
            "-n",
            ns,
            "-v",
            "defrag",
            "--watch",
            "--metrics-address",
            metrics,
        ])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher");
    Watcher { child }
}

/// An HTTP answer: status code, headers (lower-case names), body.
struct Answer {
    code: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One GET on `address`; `None` when nothing listens (yet).
async fn get(address: &str, path: &str, accept: Option<&str>) -> Option<Answer> {
    let mut stream = tokio::net::TcpStream::connect(address).await.ok()?;
    let accept = accept.map_or(String::new(), |a| format!("Accept: {a}\r\n"));
    stream
        .write_all(format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n{accept}\r\n").as_bytes())
        .await
        .ok()?;
    let mut text = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut text))
        .await
        .expect("the server answers within 10 s")
        .ok()?;
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    let mut lines = head.lines();
    let code = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {text}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Some(Answer {
        code,
        headers,
        body: body.to_string(),
    })
}

/// The first answer of `path` once the server listens (at most `within`).
async fn first_answer(address: &str, path: &str, within: Duration) -> Answer {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(answer) = get(address, path, None).await {
            return answer;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing listens on {address} after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One sample of an exposition: name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: f64,
}

/// The samples of a Prometheus or OpenMetrics text exposition (label
/// values here never hold `,`, `"` or `}`).
fn parse(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("{l}"));
            let (name, labels) = match series.split_once('{') {
                Some((name, rest)) => {
                    let inner = rest.strip_suffix('}').unwrap_or_else(|| panic!("{l}"));
                    let labels = inner
                        .split(',')
                        .filter(|p| !p.is_empty())
                        .map(|p| {
                            let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("{l}"));
                            (k.to_string(), v.trim_matches('"').to_string())
                        })
                        .collect();
                    (name.to_string(), labels)
                }
                None => (series.to_string(), Vec::new()),
            };
            let value = match value {
                "+Inf" => f64::INFINITY,
                v => v.parse().unwrap_or_else(|_| panic!("{l}")),
            };
            Sample {
                name,
                labels,
                value,
            }
        })
        .collect()
}

/// The value of the series `name` whose labels are exactly `labels`.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && s.labels.len() == labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.iter().any(|(sk, sv)| sk == k && sv == v))
        })
        .map(|s| s.value)
}

/// The watcher's probes and metrics: `/healthz` answers as soon as it
/// listens, `/readyz` once the watch has listed, unknown paths 404; after a
/// `{"all": true}` run completes, `/metrics` counts 3 members defragmented
/// (each member's own metrics agree), one Complete run, 3 Defragment
/// durations and one sweep, all labelled `etcddefrag_namespace` and
/// `etcdcluster`, with no label named `namespace` or `cluster`. SIGTERM
/// ends the watcher with 0 and the server with it.
#[tokio::test(flavor = "multi_thread")]
async fn the_watcher_serves_probes_and_counts_a_run() {
    let client = admin().await;
    let ns = "watch-metrics";
    let kc = kubeconfig("watch-metrics.yaml", &[ns]);
    let fx = fixture(&client, ns, "db", Mode::Plain).await;
    let port = kubectl_etcd_testbed::ports::free_port().unwrap();
    let address = format!("127.0.0.1:{port}");
    let mut watcher = watch(&kc, ns, &address);

    let health = first_answer(&address, "/healthz", Duration::from_secs(10)).await;
    assert_eq!(health.code, 200);
    assert_eq!(health.body, "ok\n");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let ready = get(&address, "/readyz", None)
            .await
            .expect("still listening");
        if ready.code == 200 {
            assert_eq!(ready.body, "ok\n");
            break;
        }
        assert_eq!(ready.code, 503, "{}", ready.body);
        assert!(
            tokio::time::Instant::now() < deadline,
            "/readyz still {} after 30 s: {}",
            ready.code,
            ready.body
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(get(&address, "/nope", None).await.unwrap().code, 404);

    create(
        &runs(&client, ns),
        json!({
            "apiVersion": "etcd-operator.cozystack.io/v1alpha2",
            "kind": "EtcdDefrag",
            "metadata": {"name": "all", "namespace": ns},
            "spec": {"clusterRef": {"name": "db"}, "rule": {"all": true}},
        }),
    )
    .await;
    let status = wait_phase(&client, ns, "all", &["Complete", "Failed"]).await;
    assert_eq!(status["phase"], "Complete", "{status}");
    assert_eq!(status["defragmented"], 3, "{status}");
    for i in 0..3 {
        assert_eq!(defrag_count(&fx.etcd, i).await, 1, "member {i}");
    }

    let run = [("etcddefrag_namespace", ns), ("etcdcluster", "db")];
    let complete = [
        ("etcddefrag_namespace", ns),
        ("etcdcluster", "db"),
        ("phase", "Complete"),
    ];
    // The counters move right after the status write the test has seen.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let (answer, samples) = loop {
        let answer = get(
            &address,
            "/metrics",
            Some("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"),
        )
        .await
        .expect("still listening");
        assert_eq!(answer.code, 200, "{}", answer.body);
        let samples = parse(&answer.body);
        if value(&samples, "kubectl_etcd_watch_runs_total", &complete) == Some(1.0) {
            break (answer, samples);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no Complete run counted:\n{}",
            answer.body
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let text = &answer.body;
    assert_eq!(
        answer.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    assert!(text.ends_with("# EOF\n"), "{text}");
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_members_defragmented_total",
            &run
        ),
        Some(3.0),
        "{text}"
    );
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_runs_total",
            &[
                ("etcddefrag_namespace", ns),
                ("etcdcluster", "db"),
                ("phase", "Running")
            ]
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_runs_total",
            &[
                ("etcddefrag_namespace", ns),
                ("etcdcluster", "db"),
                ("phase", "Failed")
            ]
        ),
        None,
        "{text}"
    );
    assert_eq!(
        value(&samples, "kubectl_etcd_watch_runs_running", &run),
        Some(0.0),
        "{text}"
    );
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_defrag_duration_seconds_count",
            &run
        ),
        Some(3.0),
        "{text}"
    );
    let inf = [
        ("le", "+Inf"),
        ("etcddefrag_namespace", ns),
        ("etcdcluster", "db"),
    ];
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_defrag_duration_seconds_bucket",
            &inf
        ),
        Some(3.0),
        "{text}"
    );
    let sweeps = value(
        &samples,
        "kubectl_etcd_watch_sweep_duration_seconds_count",
        &run,
    )
    .unwrap_or(0.0);
    assert!(sweeps >= 1.0, "{text}");
    // The lease-holder gauge names the identity the Lease itself holds.
    let lease = Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced(client.clone(), ns)
        .get("kubectl-etcd-watch")
        .await
        .unwrap();
    let holder = lease.spec.unwrap().holder_identity.unwrap();
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_lease_held",
            &[
                ("lease", &format!("{ns}/kubectl-etcd-watch")),
                ("identity", &holder)
            ]
        ),
        Some(1.0),
        "{text}"
    );
    assert!(
        value(&samples, "kubectl_etcd_watch_reclaimed_bytes_total", &run).is_some(),
        "{text}"
    );
    assert_eq!(
        value(
            &samples,
            "kubectl_etcd_watch_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        Some(1.0),
        "{text}"
    );
    let names: BTreeSet<&str> = samples
        .iter()
        .flat_map(|s| s.labels.iter().map(|(k, _)| k.as_str()))
        .collect();
    assert!(
        !names.contains("namespace") && !names.contains("cluster"),
        "label names {names:?} in\n{text}"
    );
    for s in &samples {
        assert!(s.name.starts_with("kubectl_etcd_watch_"), "{s:?}");
    }

    // Without an OpenMetrics Accept: the Prometheus text format.
    let plain = get(&address, "/metrics", None).await.unwrap();
    assert_eq!(plain.code, 200);
    assert_eq!(
        plain.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert!(!plain.body.contains("# EOF"), "{}", plain.body);
    assert_eq!(
        value(
            &parse(&plain.body),
            "kubectl_etcd_watch_members_defragmented_total",
            &run
        ),
        Some(3.0),
        "{}",
        plain.body
    );

    // SIGTERM: exit 0, and nothing listens any more.
    let pid = nix::unistd::Pid::from_raw(watcher.child.id().unwrap() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(30), watcher.child.wait())
        .await
        .expect("the watcher stops within 30 s of SIGTERM")
        .unwrap();
    assert_eq!(exit.code(), Some(0), "{exit:?}");
    assert!(get(&address, "/healthz", None).await.is_none());
}

/// A `--metrics-address` that is not IP:PORT is a usage error (exit 2, one
/// line naming the flag) before anything is contacted; so is an address
/// that cannot be listened on, and the flag without --watch.
#[tokio::test(flavor = "multi_thread")]
async fn a_bad_metrics_address_is_a_usage_error() {
    let nowhere = "--kubeconfig=/nonexistent/kubeconfig";
    for bad in ["nonsense", "localhost:9090", "127.0.0.1"] {
        let run = tool(
            &args(&[nowhere, "defrag", "--watch", "--metrics-address", bad]),
            &[],
        )
        .await;
        run.expect_code(2);
        assert_eq!(run.stderr.lines().count(), 1, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--metrics-address"), "{}", run.stderr);
        assert!(run.stderr.contains(bad), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }

    let run = tool(
        &args(&[nowhere, "defrag", "--metrics-address", "127.0.0.1:9090"]),
        &[],
    )
    .await;
    run.expect_code(2);
    assert!(run.stderr.contains("--watch"), "{}", run.stderr);

    // Taken: the listener fails before the kubeconfig is even read.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let run = tool(
        &args(&[nowhere, "defrag", "--watch", "--metrics-address", &address]),
        &[],
    )
    .await;
    run.expect_code(2);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("--metrics-address {address}: cannot listen")),
        "{}",
        run.stderr
    );
}
