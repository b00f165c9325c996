//! Distance benchmark (issue 26): one cluster as far away as a user's
//! laptop, bastion or CronJob in another cluster is. Run through
//! `bench/distance.sh` (a release build).
//!
//! For each round trip in `--rtts` (default 0,10,40 ms): a 3-member etcd
//! 3.6 cluster in mutual TLS whose client ports sit behind the test bed's
//! delay proxy (`testbed::delay`, half the round trip each way; members
//! advertise the proxy, so discovery through MemberList lands on it too),
//! and, first, the same cluster without the proxy, to measure what the
//! proxy itself costs. Every command gets the same single seed endpoint
//! (`ETCDCTL_ENDPOINTS`) and finds the others through MemberList. In one
//! run, interleaved after two warm-ups each:
//!
//! - `kubectl-etcd status -o json`
//! - `etcdctl endpoint status --cluster -w json`
//! - `etcdctl endpoint health --cluster`
//! - `kubectl-etcd defrag -y -o json` on a cluster where nothing is due
//!   (every member below the rule)
//!
//! Besides the wall time, the proxies count what each command sent: TCP
//! connections (each a TCP and a TLS handshake) and the client's flights
//! (runs of bytes after the server spoke: one per round trip of one
//! conversation), summed over the members, per run.
//!
//! Flags: `--rtts 0,10,40`, `--runs 15`, `--binary PATH` (another build of
//! kubectl-etcd), `--version 3.6`.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

use common::{flag, quantile};
use std::time::{Duration, Instant};

use kubectl_etcd_testbed::delay::{Counts, Delay};
use kubectl_etcd_testbed::{bins, Cluster, ClusterSpec, EtcdVersion, Security};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rtts: Vec<u64> = flag::<String>(&args, "--rtts")
        .unwrap_or_else(|| "0,10,40".into())
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("--rtts: milliseconds, comma-separated")
        })
        .collect();
    let runs: usize = flag(&args, "--runs").unwrap_or(15);
    let binary: String =
        flag(&args, "--binary").unwrap_or_else(|| env!("CARGO_BIN_EXE_kubectl-etcd").to_string());
    let version_text: String = flag(&args, "--version").unwrap_or_else(|| "3.6".into());
    let version = EtcdVersion::parse(&version_text).expect("--version");
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(&rtts, runs, &binary, version, &version_text));
}

/// One command of the comparison.
struct Command {
    label: &'static str,
    program: String,
    args: Vec<&'static str>,
}

/// What the runs of one command at one distance gave.
struct Measured {
    times: Vec<Duration>,
    traffic: Counts,
}

async fn bench(rtts: &[u64], runs: usize, binary: &str, version: EtcdVersion, label: &str) {
    let etcdctl = bins::etcdctl(version)
        .expect("etcdctl in the test bed cache")
        .display()
        .to_string();
    let commands = [
        Command {
            label: "`kubectl-etcd status -o json`",
            program: binary.to_string(),
            args: vec!["status", "-o", "json"],
        },
        Command {
            label: "`etcdctl endpoint status --cluster -w json`",
            program: etcdctl.clone(),
            args: vec!["endpoint", "status", "--cluster", "-w", "json"],
        },
        Command {
            label: "`etcdctl endpoint health --cluster`",
            program: etcdctl,
            args: vec!["endpoint", "health", "--cluster"],
        },
        Command {
            label: "`kubectl-etcd defrag -y -o json`, nothing due",
            program: binary.to_string(),
            args: vec!["defrag", "-y", "-o", "json"],
        },
    ];
    // `None`: no proxy at all, the baseline for the proxy's own cost.
    let distances: Vec<Option<u64>> = std::iter::once(None)
        .chain(rtts.iter().copied().map(Some))
        .collect();
    println!(
        "| round trip | command | median (p90) | ratio to etcdctl status | connections / run | client flights / run |"
    );
    println!("|---|---|---|---|---|---|");
    for rtt in distances {
        let mut spec = ClusterSpec::new(3, Security::MutualTls).version(version);
        if let Some(ms) = rtt {
            spec = spec.delay(Delay::rtt_ms(ms));
        }
        let cluster = Cluster::start(spec).await.expect("start the cluster");
        let mut env = cluster.env();
        let seed = cluster.endpoints()[0].clone();
        for (k, v) in env.iter_mut() {
            if k == "ETCDCTL_ENDPOINTS" {
                *v = seed.clone();
            }
        }
        for _ in 0..2 {
            for c in &commands {
                run(c, &env).await;
            }
        }
        let mut measured: Vec<Measured> = commands
            .iter()
            .map(|_| Measured {
                times: Vec::new(),
                traffic: Counts::default(),
            })
            .collect();
        for _ in 0..runs {
            for (c, m) in commands.iter().zip(measured.iter_mut()) {
                let before = total(&cluster.traffic());
                m.times.push(run(c, &env).await);
                m.traffic = m.traffic + (total(&cluster.traffic()) - before);
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let reference = ms(quantile(&measured[1].times, 50));
        let distance = match rtt {
            None => "none (no proxy)".to_string(),
            Some(ms) => format!("{ms} ms"),
        };
        for (c, m) in commands.iter().zip(&measured) {
            let median = ms(quantile(&m.times, 50));
            let per_run = |n: u64| match rtt {
                None => "-".to_string(),
                Some(_) => format!("{:.1}", n as f64 / runs as f64),
            };
            println!(
                "| {distance} | {} | {:.1} ms ({:.1} ms) | {:.2} | {} | {} |",
                c.label,
                median,
                ms(quantile(&m.times, 90)),
                median / reference,
                per_run(m.traffic.connections),
                per_run(m.traffic.flights),
            );
        }
        drop(cluster);
    }
    println!(
        "{runs} interleaved runs of each command after 2 warm-ups, per round trip; 3 members, mutual TLS, etcd {label}; one seed endpoint"
    );
}

fn total(counts: &[Counts]) -> Counts {
    counts.iter().fold(Counts::default(), |a, &b| a + b)
}

/// One run's wall time; it must exit 0.
async fn run(c: &Command, env: &[(String, String)]) -> Duration {
    let t0 = Instant::now();
    let out = tokio::process::Command::new(&c.program)
        .args(&c.args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env_remove("KUBECONFIG")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run the command");
    let took = t0.elapsed();
    assert!(
        out.status.success(),
        "{} {:?} failed: {}{}",
        c.program,
        c.args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}
