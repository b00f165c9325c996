//! `testbed`: start a real etcd cluster on loopback and keep it running
//! until interrupted. Used by the README's first-look command and by the
//! benchmark scripts; tests use the library directly.
//!
//!     testbed up --members 3 --security mtls --env-file /tmp/etcd.env

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
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
    /// Start a cluster, write its ETCDCTL_* settings, wait for Ctrl-C/SIGTERM.
    Up {
        #[arg(long, default_value_t = 3)]
        members: usize,
        /// plain, tls, mtls or mtls-auth
        #[arg(long, default_value = "mtls")]
        security: String,
        /// 3.6, 3.5 or 3.4
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

async fn run(cli: Cli) -> Result<(), String> {
    let Cmd::Up {
        members,
        security,
        version,
        quota_backend_bytes,
        dir,
        env_file,
        fragment_mb,
        keep,
        log_level,
    } = cli.command;
    let mut spec = ClusterSpec::new(members, Security::parse(&security)?)
        .version(EtcdVersion::parse(&version)?);
    spec.quota_backend_bytes = quota_backend_bytes;
    spec.dir = dir;
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
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, &text).map_err(|e| format!("write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &path).map_err(|e| format!("rename {}: {e}", path.display()))?;
    }
    let _ = write!(
        std::io::stderr(),
        "testbed: {members}-member {security} etcd {version} cluster ready in {}\n{text}",
        cluster.dir().display()
    );
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| e.to_string())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    drop(cluster);
    Ok(())
}
