//! What went wrong talking to etcd, as plain data (`RpcError`,
//! `ConnectFailure`, `FailureCause`), and turning transport, TLS and gRPC
//! failures into causes an operator can act
//! on. The raw error chains of tonic, hyper and rustls are accurate but read
//! like a stack trace at 3 a.m.; this maps them (purely, from their text) to
//! one sentence that says what is wrong and what to change.

use std::fmt;
use std::time::Duration;

/// Why a member could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureCause {
    /// Nothing answered in time (a stopped, partitioned or overloaded member).
    Timeout { after: Duration },
    /// The TCP connection was refused.
    Refused,
    /// The host name did not resolve.
    UnknownHost,
    /// The server certificate is not signed by the CA we were given.
    UntrustedServer {
        ca_origin: String,
        from: SettingsFrom,
    },
    /// The server certificate does not name the host we verified against.
    NameMismatch { host: String },
    /// The server certificate has expired or is not yet valid.
    CertificateExpired,
    /// The server wants a client certificate and none was sent.
    ClientCertRequired { from: SettingsFrom },
    /// The server refused the client certificate we sent.
    ClientCertRejected,
    /// Wrong user name or password.
    AuthFailed { user: String },
    /// Auth is on and no credentials were given.
    AuthRequired { from: SettingsFrom },
    /// The user is known but may not do this.
    PermissionDenied,
    /// Credentials were sent to a cluster without authentication.
    AuthNotEnabled,
    /// A member that had answered on this connection dropped it: it was
    /// stopped, killed or restarted.
    ConnectionLost,
    /// We spoke TLS to a plaintext listener.
    PlaintextServer { from: SettingsFrom },
    /// We spoke plaintext to a TLS listener.
    TlsServer { from: SettingsFrom },
    /// The requested revision was compacted away or is in the future
    /// (gRPC OutOfRange).
    RevisionUnavailable { detail: String },
    /// Not sent: the run was told to stop (or lost its Lease) while the
    /// connection was being made.
    Withheld,
    /// Anything else, with the underlying text.
    Other(String),
}

impl FailureCause {
    /// The member answered, and its answer is the failure (credentials,
    /// roles): not a member that could not be reached.
    pub fn is_an_answer(&self) -> bool {
        matches!(
            self,
            FailureCause::AuthFailed { .. }
                | FailureCause::AuthRequired { .. }
                | FailureCause::PermissionDenied
                | FailureCause::AuthNotEnabled
        )
    }
}

impl fmt::Display for FailureCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::Timeout { after } => write!(
                f,
                "no answer within {} (member stopped, partitioned or overloaded?)",
                crate::quantity::format_duration(*after)
            ),
            FailureCause::Refused => {
                write!(f, "connection refused (is the member running, and is the port right?)")
            }
            FailureCause::UnknownHost => write!(f, "host name does not resolve"),
            FailureCause::NameMismatch { host } => write!(
                f,
                "server certificate is not valid for {host} (dial a name or address the certificate lists)"
            ),
            FailureCause::CertificateExpired => {
                write!(f, "server certificate has expired or is not yet valid")
            }
            FailureCause::ClientCertRejected => write!(
                f,
                "the server rejected the client certificate (is it signed by a CA the members trust?)"
            ),
            FailureCause::AuthFailed { user } => write!(
                f,
                "authentication failed for user {user:?}: wrong user name or password"
            ),
            FailureCause::PermissionDenied => write!(
                f,
                "permission denied: the user lacks the role this needs (maintenance calls such as Defragment, MoveLeader, HashKV and Snapshot need the root role)"
            ),
            FailureCause::AuthNotEnabled => write!(
                f,
                "authentication is not enabled on this cluster, so no user name or password is needed"
            ),
            FailureCause::ConnectionLost => write!(
                f,
                "the connection was reset: the member stopped or restarted"
            ),
            FailureCause::RevisionUnavailable { detail } => {
                write!(f, "revision not available: {detail}")
            }
            FailureCause::Withheld => write!(f, "not sent: the run stopped just before it"),
            FailureCause::Other(text) => write!(f, "{text}"),
            FailureCause::UntrustedServer { .. }
            | FailureCause::ClientCertRequired { .. }
            | FailureCause::AuthRequired { .. }
            | FailureCause::PlaintextServer { .. }
            | FailureCause::TlsServer { .. } => self.settings_words(f),
        }
    }
}

impl FailureCause {
    /// The causes whose remedy depends on where the settings came from:
    /// flags to pass, or the EtcdCluster's settings that do not fit.
    fn settings_words(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureCause::UntrustedServer {
                ca_origin,
                from: SettingsFrom::Flags,
            } => write!(
                f,
                "server certificate is not signed by the CA in {ca_origin}: is that the CA that issued the members' certificates?"
            ),
            FailureCause::UntrustedServer {
                ca_origin,
                from: SettingsFrom::Cluster,
            } => write!(
                f,
                "server certificate is not signed by the CA in {ca_origin} (does its ca.crt hold the CA that issued the member certificates?)"
            ),
            FailureCause::ClientCertRequired {
                from: SettingsFrom::Flags,
            } => write!(
                f,
                "the server requires a client certificate: pass --cert and --key"
            ),
            FailureCause::ClientCertRequired {
                from: SettingsFrom::Cluster,
            } => write!(
                f,
                "the member requires a client certificate, and the EtcdCluster's TLS settings name no operator-client Secret or server keypair that it accepts"
            ),
            FailureCause::AuthRequired {
                from: SettingsFrom::Flags,
            } => write!(
                f,
                "authentication is enabled on this cluster: pass --user and --password"
            ),
            FailureCause::AuthRequired {
                from: SettingsFrom::Cluster,
            } => write!(
                f,
                "the member requires authentication, but the EtcdCluster does not report auth as enabled (status.authEnabled), so no credentials were sent"
            ),
            FailureCause::PlaintextServer {
                from: SettingsFrom::Flags,
            } => write!(
                f,
                "the server speaks plaintext: use an http:// endpoint without TLS flags"
            ),
            FailureCause::PlaintextServer {
                from: SettingsFrom::Cluster,
            } => write!(
                f,
                "the member speaks plaintext, but the EtcdCluster's TLS settings say TLS"
            ),
            FailureCause::TlsServer {
                from: SettingsFrom::Flags,
            } => {
                write!(f, "the server expects TLS: use an https:// endpoint with --cacert")
            }
            FailureCause::TlsServer {
                from: SettingsFrom::Cluster,
            } => write!(
                f,
                "the member expects TLS, but the EtcdCluster's TLS settings say plaintext"
            ),
            _ => Ok(()),
        }
    }
}

/// A seed or member that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectFailure {
    pub endpoint: String,
    pub cause: FailureCause,
}

/// A failed RPC: where it went, what it was, and why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub endpoint: String,
    pub op: &'static str,
    pub cause: FailureCause,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}: {}", self.op, self.endpoint, self.cause)
    }
}

impl std::error::Error for RpcError {}

/// Where the connection settings came from, so that a remedy names what
/// to change: a flag, or the EtcdCluster and its Secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SettingsFrom {
    #[default]
    Flags,
    Cluster,
}

/// What we knew about the attempt, to phrase the cause.
#[derive(Debug, Clone, Default)]
pub struct AttemptContext {
    /// Flags (standalone) or an EtcdCluster (plugin mode).
    pub from: SettingsFrom,
    /// Where the CA came from (`--cacert` path or Secret name).
    pub ca_origin: Option<String>,
    /// The user we authenticated as.
    pub user: Option<String>,
    /// The host name the certificate was verified against.
    pub tls_host: String,
    /// Whether we dialed with TLS.
    pub tls: bool,
    /// Whether we presented a client certificate.
    pub client_identity: bool,
    /// Whether this member has answered this process before, with these
    /// same settings: a dropped connection then means the member went
    /// away, not a TLS mismatch.
    pub answered_before: bool,
}

/// Classifies a failure from the text of its whole error chain (joined with
/// `": "`). Pure; table-tested against the strings real servers produced.
pub fn classify(chain: &str, ctx: &AttemptContext) -> FailureCause {
    let text = chain.to_ascii_lowercase();
    // Some layers print an io::ErrorKind in Debug form (`Kind(ConnectionReset)`),
    // so each needle is also looked for with its spaces removed.
    let squeezed: String = text.chars().filter(|c| *c != ' ').collect();
    let has = |needle: &str| text.contains(needle) || squeezed.contains(&needle.replace(' ', ""));

    if has("authentication failed") || has("invalid user id or password") {
        return FailureCause::AuthFailed {
            user: ctx.user.clone().unwrap_or_default(),
        };
    }
    if has("user name is empty") || has("invalid auth token") && ctx.user.is_none() {
        return FailureCause::AuthRequired { from: ctx.from };
    }
    if has("permission denied") && !has("os error 13") {
        return FailureCause::PermissionDenied;
    }
    if has("authentication is not enabled") {
        return FailureCause::AuthNotEnabled;
    }
    if has("unknownissuer") || has("unknown issuer") || has("badsignature") {
        return FailureCause::UntrustedServer {
            ca_origin: ctx.ca_origin.clone().unwrap_or_else(|| "--cacert".into()),
            from: ctx.from,
        };
    }
    if has("notvalidforname") || has("not valid for name") {
        return FailureCause::NameMismatch {
            host: ctx.tls_host.clone(),
        };
    }
    if has("certificate expired") || has("expired") && has("certificate") || has("notvalidyet") {
        return FailureCause::CertificateExpired;
    }
    if has("certificaterequired") || has("certificate required") {
        return FailureCause::ClientCertRequired { from: ctx.from };
    }
    // A server that wants a client certificate and got none may answer
    // with a bad-certificate alert (etcd 3.4's Go 1.19 TLS stack does).
    if !ctx.client_identity && ctx.tls && (has("badcertificate") || has("bad certificate")) {
        return FailureCause::ClientCertRequired { from: ctx.from };
    }
    if has("badcertificate")
        || has("bad certificate")
        || has("unknownca")
        || has("unknown ca")
        || has("unsupportedcertificate")
        || has("certificateunknown")
    {
        // A TLS 1.2 server that wants a client certificate and got none
        // answers with a bad-certificate alert too.
        return FailureCause::ClientCertRejected;
    }
    // The settings worked with this member before: a reset or closed
    // connection is the member going away (killed, stopped, restarting),
    // not one of the mismatches guessed below.
    if ctx.answered_before
        && !has("tcp connect error")
        && !has("connection refused")
        && !has("dns error")
        && (has("connection reset")
            || has("broken pipe")
            || has("connection closed")
            || has("unexpected eof")
            || has("connection was not ready")
            || has("transport error"))
    {
        return FailureCause::ConnectionLost;
    }
    // Under TLS 1.3 a server that requires a client certificate sends its
    // alert after the handshake; depending on timing the client sees the
    // alert or only the closed connection.
    if ctx.tls
        && !ctx.client_identity
        && (has("broken pipe")
            || has("connection reset")
            || has("connection closed")
            || has("connection was not ready"))
    {
        return FailureCause::ClientCertRequired { from: ctx.from };
    }
    if ctx.tls
        && (has("invalidcontenttype")
            || has("corrupt message")
            || has("invalid content type")
            || has("wrong version number"))
    {
        return FailureCause::PlaintextServer { from: ctx.from };
    }
    if has("connection refused") {
        return FailureCause::Refused;
    }
    if has("failed to lookup address") || has("name or service not known") || has("dns error") {
        return FailureCause::UnknownHost;
    }
    // Two requests on one plaintext connection to a TLS port: the one that
    // loses the race sees the connection dropped before it was ready.
    if !ctx.tls
        && (has("connection reset")
            || has("broken pipe")
            || has("connection was not ready")
            || has("frame with invalid size")
            || has("http2 error")
            || has("h2 protocol error")
            || has("connection closed")
            || has("unexpected eof"))
    {
        return FailureCause::TlsServer { from: ctx.from };
    }
    FailureCause::Other(chain.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls_ctx() -> AttemptContext {
        AttemptContext {
            from: SettingsFrom::Flags,
            ca_origin: Some("/tmp/ca.pem".into()),
            user: Some("root".into()),
            tls_host: "127.0.0.1".into(),
            tls: true,
            client_identity: true,
            answered_before: false,
        }
    }

    #[test]
    fn chains_map_to_actionable_causes() {
        let plain = AttemptContext::default();
        let cases: Vec<(&str, AttemptContext, FailureCause)> = vec![
            (
                "transport error: error trying to connect: tcp connect error: Connection refused (os error 111)",
                plain.clone(),
                FailureCause::Refused,
            ),
            (
                "transport error: error trying to connect: invalid peer certificate: UnknownIssuer",
                tls_ctx(),
                FailureCause::UntrustedServer {
                    ca_origin: "/tmp/ca.pem".into(),
                    from: SettingsFrom::Flags,
                },
            ),
            (
                "status: Unavailable, message: \"error trying to connect: received fatal alert: CertificateRequired\"",
                tls_ctx(),
                FailureCause::ClientCertRequired { from: SettingsFrom::Flags },
            ),
            (
                "grpc request error: status: InvalidArgument, message: \"etcdserver: authentication failed, invalid user ID or password\"",
                tls_ctx(),
                FailureCause::AuthFailed { user: "root".into() },
            ),
            (
                "grpc request error: status: InvalidArgument, message: \"etcdserver: user name is empty\"",
                plain.clone(),
                FailureCause::AuthRequired { from: SettingsFrom::Flags },
            ),
            (
                "invalid peer certificate: certificate not valid for name \"10.0.0.1\"; certificate is only valid for IpAddress(127.0.0.1)",
                tls_ctx(),
                FailureCause::NameMismatch { host: "127.0.0.1".into() },
            ),
            (
                "received corrupt message of type InvalidContentType",
                tls_ctx(),
                FailureCause::PlaintextServer { from: SettingsFrom::Flags },
            ),
            ("h2 protocol error: http2 error: connection reset", plain.clone(), FailureCause::TlsServer { from: SettingsFrom::Flags }),
            (
                "grpc request error: code: 'Unknown error', message: \"transport error\", source: tonic::transport::Error(Transport, hyper::Error(Io, Kind(ConnectionReset)))",
                plain.clone(),
                FailureCause::TlsServer { from: SettingsFrom::Flags },
            ),
            (
                "grpc request error: transport error: connection closed because of a broken pipe",
                AttemptContext { client_identity: false, ..tls_ctx() },
                FailureCause::ClientCertRequired { from: SettingsFrom::Flags },
            ),
            (
                "grpc request error: code: 'The operation was cancelled', message: \"operation was canceled\", source: tonic::transport::Error(Transport, hyper::Error(Canceled, \"connection was not ready\"))",
                AttemptContext { client_identity: false, ..tls_ctx() },
                FailureCause::ClientCertRequired { from: SettingsFrom::Flags },
            ),
            (
                "grpc request error: code: 'The operation was cancelled', message: \"operation was canceled\", source: tonic::transport::Error(Transport, hyper::Error(Canceled, \"connection was not ready\"))",
                plain.clone(),
                FailureCause::TlsServer { from: SettingsFrom::Flags },
            ),
            ("something new", plain.clone(), FailureCause::Other("something new".into())),
            (
                "grpc request error: status: FailedPrecondition, message: \"etcdserver: authentication is not enabled\"",
                tls_ctx(),
                FailureCause::AuthNotEnabled,
            ),
            (
                "grpc request error: status: PermissionDenied, message: \"etcdserver: permission denied\"",
                tls_ctx(),
                FailureCause::PermissionDenied,
            ),
            // A member killed mid-RPC, after it had answered: the same text
            // as a plaintext client meeting a TLS listener, told apart by
            // the member having answered before.
            (
                "grpc request error: code: 'Unknown error', message: \"transport error\", source: tonic::transport::Error(Transport, hyper::Error(Io, Kind(ConnectionReset)))",
                AttemptContext { answered_before: true, ..plain.clone() },
                FailureCause::ConnectionLost,
            ),
            (
                "grpc request error: code: 'Unknown error', message: \"transport error\", source: tonic::transport::Error(Transport, hyper::Error(Io, Kind(ConnectionReset)))",
                AttemptContext { answered_before: true, ..tls_ctx() },
                FailureCause::ConnectionLost,
            ),
            // etcd 3.6 over mutual TLS, SIGKILLed during its Defragment
            // (tests/etcd/errors.rs).
            (
                "grpc request error: code: 'Unknown error', message: \"transport error\", source: tonic::transport::Error(Transport, hyper::Error(Io, Custom { kind: UnexpectedEof, error: \"peer closed connection without sending TLS close_notify: https://docs.rs/rustls/latest/rustls/manual/_03_howto/index.html#unexpected-eof\" }))",
                AttemptContext { answered_before: true, ..tls_ctx() },
                FailureCause::ConnectionLost,
            ),
            (
                "transport error: error trying to connect: tcp connect error: Connection refused (os error 111)",
                AttemptContext { answered_before: true, ..plain },
                FailureCause::Refused,
            ),
        ];
        for (chain, ctx, want) in cases {
            assert_eq!(classify(chain, &ctx), want, "{chain}");
        }
    }

    #[test]
    fn every_cause_says_what_to_do_on_one_line() {
        let causes = [
            FailureCause::Timeout {
                after: Duration::from_secs(2),
            },
            FailureCause::Refused,
            FailureCause::UntrustedServer {
                ca_origin: "ca.pem".into(),
                from: SettingsFrom::Flags,
            },
            FailureCause::ClientCertRequired {
                from: SettingsFrom::Flags,
            },
            FailureCause::AuthFailed {
                user: "root".into(),
            },
            FailureCause::AuthRequired {
                from: SettingsFrom::Flags,
            },
            FailureCause::PlaintextServer {
                from: SettingsFrom::Flags,
            },
            FailureCause::TlsServer {
                from: SettingsFrom::Flags,
            },
        ];
        for cause in causes {
            let text = cause.to_string();
            assert!(!text.contains('\n'), "{text}");
            assert!(text.len() > 20, "{text}");
        }
    }

    /// Plugin mode: the remedies name the EtcdCluster and its Secrets, never
    /// a flag the user did not pass.
    #[test]
    fn cluster_settings_get_no_flag_hints() {
        let ctx = AttemptContext {
            from: SettingsFrom::Cluster,
            ca_origin: Some("Secret ns/db-server-tls".into()),
            tls: true,
            ..tls_ctx()
        };
        let causes = [
            classify("invalid peer certificate: UnknownIssuer", &ctx),
            classify("received fatal alert: CertificateRequired", &ctx),
            classify("user name is empty", &ctx),
            classify("received corrupt message of type InvalidContentType", &ctx),
            classify(
                "h2 protocol error: connection reset",
                &AttemptContext {
                    tls: false,
                    ..ctx.clone()
                },
            ),
        ];
        for cause in &causes {
            let text = cause.to_string();
            assert!(!text.contains("--"), "{text}");
            assert!(!matches!(cause, FailureCause::Other(_)), "{text}");
        }
        assert!(causes[0].to_string().contains("Secret ns/db-server-tls"));
    }
}
