//! Throwaway PKI: one CA, a server certificate per member (usable as a
//! client certificate too, as etcd's gateway needs), a client certificate,
//! and an unrelated CA for "wrong CA" tests. Written as PEM files into the
//! cluster's temporary folder, because etcd reads them from disk.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

use crate::Result;

/// Paths of the generated files.
#[derive(Debug, Clone)]
pub struct Pki {
    pub ca: PathBuf,
    pub wrong_ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
    Ok(path)
}

fn new_ca(name: &str) -> Result<(rcgen::Certificate, KeyPair)> {
    let mut params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let key = KeyPair::generate().map_err(err)?;
    let cert = params.self_signed(&key).map_err(err)?;
    Ok((cert, key))
}

/// Generates the PKI into `dir`. `hosts` are the server certificate's SANs.
pub fn generate(dir: &Path, hosts: &[&str]) -> Result<Pki> {
    let (ca, ca_key) = new_ca("kubectl-etcd testbed CA")?;
    let (wrong_ca, _) = new_ca("an unrelated CA")?;

    let mut server =
        CertificateParams::new(hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>())
            .map_err(err)?;
    server
        .distinguished_name
        .push(DnType::CommonName, "etcd-server");
    server.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let server_key = KeyPair::generate().map_err(err)?;
    let server_cert = server.signed_by(&server_key, &ca, &ca_key).map_err(err)?;

    // CN is not an etcd user, so with auth on the password decides.
    let mut client = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    client
        .distinguished_name
        .push(DnType::CommonName, "testbed-client");
    client.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let client_key = KeyPair::generate().map_err(err)?;
    let client_cert = client.signed_by(&client_key, &ca, &ca_key).map_err(err)?;

    Ok(Pki {
        ca: write(dir, "ca.pem", &ca.pem())?,
        wrong_ca: write(dir, "wrong-ca.pem", &wrong_ca.pem())?,
        server_cert: write(dir, "server.pem", &server_cert.pem())?,
        server_key: write(dir, "server-key.pem", &server_key.serialize_pem())?,
        client_cert: write(dir, "client.pem", &client_cert.pem())?,
        client_key: write(dir, "client-key.pem", &client_key.serialize_pem())?,
    })
}

/// A throwaway certificate authority that can issue more certificates.
pub struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
}

/// A PEM certificate and its PEM private key.
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Ca {
    pub fn new(name: &str) -> Result<Ca> {
        let (cert, key) = new_ca(name)?;
        Ok(Ca { cert, key })
    }

    pub fn pem(&self) -> String {
        self.cert.pem()
    }

    /// Issues a certificate for `common_name` (organisation `org`, SANs
    /// `hosts`) usable for server and client authentication.
    pub fn issue(&self, common_name: &str, org: Option<&str>, hosts: &[&str]) -> Result<Issued> {
        let mut params =
            CertificateParams::new(hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>())
                .map_err(err)?;
        params
            .distinguished_name
            .push(DnType::CommonName, common_name);
        if let Some(o) = org {
            params.distinguished_name.push(DnType::OrganizationName, o);
        }
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().map_err(err)?;
        let cert = params.signed_by(&key, &self.cert, &self.key).map_err(err)?;
        Ok(Issued {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }
}

/// A key pair for signing service-account tokens: (private PEM, public PEM).
pub fn signing_key() -> Result<(String, String)> {
    let key = KeyPair::generate().map_err(err)?;
    Ok((key.serialize_pem(), key.public_key_pem()))
}

/// A self-signed CA certificate (PEM) that expires `days` from now: for
/// tests of expiry warnings.
pub fn expiring_ca_pem(name: &str, days: i64) -> Result<String> {
    let mut params = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(err)?
        .as_secs() as i64;
    let (y, m, d) = civil_from_days(now / 86_400 + days);
    params.not_after = rcgen::date_time_ymd(y as i32, m as u8, d as u8);
    let key = KeyPair::generate().map_err(err)?;
    Ok(params.self_signed(&key).map_err(err)?.pem())
}

/// (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}
