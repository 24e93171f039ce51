//! HTTPS for the server: the rustls side for `[web] tls_cert` and
//! `tls_key`, with the ring backend (no cmake or assembler to build it).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

use crate::config::TlsFiles;

/// Why HTTPS cannot be served with the configured files.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("{} holds no certificate in PEM form", .0.display())]
    NoCertificate(PathBuf),
    #[error("{} holds no private key in PEM form", .0.display())]
    NoKey(PathBuf),
    #[error("cannot serve HTTPS with {} and {}: {source}", .cert.display(), .key.display())]
    Rejected {
        cert: PathBuf,
        key: PathBuf,
        source: rustls::Error,
    },
}

/// The TLS side of the server for the certificate chain and key in `files`.
pub fn tls_acceptor(files: &TlsFiles) -> Result<TlsAcceptor, TlsError> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|source| TlsError::Read {
            path: path.clone(),
            source,
        })
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&read(&files.cert)?)
        .collect::<Result<_, _>>()
        .map_err(|_| TlsError::NoCertificate(files.cert.clone()))?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate(files.cert.clone()));
    }
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|_| TlsError::NoKey(files.key.clone()))?;
    let rejected = |source| TlsError::Rejected {
        cert: files.cert.clone(),
        key: files.key.clone(),
        source,
    };
    // The provider is named here rather than taken from the process's
    // default, which another crate could set differently.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(rejected)?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(rejected)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
