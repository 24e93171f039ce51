//! The broker's certificate checked as rustls's WebPKI verifier checks
//! it, with one difference in what it says: a certificate not valid yet
//! names this machine's clock. A certificate made today is "not yet
//! valid" on a lane whose clock restarted yesterday (no clock battery, no
//! time server), and the fix is the clock, not the certificate.

use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error, OtherError, SignatureScheme};

use crate::wall_clock::rfc3339;

/// A certificate whose validity starts after this machine's clock.
#[derive(Debug, thiserror::Error)]
#[error(
    "the certificate is not valid until {}; this machine's clock says {} — set the clock or \
     let it synchronise (docs/install.md, The Pi's clock)",
    not_before.map_or_else(|| "a later time".to_owned(), |t| rfc3339(t.as_secs())),
    rfc3339(now.as_secs())
)]
pub struct NotValidYet {
    /// When the certificate becomes valid, when rustls says.
    pub not_before: Option<UnixTime>,
    /// This machine's clock at the check.
    pub now: UnixTime,
}

/// A certificate error of rustls, with a certificate not valid yet told as
/// [`NotValidYet`]; any other error as it was.
pub fn name_the_clock(e: Error, now: UnixTime) -> Error {
    let (not_before, now) = match e {
        Error::InvalidCertificate(CertificateError::NotValidYetContext { time, not_before }) => {
            (Some(not_before), time)
        }
        Error::InvalidCertificate(CertificateError::NotValidYet) => (None, now),
        e => return e,
    };
    // `Error::Other`, whose text is the message's own (a certificate
    // error's would print it as a debug structure).
    Error::Other(OtherError(Arc::new(NotValidYet { not_before, now })))
}

/// rustls's WebPKI verifier, its "not valid yet" naming the clock.
#[derive(Debug)]
pub struct ClockAware(pub Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ClockAware {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        self.0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
            .map_err(|e| name_the_clock(e, now))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_not_valid_yet_names_the_clock_and_others_are_left_alone() {
        let said = name_the_clock(
            Error::InvalidCertificate(CertificateError::NotValidYetContext {
                time: UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_795_899_600)),
                not_before: UnixTime::since_unix_epoch(std::time::Duration::from_secs(
                    1_795_960_800,
                )),
            }),
            UnixTime::now(),
        )
        .to_string();
        assert!(
            said.contains(
                "the certificate is not valid until 2026-11-29T14:00:00Z; this machine's clock \
                 says 2026-11-28T21:00:00Z — set the clock or let it synchronise \
                 (docs/install.md, The Pi's clock)"
            ),
            "{said}"
        );
        let expired = Error::InvalidCertificate(CertificateError::Expired);
        assert_eq!(
            name_the_clock(expired.clone(), UnixTime::now()),
            expired,
            "an expired certificate is not the clock's"
        );
    }
}
