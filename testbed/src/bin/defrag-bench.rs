//! Defrag benchmark: what clients feel while a 3-member cluster is
//! defragmented by `etcdctl defrag --cluster` and by kubectl-etcd's sweep
//! with `--move-leader auto|always|never`, all in one run against the same
//! cluster, re-fragmented the same way before each contender.
//!
//! Load during every sweep: one writer per member, pinned to it, issuing
//! small puts back to back (10 s client timeout), and one lease keep-alive
//! stream (every 250 ms). Which member was defragmented when comes from
//! etcd's own log records, so the same accounting applies to every tool.
//!
//!     defrag-bench --kubectl-etcd target/release/kubectl-etcd \
//!         --write-mb 300 --keep 0.1 [--only-one-fragmented]

// A measuring tool whose output is a Markdown report on stdout.
#![allow(clippy::disallowed_macros)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use kubectl_etcd_testbed::{bins, Cluster, ClusterSpec, EtcdVersion, Security};

#[derive(Parser)]
struct Args {
    /// The kubectl-etcd binary to measure.
    #[arg(long)]
    kubectl_etcd: String,
    /// MB written per fragmentation round.
    #[arg(long, default_value_t = 300)]
    write_mb: u64,
    /// Share of the written data kept (in use).
    #[arg(long, default_value_t = 0.1)]
    keep: f64,
    /// Defragment two members first so that only one is over the threshold.
    #[arg(long)]
    only_one_fragmented: bool,
    /// Contenders to run (etcdctl, auto, always, never).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "etcdctl,auto,always,never"
    )]
    contenders: Vec<String>,
    /// Rounds per contender (interleaved); the table shows medians.
    #[arg(long, default_value_t = 1)]
    reps: usize,
}

/// One request: when it was sent (epoch seconds), how long it took, and
/// whether it failed.
#[derive(Clone, Copy)]
struct Sample {
    sent: f64,
    latency: f64,
    failed: bool,
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// etcd's own record of each defragmentation: (member, start, end), epoch s.
fn logged_defrags(cluster: &Cluster) -> Vec<(usize, f64, f64)> {
    cluster
        .logged_defrags()
        .into_iter()
        .map(|d| (d.member, d.start, d.end))
        .collect()
}

struct Load {
    writers: Vec<Arc<Mutex<Vec<Sample>>>>,
    /// Keep-alive response times, one stream pinned to each member.
    leases: Vec<Arc<Mutex<Vec<f64>>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

async fn start_load(cluster: &Cluster) -> Load {
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    let mut tasks = Vec::new();
    for i in 0..cluster.members.len() {
        let samples = Arc::new(Mutex::new(Vec::new()));
        writers.push(samples.clone());
        let mut client = cluster.client(i).await.expect("client");
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut n = 0u64;
            while !stop.load(Ordering::SeqCst) {
                let sent = now();
                let t0 = Instant::now();
                let r = tokio::time::timeout(
                    Duration::from_secs(10),
                    client.put(format!("load/{i}/{}", n % 1000), vec![b'l'; 100], None),
                )
                .await;
                let failed = !matches!(r, Ok(Ok(_)));
                if let Ok(mut s) = samples.lock() {
                    s.push(Sample {
                        sent,
                        latency: t0.elapsed().as_secs_f64(),
                        failed,
                    });
                }
                n += 1;
                if failed {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }));
    }
    let mut leases = Vec::new();
    for i in 0..cluster.members.len() {
        let mut client = cluster.client(i).await.expect("client");
        let lease = Arc::new(Mutex::new(Vec::new()));
        leases.push(lease.clone());
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let Ok(grant) = client.lease_grant(30, None).await else {
                return;
            };
            // A beat is a renewal the server answered with a live TTL. A
            // stream that errors (the leader busy past its apply timeout)
            // is opened again, so a stall shows as a gap, not as silence.
            let mut open = None;
            while !stop.load(Ordering::SeqCst) {
                if open.is_none() {
                    match client.lease_keep_alive(grant.id()).await {
                        Ok(pair) => open = Some(pair),
                        Err(_) => {
                            tokio::time::sleep(Duration::from_millis(100)).await;
                            continue;
                        }
                    }
                }
                let Some((keeper, stream)) = open.as_mut() else {
                    continue;
                };
                if keeper.keep_alive().await.is_err() {
                    open = None;
                    continue;
                }
                match tokio::time::timeout(Duration::from_secs(30), stream.message()).await {
                    Ok(Ok(Some(resp))) if resp.ttl() > 0 => {
                        if let Ok(mut l) = lease.lock() {
                            l.push(now());
                        }
                    }
                    _ => {
                        open = None;
                        continue;
                    }
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }));
    }
    Load {
        writers,
        leases,
        stop,
        tasks,
    }
}

#[derive(Default, Debug)]
struct Figures {
    stall_defragmented: f64,
    stall_others: f64,
    lease_gap: f64,
    failed: usize,
    hung: usize,
    total_stall: f64,
    wall: f64,
    /// The sweep alone: kubectl-etcd's own `wallMs` (first gate to the last
    /// member back, without start-up and the checks after the sweep);
    /// etcdctl's process time, which is all sweep.
    sweep_wall: f64,
    defrag_sum: f64,
    defragmented: usize,
}

/// The median of each figure over the rounds; with an even count the upper
/// of the two middle values (for two rounds: the worse one). Counts: the
/// largest.
fn median(rounds: &[Figures]) -> Figures {
    let med = |get: &dyn Fn(&Figures) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(get).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    Figures {
        stall_defragmented: med(&|f| f.stall_defragmented),
        stall_others: med(&|f| f.stall_others),
        lease_gap: med(&|f| f.lease_gap),
        failed: rounds.iter().map(|f| f.failed).max().unwrap_or(0),
        hung: rounds.iter().map(|f| f.hung).max().unwrap_or(0),
        total_stall: med(&|f| f.total_stall),
        wall: med(&|f| f.wall),
        sweep_wall: med(&|f| f.sweep_wall),
        defrag_sum: med(&|f| f.defrag_sum),
        defragmented: rounds.iter().map(|f| f.defragmented).max().unwrap_or(0),
    }
}

fn figures(load: &Load, defrags: &[(usize, f64, f64)], from: f64, to: f64, wall: f64) -> Figures {
    let mut f = Figures {
        wall,
        ..Default::default()
    };
    f.defrag_sum = defrags.iter().map(|(_, s, e)| e - s).sum();
    f.defragmented = defrags.len();
    for (i, w) in load.writers.iter().enumerate() {
        let samples = w.lock().map(|s| s.clone()).unwrap_or_default();
        for s in samples.iter().filter(|s| s.sent >= from && s.sent <= to) {
            let end = s.sent + s.latency;
            let overlaps_own = defrags
                .iter()
                .any(|(m, a, b)| *m == i && s.sent < *b && end > *a);
            if overlaps_own {
                f.stall_defragmented = f.stall_defragmented.max(s.latency);
            } else {
                f.stall_others = f.stall_others.max(s.latency);
            }
            if s.failed {
                if s.latency >= 9.9 {
                    f.hung += 1
                } else {
                    f.failed += 1
                }
            }
            if s.latency > 0.05 {
                f.total_stall += s.latency;
            }
        }
    }
    // A stream stalls while its own member defragments (that is the pinned
    // writers' figure); what is measured here is the renewal gap caused by
    // *another* member's defrag — the leader's, which every renewal needs.
    // The load runs on for 2 s after the contender exits, so a healthy
    // stream has a beat after `to`; one that never beat again counts as a
    // gap up to then.
    for (i, l) in load.leases.iter().enumerate() {
        let beats = l.lock().map(|l| l.clone()).unwrap_or_default();
        let mut last = from;
        let ends = beats
            .iter()
            .copied()
            .filter(|b| *b >= from && *b <= to + 2.0)
            .chain(std::iter::once(to + 2.0));
        for b in ends {
            let own = defrags
                .iter()
                .any(|(m, a, e)| *m == i && last < *e && b > *a);
            if !own {
                f.lease_gap = f.lease_gap.max(b - last);
            }
            last = b;
        }
    }
    f
}

async fn run_contender(cluster: &Cluster, args: &Args, contender: &str) -> Figures {
    let env: Vec<(String, String)> = cluster.env();
    let seed = cluster.endpoints()[0].clone();
    let mut command = match contender {
        "etcdctl" => {
            let mut c =
                tokio::process::Command::new(bins::etcdctl(EtcdVersion::V3_6).expect("etcdctl"));
            c.args([
                "defrag",
                "--cluster",
                "--command-timeout=120s",
                &format!("--endpoints={seed}"),
            ]);
            c
        }
        mode => {
            let mut c = tokio::process::Command::new(&args.kubectl_etcd);
            c.args([
                &format!("--endpoints={seed}"),
                "defrag",
                "--yes",
                "-o",
                "json",
                &format!("--move-leader={mode}"),
            ]);
            c
        }
    };
    for (k, v) in &env {
        if k != "ETCDCTL_ENDPOINTS" {
            command.env(k, v);
        }
    }
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let logged_before = logged_defrags(cluster).len();
    let load = start_load(cluster).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let from = now();
    let t0 = Instant::now();
    let output = command.output().await.expect("run contender");
    let status = output.status;
    let wall = t0.elapsed().as_secs_f64();
    let sweep_wall = serde_json::from_slice::<serde_json::Value>(&output.stdout)
        .ok()
        .and_then(|d| d["wallMs"].as_f64())
        .map_or(wall, |ms| ms / 1000.0);
    let to = now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    load.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for t in &load.tasks {
        t.abort();
    }
    if !status.success() {
        eprintln!("{contender} exited with {status}");
    }
    let defrags: Vec<_> = logged_defrags(cluster)
        .into_iter()
        .skip(logged_before)
        .collect();
    let mut f = figures(&load, &defrags, from, to, wall);
    f.sweep_wall = sweep_wall;
    f
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    // A roomy quota: every round rewrites the kept keys before compacting.
    let mut spec = ClusterSpec::new(3, Security::MutualTls).quota(8 << 30);
    spec.log_level = "info";
    let cluster = Cluster::start(spec).await.expect("cluster");
    let mut all: Vec<(String, Vec<Figures>)> = args
        .contenders
        .iter()
        .map(|c| (c.clone(), Vec::new()))
        .collect();
    for _ in 0..args.reps {
        for (contender, results) in all.iter_mut() {
            cluster
                .fragment(args.write_mb * 1_000_000, args.keep)
                .await
                .expect("fragment");
            if args.only_one_fragmented {
                // Defragment all but one member, quietly, before measuring.
                for i in 1..cluster.members.len() {
                    let mut c = cluster.client(i).await.expect("client");
                    c.defragment().await.expect("defragment");
                }
            }
            results.push(run_contender(&cluster, &args, contender).await);
        }
    }
    println!("| contender | longest stall, member being defragmented | longest stall, other members | longest lease renewal gap (other member's defrag) | failed / hung requests | total client stall | process wall time | sweep wall time | Σ member defrag time | sweep overhead | process overhead | members defragmented |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let over = |t: f64, sum: f64| {
        if sum > 0.0 {
            (t - sum) / sum * 100.0
        } else {
            0.0
        }
    };
    for (contender, results) in &all {
        let f = median(results);
        println!(
            "| {contender} | {:.2} s | {:.2} s | {:.2} s | {} / {} | {:.2} s | {:.2} s | {:.2} s | {:.2} s | {:+.1}% | {:+.1}% | {} |",
            f.stall_defragmented,
            f.stall_others,
            f.lease_gap,
            f.failed,
            f.hung,
            f.total_stall,
            f.wall,
            f.sweep_wall,
            f.defrag_sum,
            over(f.sweep_wall, f.defrag_sum),
            over(f.wall, f.defrag_sum),
            f.defragmented
        );
    }
    let s = cluster
        .client(0)
        .await
        .expect("client")
        .status()
        .await
        .expect("status");
    println!(
        "\nper member after fragmentation: {:.0} MB on disk, {:.0} MB in use (last round)",
        s.db_size() as f64 / 1e6,
        s.raft_used_db_size() as f64 / 1e6
    );
}
