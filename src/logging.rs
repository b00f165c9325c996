//! Logging to stderr only (stdout carries results). `RUST_LOG` wins over
//! `-v`; the default shows warnings.

use std::io::Write;

use tracing_subscriber::EnvFilter;

/// Installs the subscriber. `verbose` is the count of `-v`.
pub fn init(verbose: u8) {
    let default = match verbose {
        0 => "kubectl_etcd=warn",
        1 => "kubectl_etcd=info,warn",
        2 => "kubectl_etcd=debug,info",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// A message for the person at the terminal (not a log line): one line on
/// stderr prefixed with the program name.
pub fn message(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "kubectl-etcd: {text}");
}
