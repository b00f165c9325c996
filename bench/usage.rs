//! `usage` benchmark: how long `kubectl-etcd usage` takes over a large
//! keyspace, and the largest latency it adds to a writer of the same
//! cluster (target: under 50 ms). Run through `bench/usage.sh` (a release
//! build).
//!
//! A 3-member etcd cluster of the test bed in mutual TLS, loaded with
//! `--keys` keys (1,000,000 by default) of `--value-bytes` bytes each (200),
//! spread as a Kubernetes API server spreads its objects: most under
//! `/registry/events/` and `/registry/pods/`, the rest over ten other
//! resources (one of them an API group's), in 50 namespaces. Loading goes
//! to the leader in Txns of 128 Puts, `--loaders` (8) of them in flight,
//! and its time is printed.
//!
//! Then a writer Puts one small key to the leader every 10 ms, through a
//! client connected to the leader's endpoint alone, and records each Put's
//! latency (sent to answered; a new Put every 10 ms whether or not the last
//! one was answered, so a stall shows in every Put it holds up). What the
//! writer sees is reported per phase:
//!
//! - A: the writer alone, for `--baseline-seconds` (10).
//! - B: while `kubectl-etcd usage --endpoints <all three> --window 0 -o
//!   json` runs: it reads every key from one follower in paginated
//!   serializable Ranges. Each run's wall time, the keys it reported (which
//!   must be every key) and the member it read are recorded.
//! - C: while `etcdctl get "" --from-key --consistency=s --limit 0 -w
//!   protobuf > /dev/null` runs against the follower the run before read:
//!   one unpaginated Range of the whole keyspace, what an operator would
//!   otherwise run. (`--command-timeout 300s`: etcdctl's default of 5 s
//!   is too short for a million keys.)
//!
//! B and C alternate (`--runs` of each, 3 by default), with
//! `--gap-seconds` (3) of the writer alone before each; the Puts between
//! the commands are reported too. A Put belongs to a phase when it was in
//! flight at any time during it. Every command must exit 0 (its stderr is
//! printed), every Put must succeed.
//!
//! - D: `kubectl-etcd snapshot usage -o json` of a snapshot saved from a
//!   follower, offline: its wall time and its peak resident memory (GNU
//!   time's `%M`), for `--binary` and each `--compare-binary PATH` (an
//!   earlier build), alternating. With `--runs 0` the writer and phases A
//!   to C are skipped and D runs once per build.
//!
//! Everything runs on one machine: the members, the tool and the writer
//! share its cores, so what the read adds to the writer here is mostly CPU
//! taken from the leader; members on their own machines share only the
//! network and the follower's disk.
//!
//! Flags: `--keys N`, `--value-bytes B`, `--runs R`, `--version 3.6`,
//! `--binary PATH` (another build of kubectl-etcd), `--loaders N`,
//! `--baseline-seconds S`, `--gap-seconds S`, `--compare-binary PATH`.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

use common::{flag, quantile};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use etcd_client::{Client, Txn, TxnOp};
use tokio_util::sync::CancellationToken;

use kubectl_etcd_testbed::{bins, Cluster, ClusterSpec, EtcdVersion, Security};

/// Puts per loading Txn.
const PER_TXN: usize = 128;
/// Namespaces the namespaced keys are spread over.
const NAMESPACES: usize = 50;
/// The writer's key and the bytes of its value (a Lease renewal's size).
const WRITER_KEY: &str = "/registry/leases/kube-system/bench-writer";
const WRITER_VALUE: usize = 64;
/// How often the writer Puts.
const WRITER_EVERY: Duration = Duration::from_millis(10);

/// Where the keys go: a prefix, its share of the keys in percent, whether
/// their names sit in namespaces below it, and the stem of their names.
const SPREAD: [(&str, usize, bool, &str); 12] = [
    ("/registry/events/", 40, true, "event"),
    ("/registry/pods/", 20, true, "pod"),
    ("/registry/replicasets/", 8, true, "rs"),
    ("/registry/configmaps/", 7, true, "cm"),
    ("/registry/secrets/", 7, true, "secret"),
    ("/registry/endpointslices/", 4, true, "eps"),
    ("/registry/serviceaccounts/", 3, true, "sa"),
    ("/registry/deployments/", 3, true, "deploy"),
    ("/registry/services/specs/", 2, true, "svc"),
    ("/registry/leases/kube-node-lease/", 2, false, "node"),
    ("/registry/minions/", 2, false, "node"),
    ("/registry/cert-manager.io/certificates/", 2, true, "cert"),
];

struct Options {
    keys: usize,
    value_bytes: usize,
    runs: usize,
    binary: String,
    version: EtcdVersion,
    loaders: usize,
    baseline: Duration,
    gap: Duration,
    /// Builds whose `snapshot usage` is measured beside `binary`'s.
    compare: Vec<String>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let version_text: String = flag(&args, "--version").unwrap_or_else(|| "3.6".into());
    let seconds = |name: &str, default: f64| {
        Duration::from_secs_f64(flag::<f64>(&args, name).unwrap_or(default))
    };
    let options = Options {
        keys: flag(&args, "--keys").unwrap_or(1_000_000),
        value_bytes: flag(&args, "--value-bytes").unwrap_or(200),
        runs: flag(&args, "--runs").unwrap_or(3),
        binary: flag(&args, "--binary")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_kubectl-etcd").to_string()),
        version: EtcdVersion::parse(&version_text).expect("--version"),
        loaders: flag(&args, "--loaders").unwrap_or(8),
        baseline: seconds("--baseline-seconds", 10.0),
        gap: seconds("--gap-seconds", 3.0),
        compare: flag::<String>(&args, "--compare-binary")
            .into_iter()
            .collect(),
    };
    assert!(options.keys > 0 && options.loaders > 0);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench(&options));
}

/// The `i`-th key of the load.
fn key(i: usize) -> String {
    let mut share = i % 100;
    for (prefix, percent, namespaced, stem) in SPREAD {
        if share >= percent {
            share -= percent;
            continue;
        }
        return if namespaced {
            let ns = (i / 100) % NAMESPACES;
            format!("{prefix}ns-{ns:02}/{stem}-{i:07}")
        } else {
            format!("{prefix}{stem}-{i:07}")
        };
    }
    unreachable!("SPREAD adds up to 100")
}

/// One Put of the writer.
#[derive(Debug, Clone, Copy)]
struct Sample {
    sent: Instant,
    took: Duration,
}

impl Sample {
    /// Whether the Put was in flight at any time in `[from, to]`.
    fn overlaps(&self, (from, to): (Instant, Instant)) -> bool {
        self.sent <= to && self.sent + self.took >= from
    }
}

/// The writer: a Put every 10 ms until stopped.
struct Writer {
    samples: Arc<Mutex<Vec<Sample>>>,
    errors: Arc<Mutex<Vec<String>>>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Writer {
    fn start(client: Client) -> Writer {
        let samples = Arc::new(Mutex::new(Vec::new()));
        let errors = Arc::new(Mutex::new(Vec::new()));
        let stop = CancellationToken::new();
        let task = tokio::spawn(write(client, samples.clone(), errors.clone(), stop.clone()));
        Writer {
            samples,
            errors,
            stop,
            task,
        }
    }

    /// Fails the benchmark when any Put failed so far.
    fn check(&self) {
        let errors = self.errors.lock().unwrap();
        assert!(
            errors.is_empty(),
            "{} of the writer's Puts failed, the first: {}",
            errors.len(),
            errors[0]
        );
    }

    /// Stops it once every Put sent is answered; answers every Put.
    async fn finish(mut self) -> Vec<Sample> {
        self.stop.cancel();
        (&mut self.task).await.expect("the writer");
        self.check();
        let mut samples = self.samples.lock().unwrap().clone();
        samples.sort_by_key(|s| s.sent);
        samples
    }
}

async fn write(
    client: Client,
    samples: Arc<Mutex<Vec<Sample>>>,
    errors: Arc<Mutex<Vec<String>>>,
    stop: CancellationToken,
) {
    let mut tick = tokio::time::interval(WRITER_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut in_flight = tokio::task::JoinSet::new();
    let value = vec![b'w'; WRITER_VALUE];
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tick.tick() => {}
        }
        while in_flight.try_join_next().is_some() {}
        let (mut c, value) = (client.clone(), value.clone());
        let (samples, errors) = (samples.clone(), errors.clone());
        in_flight.spawn(async move {
            let sent = Instant::now();
            match c.put(WRITER_KEY, value, None).await {
                Ok(_) => samples.lock().unwrap().push(Sample {
                    sent,
                    took: sent.elapsed(),
                }),
                Err(e) => errors
                    .lock()
                    .unwrap()
                    .push(format!("Put {WRITER_KEY}: {e}")),
            }
        });
    }
    while in_flight.join_next().await.is_some() {}
}

/// One run of a measured command.
struct Run {
    window: (Instant, Instant),
    wall: Duration,
    stderr: String,
}

/// Runs `program` with `args`, its stdout to /dev/null unless `capture`;
/// fails the benchmark unless it exits 0. Answers the run and its stdout.
async fn run(program: &str, args: &[String], capture: bool) -> (Run, String) {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(if capture {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped());
    // Everything the commands need is on their command line.
    for (name, _) in std::env::vars() {
        if name.starts_with("ETCDCTL_") {
            command.env_remove(name);
        }
    }
    let start = Instant::now();
    let out = command
        .output()
        .await
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    let end = Instant::now();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "{program} {args:?} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    (
        Run {
            window: (start, end),
            wall: end - start,
            stderr,
        },
        stdout,
    )
}

/// What the writer saw over some windows.
struct Seen {
    puts: usize,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

fn seen(samples: &[Sample], windows: &[(Instant, Instant)]) -> Seen {
    let took: Vec<Duration> = samples
        .iter()
        .filter(|s| windows.iter().any(|&w| s.overlaps(w)))
        .map(|s| s.took)
        .collect();
    assert!(
        !took.is_empty(),
        "the writer answered no Put in a phase: is it running?"
    );
    Seen {
        puts: took.len(),
        p50: quantile(&took, 50),
        p99: quantile(&took, 99),
        max: took.iter().copied().max().unwrap_or_default(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Loads `keys` keys into the cluster through member `leader`; answers the
/// revision of the last Txn.
async fn load(cluster: &Cluster, leader: usize, options: &Options) -> i64 {
    let next = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let value = vec![b'v'; options.value_bytes];
    let mut loaders = tokio::task::JoinSet::new();
    for _ in 0..options.loaders {
        // Bulk writes of a large backend can take a while to fsync.
        let mut c = cluster
            .client_with_timeout(leader, Duration::from_secs(120))
            .await
            .expect("a loading client");
        let (next, done, value, keys) = (next.clone(), done.clone(), value.clone(), options.keys);
        loaders.spawn(async move {
            let mut revision = 0;
            loop {
                let first = next.fetch_add(PER_TXN, Ordering::Relaxed);
                if first >= keys {
                    return revision;
                }
                let last = (first + PER_TXN).min(keys);
                let ops: Vec<TxnOp> = (first..last)
                    .map(|i| TxnOp::put(key(i), value.clone(), None))
                    .collect();
                let answer = c
                    .txn(Txn::new().and_then(ops))
                    .await
                    .unwrap_or_else(|e| panic!("load keys {first}..{last}: {e}"));
                revision = answer.header().map(|h| h.revision()).unwrap_or(0);
                done.fetch_add(last - first, Ordering::Relaxed);
            }
        });
    }
    let started = Instant::now();
    let mut report = tokio::time::interval(Duration::from_secs(15));
    report.tick().await;
    let mut revision = 0;
    loop {
        tokio::select! {
            finished = loaders.join_next() => match finished {
                Some(r) => revision = revision.max(r.expect("a loader")),
                None => break,
            },
            _ = report.tick() => {
                let n = done.load(Ordering::Relaxed);
                eprintln!(
                    "bench: loaded {n} of {} keys in {:.0} s",
                    options.keys,
                    started.elapsed().as_secs_f64()
                );
            }
        }
    }
    revision
}

/// Waits until every member has applied `revision`, so that a follower's
/// serializable read sees every key.
async fn settle(cluster: &Cluster, revision: i64) {
    let deadline = Instant::now() + Duration::from_secs(120);
    for i in 0..cluster.members.len() {
        let mut c = cluster.client(i).await.expect("a client");
        loop {
            let status = c.status().await.expect("Status");
            let at = status.header().map(|h| h.revision()).unwrap_or(0);
            if at >= revision {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{} is still at revision {at} of {revision} after 120 s",
                cluster.members[i].name
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The machine, for the report.
fn machine() -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|l| l.trim_start_matches([' ', '\t', ':']).to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let memory = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| format!("{:.0} GiB", kb as f64 / 1024.0 / 1024.0))
        .unwrap_or_else(|| "unknown memory".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let load = read("/proc/loadavg");
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!(
        "nproc {cores}, {model}, {memory}; load average before the benchmark {}",
        load.join(" ")
    )
}

/// The leader's term and index, as Status reports them.
async fn leadership(cluster: &Cluster) -> (u64, usize) {
    let leader = cluster.leader().await.expect("a leader");
    let mut c = cluster.client(leader).await.expect("a client");
    let term = c.status().await.expect("Status").raft_term();
    (term, leader)
}

async fn bench(options: &Options) {
    let machine = machine();
    let etcdctl = bins::etcdctl(options.version)
        .expect("etcdctl in the test bed cache")
        .display()
        .to_string();
    let cluster = Cluster::start(ClusterSpec::new(3, Security::MutualTls).version(options.version))
        .await
        .expect("start the cluster");
    let (term, leader) = leadership(&cluster).await;
    let mut leader_client = cluster.client(leader).await.expect("a client");
    let status = leader_client.status().await.expect("Status");
    let etcd_version = status.version().to_string();

    eprintln!(
        "bench: loading {} keys of {} value bytes into etcd {etcd_version} through {} ({} loaders, Txns of {PER_TXN} Puts)",
        options.keys, options.value_bytes, cluster.members[leader].name, options.loaders
    );
    let started = Instant::now();
    let revision = load(&cluster, leader, options).await;
    let loading = started.elapsed();
    settle(&cluster, revision).await;
    let settled = started.elapsed();
    let db_size = leader_client.status().await.expect("Status").db_size();
    eprintln!(
        "bench: loaded in {:.1} s ({:.0} keys/s), every member at revision {revision} after {:.1} s; the leader's db {:.0} MiB",
        loading.as_secs_f64(),
        options.keys as f64 / loading.as_secs_f64(),
        settled.as_secs_f64(),
        db_size as f64 / 1048576.0
    );

    if options.runs == 0 {
        snapshot_usage(options, &cluster, leader).await;
        return;
    }

    let mut usage_args: Vec<String> = vec![
        "usage".into(),
        "--endpoints".into(),
        cluster.endpoints().join(","),
    ];
    usage_args.extend(cluster.security_flags());
    usage_args.extend(["--window", "0", "-o", "json"].map(String::from));
    // The writer's key is written before anything is measured: every read
    // must report the loaded keys and it.
    leader_client
        .put(WRITER_KEY, vec![b'w'; WRITER_VALUE], None)
        .await
        .expect("the writer's first Put");
    let expected = options.keys as u64 + 1;

    let writer = Writer::start(cluster.client(leader).await.expect("the writer's client"));
    // Let its connection warm up before the baseline counts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let baseline_from = Instant::now();
    tokio::time::sleep(options.baseline).await;
    let baseline = (baseline_from, Instant::now());
    writer.check();

    let mut usage_runs = Vec::new();
    let mut etcdctl_runs = Vec::new();
    for r in 1..=options.runs {
        tokio::time::sleep(options.gap).await;
        let (usage, stdout) = run(&options.binary, &usage_args, true).await;
        let report: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("usage -o json is not JSON ({e}):\n{stdout}"));
        let keys = report["keys"].as_u64().expect("keys in the report");
        let source = report["source"]
            .as_str()
            .expect("source in the report")
            .to_string();
        assert_eq!(
            report["complete"],
            serde_json::Value::Bool(true),
            "run {r}: usage says its read is incomplete:\n{stdout}"
        );
        assert_eq!(
            keys, expected,
            "run {r}: usage reported {keys} keys of {expected}"
        );
        eprintln!(
            "bench: run {r}: usage {:.2} s, {keys} keys from {source} ({}) in {} pages, read {:.2} s",
            usage.wall.as_secs_f64(),
            report["role"].as_str().unwrap_or("?"),
            report["pages"],
            report["readSeconds"].as_f64().unwrap_or(0.0),
        );
        print_stderr("usage", &usage.stderr);
        if r == 1 {
            let groups = report["groups"].as_array().expect("groups in the report");
            let largest: Vec<String> = groups
                .iter()
                .take(4)
                .map(|g| format!("{} {} keys", g["prefix"].as_str().unwrap_or("?"), g["keys"]))
                .collect();
            eprintln!(
                "bench: {} groups, the largest: {}",
                groups.len(),
                largest.join(", ")
            );
        }
        writer.check();

        let follower = cluster
            .members
            .iter()
            .position(|m| m.name == source)
            .unwrap_or_else(|| panic!("usage read {source}, which is not a member"));
        tokio::time::sleep(options.gap).await;
        let mut get_args: Vec<String> = vec![
            format!("--endpoints={}", cluster.members[follower].client_url),
            "--command-timeout=300s".into(),
        ];
        get_args.extend(cluster.security_flags());
        get_args.extend(
            [
                "get",
                "",
                "--from-key",
                "--consistency=s",
                "--limit",
                "0",
                "-w",
                "protobuf",
            ]
            .map(String::from),
        );
        let (get, _) = run(&etcdctl, &get_args, false).await;
        eprintln!(
            "bench: run {r}: etcdctl get {:.2} s from {source}",
            get.wall.as_secs_f64()
        );
        print_stderr("etcdctl", &get.stderr);
        writer.check();
        usage_runs.push((usage, keys));
        etcdctl_runs.push(get);
    }
    tokio::time::sleep(options.gap).await;
    let end = Instant::now();
    let samples = writer.finish().await;
    let (term_after, leader_after) = leadership(&cluster).await;

    // The writer alone between the commands: after the baseline, outside
    // every command's window.
    let busy: Vec<(Instant, Instant)> = usage_runs
        .iter()
        .map(|(u, _)| u.window)
        .chain(etcdctl_runs.iter().map(|g| g.window))
        .collect();
    let mut between = Vec::new();
    let mut from = baseline.1;
    let mut sorted = busy.clone();
    sorted.sort();
    for &(start, stop) in &sorted {
        between.push((from, start));
        from = stop;
    }
    between.push((from, end));
    // A Put in flight when a command started or ended belongs to it.
    let alone: Vec<Sample> = samples
        .iter()
        .copied()
        .filter(|s| !busy.iter().any(|&w| s.overlaps(w)))
        .collect();

    let a = seen(&samples, &[baseline]);
    let b_windows: Vec<_> = usage_runs.iter().map(|(u, _)| u.window).collect();
    let c_windows: Vec<_> = etcdctl_runs.iter().map(|g| g.window).collect();
    let b = seen(&samples, &b_windows);
    let c = seen(&samples, &c_windows);
    let gaps = seen(&alone, &between);

    println!();
    println!(
        "Per run, the writer's Puts while the command ran (seconds from the baseline's start):"
    );
    let at = |t: Instant| (t - baseline.0).as_secs_f64();
    for (r, ((u, _), g)) in usage_runs.iter().zip(&etcdctl_runs).enumerate() {
        for (what, run) in [("B usage", u), ("C etcdctl get", g)] {
            let s = seen(&samples, &[run.window]);
            println!(
                "  run {}, {what}: +{:.2}–{:.2} s, {:.2} s; {} Puts, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
                r + 1,
                at(run.window.0),
                at(run.window.1),
                run.wall.as_secs_f64(),
                s.puts,
                ms(s.p50),
                ms(s.p99),
                ms(s.max),
            );
        }
    }
    // Where the slowest Puts fell: a stall between the commands is the
    // machine's, not the read's.
    let mut slowest: Vec<&Sample> = samples.iter().filter(|s| s.sent >= baseline.0).collect();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.took));
    println!("The writer's slowest Puts (seconds from the baseline's start):");
    for s in slowest.iter().take(5) {
        let mut phases: Vec<String> = Vec::new();
        if s.overlaps(baseline) {
            phases.push("A".into());
        }
        for (r, ((u, _), g)) in usage_runs.iter().zip(&etcdctl_runs).enumerate() {
            if s.overlaps(u.window) {
                phases.push(format!("B run {}", r + 1));
            }
            if s.overlaps(g.window) {
                phases.push(format!("C run {}", r + 1));
            }
        }
        if phases.is_empty() {
            phases.push("between the commands".into());
        }
        println!(
            "  {:.1} ms, sent at +{:.2} s: {}",
            ms(s.took),
            (s.sent - baseline.0).as_secs_f64(),
            phases.join(", ")
        );
    }
    println!();

    let walls = |runs: &[&Run]| -> (Duration, Duration, Duration) {
        let w: Vec<Duration> = runs.iter().map(|r| r.wall).collect();
        (
            quantile(&w, 50),
            w.iter().copied().min().unwrap_or_default(),
            w.iter().copied().max().unwrap_or_default(),
        )
    };
    let usage_refs: Vec<&Run> = usage_runs.iter().map(|(u, _)| u).collect();
    let get_refs: Vec<&Run> = etcdctl_runs.iter().collect();
    let (u_median, u_min, u_max) = walls(&usage_refs);
    let (g_median, g_min, g_max) = walls(&get_refs);
    let keys_per_second = |d: Duration| format_thousands(expected as f64 / d.as_secs_f64());
    let added = |s: &Seen| {
        let d = ms(s.max) - ms(a.max);
        format!("{d:+.1} ms")
    };
    let runs = match options.runs {
        1 => "1 run".to_string(),
        n => format!("{n} runs"),
    };
    println!(
        "| phase | wall time, median (min–max) | keys/s | writer Puts | writer p50 | writer p99 | writer max | max − baseline max |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| A: the writer alone, {:.0} s | – | – | {} | {:.1} ms | {:.1} ms | {:.1} ms | – |",
        options.baseline.as_secs_f64(),
        a.puts,
        ms(a.p50),
        ms(a.p99),
        ms(a.max)
    );
    println!(
        "| B: `kubectl-etcd usage --window 0 -o json`, {} | {:.2} s ({:.2}–{:.2} s) | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | **{}** |",
        runs,
        u_median.as_secs_f64(),
        u_min.as_secs_f64(),
        u_max.as_secs_f64(),
        keys_per_second(u_median),
        b.puts,
        ms(b.p50),
        ms(b.p99),
        ms(b.max),
        added(&b)
    );
    println!(
        "| C: `etcdctl get \"\" --from-key --consistency=s --limit 0 -w protobuf`, {} | {:.2} s ({:.2}–{:.2} s) | {} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {} |",
        runs,
        g_median.as_secs_f64(),
        g_min.as_secs_f64(),
        g_max.as_secs_f64(),
        keys_per_second(g_median),
        c.puts,
        ms(c.p50),
        ms(c.p99),
        ms(c.max),
        added(&c)
    );
    println!(
        "| the writer alone between the commands | – | – | {} | {:.1} ms | {:.1} ms | {:.1} ms | {} |",
        gaps.puts,
        ms(gaps.p50),
        ms(gaps.p99),
        ms(gaps.max),
        added(&gaps)
    );
    println!();
    println!(
        "{} keys ({} value bytes each, Kubernetes-like prefixes) loaded in {:.1} s ({:.0} keys/s, {} loaders, Txns of {PER_TXN} Puts), every member caught up after {:.1} s; db {:.0} MiB",
        options.keys,
        options.value_bytes,
        loading.as_secs_f64(),
        options.keys as f64 / loading.as_secs_f64(),
        options.loaders,
        settled.as_secs_f64(),
        db_size as f64 / 1048576.0
    );
    println!(
        "3 members, mutual TLS, etcd {etcd_version}; the writer Puts {WRITER_VALUE} bytes to the leader ({}) every {} ms; B and C alternate, {:.0} s apart",
        cluster.members[leader].name,
        WRITER_EVERY.as_millis(),
        options.gap.as_secs_f64()
    );
    println!("machine: {machine}");
    let verdict = if ms(b.max) - ms(a.max) < 50.0 {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "target (usage adds under 50 ms to the writer's largest latency): {verdict} ({})",
        added(&b)
    );
    if term_after != term || leader_after != leader {
        println!(
            "WARNING: leadership changed during the benchmark (term {term} → {term_after}, {} → {}): Puts after it went through a follower",
            cluster.members[leader].name, cluster.members[leader_after].name
        );
    }
    snapshot_usage(options, &cluster, leader).await;
}

/// Phase D: `snapshot usage` of a snapshot of a follower, offline: its wall
/// time and peak memory (GNU time's maximum resident set size), for
/// `--binary` and every `--compare-binary`, alternating, `--runs` (at
/// least 1) of each. Every build must report the same keys and groups.
async fn snapshot_usage(options: &Options, cluster: &Cluster, leader: usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("snapshot.db").display().to_string();
    let follower = (leader + 1) % cluster.members.len();
    let mut save: Vec<String> = vec![
        "snapshot".into(),
        "save".into(),
        "--endpoints".into(),
        cluster.endpoints().join(","),
        "--member".into(),
        cluster.members[follower].name.clone(),
    ];
    save.extend(cluster.security_flags());
    save.push(file.clone());
    let (saved, _) = run(&options.binary, &save, false).await;
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "bench: saved {:.0} MiB from {} in {:.1} s",
        size as f64 / 1048576.0,
        cluster.members[follower].name,
        saved.wall.as_secs_f64()
    );
    let builds: Vec<&String> = std::iter::once(&options.binary)
        .chain(&options.compare)
        .collect();
    let mut measured: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); builds.len()];
    let mut reports: Vec<serde_json::Value> = Vec::new();
    for r in 1..=options.runs.max(1) {
        for (b, build) in builds.iter().enumerate() {
            let args: Vec<String> = vec![
                "-f".into(),
                "%M".into(),
                build.to_string(),
                "snapshot".into(),
                "usage".into(),
                "-o".into(),
                "json".into(),
                file.clone(),
            ];
            let (run, stdout) = run("/usr/bin/time", &args, true).await;
            let kib: u64 = run
                .stderr
                .lines()
                .last()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or_else(|| panic!("GNU time's %M in:\n{}", run.stderr));
            let report: serde_json::Value = serde_json::from_str(&stdout)
                .unwrap_or_else(|e| panic!("snapshot usage -o json is not JSON ({e}):\n{stdout}"));
            eprintln!(
                "bench: run {r}: {build} snapshot usage {:.2} s, {} MiB resident at most, {} keys",
                run.wall.as_secs_f64(),
                kib / 1024,
                report["keys"]
            );
            measured[b].push((run.wall, kib * 1024));
            reports.push(report);
        }
    }
    let keys = reports[0]["keys"].as_u64().expect("keys in the report");
    assert!(
        keys >= options.keys as u64,
        "{keys} keys of {}",
        options.keys
    );
    for report in &reports {
        assert_eq!(report["keys"], reports[0]["keys"]);
        assert_eq!(report["groups"], reports[0]["groups"]);
    }
    println!();
    println!(
        "`snapshot usage` of a {:.0} MiB snapshot of {keys} keys (a follower's), {} run(s) of each build:",
        size as f64 / 1048576.0,
        options.runs.max(1)
    );
    println!("| build | wall time, median (min–max) | peak resident, median | per key |");
    println!("|---|---|---|---|");
    for (build, runs) in builds.iter().zip(&measured) {
        let walls: Vec<Duration> = runs.iter().map(|r| r.0).collect();
        let mut peaks: Vec<u64> = runs.iter().map(|r| r.1).collect();
        peaks.sort_unstable();
        let peak = peaks[peaks.len() / 2];
        println!(
            "| {build} | {:.2} s ({:.2}–{:.2} s) | {:.0} MiB | {:.0} B |",
            quantile(&walls, 50).as_secs_f64(),
            walls
                .iter()
                .min()
                .copied()
                .unwrap_or_default()
                .as_secs_f64(),
            walls
                .iter()
                .max()
                .copied()
                .unwrap_or_default()
                .as_secs_f64(),
            peak as f64 / 1048576.0,
            peak as f64 / keys as f64
        );
    }
}

/// A command's stderr, indented, when it wrote any.
fn print_stderr(what: &str, stderr: &str) {
    if stderr.trim().is_empty() {
        return;
    }
    eprintln!("bench: {what} stderr:");
    for line in stderr.lines() {
        eprintln!("    {line}");
    }
}

/// `1234567.8` as `1,234,568`.
fn format_thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}
