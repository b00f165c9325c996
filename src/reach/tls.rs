//! TLS material and credentials, held in memory only.
//!
//! PEM bytes are read once from the files (or, in plugin mode, from Secrets)
//! and never written anywhere. `Debug` is redacted so that a stray `{:?}` in a
//! log line cannot leak a key or a password.

use std::fmt;

/// CA bundle and optional client identity, as PEM bytes.
#[derive(Clone)]
pub struct TlsMaterial {
    /// CA certificates that may sign a member's server certificate.
    pub ca_pem: Vec<u8>,
    /// Client certificate chain and key for mutual TLS.
    pub identity: Option<ClientIdentity>,
    /// Where the CA came from, for error messages (a path or a Secret name).
    pub ca_origin: String,
}

/// A client certificate and its private key.
#[derive(Clone)]
pub struct ClientIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl fmt::Debug for TlsMaterial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsMaterial")
            .field("ca_origin", &self.ca_origin)
            .field("ca_pem_bytes", &self.ca_pem.len())
            .field("client_identity", &self.identity.is_some())
            .finish()
    }
}

/// etcd user name and password.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub user: String,
    pub password: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets() {
        let tls = TlsMaterial {
            ca_pem: b"-----BEGIN CERTIFICATE-----".to_vec(),
            identity: Some(ClientIdentity {
                cert_pem: b"CERT".to_vec(),
                key_pem: b"-----BEGIN PRIVATE KEY-----SECRETKEY".to_vec(),
            }),
            ca_origin: "ca.pem".into(),
        };
        let creds = Credentials {
            user: "root".into(),
            password: "hunter2".into(),
        };
        let shown = format!("{tls:?} {creds:?}");
        assert!(!shown.contains("SECRETKEY"), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("root"), "{shown}");
    }
}
