//! The one reading of a listen address (`[web] listen`, the centre's
//! `listen` keys, `demo --listen`).

use std::net::{Ipv4Addr, SocketAddr};

/// A listen address as a person writes it: an address and port
/// (`0.0.0.0:8080`, `[::]:8080`), `localhost:PORT`, or a port alone,
/// taken on `default`'s address.
pub fn listen_address(text: &str, default: SocketAddr) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(default.ip(), port));
    }
    if let Some(port) = text
        .strip_prefix("localhost:")
        .and_then(|p| p.parse::<u16>().ok())
    {
        return Ok(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port));
    }
    Err(format!(
        "{text:?} is not an address: write an address and port such as {default} \
         (0.0.0.0 listens on every network, 127.0.0.1 on this machine only), \
         localhost:{port} or a port alone ({port})",
        port = default.port()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_a_port_alone_and_localhost_are_read_and_anything_else_named() {
        let default: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        for (text, want) in [
            ("0.0.0.0:8080", "0.0.0.0:8080"),
            ("[::]:9000", "[::]:9000"),
            (" 8081 ", "127.0.0.1:8081"),
            ("localhost:8082", "127.0.0.1:8082"),
        ] {
            assert_eq!(
                listen_address(text, default),
                Ok(want.parse().unwrap()),
                "{text}"
            );
        }
        let wild: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        assert_eq!(
            listen_address("80", wild),
            Ok("0.0.0.0:80".parse().unwrap())
        );
        for bad in ["", "8080x", "70000", "localhost", "tablet:8080", "1.2.3:80"] {
            let e = listen_address(bad, default).unwrap_err();
            assert!(e.starts_with(&format!("{bad:?} is not an address")), "{e}");
            assert!(
                e.contains("127.0.0.1:8080") && e.contains("localhost:8080"),
                "{e}"
            );
        }
    }
}
