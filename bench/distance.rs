//! Distance benchmark (issues 26 and 39): a cluster as far away as a
//! user's laptop, bastion or CronJob in another cluster is, on every etcd
//! release the test bed has, in standalone and in plugin mode. Run through
//! `bench/distance.sh` (a release build).
//!
//! For each mode, release and round trip in `--rtts` (default 0,10,40 ms):
//! a 3-member etcd cluster in mutual TLS whose client ports sit behind the
//! test bed's delay proxy (half the round trip each way; members advertise
//! the proxy, so discovery through MemberList lands on it too). Standalone,
//! every command gets one seed endpoint and finds the others; in plugin
//! mode the cluster is an EtcdCluster on the test bed's kube-apiserver,
//! which sits behind a delay proxy of its own, as far away, and the tool
//! dials the members directly (`--connect=direct`). In one run,
//! interleaved after a warm-up each, `--runs` times:
//!
//! - `kubectl-etcd`: `status`, `status -o wide`, `members`, `alarm list`,
//!   `defrag --dry-run`, `defrag -y` with nothing due, `doctor`,
//!   `usage --window 0`; the same from `--before PATH` (another build, to
//!   compare);
//! - etcdctl of the same release (standalone): `endpoint status
//!   --cluster`, `endpoint health --cluster`, `member list`, `alarm list`.
//!
//! For each: the median wall time, and the round trips it made, counted by
//! the proxies (causal depth: the last answer the command could have
//! waited on, across every member, `kubectl_etcd_testbed::delay::Rounds`;
//! at 0 ms there is no depth to count). In plugin mode the API server's
//! round trips are counted apart.
//!
//! Flags: `--rtts 0,10,40`, `--runs 5`, `--binary PATH` (the build to
//! measure, default this one), `--before PATH`, `--versions
//! 3.4,3.5,3.6,3.7`, `--modes standalone,plugin`.

// A benchmark program: its report is what it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_macros)]

#[path = "common.rs"]
mod common;

#[path = "../tests/support/mod.rs"]
mod support;

use common::{flag, quantile};
use std::time::{Duration, Instant};

use kubectl_etcd_testbed::delay::{Delay, Proxy};
use kubectl_etcd_testbed::{bins, Cluster, ClusterSpec, EtcdVersion, Security};

/// The looking commands of kubectl-etcd, as words after the cluster.
const OURS: [&[&str]; 8] = [
    &["status", "-o", "json"],
    &["status", "-o", "wide"],
    &["members", "-o", "json"],
    &["alarm", "list", "-o", "json"],
    &["defrag", "--dry-run", "-o", "json"],
    &["defrag", "-y", "-o", "json"],
    &["doctor", "-o", "json", "--fail-on", "never"],
    &["usage", "--window", "0", "-o", "json"],
];

/// etcdctl's nearest commands.
const ETCDCTL: [&[&str]; 4] = [
    &["endpoint", "status", "--cluster", "-w", "json"],
    &["endpoint", "health", "--cluster"],
    &["member", "list", "-w", "json"],
    &["alarm", "list"],
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let list = |name: &str, default: &str| -> Vec<String> {
        flag::<String>(&args, name)
            .unwrap_or_else(|| default.into())
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let rtts: Vec<u64> = list("--rtts", "0,10,40")
        .iter()
        .map(|s| s.parse().expect("--rtts: milliseconds, comma-separated"))
        .collect();
    let plan = Plan {
        rtts,
        runs: flag(&args, "--runs").unwrap_or(5),
        binary: flag(&args, "--binary")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_kubectl-etcd").to_string()),
        before: flag(&args, "--before"),
    };
    let versions: Vec<(String, EtcdVersion)> = list("--versions", "3.4,3.5,3.6,3.7")
        .into_iter()
        .map(|v| {
            let parsed = EtcdVersion::parse(&v).expect("--versions: 3.4, 3.5, 3.6 or 3.7");
            (v, parsed)
        })
        .collect();
    let modes = list("--modes", "standalone,plugin");
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            println!("| mode | etcd | command | round trip | median (p90) | round trips | before: median | before: round trips |");
            println!("|---|---|---|---|---|---|---|---|");
            for mode in &modes {
                for (label, version) in &versions {
                    for &rtt in &plan.rtts {
                        match mode.as_str() {
                            "standalone" => standalone(&plan, *version, label, rtt).await,
                            "plugin" => plugin(&plan, *version, label, rtt).await,
                            other => panic!("--modes: standalone or plugin, not {other}"),
                        }
                    }
                }
            }
            println!(
                "{} interleaved runs of each command after a warm-up; 3 members, mutual TLS",
                plan.runs
            );
        });
}

/// What every setting measures.
struct Plan {
    rtts: Vec<u64>,
    runs: usize,
    binary: String,
    before: Option<String>,
}

/// One command of the comparison: its label, program, arguments and
/// environment, and whether it is the build under comparison.
struct Command {
    label: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    before: bool,
}

/// What the runs of one command gave.
#[derive(Default)]
struct Measured {
    times: Vec<Duration>,
    rounds: Vec<u64>,
    api_rounds: Vec<u64>,
}

async fn standalone(plan: &Plan, version: EtcdVersion, label: &str, rtt: u64) {
    let spec = ClusterSpec::new(3, Security::MutualTls)
        .version(version)
        .delay(Delay::rtt_ms(rtt));
    let cluster = Cluster::start(spec).await.expect("start the cluster");
    let mut env = cluster.env();
    let seed = cluster.endpoints()[0].clone();
    for (k, v) in env.iter_mut() {
        if k == "ETCDCTL_ENDPOINTS" {
            *v = seed.clone();
        }
    }
    let etcdctl = bins::etcdctl(version)
        .expect("etcdctl in the test bed cache")
        .display()
        .to_string();
    let mut commands = ours(plan, &[], &env);
    commands.extend(ETCDCTL.iter().map(|words| Command {
        label: format!("etcdctl {}", words.join(" ")),
        program: etcdctl.clone(),
        args: words.iter().map(|s| s.to_string()).collect(),
        env: env.clone(),
        before: false,
    }));
    measure(plan, "standalone", label, rtt, &commands, &cluster, None).await;
}

async fn plugin(plan: &Plan, version: EtcdVersion, label: &str, rtt: u64) {
    use support::k8s::*;
    let client = admin().await;
    let ns = "distance";
    let name = format!("v{}-{rtt}", label.replace('.', ""));
    let delay = Delay::rtt_ms(rtt);
    let fx = fixture_at(&client, ns, &name, Mode::Mtls, version, 3, Some(delay)).await;
    let api = apiserver_proxy(delay).await;
    let kc = kubeconfig_via(
        &format!("https://{}", api.addr()),
        "distance-bench.yaml",
        &[ns],
    );
    let cluster_words = [
        format!("--kubeconfig={}", kc.display()),
        "--connect=direct".to_string(),
    ];
    let commands: Vec<Command> = ours(plan, &cluster_words, &[])
        .into_iter()
        .map(|mut c| {
            // The cluster's name goes after the command's own words.
            let at = if c.args[2] == "alarm" { 4 } else { 3 };
            c.args.insert(at, name.clone());
            c.args.insert(at + 1, "-n".into());
            c.args.insert(at + 2, ns.into());
            c
        })
        .collect();
    measure(plan, "plugin", label, rtt, &commands, &fx.etcd, Some(&api)).await;
}

/// kubectl-etcd's commands, from this build and the one before when
/// given, with `first` before each command's words.
fn ours(plan: &Plan, first: &[String], env: &[(String, String)]) -> Vec<Command> {
    let builds =
        std::iter::once((&plan.binary, false)).chain(plan.before.as_ref().map(|b| (b, true)));
    let mut out = Vec::new();
    for (program, before) in builds {
        for words in OURS {
            let mut args = first.to_vec();
            args.extend(words.iter().map(|s| s.to_string()));
            out.push(Command {
                label: format!("kubectl-etcd {}", words.join(" ")),
                program: program.clone(),
                args,
                env: env.to_vec(),
                before,
            });
        }
    }
    out
}

async fn measure(
    plan: &Plan,
    mode: &str,
    release: &str,
    rtt: u64,
    commands: &[Command],
    cluster: &Cluster,
    api: Option<&Proxy>,
) {
    for c in commands {
        run(c).await;
    }
    let mut measured: Vec<Measured> = commands.iter().map(|_| Measured::default()).collect();
    for _ in 0..plan.runs {
        for (c, m) in commands.iter().zip(measured.iter_mut()) {
            cluster.reset_round_trips();
            if let Some(api) = api {
                api.reset_round_trips();
            }
            m.times.push(run(c).await);
            m.rounds.push(cluster.round_trips());
            m.api_rounds.push(api.map(Proxy::round_trips).unwrap_or(0));
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let time = |m: &Measured| {
        format!(
            "{:.0} ms ({:.0})",
            ms(quantile(&m.times, 50)),
            ms(quantile(&m.times, 90))
        )
    };
    let rounds = |m: &Measured| {
        if rtt == 0 {
            return "-".to_string();
        }
        let median = |v: &[u64]| {
            let mut v = v.to_vec();
            v.sort();
            v[v.len() / 2]
        };
        match api {
            Some(_) => format!("{} etcd + {} API", median(&m.rounds), median(&m.api_rounds)),
            None => median(&m.rounds).to_string(),
        }
    };
    for (i, (c, m)) in commands.iter().zip(&measured).enumerate() {
        if c.before {
            continue;
        }
        let before = commands
            .iter()
            .zip(&measured)
            .skip(i + 1)
            .find(|(b, _)| b.before && b.label == c.label)
            .map(|(_, b)| b);
        println!(
            "| {mode} | {release} | `{}` | {rtt} ms | {} | {} | {} | {} |",
            c.label,
            time(m),
            rounds(m),
            before.map(time).unwrap_or_else(|| "-".into()),
            before.map(rounds).unwrap_or_else(|| "-".into()),
        );
    }
}

/// One run's wall time; it must exit 0 (or 1: a finding, a gate refusal).
async fn run(c: &Command) -> Duration {
    let t0 = Instant::now();
    let out = tokio::process::Command::new(&c.program)
        .args(&c.args)
        .envs(c.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("run the command");
    let took = t0.elapsed();
    assert!(
        matches!(out.status.code(), Some(0) | Some(1)),
        "{} {:?} failed: {}{}",
        c.program,
        c.args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    took
}
