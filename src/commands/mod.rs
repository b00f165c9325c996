//! One module per command; each resolves its target, takes what it needs
//! from etcd, calls the pure stages and hands a report to `output`.

pub mod members;
pub mod status;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::error::{ExitStatus, Result};
use crate::etcd::EtcdClients;
use crate::target::flags::target_from_flags;
use crate::target::Target;

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<ExitStatus> {
    match &cli.command {
        Command::Status(args) => status::run(&cli.global, args).await,
        Command::Members => members::run(&cli.global).await,
        Command::Completion { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut command, "kubectl-etcd", &mut out);
            crate::output::emit(&String::from_utf8_lossy(&out))?;
            Ok(ExitStatus::Success)
        }
        Command::Version => {
            crate::output::emit(&format!("kubectl-etcd {}\n", env!("CARGO_PKG_VERSION")))?;
            Ok(ExitStatus::Success)
        }
    }
}

/// Resolves the target and its connections from the global flags.
pub(crate) fn connect(global: &GlobalArgs) -> Result<(Target, EtcdClients)> {
    let target = target_from_flags(global, |path| std::fs::read(path))?;
    let clients = EtcdClients::new(&target, global.dial_timeout, global.command_timeout);
    Ok((target, clients))
}
