//! The crate's error type and how each error maps to an exit code.
//!
//! Every variant names the thing that was wrong (a flag, an endpoint, a member)
//! so that the one line printed by `main` tells an operator what to fix.
//! `Error::exit_status` is the single place that decides between exit 1 (the
//! tool ran and refused or partly failed) and exit 2 (usage, configuration or
//! resolution error: nothing was changed).

use std::fmt;

use crate::failure::{ConnectFailure, FailureCause, RpcError};

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
    /// 130: interrupted (Ctrl-C; for `defrag`, twice); what was done is
    /// reported.
    Interrupted,
    /// 129 (128 + SIGHUP): the terminal hung up; the command stopped as on
    /// Ctrl-C and reported what was done.
    HungUp,
    /// 143 (128 + SIGTERM): told to terminate (`kill`, Kubernetes stopping
    /// the Pod); the command stopped as on Ctrl-C and reported what was done.
    Terminated,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failed => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Interrupted => 130,
            ExitStatus::HungUp => 129,
            ExitStatus::Terminated => 143,
        }
    }
}

/// Everything that can stop a command. Variants keep their sources (the
/// etcd or Kubernetes error, the I/O error) rather than a pre-formatted
/// string; `Display` still gives one line, naming the thing that was wrong.
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

    /// A Kubernetes API call failed: the server's own message for API
    /// errors (a 403 names the user, verb and resource), else the cause of
    /// the transport failure and the server it was sent to.
    #[error("{action}: {}", describe_kube(server, source))]
    Kube {
        action: String,
        server: String,
        source: Box<kube::Error>,
    },

    /// Setting up a connection through Kubernetes (a port-forward listener)
    /// failed locally.
    #[error("{action}: {source}")]
    Local {
        action: String,
        source: std::io::Error,
    },

    /// The EtcdCluster could not be turned into members to dial.
    #[error("{0}")]
    Resolve(String),

    /// An etcd call that the command needed failed.
    #[error("{action}: {source}")]
    Etcd { action: String, source: RpcError },

    /// The cluster is not in a state the command can act on (no leader, no
    /// voter to take over); the message says what to do.
    #[error("{0}")]
    Refused(String),

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

    /// The cluster is a control plane's etcd, whose client certificates
    /// are on its nodes only: a command about it runs there, in an agent
    /// Pod (`crate::agent`), which `commands::run` starts on this error.
    #[error("{namespace}/{name} is a control plane's etcd, reached through an agent Pod on its nodes one cluster at a time (its client certificates never leave them): name it, {name} -n {namespace}")]
    OnNode { namespace: String, name: String },
}

impl Error {
    /// Which exit code this error ends the process with.
    pub fn exit_status(&self) -> ExitStatus {
        match self {
            Error::Usage(_)
            | Error::ReadFile { .. }
            | Error::NoEndpointAnswered(_)
            | Error::Kube { .. }
            | Error::Local { .. }
            | Error::Resolve(_)
            | Error::Render(_)
            | Error::OnNode { .. } => ExitStatus::Usage,
            // A user without the role a call needs is configuration (the
            // user or its roles), whichever command met it: the sweep
            // stops on it the same way (`StopReason::PermissionDenied`).
            Error::Etcd { source, .. } if source.cause == FailureCause::PermissionDenied => {
                ExitStatus::Usage
            }
            Error::Output(_) | Error::Etcd { .. } | Error::Refused(_) | Error::Failed(_) => {
                ExitStatus::Failed
            }
        }
    }

    /// A refusal: nothing was changed, and the message says why and what
    /// to do. Every command refuses this one way (said on stderr, exit 1).
    pub fn refused(why: impl fmt::Display) -> Self {
        Error::Refused(why.to_string())
    }

    /// Shorthand for a usage error.
    pub fn usage(message: impl fmt::Display) -> Self {
        Error::Usage(message.to_string())
    }

    /// A failed Kubernetes API call, keeping its source.
    pub fn kube(action: impl Into<String>, server: &str, source: kube::Error) -> Self {
        Error::Kube {
            action: action.into(),
            server: server.to_string(),
            source: Box::new(source),
        }
    }

    /// A failed etcd call, keeping its source.
    pub fn etcd(action: impl Into<String>, source: RpcError) -> Self {
        Error::Etcd {
            action: action.into(),
            source,
        }
    }
}

/// A file system error as a clause: the system's words, lower-case,
/// without Rust's `(os error N)` ("no such file or directory").
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// Joins an error and its sources into one line, skipping repeats: the raw
/// chains of tonic, hyper, rustls and kube repeat themselves.
pub fn chain_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    parts.join(": ")
}

fn describe_kube(server: &str, source: &kube::Error) -> String {
    match source {
        kube::Error::Api(status) => status.message.clone(),
        other => {
            let text = chain_text(other);
            let limit = match text.ends_with("request timed out") {
                true => " (no answer within --request-timeout)",
                false => "",
            };
            format!("cannot reach the Kubernetes API server at {server}: {text}{limit}")
        }
    }
}

fn describe_unreachable(failures: &[ConnectFailure]) -> String {
    match failures {
        [] => "no etcd endpoint was given".to_string(),
        [one] => format!("cannot use etcd at {}: {}", one.endpoint, one.cause),
        many if many.iter().all(|f| f.cause == many[0].cause) => {
            let endpoints: Vec<&str> = many.iter().map(|f| f.endpoint.as_str()).collect();
            // Every member answered, the same refusal (a wrong password):
            // the answer is the news, not the silence.
            if many[0].cause.is_an_answer() {
                return format!(
                    "{} (every endpoint answered so: {})",
                    many[0].cause,
                    endpoints.join(", ")
                );
            }
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

#[cfg(test)]
mod unreachable_tests {
    use super::describe_unreachable;
    use crate::failure::{ConnectFailure, FailureCause};

    fn at(endpoint: &str, cause: FailureCause) -> ConnectFailure {
        ConnectFailure {
            endpoint: endpoint.into(),
            cause,
        }
    }

    /// A refusal every member gave is said as their answer; silence as
    /// silence (issue 46: "no etcd endpoint answered: authentication
    /// failed" when every member had answered).
    #[test]
    fn an_answer_every_member_gave_is_not_silence() {
        let auth = || FailureCause::AuthFailed {
            user: "root".into(),
        };
        assert_eq!(
            describe_unreachable(&[at("https://a:2379", auth()), at("https://b:2379", auth())]),
            "authentication failed for user \"root\": wrong user name or password (every endpoint answered so: https://a:2379, https://b:2379)"
        );
        assert_eq!(
            describe_unreachable(&[
                at("https://a:2379", FailureCause::Refused),
                at("https://b:2379", FailureCause::Refused)
            ]),
            format!(
                "no etcd endpoint answered: {} (tried https://a:2379, https://b:2379)",
                FailureCause::Refused
            )
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn etcd(cause: FailureCause) -> Error {
        Error::etcd(
            "save a snapshot",
            RpcError {
                endpoint: "https://10.0.0.1:2379".into(),
                op: "Snapshot",
                cause,
            },
        )
    }

    /// The documented contract (docs/cli.md, Exit codes): configuration,
    /// including a user without the role, is 2; a refusal or failure of a
    /// run is 1.
    #[test]
    fn each_error_has_its_documented_exit_code() {
        let table = [
            (Error::usage("--keep: not a number"), 2),
            (etcd(FailureCause::PermissionDenied), 2),
            (etcd(FailureCause::ConnectionLost), 1),
            (etcd(FailureCause::Other("disk full".into())), 1),
            (Error::refused("the health gate refuses"), 1),
            (crate::output::prompt::not_confirmed(), 1),
            (Error::Failed("the API server dropped the value".into()), 1),
            (Error::Resolve("no EtcdCluster x".into()), 2),
            (Error::NoEndpointAnswered(vec![]), 2),
        ];
        for (error, code) in table {
            assert_eq!(error.exit_status().code(), code, "{error}");
        }
    }
}
