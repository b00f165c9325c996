//! The certificate a member serves, kept from the handshake of its gRPC
//! connection: the transport's verifier (rustls' WebPKI one, built from the
//! same CA the tool trusts) is wrapped in one that, once it has verified a
//! chain, keeps it. Nothing is verified less: every answer is the inner
//! verifier's. So `doctor` reads the expiry of what each member serves
//! without a handshake of its own.

use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use crate::reach::TlsMaterial;

/// The chain a member served (DER, its own first), once verified.
pub(super) type Served = Arc<Mutex<Vec<Vec<u8>>>>;

/// The transport's verifier, keeping what it verified in `served`.
#[derive(Debug)]
pub(super) struct Keeping {
    inner: Arc<WebPkiServerVerifier>,
    served: Served,
}

impl Keeping {
    /// A verifier for the CA of `tls`, and where it keeps what it verified.
    pub(super) fn new(tls: &TlsMaterial) -> Result<(Arc<Keeping>, Served), String> {
        let roots = crate::etcd::http::ca_roots(tls)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format!("CA from {}: {e}", tls.ca_origin))?;
        let served = Served::default();
        let verifier = Keeping {
            inner,
            served: served.clone(),
        };
        Ok((Arc::new(verifier), served))
    }
}

impl ServerCertVerifier for Keeping {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verified = self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )?;
        let chain = std::iter::once(end_entity)
            .chain(intermediates)
            .map(|c| c.as_ref().to_vec())
            .collect();
        match self.served.lock() {
            Ok(mut kept) => *kept = chain,
            Err(poisoned) => *poisoned.into_inner() = chain,
        }
        Ok(verified)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}
