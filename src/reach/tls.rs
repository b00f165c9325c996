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

pub use crate::secret::{Secret, UserSpec};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsed_flags_never_show_a_password() {
        let spec = UserSpec::parse("root:hunter2:more");
        assert_eq!(spec.name, "root");
        assert_eq!(
            spec.password.as_ref().map(Secret::expose),
            Some("hunter2:more")
        );
        let shown = format!("{spec:?} {:?}", Secret::new("hunter2"));
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("root"), "{shown}");
        assert_eq!(UserSpec::parse("root").password, None);
    }

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

/// Whether the private key in `key_pem` is the one the first certificate
/// in `cert_pem` was issued for: `Some(false)` when they are from two
/// different pairs, `None` when it cannot be told (a file that does not
/// parse or a key type the crypto provider does not load: the handshake
/// then says what it says).
pub fn pair_matches(cert_pem: &[u8], key_pem: &[u8]) -> Option<bool> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let cert = CertificateDer::pem_slice_iter(cert_pem).next()?.ok()?;
    let key = PrivateKeyDer::from_pem_slice(key_pem).ok()?;
    let provider = rustls::crypto::ring::default_provider();
    let signing = provider.key_provider.load_private_key(key).ok()?;
    match rustls::sign::CertifiedKey::new(vec![cert], signing).keys_match() {
        Ok(()) => Some(true),
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => Some(false),
        Err(_) => None,
    }
}

/// The DER certificates in a PEM bundle (anything else is skipped).
pub fn pem_certificates(pem: &[u8]) -> Vec<Vec<u8>> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::pem_slice_iter(pem)
        .filter_map(|c| c.ok())
        .map(|c| c.as_ref().to_vec())
        .collect()
}

/// A certificate's `notAfter`, in Unix seconds, read from its DER: the
/// second time in the TBSCertificate's validity. `None` when it is not a
/// certificate this reader understands.
pub fn not_after(der: &[u8]) -> Option<i64> {
    let (_, certificate, _) = der_item(der)?;
    let (_, mut tbs, _) = der_item(certificate)?;
    // [0] EXPLICIT version, when present.
    if tbs.first() == Some(&0xa0) {
        tbs = der_item(tbs)?.2;
    }
    // serialNumber, signature, issuer, then validity.
    for _ in 0..3 {
        tbs = der_item(tbs)?.2;
    }
    let (_, validity, _) = der_item(tbs)?;
    let (_, _, rest) = der_item(validity)?;
    let (tag, time, _) = der_item(rest)?;
    der_time(tag, time)
}

/// One DER tag-length-value: (tag, content, what follows).
fn der_item(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *input.first()?;
    let first = *input.get(1)?;
    let (len, header) = if first < 0x80 {
        (usize::from(first), 2)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let mut len = 0usize;
        for b in input.get(2..2 + n)? {
            len = (len << 8) | usize::from(*b);
        }
        (len, 2 + n)
    };
    let end = header.checked_add(len)?;
    Some((tag, input.get(header..end)?, input.get(end..)?))
}

/// UTCTime (`YYMMDDHHMMSSZ`, years 1950–2049) or GeneralizedTime
/// (`YYYYMMDDHHMMSSZ`) as Unix seconds.
fn der_time(tag: u8, text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
    let (year, rest) = match tag {
        0x17 => {
            let yy: i64 = text.get(..2)?.parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, text.get(2..)?)
        }
        0x18 => (text.get(..4)?.parse().ok()?, text.get(4..)?),
        _ => return None,
    };
    let field = |i: usize| -> Option<i8> { rest.get(i..i + 2)?.parse().ok() };
    let year = i16::try_from(year).ok()?;
    let at = jiff::civil::DateTime::new(
        year,
        field(0)?,
        field(2)?,
        field(4)?,
        field(6)?,
        field(8)?,
        0,
    )
    .ok()?;
    Some(
        at.to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp()
            .as_second(),
    )
}

#[cfg(test)]
mod validity_tests {
    use super::*;

    #[test]
    fn der_times_are_unix_seconds() {
        assert_eq!(der_time(0x17, b"700101000000Z"), Some(0));
        assert_eq!(der_time(0x17, b"491231235959Z"), Some(2_524_607_999));
        assert_eq!(der_time(0x18, b"20261201120000Z"), Some(1_796_126_400));
        assert_eq!(der_time(0x18, b"20240229000000Z"), Some(1_709_164_800));
        assert_eq!(der_time(0x17, b"701301000000Z"), None);
        assert_eq!(der_time(0x17, b"7001010000Z"), None);
        assert_eq!(der_time(0x05, b"700101000000Z"), None);
    }

    #[test]
    fn garbage_is_not_a_certificate() {
        assert_eq!(not_after(b""), None);
        assert_eq!(not_after(&[0x30, 0x82, 0xff]), None);
        assert_eq!(not_after(&[0x30, 0x03, 0x30, 0x01, 0x00]), None);
    }
}
