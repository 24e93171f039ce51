//! A certificate authority of the test's own and a broker certificate it
//! signed, as PEM files, for a Mosquitto listening over TLS.

use std::fs;
use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

/// The files a TLS broker and its clients need.
pub struct TlsFiles {
    /// The CA's certificate: the clients' `ca_file`.
    pub ca: PathBuf,
    /// The broker's certificate (for `localhost` and 127.0.0.1) and key.
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TlsFiles {
    /// Writes a new CA named `name` and a broker certificate it signed into
    /// `dir`, the files' names starting with `name`.
    pub fn new(dir: &Path, name: &str) -> TlsFiles {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, format!("{name} test CA"));
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])
            .unwrap()
            .signed_by(&key, &ca)
            .unwrap();
        let files = TlsFiles {
            ca: dir.join(format!("{name}-ca.pem")),
            cert: dir.join(format!("{name}-broker.pem")),
            key: dir.join(format!("{name}-broker.key")),
        };
        fs::write(&files.ca, ca.pem()).unwrap();
        fs::write(&files.cert, cert.pem()).unwrap();
        fs::write(&files.key, key.serialize_pem()).unwrap();
        files
    }

    /// The lines that make a Mosquitto listener speak TLS only.
    pub fn mosquitto_lines(&self) -> String {
        format!(
            "cafile {}\ncertfile {}\nkeyfile {}\n",
            self.ca.display(),
            self.cert.display(),
            self.key.display()
        )
    }
}
