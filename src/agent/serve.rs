//! What an agent hands back that must not go through its Pod's log: a
//! snapshot holds every Secret of the cluster, and a Pod's log is written
//! to the node's disk and read by anyone allowed `pods/log`.
//!
//! The agent's command listens on a port of the node's loopback (the Pod
//! is `hostNetwork`), says which on its stdout ([`announce`]), and serves
//! exactly one connection: the first that presents the token this tool
//! made for it. The tool reaches the port through the API server's
//! `pods/portforward` and writes the token first. The token itself never
//! leaves this machine except over that tunnel: the agent's Job carries
//! only its SHA-256 ([`SERVE_ENV`]), from which it cannot be made, so
//! neither the Job nor the log lets anyone else take the snapshot, and
//! another process on the node that finds the port is closed on.

use std::time::Duration;

use ring::digest::{digest, SHA256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::error::{Error, Result};

/// The variable, set on an agent's Job, that holds the SHA-256 (hex) of
/// the token its command's one connection must present.
pub use crate::reach::flags::AGENT_SERVE_ENV as SERVE_ENV;

/// The token's length in bytes.
pub const TOKEN_LEN: usize = 32;

/// How long the agent waits for the tool's connection.
pub const ACCEPT_LIMIT: Duration = Duration::from_secs(120);

/// How long a connection has to present its token.
const TOKEN_LIMIT: Duration = Duration::from_secs(10);

/// A one-time token, made here, kept here.
pub struct Token([u8; TOKEN_LEN]);

impl Token {
    pub fn new() -> Result<Token> {
        let mut bytes = [0u8; TOKEN_LEN];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| Error::Failed("no random numbers for the agent's token".into()))?;
        Ok(Token(bytes))
    }

    /// What the agent's Job carries: the token's SHA-256, hex.
    pub fn key(&self) -> String {
        key_of(&self.0)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

/// The SHA-256 of `token`, hex. Pure.
pub fn key_of(token: &[u8]) -> String {
    digest(&SHA256, token)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `presented` is the token whose key is `key`. Pure. (The
/// comparison is of digests, so its time tells nothing of the token.)
pub fn matches(presented: &[u8], key: &str) -> bool {
    presented.len() == TOKEN_LEN && key_of(presented).eq_ignore_ascii_case(key)
}

/// The line the agent's command writes on its stdout once it listens on
/// `port`. Pure.
pub fn announce(port: u16) -> String {
    format!("{{\"agentPort\":{port}}}\n")
}

/// The port in an [`announce`] line; `None` when `line` is not one. Pure.
pub fn announced(line: &[u8]) -> Option<u16> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    u16::try_from(value.get("agentPort")?.as_u64()?).ok()
}

/// In the agent: listens on the node's loopback, on a port the kernel
/// picks.
pub async fn listen() -> Result<(TcpListener, u16)> {
    let local = |source| Error::Local {
        action: "agent: cannot listen on 127.0.0.1".into(),
        source,
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.map_err(local)?;
    let port = listener.local_addr().map_err(local)?.port();
    Ok((listener, port))
}

/// In the agent: the first connection that presents the token of `key`
/// within [`ACCEPT_LIMIT`]; every other is closed, said on stderr.
pub async fn accept(listener: TcpListener, key: &str) -> Result<TcpStream> {
    let wait = async {
        loop {
            let Ok((mut socket, from)) = listener.accept().await else {
                continue;
            };
            let mut presented = [0u8; TOKEN_LEN];
            let read = tokio::time::timeout(TOKEN_LIMIT, socket.read_exact(&mut presented)).await;
            if matches!(read, Ok(Ok(_))) && matches(&presented, key) {
                return socket;
            }
            crate::logging::message(&format!(
                "warning: agent: closed a connection from {from} without the tool's token"
            ));
            let _ = socket.shutdown().await;
        }
    };
    tokio::time::timeout(ACCEPT_LIMIT, wait).await.map_err(|_| {
        Error::Failed(format!(
            "agent: the tool did not connect within {} s; nothing was sent",
            ACCEPT_LIMIT.as_secs()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_itself_matches_its_key() {
        let token = Token([7u8; TOKEN_LEN]);
        let key = token.key();
        assert_eq!(key.len(), 64);
        assert!(matches(token.bytes(), &key));
        assert!(matches(token.bytes(), &key.to_uppercase()));
        let mut other = [7u8; TOKEN_LEN];
        other[31] = 8;
        assert!(!matches(&other, &key));
        assert!(!matches(&[7u8; TOKEN_LEN - 1], &key));
        // The key is not the token: presenting the key fails.
        assert!(!matches(key.as_bytes(), &key));
        assert_eq!(format!("{token:?}"), "Token(..)");
    }

    #[test]
    fn the_port_is_announced_and_read_back() {
        assert_eq!(announce(40123), "{\"agentPort\":40123}\n");
        assert_eq!(announced(announce(40123).as_bytes()), Some(40123));
        for line in [&b"{\"agentPort\":70000}"[..], b"{}", b"40123", b"not json"] {
            assert_eq!(announced(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    #[tokio::test]
    async fn a_connection_without_the_token_is_closed_and_the_right_one_served() {
        let token = Token([3u8; TOKEN_LEN]);
        let (listener, port) = listen().await.unwrap();
        let key = token.key();
        let served = tokio::spawn(async move { accept(listener, &key).await });
        // A stranger on the node: closed without a byte.
        let mut stranger = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stranger.write_all(&[9u8; TOKEN_LEN]).await.unwrap();
        let mut buf = Vec::new();
        assert_eq!(stranger.read_to_end(&mut buf).await.unwrap(), 0);
        let mut tool = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        tool.write_all(token.bytes()).await.unwrap();
        let mut socket = served.await.unwrap().unwrap();
        socket.write_all(b"hello").await.unwrap();
        drop(socket);
        let mut got = Vec::new();
        tool.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"hello");
    }
}
