//! The crate's error type and how each error maps to an exit code.
//!
//! Every variant names the thing that was wrong (a flag, an endpoint, a member)
//! so that the one line printed by `main` tells an operator what to fix.
//! `Error::exit_status` is the single place that decides between exit 1 (the
//! tool ran and refused or partly failed) and exit 2 (usage, configuration or
//! resolution error: nothing was changed).

use std::fmt;

use crate::etcd::ConnectFailure;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a run ended, as documented in `docs/cli.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: done.
    Success,
    /// 1: ran, but the health gate refused or something partly failed.
    Failed,
    /// 2: usage, configuration or resolution error; nothing was changed.
    Usage,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failed => 1,
            ExitStatus::Usage => 2,
        }
    }
}

/// Everything that can stop a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag or argument is wrong; the message names it.
    #[error("{0}")]
    Usage(String),

    /// A file named by a flag could not be read.
    #[error("cannot read {flag} file {path}: {source}")]
    ReadFile {
        flag: &'static str,
        path: String,
        source: std::io::Error,
    },

    /// No seed endpoint could be used; each attempt is listed.
    #[error("{}", describe_unreachable(.0))]
    NoEndpointAnswered(Vec<ConnectFailure>),

    /// A Kubernetes API call failed (the message names the action; a 403
    /// carries the server's text naming the user, verb and resource).
    #[error("{0}")]
    Kube(String),

    /// The EtcdCluster could not be turned into members to dial.
    #[error("{0}")]
    Resolve(String),

    /// An etcd call that the command needed failed.
    #[error("{0}")]
    Etcd(String),

    /// The tool ran and the change did not take (for example the API server
    /// refused or dropped a value); the message says what was rolled back.
    #[error("{0}")]
    Failed(String),

    /// Writing the result to stdout failed (other than a closed pipe).
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),

    /// Serialising a report failed.
    #[error("cannot render output: {0}")]
    Render(String),
}

impl Error {
    /// Which exit code this error ends the process with.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Error::Usage(_)
            | Error::ReadFile { .. }
            | Error::NoEndpointAnswered(_)
            | Error::Kube(_)
            | Error::Resolve(_)
            | Error::Render(_) => ExitStatus::Usage,
            Error::Output(_) | Error::Etcd(_) | Error::Failed(_) => ExitStatus::Failed,
        }
    }

    /// Shorthand for a usage error.
    pub fn usage(message: impl fmt::Display) -> Self {
        Error::Usage(message.to_string())
    }
}

fn describe_unreachable(failures: &[ConnectFailure]) -> String {
    match failures {
        [] => "no etcd endpoint was given".to_string(),
        [one] => format!("cannot use etcd at {}: {}", one.endpoint, one.cause),
        many if many.iter().all(|f| f.cause == many[0].cause) => {
            let endpoints: Vec<&str> = many.iter().map(|f| f.endpoint.as_str()).collect();
            format!(
                "no etcd endpoint answered: {} (tried {})",
                many[0].cause,
                endpoints.join(", ")
            )
        }
        many => {
            let parts: Vec<String> = many
                .iter()
                .map(|f| format!("{}: {}", f.endpoint, f.cause))
                .collect();
            format!("no etcd endpoint answered ({})", parts.join("; "))
        }
    }
}
