//! The `kubectl-etcd` binary: parse flags, run, map the outcome to an exit
//! code. Everything else lives in the library.

use std::process::ExitCode;

use kubectl_etcd::settings::usage;
use kubectl_etcd::{logging, ExitStatus};

fn main() -> ExitCode {
    // In an agent Pod on a control plane's node: run the command line as
    // a child and frame what it writes (`agent::relay`).
    if kubectl_etcd::agent::relay::is_relay() {
        return ExitCode::from(kubectl_etcd::agent::relay::main());
    }
    if let Some(words) = completion_words() {
        return complete(&words);
    }
    // The etcd-operator plugin's `snapshot PATH` is `snapshot save PATH`.
    let (args, spelled) =
        kubectl_etcd::settings::compat::rewrite_argv(std::env::args_os().collect());
    let cli = match kubectl_etcd::cli::parse(args) {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    logging::init(cli.global.verbose, cli.global.log_format);
    if let Some(note) = spelled {
        logging::message(&format!("note: {note}"));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            logging::error(&format!("cannot start the async runtime: {e}"));
            return ExitCode::from(ExitStatus::Failed.code());
        }
    };
    let status = match runtime.block_on(kubectl_etcd::commands::run(cli.into())) {
        Ok(status) => status,
        // A refusal is the tool's decision, said as it is; anything else
        // is an error.
        Err(kubectl_etcd::Error::Refused(why)) => {
            logging::warn(&why);
            ExitStatus::Failed
        }
        Err(e) => {
            logging::error(&e.to_string());
            e.exit_status()
        }
    };
    ExitCode::from(status.code())
}

/// The words of a completion request, when this is one: kubectl runs
/// `kubectl_complete-etcd WORDS…` (this binary under that name, or the
/// script in `completions/` that calls `kubectl-etcd __complete WORDS…`).
fn completion_words() -> Option<Vec<String>> {
    let mut args = std::env::args_os().map(|a| a.to_string_lossy().into_owned());
    let program = args.next()?;
    let name = std::path::Path::new(&program)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let rest: Vec<String> = args.collect();
    if name.starts_with("kubectl_complete-") {
        return Some(rest);
    }
    match rest.split_first() {
        Some((first, words)) if first == "__complete" => Some(words.to_vec()),
        _ => None,
    }
}

/// Answers a completion request on stdout (Cobra reads the directive line;
/// a lookup that failed is in it, and the exit code stays 0).
fn complete(words: &[String]) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(_) => return ExitCode::SUCCESS,
    };
    match runtime.block_on(kubectl_etcd::commands::complete::run(words)) {
        Ok(status) => ExitCode::from(status.code()),
        Err(e) => {
            logging::error(&e.to_string());
            ExitCode::from(e.exit_status().code())
        }
    }
}

/// Help and version go to stdout with exit 0; a usage error is one line on
/// stderr that names the problem (and where a bad value came from), then a
/// pointer to `--help`, exit 2.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let _ = e.print();
            ExitCode::from(ExitStatus::Usage.code())
        }
        _ => {
            let argv: Vec<String> = std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let line = usage::explain(&usage::ClapFailure::of(&e), &argv, &|var| {
                std::env::var(var).ok()
            });
            logging::error(&line);
            ExitCode::from(ExitStatus::Usage.code())
        }
    }
}
