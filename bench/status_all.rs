//! `status -A` benchmark: what probing many EtcdClusters costs against
//! probing one. Run through `bench/status_all.sh` (a release build).
//!
//! On the test bed's real kube-apiserver: `--clusters` EtcdClusters (20 by
//! default) spread over five namespaces, each backed by its own real etcd
//! 3.6 cluster of `--members` members (3 by default) in mutual TLS, with
//! the operator's objects (Secrets, EtcdMembers, Pods pointing at the
//! members). Then, interleaved in the same run (one, all, one, all, …)
//! after two warm-ups of each, the wall time of the real binary for
//!
//! - `kubectl-etcd status <one cluster> -n <its namespace> -o json`
//! - `kubectl-etcd status -A -o json`
//!
//! both with `--connect=direct` (member Pod IPs are loopback addresses).
//! Every run must exit 0 and, for `-A`, report every cluster with a
//! status. Prints the medians, p90s and their ratio.
//!
//! `--rtt-ms N` puts every member and the API server N ms of round trip
//! away (the test bed's delay proxy, half each way), as from a laptop or a
//! CronJob in another cluster, and adds `doctor` and `defrag --dry-run`,
//! one cluster against `-A`, to the comparison.
//!
//! `--contexts 2` publishes the same clusters on two more API servers
//! (1.37 and 1.34), half on each, and compares `status -A` over the one
//! context holding all 20 with `status -A --all-contexts` over the two
//! holding 10 each (the same etcd clusters behind both), with `doctor` and
//! `defrag --dry-run` alike at a distance.
//!
//! `--binary PATH` times another build of the tool (an older one, to
//! compare) instead of this one. `--keep` only sets the clusters up and
//! keeps them until Ctrl-C, printing the kubeconfig, for a closer look by
//! hand.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

#[path = "../tests/support/mod.rs"]
mod support;

use common::{flag, quantile};
use std::time::{Duration, Instant};

use support::k8s::*;
use support::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let clusters: usize = flag(&args, "--clusters").unwrap_or(20);
    let members: usize = flag(&args, "--members").unwrap_or(3);
    let runs: usize = flag(&args, "--runs").unwrap_or(10);
    let rtt: Option<u64> = flag(&args, "--rtt-ms");
    let binary: String =
        flag(&args, "--binary").unwrap_or_else(|| env!("CARGO_BIN_EXE_kubectl-etcd").to_string());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(clusters, members, runs, &binary, rtt));
}

fn args_has(name: &str) -> bool {
    std::env::args().any(|a| a == name)
}

async fn bench(clusters: usize, members: usize, runs: usize, binary: &str, rtt: Option<u64>) {
    let client = admin().await;
    let delay = rtt.map(kubectl_etcd_testbed::delay::Delay::rtt_ms);
    eprintln!("bench: {clusters} EtcdClusters of {members} member(s) each, mutual TLS");
    let started = Instant::now();
    let (fixtures, namespaces) = bench_fleet(&client, clusters, members, delay).await;
    eprintln!(
        "bench: {clusters} clusters up in {:.1}s",
        started.elapsed().as_secs_f64()
    );
    let refs: Vec<&str> = namespaces.iter().map(String::as_str).collect();
    // At a distance the API server is as far away as the members.
    let _api_proxy;
    let kc = match delay {
        Some(delay) => {
            let proxy = apiserver_proxy(delay).await;
            let url = format!("https://{}", proxy.addr());
            _api_proxy = Some(proxy);
            kubeconfig_via(&url, "status-all-bench.yaml", &refs)
        }
        None => {
            _api_proxy = None;
            kubeconfig("status-all-bench.yaml", &refs)
        }
    };
    let base = |rest: &[&str]| {
        let mut a = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".to_string(),
        ];
        a.extend(rest.iter().map(|s| s.to_string()));
        a
    };
    if let Some(n) = flag::<usize>(&args_list(), "--contexts") {
        contexts(n, &fixtures, delay, runs, binary, &kc, clusters, rtt).await;
        drop(fixtures);
        return;
    }
    if args_has("--keep") {
        // For looking closer by hand: the clusters stay up until Ctrl-C
        // (SIGINT), then are stopped as the fixtures drop.
        eprintln!("bench: --keep: kubeconfig {}; Ctrl-C to stop", kc.display());
        tokio::signal::ctrl_c().await.expect("wait for Ctrl-C");
        drop(fixtures);
        return;
    }
    // (label, one cluster, every cluster); status always, the others at a
    // distance.
    let mut pairs = vec![(
        "status",
        base(&["status", "etcd-00", "-n", "bench-0", "-o", "json"]),
        base(&["status", "-A", "-o", "json"]),
    )];
    if rtt.is_some() {
        pairs.push((
            "doctor",
            base(&["doctor", "etcd-00", "-n", "bench-0", "-o", "json"]),
            base(&["doctor", "-A", "-o", "json"]),
        ));
        pairs.push((
            "defrag --dry-run",
            base(&[
                "defrag",
                "etcd-00",
                "-n",
                "bench-0",
                "--dry-run",
                "-o",
                "json",
            ]),
            base(&["defrag", "-A", "--dry-run", "-o", "json"]),
        ));
    }
    let times = interleaved(binary, &pairs, (None, Some(clusters)), runs).await;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let distance = match rtt {
        Some(ms) => format!("{ms} ms"),
        None => "none".to_string(),
    };
    println!(
        "| round trip | command | one cluster, median (p90) | `-A`, {clusters} clusters, median (p90) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for ((label, _, _), (single, every)) in pairs.iter().zip(&times) {
        let (one_median, all_median) = (quantile(single, 50), quantile(every, 50));
        println!(
            "| {distance} | `{label}` | {:.0} ms ({:.0} ms) | {:.0} ms ({:.0} ms) | **{:.2}** |",
            ms(one_median),
            ms(quantile(single, 90)),
            ms(all_median),
            ms(quantile(every, 90)),
            ms(all_median) / ms(one_median)
        );
    }
    let build = if binary == env!("CARGO_BIN_EXE_kubectl-etcd") {
        "this build".to_string()
    } else {
        binary.to_string()
    };
    println!(
        "{runs} interleaved runs each after 2 warm-ups; {clusters} clusters × {members} member(s), mutual TLS, etcd 3.6; {build}"
    );
    drop(fixtures);
}

/// Each pair's two command lines timed in turn (first, second, first, …),
/// two warm-ups of each and then `runs`; `clusters` is how many clusters
/// each line's document must report (`None`: one cluster's).
async fn interleaved(
    binary: &str,
    pairs: &[(&str, Vec<String>, Vec<String>)],
    clusters: (Option<usize>, Option<usize>),
    runs: usize,
) -> Vec<(Vec<Duration>, Vec<Duration>)> {
    for _ in 0..2 {
        for (_, first, second) in pairs {
            measure(binary, first, clusters.0).await;
            measure(binary, second, clusters.1).await;
        }
    }
    let mut times: Vec<(Vec<Duration>, Vec<Duration>)> =
        pairs.iter().map(|_| (Vec::new(), Vec::new())).collect();
    for _ in 0..runs {
        for ((_, first, second), (a, b)) in pairs.iter().zip(times.iter_mut()) {
            a.push(measure(binary, first, clusters.0).await);
            b.push(measure(binary, second, clusters.1).await);
        }
    }
    times
}

fn args_list() -> Vec<String> {
    std::env::args().collect()
}

/// `--contexts N`: the clusters published again over `n` more API servers
/// (a share each, alternately 1.37 and 1.34), each behind its own delay
/// proxy at a distance; `-A` over the one context holding them all against
/// `-A --all-contexts` over the `n`.
#[allow(clippy::too_many_arguments)]
async fn contexts(
    n: usize,
    fixtures: &[Fixture],
    delay: Option<kubectl_etcd_testbed::delay::Delay>,
    runs: usize,
    binary: &str,
    one: &std::path::Path,
    clusters: usize,
    rtt: Option<u64>,
) {
    use kubectl_etcd_testbed::{kubeconfig_across, ContextOn, KubeRelease};
    let releases = [KubeRelease::Current, KubeRelease::V1_34];
    let servers: Vec<_> = futures::future::join_all(
        (0..n).map(|i| start_apiserver(releases[i % releases.len()], "")),
    )
    .await;
    for (i, server) in servers.iter().enumerate() {
        let client = server.admin_client(None).await.unwrap();
        for fx in fixtures.iter().skip(i).step_by(n) {
            fx.publish_on(&client, &fx.namespace, &fx.name, Mode::Mtls)
                .await;
        }
    }
    // At a distance each API server is as far away as the members.
    let (mut proxies, mut urls) = (Vec::new(), Vec::new());
    for server in &servers {
        match delay {
            Some(delay) => {
                let upstream = server.url.trim_start_matches("https://").parse().unwrap();
                let proxy = kubectl_etcd_testbed::delay::Proxy::start(
                    "127.0.0.1:0".parse().unwrap(),
                    upstream,
                    delay,
                )
                .await
                .unwrap();
                urls.push(Some(format!("https://{}", proxy.addr())));
                proxies.push(proxy);
            }
            None => urls.push(None),
        }
    }
    let names: Vec<String> = (0..n).map(|i| format!("part-{i}")).collect();
    let entries: Vec<ContextOn> = servers
        .iter()
        .zip(&names)
        .zip(&urls)
        .map(|((server, name), url)| ContextOn {
            name,
            server,
            url: url.clone(),
            namespace: Some("bench-0"),
        })
        .collect();
    let across = servers[0].dir().join("contexts-bench.yaml");
    std::fs::write(&across, kubeconfig_across(&entries)).unwrap();
    let with = |kc: &std::path::Path, rest: &[&str]| {
        let mut a = vec![
            format!("--kubeconfig={}", kc.display()),
            "--connect=direct".to_string(),
        ];
        a.extend(rest.iter().map(|s| s.to_string()));
        a
    };
    let mut commands: Vec<(&str, Vec<&str>)> = vec![("status", vec!["status", "-A"])];
    if rtt.is_some() {
        commands.push(("doctor", vec!["doctor", "-A"]));
        commands.push(("defrag --dry-run", vec!["defrag", "-A", "--dry-run"]));
    }
    let pairs: Vec<(&str, Vec<String>, Vec<String>)> = commands
        .iter()
        .map(|(label, words)| {
            let mut one_args = words.clone();
            one_args.extend(["-o", "json"]);
            let mut all_args = words.clone();
            all_args.extend(["--all-contexts", "-o", "json"]);
            (*label, with(one, &one_args), with(&across, &all_args))
        })
        .collect();
    let times = interleaved(binary, &pairs, (Some(clusters), Some(clusters)), runs).await;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let distance = rtt.map_or("none".to_string(), |ms| format!("{ms} ms"));
    println!(
        "| round trip | command | one context, {clusters} clusters, median (p90) | {n} contexts, {clusters} clusters, median (p90) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for ((label, _, _), (single, every)) in pairs.iter().zip(&times) {
        let (a, b) = (quantile(single, 50), quantile(every, 50));
        println!(
            "| {distance} | `{label} -A` | {:.0} ms ({:.0} ms) | {:.0} ms ({:.0} ms) | **{:.2}** |",
            ms(a),
            ms(quantile(single, 90)),
            ms(b),
            ms(quantile(every, 90)),
            ms(b) / ms(a)
        );
    }
    println!("{runs} interleaved runs each after 2 warm-ups; the same {clusters} etcd clusters behind both");
    drop(proxies);
    drop(servers);
}

/// One run's wall time; it must succeed, and with `-A` report every one of
/// `clusters` with a status.
async fn measure(binary: &str, args: &[String], clusters: Option<usize>) -> Duration {
    let t0 = Instant::now();
    let out = tokio::process::Command::new(binary)
        .args(args)
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run kubectl-etcd");
    let took = t0.elapsed();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    run.expect_code(0);
    if let Some(n) = clusters {
        let doc = run.json();
        let entries = doc["clusters"].as_array().expect("clusters");
        assert_eq!(entries.len(), n, "{doc}");
        if args.iter().any(|a| a == "status") {
            for e in entries {
                assert!(e["status"].is_object(), "no status: {e}");
            }
        }
    }
    took
}
