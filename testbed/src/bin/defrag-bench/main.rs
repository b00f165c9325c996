//! Defrag benchmark: what clients feel while a 3-member cluster is
//! defragmented by `etcdctl defrag --cluster` and by kubectl-etcd's sweep
//! with `--move-leader auto|always|never`, all in one run against the same
//! cluster, re-fragmented the same way before each contender.
//!
//! Load during every sweep: one writer per member, pinned to it, issuing
//! small puts back to back (10 s client timeout), and one lease keep-alive
//! stream (every 250 ms). Which member was defragmented when, and when
//! leadership moved, comes from etcd's own log records, so the same
//! accounting applies to every tool; each member's committed and applied
//! index is sampled every 100 ms to see its apply backlog.
//!
//! Every failed request, and every one slower than a second, is sorted by
//! etcd's error (`kinds`) and by the sweep step it met (`steps`); a run of
//! failures on one client with no success between them is one incident.
//!
//!     defrag-bench --kubectl-etcd target/release/kubectl-etcd \
//!         --write-mb 300 --keep 0.1 [--only-one-fragmented]

// A measuring tool whose output is a Markdown report on stdout.
#![allow(clippy::disallowed_macros)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use kubectl_etcd_testbed::{bins, Cluster, ClusterSpec, EtcdVersion, Security};

mod kinds;
mod report;
mod steps;

use kinds::{classify, Kind};
use report::{count_spread, kind_table, spread, Breakdown, Sample};
use steps::{timeline, Progress, Timeline};

#[derive(Parser)]
struct Args {
    /// The kubectl-etcd binary to measure.
    #[arg(long)]
    kubectl_etcd: String,
    /// An earlier kubectl-etcd binary, run by contenders named
    /// `before:<mode>` so a change is measured against it in one run.
    #[arg(long)]
    baseline: Option<String>,
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
    /// After the first round, fragment again by writing and deleting only
    /// the share that is not kept (the kept keys stay): the same in-use size
    /// for a fraction of the time.
    #[arg(long)]
    refragment: bool,
    /// Print each round's steps (defrags, transfers, backlogs) and the
    /// failures in each.
    #[arg(long)]
    timelines: bool,
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
    /// Each member's committed and applied index, every 100 ms.
    progress: Arc<Mutex<Vec<Progress>>>,
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
                let error = match r {
                    Ok(Ok(_)) => None,
                    Ok(Err(etcd_client::Error::GRpcStatus(status))) => {
                        Some(classify(status.message()))
                    }
                    Ok(Err(e)) => Some(classify(&e.to_string())),
                    Err(_) => Some(Kind::ClientTimeout),
                };
                let failed = error.is_some();
                if let Ok(mut s) = samples.lock() {
                    s.push(Sample {
                        sent,
                        latency: t0.elapsed().as_secs_f64(),
                        error,
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
    // A Status to a member blocks while it defragments: a sample that does
    // not come back within 300 ms is skipped.
    let progress = Arc::new(Mutex::new(Vec::new()));
    for i in 0..cluster.members.len() {
        let mut client = cluster.client(i).await.expect("client");
        let progress = progress.clone();
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let at = now();
                if let Ok(Ok(s)) =
                    tokio::time::timeout(Duration::from_millis(300), client.status()).await
                {
                    if let Ok(mut p) = progress.lock() {
                        p.push(Progress {
                            member: i,
                            at,
                            committed: s.raft_index(),
                            applied: s.raft_applied_index(),
                        });
                    }
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    Load {
        writers,
        progress,
        leases,
        stop,
        tasks,
    }
}

#[derive(Default, Debug, Clone)]
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

/// One contender's round: the figures, the failures by kind and step, and
/// the steps themselves.
struct Round {
    figures: Figures,
    breakdown: Breakdown,
    timeline: Timeline,
    progress: Vec<Progress>,
}

/// The median of each figure over the rounds; with an even count the upper
/// of the two middle values (for two rounds: the worse one).
fn median(rounds: &[Figures]) -> Figures {
    let med =
        |get: &dyn Fn(&Figures) -> f64| spread(&rounds.iter().map(get).collect::<Vec<f64>>()).0;
    Figures {
        stall_defragmented: med(&|f| f.stall_defragmented),
        stall_others: med(&|f| f.stall_others),
        lease_gap: med(&|f| f.lease_gap),
        failed: med(&|f| f.failed as f64) as usize,
        hung: med(&|f| f.hung as f64) as usize,
        total_stall: med(&|f| f.total_stall),
        wall: med(&|f| f.wall),
        sweep_wall: med(&|f| f.sweep_wall),
        defrag_sum: med(&|f| f.defrag_sum),
        defragmented: rounds.iter().map(|f| f.defragmented).max().unwrap_or(0),
    }
}

fn figures(
    writers: &[Vec<Sample>],
    leases: &[Vec<f64>],
    defrags: &[(usize, f64, f64)],
    from: f64,
    to: f64,
    wall: f64,
) -> Figures {
    let mut f = Figures {
        wall,
        ..Default::default()
    };
    f.defrag_sum = defrags.iter().map(|(_, s, e)| e - s).sum();
    f.defragmented = defrags.len();
    for (i, samples) in writers.iter().enumerate() {
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
            if s.failed() {
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
    for (i, beats) in leases.iter().enumerate() {
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

/// The command a contender runs: `etcdctl`, or kubectl-etcd with a
/// `--move-leader` mode and extra flags (`auto+--flag=value+…`); with a
/// `before:` prefix, the `--baseline` binary.
fn contender_command(cluster: &Cluster, args: &Args, contender: &str) -> tokio::process::Command {
    let seed = cluster.endpoints()[0].clone();
    let mut command = if contender == "etcdctl" {
        let mut c =
            tokio::process::Command::new(bins::etcdctl(EtcdVersion::V3_6).expect("etcdctl"));
        c.args([
            "defrag",
            "--cluster",
            "--command-timeout=120s",
            &format!("--endpoints={seed}"),
        ]);
        c
    } else {
        let (binary, spec) = match contender.strip_prefix("before:") {
            Some(rest) => (
                args.baseline.as_deref().expect("before: needs --baseline"),
                rest,
            ),
            None => (args.kubectl_etcd.as_str(), contender),
        };
        let mut parts = spec.split('+');
        let mode = parts.next().unwrap_or("auto");
        let mut c = tokio::process::Command::new(binary);
        c.args([
            &format!("--endpoints={seed}"),
            "defrag",
            "--yes",
            "-o",
            "json",
            &format!("--move-leader={mode}"),
        ]);
        c.args(parts);
        c
    };
    for (k, v) in cluster.env() {
        if k != "ETCDCTL_ENDPOINTS" {
            command.env(k, v);
        }
    }
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

async fn run_contender(cluster: &Cluster, args: &Args, contender: &str) -> Round {
    let mut command = contender_command(cluster, args, contender);
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
        eprintln!(
            "{contender} exited with {status}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let defrags: Vec<_> = logged_defrags(cluster)
        .into_iter()
        .skip(logged_before)
        .collect();
    let writers: Vec<Vec<Sample>> = load
        .writers
        .iter()
        .map(|w| w.lock().map(|s| s.clone()).unwrap_or_default())
        .collect();
    let leases: Vec<Vec<f64>> = load
        .leases
        .iter()
        .map(|l| l.lock().map(|l| l.clone()).unwrap_or_default())
        .collect();
    let progress = load.progress.lock().map(|p| p.clone()).unwrap_or_default();
    let timeline = timeline(from, to, &defrags, &cluster.logged_leadership(), &progress);
    let mut figures = figures(&writers, &leases, &defrags, from, to, wall);
    figures.sweep_wall = sweep_wall;
    let breakdown = Breakdown::of(&writers, &timeline, from, to);
    Round {
        figures,
        breakdown,
        timeline,
        progress,
    }
}

/// The highest committed index any member reported by `at`.
fn committed_by(progress: &[Progress], at: f64) -> u64 {
    progress
        .iter()
        .filter(|p| p.at <= at)
        .map(|p| p.committed)
        .max()
        .unwrap_or(0)
}

/// One round's steps in time order, with the failures that began in each.
fn print_timeline(contender: &str, n: usize, round: &Round) {
    let t = &round.timeline;
    println!("\n#### {contender}, round {n}\n");
    let rel = |at: f64| at - t.from;
    let mut lines: Vec<(f64, String)> = Vec::new();
    for d in &t.defrags {
        let rate = (committed_by(&round.progress, d.end)
            .saturating_sub(committed_by(&round.progress, d.start))) as f64
            / (d.end - d.start).max(0.001);
        lines.push((
            d.start,
            format!(
                "+{:.2} s m{} defragments as {} for {:.2} s ({:.0} entries/s committed meanwhile); apply backlog after: {}; caught up {:.2} s after",
                rel(d.start),
                d.member,
                if d.as_leader { "leader" } else { "follower" },
                d.end - d.start,
                rate,
                d.backlog_after.map_or("not sampled".into(), |b| b.to_string()),
                d.caught_up - d.end,
            ),
        ));
    }
    for (start, end, from, to) in &t.transfers {
        lines.push((
            *start,
            format!(
                "+{:.2} s leadership m{from} → {} in {:.0} ms",
                rel(*start),
                to.map_or("?".into(), |m| format!("m{m}")),
                (end - start) * 1000.0
            ),
        ));
    }
    for i in &round.breakdown.incidents {
        lines.push((
            i.start,
            format!(
                "    +{:.2} s client of m{}: {} × {} over {:.2} s ({})",
                rel(i.start),
                i.member,
                i.kind,
                i.requests,
                i.end - i.start,
                i.phase
            ),
        ));
    }
    lines.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, line) in lines {
        println!("- {line}");
    }
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    // A roomy quota: every round rewrites the kept keys before compacting.
    let mut spec = ClusterSpec::new(3, Security::MutualTls).quota(8 << 30);
    spec.log_level = "info";
    let cluster = Cluster::start(spec).await.expect("cluster");
    let mut all: Vec<(String, Vec<Round>)> = args
        .contenders
        .iter()
        .map(|c| (c.clone(), Vec::new()))
        .collect();
    let mut fragmented_once = false;
    for _ in 0..args.reps {
        for (contender, results) in all.iter_mut() {
            let bytes = args.write_mb * 1_000_000;
            if args.refragment && fragmented_once {
                cluster
                    .refragment((bytes as f64 * (1.0 - args.keep)) as u64)
                    .await
                    .expect("refragment");
            } else {
                cluster.fragment(bytes, args.keep).await.expect("fragment");
                fragmented_once = true;
            }
            if args.only_one_fragmented {
                // Defragment all but one member, quietly, before measuring.
                for i in 1..cluster.members.len() {
                    let mut c = cluster.client(i).await.expect("client");
                    c.defragment().await.expect("defragment");
                }
            }
            results.push(run_contender(&cluster, &args, contender).await);
            eprintln!("{contender}: round {} done", results.len());
        }
    }
    println!("| contender | longest stall, member being defragmented | longest stall, other members | longest lease renewal gap (other member's defrag) | failed requests | failure incidents | time in failure incidents | hung requests | total client stall | process wall time | sweep wall time | Σ member defrag time | sweep overhead | process overhead | members defragmented |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let over = |t: f64, sum: f64| {
        if sum > 0.0 {
            (t - sum) / sum * 100.0
        } else {
            0.0
        }
    };
    for (contender, rounds) in &all {
        let f = median(&rounds.iter().map(|r| r.figures.clone()).collect::<Vec<_>>());
        let failed: Vec<f64> = rounds.iter().map(|r| r.figures.failed as f64).collect();
        let incidents: Vec<f64> = rounds
            .iter()
            .map(|r| r.breakdown.failed_incidents() as f64)
            .collect();
        let failed_secs: Vec<f64> = rounds
            .iter()
            .map(|r| r.breakdown.failed_seconds())
            .collect();
        println!(
            "| {contender} | {:.2} s | {:.2} s | {:.2} s | {} | {} | {:.1} s | {} | {:.2} s | {:.2} s | {:.2} s | {:.2} s | {:+.1}% | {:+.1}% | {} |",
            f.stall_defragmented,
            f.stall_others,
            f.lease_gap,
            count_spread(&failed),
            count_spread(&incidents),
            spread(&failed_secs).0,
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
    for (contender, rounds) in &all {
        println!(
            "\n**{contender}**: failed and slow requests by kind and step ({} rounds; medians, range of requests in brackets)\n",
            rounds.len()
        );
        let breakdowns: Vec<Breakdown> = rounds.iter().map(|r| r.breakdown.clone()).collect();
        print!("{}", kind_table(&breakdowns));
    }
    if args.timelines {
        println!("\n### Timelines (times from the contender's start)");
        for (contender, rounds) in &all {
            for (n, round) in rounds.iter().enumerate() {
                print_timeline(contender, n + 1, round);
            }
        }
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
