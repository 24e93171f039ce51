//! The centre's MQTT broker as a lane's `[centre]` and the centre's config
//! name it (docs/mqtt.md): `mqtt://HOST[:PORT]`, or `mqtts://HOST[:PORT]`
//! for TLS, checked against a CA file or the system's certificates.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rumqttc::{TlsConfiguration, Transport};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject as _;

/// MQTT's port without TLS.
pub const MQTT_PORT: u16 = 1883;
/// MQTT's port over TLS.
pub const MQTTS_PORT: u16 = 8883;

const EXAMPLE: &str = "e.g. \"mqtt://192.168.1.10:1883\" or \"mqtts://centre.local:8883\"";

/// A broker's address, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerUrl {
    /// A host name, or an IP address (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// `mqtts://`: TLS, the broker's certificate checked.
    pub tls: bool,
}

impl BrokerUrl {
    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (an IPv6 address in
    /// brackets), or why not.
    pub fn parse(url: &str) -> Result<BrokerUrl, String> {
        let (rest, tls) = match (url.strip_prefix("mqtt://"), url.strip_prefix("mqtts://")) {
            (Some(rest), _) => (rest, false),
            (_, Some(rest)) => (rest, true),
            _ => {
                return Err(format!(
                    "{url:?} does not start with mqtt:// or mqtts://: {EXAMPLE}"
                ));
            }
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            match v6.split_once(']') {
                Some((h, "")) => (h, None),
                Some((h, p)) => (h, Some(p.strip_prefix(':').unwrap_or(p))),
                None => return Err(format!("{url:?}: an IPv6 address ends with ], {EXAMPLE}")),
            }
        } else {
            match rest.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        let bad_host = host.is_empty()
            || host
                .chars()
                .any(|ch| ch.is_whitespace() || matches!(ch, '/' | '@' | '?' | '#' | '[' | ']'));
        if bad_host {
            return Err(format!("{url:?} has no usable host: {EXAMPLE}"));
        }
        let port = match port {
            None if tls => MQTTS_PORT,
            None => MQTT_PORT,
            Some(p) => match p.parse::<u16>() {
                Ok(p) if p > 0 => p,
                _ => return Err(format!("{url:?}: the port must be 1 to 65535, {EXAMPLE}")),
            },
        };
        Ok(BrokerUrl {
            host: host.to_owned(),
            port,
            tls,
        })
    }

    /// How the client reaches it: plain TCP, or TLS checking the broker's
    /// certificate against the CAs in `ca_file` (PEM) or, without one, the
    /// system's.
    pub fn transport(&self, ca_file: Option<&Path>) -> Result<Transport, String> {
        if !self.tls {
            return Ok(Transport::Tcp);
        }
        let mut roots = rustls::RootCertStore::empty();
        match ca_file {
            Some(path) => {
                for cert in read_ca_file(path)? {
                    roots.add(cert).map_err(|e| {
                        format!("{}: a certificate is not usable: {e}", path.display())
                    })?;
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(found.certs);
                if roots.is_empty() {
                    return Err(
                        "the system has no CA certificates (install ca-certificates) and no ca_file is set"
                            .into(),
                    );
                }
            }
        }
        // The provider is named rather than taken from the process's
        // default, as the panel's HTTPS does.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // WebPKI's checks, a certificate not valid yet naming the clock.
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        .map_err(|e| format!("TLS: {e}"))?;
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(super::clock_tls::ClockAware(verifier)))
            .with_no_client_auth();
        Ok(Transport::tls_with_config(TlsConfiguration::Rustls(
            Arc::new(config),
        )))
    }
}

impl fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// The CA certificates in a PEM file, at least one, or why not.
pub fn read_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    match CertificateDer::pem_slice_iter(&pem).collect::<Result<Vec<_>, _>>() {
        Ok(certs) if !certs.is_empty() => Ok(certs),
        _ => Err(format!(
            "{} holds no certificate in PEM form (-----BEGIN CERTIFICATE-----)",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_and_printed_back() {
        let cases = [
            ("mqtt://10.0.0.2:1883", "10.0.0.2", 1883, false),
            ("mqtt://centre.local", "centre.local", 1883, false),
            ("mqtts://centre.local", "centre.local", 8883, true),
            ("mqtts://[::1]:18883/", "::1", 18883, true),
        ];
        for (url, host, port, tls) in cases {
            let b = BrokerUrl::parse(url).unwrap();
            assert_eq!((b.host.as_str(), b.port, b.tls), (host, port, tls), "{url}");
            assert_eq!(BrokerUrl::parse(&b.to_string()).unwrap(), b);
        }
        for (bad, why) in [
            ("http://c", "does not start with mqtt://"),
            ("mqtt://c:0", "the port must be 1 to 65535"),
            ("mqtt://c:x", "the port must be 1 to 65535"),
            ("mqtt://", "no usable host"),
            ("mqtt://a b", "no usable host"),
            ("mqtt://[::1", "ends with ]"),
        ] {
            let e = BrokerUrl::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn a_ca_file_must_hold_a_certificate() {
        let dir = std::env::temp_dir().join(format!("lanecall-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ca.pem");
        std::fs::write(&file, "not a certificate\n").unwrap();
        let tls = BrokerUrl::parse("mqtts://c").unwrap();
        let error = |ca: &Path| tls.transport(Some(ca)).err().unwrap_or_default();
        let e = error(&file);
        assert!(e.contains("holds no certificate"), "{e}");
        let e = error(&dir.join("missing.pem"));
        assert!(e.contains("cannot read"), "{e}");
        let plain = BrokerUrl::parse("mqtt://c").unwrap();
        assert!(matches!(plain.transport(Some(&file)), Ok(Transport::Tcp)));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
