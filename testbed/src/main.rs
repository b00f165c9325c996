//! `testbed`: start a real etcd cluster on loopback and keep it running
//! until interrupted. Used by the README's first-look command and by the
//! benchmark scripts; tests use the library directly.
//!
//!     testbed up --members 3 --security mtls --env-file /tmp/etcd.env

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use kubectl_etcd_testbed::delay::Delay;
use kubectl_etcd_testbed::{Cluster, ClusterSpec, EtcdVersion, Security};

#[derive(Parser)]
#[command(
    name = "testbed",
    about = "Real etcd clusters on loopback for kubectl-etcd"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// A real one-node Kubernetes cluster (`testbed node up`).
    Node {
        #[command(subcommand)]
        command: NodeCmd,
    },
    /// Start a cluster, write its ETCDCTL_* settings, wait for Ctrl-C/SIGTERM.
    Up(UpArgs),
    /// Randomized faults during `kubectl-etcd defrag`, judged by the
    /// members' own logs; exit 1 on any violation. A round replays alone
    /// with `--seed S --from-round R --rounds 1`.
    Soak(SoakArgs),
}

#[derive(clap::Args)]
struct SoakArgs {
    /// The seed (default: from the clock; printed first either way).
    #[arg(long)]
    seed: Option<u64>,
    #[arg(long, default_value_t = 10)]
    rounds: u64,
    /// The first round's number.
    #[arg(long, default_value_t = 0)]
    from_round: u64,
    /// 3.7, 3.6, 3.5 or 3.4 (or a pinned release: 3.6.5, 3.5.23)
    #[arg(long, default_value = "3.6")]
    version: String,
    /// The kubectl-etcd binary under test.
    #[arg(long, default_value = "target/debug/kubectl-etcd")]
    tool: PathBuf,
    /// Faults fall within this many ms of the tool's start.
    #[arg(long, default_value_t = 3000)]
    span_ms: u64,
    /// MB written per member before each round (30% kept).
    #[arg(long, default_value_t = 80)]
    fragment_mb: u64,
    /// Print each round's plan and run nothing.
    #[arg(long)]
    plan_only: bool,
    /// sweep (the one-shot command, run here) or watch (`--watch`, whose
    /// rounds run in tests/k8s_soak_watch.rs: here only with --plan-only).
    #[arg(long, default_value = "sweep")]
    target: String,
}

#[derive(clap::Args)]
struct UpArgs {
    #[arg(long, default_value_t = 3)]
    members: usize,
    /// plain, tls, mtls or mtls-auth
    #[arg(long, default_value = "mtls")]
    security: String,
    /// 3.7, 3.6, 3.5 or 3.4 (or a pinned release: 3.6.5, 3.5.23)
    #[arg(long, default_value = "3.6")]
    version: String,
    #[arg(long)]
    quota_backend_bytes: Option<u64>,
    /// Keep data and certificates here (default: a temporary folder).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Write `export ETCDCTL_…=…` lines here once the cluster is ready.
    #[arg(long)]
    env_file: Option<PathBuf>,
    /// Fragment the members first: write this many MB, delete most, compact.
    #[arg(long, default_value_t = 0)]
    fragment_mb: u64,
    /// Share of the written data to keep when fragmenting.
    #[arg(long, default_value_t = 0.1)]
    keep: f64,
    /// etcd --log-level for the members.
    #[arg(long, default_value = "warn")]
    log_level: String,
    /// Put each member's client port behind a proxy adding this round
    /// trip (half each way), as if the members were that far away; 0 puts
    /// the proxy in without delay.
    #[arg(long)]
    rtt_ms: Option<u64>,
    /// Up to this much more each way, at random (with --rtt-ms).
    #[arg(long, default_value_t = 0)]
    jitter_ms: u64,
}

#[derive(Subcommand)]
enum NodeCmd {
    /// Start the control plane and the node, write KUBECONFIG and the
    /// image settings, wait for Ctrl-C/SIGTERM, then remove everything.
    Up {
        /// Write `export KUBECONFIG=…`, `TESTBED_ETCD_VERSIONS=…`,
        /// `TESTBED_ETCD_IMAGE_REPOSITORY=…`, `TESTBED_STORAGE_CLASS=…` (and
        /// with --operator `TESTBED_OPERATOR_NAMESPACE=…`) here once the
        /// node is Ready.
        #[arg(long)]
        env_file: Option<PathBuf>,
        /// etcd releases to build images for (3.7, 3.6, 3.5, 3.4, or a
        /// pinned release: 3.6.5, 3.5.23), comma-separated.
        #[arg(long, default_value = "3.6")]
        etcd: String,
        /// Also run the real etcd-operator in a Pod, with the CRDs of its
        /// own chart: `defrag` (the default: its own EtcdDefrag and
        /// EtcdDefragPolicy controllers, `testbed/build.sh operator-defrag`)
        /// or `inert` (the EtcdDefrag type without its controller,
        /// `testbed/build.sh operator`).
        #[arg(long, num_args = 0..=1, default_missing_value = "defrag", value_parser = kubectl_etcd_testbed::operator::Operator::parse)]
        operator: Option<kubectl_etcd_testbed::operator::Operator>,
        /// Make the node a kubeadm control plane: etcd as kubeadm's static
        /// Pod, laid out by the real kubeadm's own phases
        /// (`testbed/build.sh kubeadm`), and the node marked as kubeadm
        /// marks one.
        #[arg(long)]
        kubeadm: bool,
        /// With --kubeadm: this many control-plane nodes (each its own
        /// network namespace, containerd and kubelet), their etcd members
        /// one cluster.
        #[arg(long, default_value_t = 1, requires = "kubeadm", value_parser = clap::value_parser!(u8).range(1..=3))]
        control_planes: u8,
    },
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "testbed: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Waits for Ctrl-C or SIGTERM.
async fn until_stopped() -> Result<(), String> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| e.to_string())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    Ok(())
}

/// Writes `text` to `path` through a temporary file, so a reader never
/// sees half of it.
fn write_env(path: &std::path::Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(|e| format!("write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("rename {}: {e}", path.display()))
}

async fn node_up(
    env_file: Option<PathBuf>,
    etcd: &str,
    operator: Option<kubectl_etcd_testbed::operator::Operator>,
    (kubeadm, control_planes): (bool, usize),
) -> Result<(), String> {
    use kubectl_etcd_testbed::node::{Node, NodeSpec, ETCD_REPOSITORY};
    use kubectl_etcd_testbed::operator::OPERATOR_NAMESPACE;
    use kubectl_etcd_testbed::storage::STORAGE_CLASS;
    let started = std::time::Instant::now();
    let versions = etcd
        .split(',')
        .map(|v| EtcdVersion::parse(v.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let node = Node::start(NodeSpec {
        etcd_versions: versions,
        crds: Vec::new(),
        operator,
        etcd_io_operator: false,
        kubeadm,
        control_planes,
    })
    .await?;
    let releases: Vec<String> = node
        .images
        .iter()
        .filter_map(|i| {
            i.strip_prefix(&format!("{ETCD_REPOSITORY}:v"))
                .map(str::to_string)
        })
        .collect();
    let mut text = format!(
        "export KUBECONFIG='{}'\nexport TESTBED_ETCD_VERSIONS='{}'\nexport TESTBED_ETCD_IMAGE_REPOSITORY='{ETCD_REPOSITORY}'\nexport TESTBED_STORAGE_CLASS='{STORAGE_CLASS}'\n",
        node.kubeconfig()?.display(),
        releases.join(" "),
    );
    if operator.is_some() {
        text.push_str(&format!(
            "export TESTBED_OPERATOR_NAMESPACE='{OPERATOR_NAMESPACE}'\n"
        ));
    }
    if let Some(path) = env_file {
        write_env(&path, &text)?;
    }
    let _ = write!(
        std::io::stderr(),
        "testbed: node Ready in {:.1}s ({})\n{text}",
        started.elapsed().as_secs_f64(),
        node.dir().display()
    );
    until_stopped().await?;
    drop(node);
    Ok(())
}

async fn run(cli: Cli) -> Result<(), String> {
    let args = match cli.command {
        Cmd::Node {
            command:
                NodeCmd::Up {
                    env_file,
                    etcd,
                    operator,
                    kubeadm,
                    control_planes,
                },
        } => {
            let control_planes = usize::from(control_planes);
            return node_up(env_file, &etcd, operator, (kubeadm, control_planes)).await;
        }
        Cmd::Up(args) => args,
        // Stopped, the round in progress is dropped: its cluster's members
        // are killed and its folder removed.
        Cmd::Soak(args) => {
            return tokio::select! {
                done = soak(args) => done,
                stopped = until_stopped() => stopped.and(Err("stopped".into())),
            }
        }
    };
    let UpArgs {
        members,
        security,
        version,
        quota_backend_bytes,
        dir,
        env_file,
        fragment_mb,
        keep,
        log_level,
        rtt_ms,
        jitter_ms,
    } = args;
    let mut spec = ClusterSpec::new(members, Security::parse(&security)?)
        .version(EtcdVersion::parse(&version)?);
    spec.quota_backend_bytes = quota_backend_bytes;
    spec.dir = dir;
    spec.delay =
        rtt_ms.map(|ms| Delay::rtt_ms(ms).with_jitter(std::time::Duration::from_millis(jitter_ms)));
    spec.log_level = match log_level.as_str() {
        "debug" => "debug",
        "info" => "info",
        "warn" => "warn",
        "error" => "error",
        other => return Err(format!("unknown --log-level {other}")),
    };
    let cluster = Cluster::start(spec).await?;
    if fragment_mb > 0 {
        cluster.fragment(fragment_mb * 1_000_000, keep).await?;
    }
    let mut text = String::new();
    for (k, v) in cluster.env() {
        text.push_str(&format!("export {k}='{v}'\n"));
    }
    if let Some(path) = env_file {
        write_env(&path, &text)?;
    }
    let _ = write!(
        std::io::stderr(),
        "testbed: {members}-member {security} etcd {version} cluster ready in {}\n{text}",
        cluster.dir().display()
    );
    until_stopped().await?;
    drop(cluster);
    Ok(())
}

async fn soak(args: SoakArgs) -> Result<(), String> {
    use kubectl_etcd_testbed::soak::run::{round, Settings};
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let _ = writeln!(std::io::stdout(), "seed {seed}");
    let settings = Settings {
        seed,
        version: EtcdVersion::parse(&args.version)?,
        tool: args.tool,
        span_ms: args.span_ms,
        fragment_mb: args.fragment_mb,
    };
    match (args.target.as_str(), args.plan_only) {
        ("sweep", _) | ("watch", true) => {}
        ("watch", false) => {
            return Err(
                "the watch target runs in tests/k8s_soak_watch.rs: scripts/soak.sh --target watch"
                    .into(),
            )
        }
        (other, _) => return Err(format!("--target {other}: sweep or watch")),
    }
    if args.plan_only {
        for r in args.from_round..args.from_round + args.rounds {
            let _ = if args.target == "watch" {
                let plan = kubectl_etcd_testbed::soak::plan_watch_round(seed, r, args.span_ms);
                writeln!(std::io::stdout(), "round {r}: {plan:?}")
            } else {
                let plan = kubectl_etcd_testbed::soak::plan_round(seed, r, args.span_ms);
                writeln!(std::io::stdout(), "round {r}: {plan:?}")
            };
        }
        return Ok(());
    }
    let (mut faults, mut violations) = (0usize, 0usize);
    let mut by_kind = std::collections::BTreeMap::<&str, usize>::new();
    for r in args.from_round..args.from_round + args.rounds {
        let result = round(&settings, r).await?;
        faults += result.plan.faults.len();
        for f in &result.plan.faults {
            *by_kind.entry(f.kind()).or_default() += 1;
        }
        let kinds: Vec<String> = result
            .plan
            .faults
            .iter()
            .map(|f| format!("{}@{}ms", f.kind(), f.at_ms()))
            .collect();
        let fired = if result.fired.is_empty() {
            String::new()
        } else {
            format!(" ({})", result.fired.join(", "))
        };
        let _ = writeln!(
            std::io::stdout(),
            "round {r}: {} members, faults [{}]{fired}, exit {}, {} defrag(s) logged, {} violation(s)",
            result.plan.members,
            kinds.join(", "),
            result.exit,
            result.defragmented,
            result.violations.len()
        );
        if let Some(text) = &result.evidence {
            let keep = format!("soak-{seed}-{r}.txt");
            std::fs::write(&keep, text).map_err(|e| format!("write {keep}: {e}"))?;
            let _ = writeln!(
                std::io::stdout(),
                "  faults: {:?}; evidence in {keep}",
                result.plan.faults
            );
        }
        for v in &result.violations {
            let _ = writeln!(
                std::io::stdout(),
                "  VIOLATION (seed {seed} round {r}): {v}"
            );
        }
        violations += result.violations.len();
        let _ = std::io::stdout().flush();
    }
    let _ = writeln!(
        std::io::stdout(),
        "{} rounds, {faults} faults ({by_kind:?}), {violations} violation(s)",
        args.rounds
    );
    if violations > 0 {
        return Err(format!("{violations} violation(s)"));
    }
    Ok(())
}
