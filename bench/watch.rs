//! `defrag --watch` benchmark: what an idle watcher costs and how fast it
//! picks up a new run. Run through `bench/watch.sh` (a release build).
//!
//! On the test bed's real kube-apiserver, with an audit log of every
//! request as it arrives:
//!
//! - namespace `bench` holds 50 EtcdClusters (one backed by a real 3-member
//!   mutual-TLS etcd, 49 as objects only: the watcher caches no
//!   EtcdCluster, so only their count in the namespace matters) and 200
//!   finished EtcdDefrags (Complete, three member rows each, no TTL);
//! - the watcher runs with the two ClusterRoles of `deploy/watch/rbac.yaml`,
//!   impersonating its ServiceAccount, so its requests are told apart in
//!   the audit log;
//! - idle: RSS (and its high-water mark) after the initial list has
//!   settled, then the watcher's requests during one idle minute, by verb
//!   and resource, and its CPU time over that minute;
//! - latency: EtcdDefrags created one at a time on the real cluster; the
//!   time from the create call to a watch event showing `Running`, and to
//!   `Complete`.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

#[path = "../tests/support/mod.rs"]
mod support;

use common::flag;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::watcher;
use kube::Client;
use kubectl_etcd_testbed::{ApiServer, KubeRelease};
use serde_json::{json, Value};
use support::k8s::*;
use support::watch::{create_run, runs};

const NS: &str = "bench";
const CLUSTERS: usize = 50;
const FINISHED: usize = 200;
const WATCHER: &str = "system:serviceaccount:bench:watcher";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let latency_runs: usize = flag(&args, "--runs").unwrap_or(20);
    let idle_secs: u64 = flag(&args, "--idle-seconds").unwrap_or(60);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(latency_runs, idle_secs));
}

async fn bench(latency_runs: usize, idle_secs: u64) {
    let audit = std::env::temp_dir().join(format!(
        "kubectl-etcd-bench-audit-{}.log",
        std::process::id()
    ));
    let server = ApiServer::start_with(KubeRelease::Current, &crd_files(), "", Some(&audit))
        .await
        .expect("test bed API server");
    install_apiserver(server).await;
    let client = admin().await;

    eprintln!("bench: {CLUSTERS} EtcdClusters, {FINISHED} finished EtcdDefrags");
    let fx = fixture(&client, NS, "db", Mode::Mtls).await;
    populate(&client).await;
    let role = manifest_role("deploy/watch/rbac.yaml");
    let kc = grant(
        &client,
        NS,
        "kubectl-etcd-watch-bench",
        role.rules.unwrap(),
        "watcher",
    )
    .await;
    // The file's second ClusterRole: the watcher refuses to start unless it
    // can tell who else processes EtcdDefrag.
    grant_processors_read(&client, NS, "watcher").await;

    // The API server builds a resource's watch cache on its first request
    // (about a second for EtcdSnapshots here): in a real cluster the
    // operator's own watches have done that long before. Done here, timed,
    // so the latencies below are the watcher's.
    let cold = Instant::now();
    dynamic(&client, NS, "EtcdSnapshot", "etcdsnapshots")
        .list(&Default::default())
        .await
        .unwrap();
    let cold_ms = cold.elapsed().as_millis();

    let metrics = format!(
        "127.0.0.1:{}",
        kubectl_etcd_testbed::ports::free_port().unwrap()
    );
    let mut watcher = tokio::process::Command::new(env!("CARGO_BIN_EXE_kubectl-etcd"))
        .args([
            &format!("--kubeconfig={}", kc.display()),
            "--connect=direct",
            "-n",
            NS,
            "defrag",
            "--watch",
            &format!("--metrics-address={metrics}"),
            // The finished runs' status was just written by this program
            // (as another field manager): without this the watcher would
            // rightly refuse to fight it.
            "--force-takeover",
        ])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the watcher");
    let pid = watcher.id().unwrap();
    let started = Instant::now();
    wait_ready(&metrics).await;
    let ready_ms = started.elapsed().as_millis();
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (rss, hwm) = common::memory_kib(pid).unwrap();
    let startup = count_by_kind(&audited(&audit));

    // One idle minute: every request the watcher makes, from the audit log
    // (requests that started before the minute and end in it count too:
    // only long watches, which appear once they stream).
    let before = audited(&audit);
    let cpu_before = common::cpu_ticks(pid).unwrap();
    tokio::time::sleep(Duration::from_secs(idle_secs)).await;
    let cpu = common::cpu_ticks(pid).unwrap() - cpu_before;
    let during: Vec<Value> = audited(&audit).into_iter().skip(before.len()).collect();
    let idle = count_by_kind(&during);

    // A queued run is not polled: a run on a cluster that cannot be dialed
    // (c01 has no members) retries every 10 s; the run queued behind it
    // must cost nothing until the first one changes.
    for name in ["stuck", "queued"] {
        create_run(&client, NS, name, "c01", json!({"all": true})).await;
        tokio::time::sleep(Duration::from_millis(1100)).await;
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    let before = audited(&audit).len();
    tokio::time::sleep(Duration::from_secs(idle_secs)).await;
    let window: Vec<Value> = audited(&audit).into_iter().skip(before).collect();
    let about = |name: &str| {
        let of: Vec<Value> = window
            .iter()
            .filter(|e| e["objectRef"]["name"] == name)
            .cloned()
            .collect();
        count_by_kind(&of)
    };
    let (stuck, queued) = (about("stuck"), about("queued"));
    let everything = count_by_kind(&window);

    // Latency: one run at a time on the healthy cluster.
    let mut to_running = Vec::new();
    let mut to_complete = Vec::new();
    for i in 0..latency_runs {
        let name = format!("latency-{i:03}");
        let (running, complete) = time_run(&client, &name).await;
        to_running.push(running);
        to_complete.push(complete);
    }
    let (_, hwm_after) = common::memory_kib(pid).unwrap();

    let _ = watcher.start_kill();
    let _ = watcher.wait().await;
    drop(fx);
    let _ = std::fs::remove_file(&audit);

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("| measure | value |");
    println!("|---|---|");
    println!("| watcher ready (`/readyz`) after start | {ready_ms} ms |");
    println!(
        "| idle RSS, 10 s after ready ({CLUSTERS} EtcdClusters, {FINISHED} finished EtcdDefrags) | {:.1} MiB (high-water {:.1} MiB) |",
        rss as f64 / 1024.0,
        hwm as f64 / 1024.0
    );
    println!("| API server's first LIST of EtcdSnapshots (cold watch cache; before the watcher starts) | {cold_ms} ms |");
    println!(
        "| API requests from start to 10 s after ready | {} |",
        startup
    );
    println!("| API requests in {idle_secs} s idle | {idle} |");
    println!("| in {idle_secs} s with a run retrying a cluster it cannot dial and one queued behind it: requests naming the retrying run | {stuck} |");
    println!("| … naming the queued run | {queued} |");
    println!("| … all of the watcher's | {everything} |");
    println!(
        "| CPU time in {idle_secs} s idle | {} ms |",
        cpu * 1000 / common::clock_ticks()
    );
    println!(
        "| creation → `Running`, {} runs | median {:.0} ms, p90 {:.0} ms, max {:.0} ms |",
        latency_runs,
        ms(percentile(&to_running, 50)),
        ms(percentile(&to_running, 90)),
        ms(percentile(&to_running, 100))
    );
    println!(
        "| creation → `Complete` (3 members defragmented) | median {:.0} ms, p90 {:.0} ms |",
        ms(percentile(&to_complete, 50)),
        ms(percentile(&to_complete, 90))
    );
    println!(
        "| RSS high-water after the runs | {:.1} MiB |",
        hwm_after as f64 / 1024.0
    );
}

/// 49 object-only EtcdClusters beside the real one, and 200 finished runs
/// spread over all 50.
async fn populate(client: &Client) {
    let clusters = dynamic(client, NS, "EtcdCluster", "etcdclusters");
    let mut names = vec!["db".to_string()];
    for i in 1..CLUSTERS {
        let name = format!("c{i:02}");
        create_cluster_object(&clusters, NS, &name).await;
        names.push(name);
    }
    let api = runs(client, NS);
    for i in 0..FINISHED {
        let cluster = &names[i % names.len()];
        let name = format!("done-{i:03}");
        create_run(client, NS, &name, cluster, json!({"all": true})).await;
        let rows: Vec<Value> = (0..3)
            .map(|m| {
                json!({
                    "name": format!("{cluster}-m{m}"),
                    "role": if m == 2 { "leader" } else { "follower" },
                    "outcome": "Defragmented",
                    "dbSizeBefore": 104_857_600,
                    "dbSizeAfter": 20_971_520,
                    "reclaimedBytes": 83_886_080,
                    "finishedAt": "2026-11-30T03:00:04Z",
                })
            })
            .collect();
        patch_status(
            &api,
            &name,
            json!({"status": {
                "phase": "Complete",
                "startedAt": "2026-11-30T03:00:00Z",
                "completedAt": "2026-11-30T03:00:04Z",
                "defragmented": 3,
                "members": rows,
                "conditions": [{
                    "type": "DefragChecked", "status": "True", "reason": "Complete",
                    "message": "3/3 members defragmented",
                    "lastTransitionTime": "2026-11-30T03:00:04Z", "observedGeneration": 1,
                }],
            }}),
        )
        .await;
    }
}

/// Creates `name` and follows it through a watch: time to `Running` and
/// to `Complete`.
async fn time_run(client: &Client, name: &str) -> (Duration, Duration) {
    let api = runs(client, NS);
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut events = watcher(api, config).boxed();
    // The watch is open (its initial list done) before the run exists.
    loop {
        match events.next().await {
            Some(Ok(watcher::Event::InitDone)) => break,
            Some(Ok(_)) => {}
            other => panic!("watch: {other:?}"),
        }
    }
    let created = Instant::now();
    create_run(client, NS, name, "db", json!({"all": true})).await;
    let mut running = None;
    let deadline = Duration::from_secs(60);
    loop {
        let event = tokio::time::timeout(deadline, events.next())
            .await
            .unwrap_or_else(|_| panic!("{name}: no Complete within {deadline:?}"));
        let Some(Ok(watcher::Event::Apply(run))) = event else {
            continue;
        };
        let phase = run.data["status"]["phase"].as_str().unwrap_or("");
        if phase == "Running" && running.is_none() {
            running = Some(created.elapsed());
        }
        if phase == "Complete" || phase == "Failed" {
            assert_eq!(phase, "Complete", "{name}: {}", run.data["status"]);
            let done = created.elapsed();
            return (running.unwrap_or(done), done);
        }
    }
}

fn percentile(values: &[Duration], p: usize) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    let at = ((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1;
    sorted[at]
}

/// `N (a× verb resource, …)`.
fn count_by_kind(events: &[Value]) -> String {
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for e in events {
        let resource = e["objectRef"]["resource"].as_str().unwrap_or("?");
        let sub = e["objectRef"]["subresource"].as_str();
        let resource = sub.map_or(resource.to_string(), |s| format!("{resource}/{s}"));
        *by_kind
            .entry(format!("{} {resource}", e["verb"].as_str().unwrap_or("?")))
            .or_default() += 1;
    }
    let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{n}× {k}")).collect();
    format!("{} ({})", events.len(), kinds.join(", "))
}

/// The watcher's requests in the audit log, one event each: a watch by
/// the moment it started streaming, anything else once it completed.
fn audited(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["impersonatedUser"]["username"] == WATCHER)
        .filter(|e| match e["verb"].as_str() {
            Some("watch") => e["stage"] == "ResponseStarted",
            _ => e["stage"] == "ResponseComplete",
        })
        .collect()
}

async fn wait_ready(address: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(mut s) = tokio::net::TcpStream::connect(address).await {
            let _ = s
                .write_all(b"GET /readyz HTTP/1.0\r\nHost: bench\r\n\r\n")
                .await;
            let mut answer = String::new();
            let _ = s.read_to_string(&mut answer).await;
            if answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200") {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the watcher never became ready");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
