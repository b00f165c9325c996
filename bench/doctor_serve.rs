//! `doctor --serve`'s cost (issue 43): CPU and memory of the serving
//! process per examined cluster and per member, and what an examination
//! costs the members against one `doctor` run of the cluster. Run through
//! `bench/doctor_serve.sh` (a release build).
//!
//! On the test bed's real kube-apiserver: `--clusters` EtcdClusters (20 by
//! default) over five namespaces, each its own real etcd 3.6 cluster of
//! `--members` members (3) in mutual TLS, with the operator's objects.
//! Then:
//!
//! 1. the members at rest for 20 s: their CPU rate, taken off what follows;
//! 2. `doctor -A -o json` twice (a warm-up, then measured): its own CPU
//!    (bash's `times`) and the members' CPU over its run; then one
//!    `doctor NAME` of each cluster, one after another;
//! 3. `doctor -A --serve` with `--interval` (30 s): its first round (every
//!    cluster examined once, nothing else until the interval passes), then
//!    from the end of it until `--rounds` (3) more have ended (by the
//!    examinations it counts): its CPU (`/proc`), its resident memory at
//!    the end and at its peak, and per round the members' CPU; the members'
//!    CPU is what they used less their rate at rest, so it is noisy.
//!
//! The members' gRPC requests, by their own count
//! (`grpc_server_handled_total`, per method), are compared exactly: one
//! `doctor -A`, one `doctor NAME` of each cluster, and `--serve`'s first
//! round (later rounds are counted too, but examinations in flight at the
//! window's ends blur them).
//!
//! Prints two markdown tables.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

#[path = "../tests/support/mod.rs"]
mod support;

use common::flag;
use std::time::{Duration, Instant};

use support::k8s::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let clusters: usize = flag(&args, "--clusters").unwrap_or(20);
    let members: usize = flag(&args, "--members").unwrap_or(3);
    let interval: u64 = flag(&args, "--interval").unwrap_or(30);
    let rounds: u64 = flag(&args, "--rounds").unwrap_or(3);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(clusters, members, interval, rounds));
}

/// CPU seconds a process has used (user + system); 0 once it is gone.
fn cpu_of(pid: u32) -> f64 {
    common::cpu_ticks(pid).unwrap_or(0) as f64 / common::clock_ticks() as f64
}

fn cpu_all(pids: &[u32]) -> f64 {
    pids.iter().map(|p| cpu_of(*p)).sum()
}

/// (`VmRSS`, `VmHWM`) of a process in MiB; 0 once it is gone.
fn memory_of(pid: u32) -> (f64, f64) {
    let (rss, peak) = common::memory_kib(pid).unwrap_or((0, 0));
    (rss as f64 / 1024.0, peak as f64 / 1024.0)
}

/// Runs the tool under bash and returns (wall, its own CPU seconds from
/// bash's `times`).
fn timed(binary: &str, args: &[String]) -> (Duration, f64) {
    let started = Instant::now();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("\"$@\" >/dev/null 2>&1; times")
        .arg("timed")
        .arg(binary)
        .args(args)
        .output()
        .unwrap();
    let wall = started.elapsed();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    // Second line: the children's user and system time, `0m0.123s 0m0.045s`.
    let seconds = |t: &str| {
        let (m, s) = t.trim_end_matches('s').split_once('m').unwrap();
        m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap()
    };
    let children = text.lines().nth(1).unwrap_or("0m0s 0m0s");
    let cpu: f64 = children.split_whitespace().map(seconds).sum();
    (wall, cpu)
}

async fn scrape(addr: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else {
        return String::new();
    };
    let _ = stream
        .write_all(format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").as_bytes())
        .await;
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text).await;
    text
}

/// gRPC requests every member has served, by its own count
/// (`grpc_server_handled_total`, read with curl over TLS: not a gRPC
/// request), per method.
async fn requests(fixtures: &[Fixture]) -> Requests {
    let mut total = Requests::new();
    for f in fixtures {
        let pki = f.etcd.pki.as_ref().expect("a TLS cluster");
        for m in &f.etcd.members {
            // curl with the cluster's client pair (the members ask for
            // one), to a name its certificate holds (`*.<cluster>.<ns>.svc`),
            // at the address it listens on.
            let host = format!("{}.{}.{}.svc", m.name, f.name, f.namespace);
            let at = m.listen_client_url.trim_start_matches("https://");
            let name = format!("{host}:{}", at.rsplit(':').next().unwrap_or("2379"));
            let url = format!("https://{name}/metrics");
            let out = std::process::Command::new("curl")
                .arg("--connect-to")
                .arg(format!("{name}:{at}"))
                .args(["-sS", "--cacert"])
                .arg(&pki.ca)
                .arg("--cert")
                .arg(&pki.client_cert)
                .arg("--key")
                .arg(&pki.client_key)
                .arg(&url)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "curl {url}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            for line in String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| l.starts_with("grpc_server_handled_total{"))
            {
                let method = line
                    .split("grpc_method=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or("?")
                    .to_string();
                let value = line
                    .rsplit(' ')
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0);
                *total.entry(method).or_default() += value;
            }
        }
    }
    total
}

/// Requests per gRPC method.
type Requests = std::collections::BTreeMap<String, f64>;

/// What was served between `before` and `after`, per method, and in all.
fn served(before: &Requests, after: &Requests) -> (Requests, f64) {
    let per: Requests = after
        .iter()
        .map(|(m, v)| (m.clone(), v - before.get(m).copied().unwrap_or(0.0)))
        .filter(|(_, v)| *v > 0.0)
        .collect();
    let all = per.values().sum();
    (per, all)
}

/// `Status 60, MemberList 20, …` (most first).
fn by_method(per: &Requests) -> String {
    let mut rows: Vec<(&String, &f64)> = per.iter().collect();
    rows.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    rows.iter()
        .map(|(m, v)| format!("{m} {v:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Examinations counted so far, every cluster and outcome.
fn examinations(text: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with("kubectl_etcd_examinations_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

async fn bench(clusters: usize, members: usize, interval: u64, rounds: u64) {
    let binary = env!("CARGO_BIN_EXE_kubectl-etcd");
    let client = admin().await;
    eprintln!("bench: {clusters} EtcdClusters of {members} member(s) each, mutual TLS");
    let (fixtures, namespaces) = bench_fleet(&client, clusters, members, None).await;
    let pids: Vec<u32> = fixtures
        .iter()
        .flat_map(|f| f.etcd.members.iter().filter_map(|m| m.pid()))
        .collect();
    let refs: Vec<&str> = namespaces.iter().map(String::as_str).collect();
    let kc = kubeconfig("doctor-serve-bench.yaml", &refs);
    let base = |rest: &[&str]| {
        let mut a = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".to_string(),
        ];
        a.extend(rest.iter().map(|s| s.to_string()));
        a
    };

    // The members at rest.
    let (c0, t0) = (cpu_all(&pids), Instant::now());
    tokio::time::sleep(Duration::from_secs(20)).await;
    let rest_rate = (cpu_all(&pids) - c0) / t0.elapsed().as_secs_f64();
    eprintln!("bench: members at rest {:.1} ms CPU/s", rest_rate * 1000.0);

    // One doctor -A.
    let once = base(&["doctor", "-A", "-o", "json", "--fail-on", "never"]);
    timed(binary, &once);
    let (c0, q0) = (cpu_all(&pids), requests(&fixtures).await);
    let (wall, doctor_cpu) = timed(binary, &once);
    let doctor_members = cpu_all(&pids) - c0 - rest_rate * wall.as_secs_f64();
    let (doctor_per, doctor_requests) = served(&q0, &requests(&fixtures).await);
    eprintln!(
        "bench: doctor -A {:.0} ms wall, {:.0} ms CPU, members {:.0} ms; requests {}",
        wall.as_secs_f64() * 1000.0,
        doctor_cpu * 1000.0,
        doctor_members * 1000.0,
        by_method(&doctor_per)
    );

    // One `doctor NAME` per cluster, one after another: what "one doctor
    // run" costs the members of each.
    let q0 = requests(&fixtures).await;
    for f in &fixtures {
        let one = base(&[
            "doctor",
            &f.name,
            "-n",
            &f.namespace,
            "-o",
            "json",
            "--fail-on",
            "never",
        ]);
        timed(binary, &one);
    }
    let (single_per, single_requests) = served(&q0, &requests(&fixtures).await);
    eprintln!(
        "bench: {clusters} doctor NAME runs: requests {}",
        by_method(&single_per)
    );

    // doctor -A --serve.
    let port = kubectl_etcd_testbed::ports::free_port().unwrap();
    let addr = format!("127.0.0.1:{port}");
    let serve_args = base(&[
        "doctor",
        "-A",
        "--serve",
        &addr,
        "--interval",
        &format!("{interval}s"),
    ]);
    // The members' count before it starts: its first round begins at once.
    let q0 = requests(&fixtures).await;
    let mut child = std::process::Command::new(binary)
        .args(&serve_args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Its first round done: every cluster examined once, and nothing more
    // until the interval has passed, so the members' requests since it
    // started are exactly one examination of each.
    let deadline = Instant::now() + Duration::from_secs(120);
    while examinations(&scrape(&addr).await) < clusters as f64 {
        assert!(Instant::now() < deadline, "the first round never ended");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (first_per, first_requests) = served(&q0, &requests(&fixtures).await);
    eprintln!(
        "bench: --serve's first round: requests {}",
        by_method(&first_per)
    );
    let (s0, m0, r0, e0, t0) = (
        cpu_of(pid),
        cpu_all(&pids),
        requests(&fixtures).await,
        examinations(&scrape(&addr).await),
        Instant::now(),
    );
    // Until `rounds` more rounds have ended.
    let want = e0 + (clusters as u64 * rounds) as f64;
    let deadline = Instant::now() + Duration::from_secs(interval * (rounds + 2) + 60);
    let mut e1 = e0;
    while e1 < want {
        assert!(Instant::now() < deadline, "the rounds never ended");
        tokio::time::sleep(Duration::from_millis(200)).await;
        e1 = examinations(&scrape(&addr).await);
    }
    let window = t0.elapsed().as_secs_f64();
    let serve_cpu = cpu_of(pid) - s0;
    let members_cpu = cpu_all(&pids) - m0 - rest_rate * window;
    let (_, serve_requests) = served(&r0, &requests(&fixtures).await);
    let (rss, peak) = memory_of(pid);
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = child.wait();
    let examined = e1 - e0;
    let per_round = examined / clusters as f64;
    let ms = |s: f64| s * 1000.0;
    println!(
        "| clusters × members | `doctor -A`: its CPU; members' CPU | `--serve`: examinations in {window:.0} s | its CPU per examination (per member) | per round: members' CPU | RSS (peak) |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| {clusters} × {members} | {:.0} ms; {:.0} ms | {examined:.0} ({per_round:.1} rounds) | {:.1} ms ({:.1} ms) | {:.0} ms | {rss:.1} MiB ({peak:.1} MiB) |",
        ms(doctor_cpu),
        ms(doctor_members),
        ms(serve_cpu / examined),
        ms(serve_cpu / examined / members as f64),
        ms(members_cpu / per_round),
    );
    println!();
    println!("| members' gRPC requests | in all | per cluster | by method |");
    println!("|---|---|---|---|");
    let n = clusters as f64;
    for (what, per, all) in [
        ("one `doctor -A`", &doctor_per, doctor_requests),
        (
            "one `doctor NAME` of each cluster",
            &single_per,
            single_requests,
        ),
        ("`--serve`'s first round", &first_per, first_requests),
    ] {
        println!(
            "| {what} | {all:.0} | {:.1} | {} |",
            all / n,
            by_method(per)
        );
    }
    println!(
        "| `--serve`, later rounds (examinations in flight at either end counted) | {:.0} per round | {:.1} | |",
        serve_requests / per_round,
        serve_requests / per_round / n
    );
    drop(fixtures);
}
