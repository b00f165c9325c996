//! What a client was told when its request failed, sorted by etcd's own
//! error text. The messages are etcd's `rpctypes` errors as a gRPC status
//! carries them; the client library adds its own wrapping, so matching is
//! by the distinctive part of each message.

use std::fmt;

/// The kind of a failed (or slow) request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `etcdserver: too many requests`: the member's committed index is
    /// more than 5000 entries ahead of its applied index, so it refuses new
    /// proposals at once (`maxGapBetweenApplyAndCommitIndex`).
    TooManyRequests,
    /// `etcdserver: request timed out`: the proposal was not applied on the
    /// member within etcd's request timeout (5 s + 2 × election timeout).
    Timeout,
    /// `... possibly due to previous leader failure`: the same timeout, with
    /// a leader change since the request was sent.
    TimeoutLeaderChange,
    /// `... possibly due to connection lost`.
    TimeoutConnectionLost,
    /// `... waiting for the applied index took too long`.
    TimeoutAppliedIndex,
    /// `etcdserver: leader changed`.
    LeaderChanged,
    /// `etcdserver: no leader`.
    NoLeader,
    /// `raft proposal dropped`: the leader refused the proposal (a transfer
    /// in progress) and said so to the member the client talks to.
    ProposalDropped,
    /// The client's own 10 s deadline passed with no answer.
    ClientTimeout,
    /// The connection itself failed (unavailable, reset, refused).
    Connection,
    /// Succeeded, but took at least `SLOW_SECONDS`.
    Slow,
    /// Anything else, with the server's message.
    Other(String),
}

/// A request that succeeded this slowly is counted with the failures.
pub const SLOW_SECONDS: f64 = 1.0;

/// Sorts one error message. Pure.
pub fn classify(message: &str) -> Kind {
    let m = message.to_ascii_lowercase();
    if m.contains("too many requests") {
        Kind::TooManyRequests
    } else if m.contains("possibly due to previous leader failure") {
        Kind::TimeoutLeaderChange
    } else if m.contains("possibly due to connection lost") {
        Kind::TimeoutConnectionLost
    } else if m.contains("waiting for the applied index took too long") {
        Kind::TimeoutAppliedIndex
    } else if m.contains("request timed out") {
        Kind::Timeout
    } else if m.contains("leader changed") {
        Kind::LeaderChanged
    } else if m.contains("no leader") {
        Kind::NoLeader
    } else if m.contains("proposal dropped") {
        Kind::ProposalDropped
    } else if m.contains("timeout expired") || m.contains("deadline") {
        Kind::ClientTimeout
    } else if m.contains("unavailable")
        || m.contains("transport error")
        || m.contains("connection")
        || m.contains("broken pipe")
    {
        Kind::Connection
    } else {
        Kind::Other(message.chars().take(80).collect())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::TooManyRequests => f.write_str("too many requests"),
            Kind::Timeout => f.write_str("request timed out"),
            Kind::TimeoutLeaderChange => f.write_str("timed out, previous leader failure"),
            Kind::TimeoutConnectionLost => f.write_str("timed out, connection lost"),
            Kind::TimeoutAppliedIndex => f.write_str("timed out waiting for applied index"),
            Kind::LeaderChanged => f.write_str("leader changed"),
            Kind::NoLeader => f.write_str("no leader"),
            Kind::ProposalDropped => f.write_str("proposal dropped"),
            Kind::ClientTimeout => f.write_str("no answer in 10 s"),
            Kind::Connection => f.write_str("connection failed"),
            Kind::Slow => write!(f, "slow (≥ {SLOW_SECONDS} s, succeeded)"),
            Kind::Other(m) => write!(f, "other: {m}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etcd_messages_sort_into_kinds() {
        let cases = [
            (
                "grpc request error: status: Unavailable, message: \"etcdserver: too many requests\"",
                Kind::TooManyRequests,
            ),
            (
                "grpc request error: status: Unavailable, message: \"etcdserver: request timed out\"",
                Kind::Timeout,
            ),
            (
                "etcdserver: request timed out, possibly due to previous leader failure",
                Kind::TimeoutLeaderChange,
            ),
            (
                "etcdserver: request timed out, possibly due to connection lost",
                Kind::TimeoutConnectionLost,
            ),
            (
                "etcdserver: request timed out, waiting for the applied index took too long",
                Kind::TimeoutAppliedIndex,
            ),
            ("etcdserver: leader changed", Kind::LeaderChanged),
            ("etcdserver: no leader", Kind::NoLeader),
            ("status: Unknown, message: \"raft proposal dropped\"", Kind::ProposalDropped),
            (
                "grpc request error: status: Cancelled, message: \"Timeout expired\"",
                Kind::ClientTimeout,
            ),
            ("transport error", Kind::Connection),
            (
                "status: Unavailable, message: \"error trying to connect\"",
                Kind::Connection,
            ),
            (
                "mvcc: database space exceeded",
                Kind::Other("mvcc: database space exceeded".into()),
            ),
        ];
        for (message, want) in cases {
            assert_eq!(classify(message), want, "{message}");
        }
    }

    #[test]
    fn labels_are_distinct() {
        let kinds = [
            Kind::TooManyRequests,
            Kind::Timeout,
            Kind::TimeoutLeaderChange,
            Kind::TimeoutConnectionLost,
            Kind::TimeoutAppliedIndex,
            Kind::LeaderChanged,
            Kind::NoLeader,
            Kind::ProposalDropped,
            Kind::ClientTimeout,
            Kind::Connection,
            Kind::Slow,
        ];
        let labels: std::collections::BTreeSet<String> =
            kinds.iter().map(|k| k.to_string()).collect();
        assert_eq!(labels.len(), kinds.len());
    }
}
