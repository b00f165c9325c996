//! What a member's own probes answer while it defragments: for each etcd
//! release, one member holding `--in-use-mb` of live data is defragmented
//! while every probe endpoint a Pod might use is asked every 100 ms, each
//! with a 1 s timeout, as a kubelet would: `GET /health`, `/livez`,
//! `/readyz` (and `/health?serializable=true`, kubeadm's older liveness
//! path), `/version` and `/metrics`, and a TCP connect to the client and
//! the peer port.
//!
//! A probe that answers 200 within its timeout passed; anything else (a
//! non-200, a refused or reset connection, no answer within 1 s) failed.
//! When the defrag started and ended is etcd's own log record.
//!
//!     probe-bench --versions 3.7,3.6,3.5 --in-use-mb 600

// A measuring tool whose output is a Markdown report on stdout.
#![allow(clippy::disallowed_macros)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use clap::Parser;
use kubectl_etcd_testbed::{Cluster, ClusterSpec, EtcdVersion, Security};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Parser)]
struct Args {
    /// etcd releases to measure.
    #[arg(long, value_delimiter = ',', default_value = "3.7,3.6,3.5")]
    versions: Vec<String>,
    /// Live data the member holds (what a defrag copies).
    #[arg(long, default_value_t = 600)]
    in_use_mb: u64,
}

const PATHS: &[&str] = &[
    "/health",
    "/health?serializable=true",
    "/livez",
    "/readyz",
    "/version",
    "/metrics",
];
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
const PERIOD: Duration = Duration::from_millis(100);

/// One probe's answer: passed, and how long it took.
async fn http_probe(endpoint: &str, path: &str) -> (bool, Duration) {
    let started = Instant::now();
    let address = endpoint.trim_start_matches("http://").to_string();
    let ask = async {
        let mut tcp = tokio::net::TcpStream::connect(&address).await.ok()?;
        let request = format!("GET {path} HTTP/1.0\r\nHost: {address}\r\n\r\n");
        tcp.write_all(request.as_bytes()).await.ok()?;
        let mut answer = Vec::new();
        tcp.read_to_end(&mut answer).await.ok()?;
        let head = String::from_utf8_lossy(&answer);
        Some(head.lines().next()?.split_whitespace().nth(1)? == "200")
    };
    let passed = matches!(
        tokio::time::timeout(PROBE_TIMEOUT, ask).await,
        Ok(Some(true))
    );
    (passed, started.elapsed())
}

async fn tcp_probe(endpoint: &str) -> (bool, Duration) {
    let started = Instant::now();
    let address = endpoint.trim_start_matches("http://").to_string();
    let passed = matches!(
        tokio::time::timeout(PROBE_TIMEOUT, tokio::net::TcpStream::connect(address)).await,
        Ok(Ok(_))
    );
    (passed, started.elapsed())
}

/// Per probe: (asked, failed, slowest) over the probes sent while the
/// member defragmented.
type Tally = BTreeMap<String, (u32, u32, Duration)>;

async fn measure(version: EtcdVersion, in_use_mb: u64) -> (Tally, Duration, String) {
    let mut spec = ClusterSpec::new(1, Security::Plain).version(version);
    spec.log_level = "info";
    let cluster = Cluster::start(spec).await.expect("cluster");
    cluster
        .fragment(in_use_mb << 20, 1.0)
        .await
        .expect("fill the member");
    let client = cluster.members[0].client_url.clone();
    let peer = cluster.members[0].peer_url.clone();
    let mut status = cluster.client(0).await.expect("client");
    let release = status
        .status()
        .await
        .map(|s| s.version().to_string())
        .unwrap_or_default();

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut probes = Vec::new();
    let names: Vec<String> = PATHS
        .iter()
        .map(|p| format!("GET {p}"))
        .chain(["TCP client port".into(), "TCP peer port".into()])
        .collect();
    for name in names {
        let (client, peer, stop) = (client.clone(), peer.clone(), stop.clone());
        probes.push(tokio::spawn(async move {
            let mut seen: Vec<(Instant, bool, Duration)> = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let at = Instant::now();
                let (passed, took) = match name.strip_prefix("GET ") {
                    Some(path) => http_probe(&client, path).await,
                    None if name.contains("client") => tcp_probe(&client).await,
                    None => tcp_probe(&peer).await,
                };
                seen.push((at, passed, took));
                tokio::time::sleep(PERIOD.saturating_sub(took)).await;
            }
            (name, seen)
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut defrag = cluster.client(0).await.expect("client");
    let began = Instant::now();
    defrag.defragment().await.expect("Defragment");
    let ended = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);

    let mut tally = Tally::new();
    for probe in probes {
        let (name, seen) = probe.await.expect("probe task");
        let during: Vec<_> = seen
            .iter()
            .filter(|(at, _, _)| *at >= began && *at < ended)
            .collect();
        let failed = during.iter().filter(|(_, ok, _)| !ok).count() as u32;
        let slowest = during.iter().map(|(_, _, t)| *t).max().unwrap_or_default();
        tally.insert(name, (during.len() as u32, failed, slowest));
    }
    let logged = cluster.logged_defrags();
    assert_eq!(
        logged.len(),
        1,
        "one defrag in the member's log: {logged:?}"
    );
    (tally, ended - began, release)
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    println!(
        "| etcd | defrag | probe | asked during the defrag | failed | slowest answer |\n|---|---|---|---|---|---|"
    );
    for v in &args.versions {
        let version = EtcdVersion::parse(v).expect("version");
        let (tally, took, release) = measure(version, args.in_use_mb).await;
        for (name, (asked, failed, slowest)) in tally {
            println!(
                "| {release} | {:.1} s | `{name}` | {asked} | {failed} | {} ms |",
                took.as_secs_f64(),
                slowest.as_millis()
            );
        }
    }
}
