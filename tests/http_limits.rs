//! The panel's server under connections that hang: the real daemon, a flood
//! of half-open connections, a slow client, too many live views, a stop
//! with connections open, and HTTPS.
//!
//! Times are generous bounds well above the server's timeouts (10 s for a
//! first byte and for a head): a server without them would hang past them.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lanecall::config::Config;
use support::{Daemon, free_port};

/// `hash_pin("2468")`.
const PIN_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$wQLBJ53yXnWS1FSmR7RdxA$pRDX/Tw1tO9l8PpLiGTMUICb8JmI11KCknIhF4PxrIw";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanecall-http-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A daemon whose `[web]` table also has `extra` (write_config writes
/// `[web]` last).
fn daemon(name: &str, extra: &str) -> (Daemon, u16, PathBuf) {
    let dir = temp_dir(name);
    let http = free_port();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, PIN_HASH);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(extra);
    std::fs::write(&config, text).unwrap();
    (Daemon::start(&config, http), http, dir)
}

/// Gives the daemon systemd's default file limit, 1024.
fn as_under_systemds_default(pid: u32) {
    use rustix::process::{Pid, Resource, Rlimit, prlimit};
    let pid = Pid::from_raw(pid as i32).expect("a process id");
    let limit = Rlimit {
        current: Some(1024),
        maximum: Some(1024),
    };
    prlimit(Some(pid), Resource::Nofile, limit).expect("the daemon's file limit can be set");
}

fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn a_fresh_client_is_served_while_1100_connections_hang() {
    const HANGING: usize = 1100;
    support::raise_file_limit(HANGING as u64 + 256);
    let (mut d, http, _dir) = daemon("flood", "");
    let pid = d.child.id();
    // The limit systemd gives a service by default, under which the panel
    // once took every file the daemon had.
    as_under_systemds_default(pid);

    // Half send nothing, half stop in the middle of a head.
    let started = Instant::now();
    let mut hanging = Vec::with_capacity(HANGING);
    for i in 0..HANGING {
        let mut s = TcpStream::connect(("127.0.0.1", http)).expect("the port takes connections");
        if i % 2 == 1 {
            s.write_all(b"GET /api/lane HTTP/1.1\r\nHost: lo")
                .expect("half a head is sent");
        }
        hanging.push(s);
    }
    let connecting = started.elapsed();

    let asked = Instant::now();
    let r = d
        .http
        .request("GET", "/api/lane", &[], b"")
        .expect("a fresh client is answered");
    let served = asked.elapsed();
    assert_eq!(r.status, 200);
    assert!(
        served < Duration::from_secs(10),
        "a fresh client waited {served:?} behind {HANGING} hanging connections"
    );

    // The server kept no more than its cap: the others were closed to make
    // room, at once rather than at their timeouts.
    let until = Instant::now() + Duration::from_secs(5);
    let mut closed = 0;
    for s in &mut hanging {
        let left = until.saturating_duration_since(Instant::now());
        if support::closed_within(s, left) {
            closed += 1;
        }
    }
    let kept = HANGING - closed;
    let files = open_files(pid);
    eprintln!(
        "{HANGING} hanging connections opened in {connecting:?}; the daemon kept {kept} \
         with {files} files open; a fresh GET /api/lane was answered in {served:?}"
    );
    assert!(
        kept <= 256,
        "{kept} hanging connections kept open, over the cap of 256"
    );
    assert!(
        files < 256 + 128,
        "the daemon has {files} files open: over the cap and its reserve"
    );
    // The daemon still works as before.
    assert_eq!(d.lane()["lane"], 3);
    drop(hanging);
    assert!(d.stop().success());
}

#[test]
fn a_silent_or_slow_client_is_disconnected() {
    let (d, http, _dir) = daemon("slow", "");
    // One header byte a second, in a thread: the head never ends.
    let slow = std::thread::spawn(move || {
        let mut s = TcpStream::connect(("127.0.0.1", http)).unwrap();
        let head = b"GET /api/lane HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        let started = Instant::now();
        for byte in head.iter().cycle() {
            if s.write_all(&[*byte]).is_err()
                || support::closed_within(&mut s, Duration::from_secs(1))
            {
                return Some(started.elapsed());
            }
            if started.elapsed() > Duration::from_secs(30) {
                return None;
            }
        }
        None
    });
    let mut silent = TcpStream::connect(("127.0.0.1", http)).unwrap();
    let started = Instant::now();
    let silent_closed = support::closed_within(&mut silent, Duration::from_secs(30));
    let silent_after = started.elapsed();
    let slow_after = slow.join().unwrap();
    eprintln!("silent client closed after {silent_after:?}; slow client after {slow_after:?}");
    assert!(silent_closed, "a client that sends nothing is never closed");
    assert!(
        silent_after < Duration::from_secs(25),
        "a silent client was closed only after {silent_after:?}"
    );
    let slow_after = slow_after.expect("a client sending its head a byte a second is never closed");
    assert!(
        slow_after < Duration::from_secs(25),
        "a slow client was closed only after {slow_after:?}"
    );
    assert!(d.stop().success());
}

/// Sends `GET path` on a new connection and reads the answer's head (and
/// whatever body came with it).
fn get_head(http: u16, path: &str) -> (TcpStream, String) {
    let mut s = TcpStream::connect(("127.0.0.1", http)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut buf).expect("an answer");
        assert!(n > 0, "closed without an answer");
        got.extend_from_slice(&buf[..n]);
    }
    // A short body (an error) comes in the same segment.
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    if let Ok(n) = s.read(&mut buf) {
        got.extend_from_slice(&buf[..n]);
    }
    (s, String::from_utf8_lossy(&got).into_owned())
}

#[test]
fn live_views_beyond_the_cap_are_refused_until_one_closes() {
    let (d, http, _dir) = daemon("views", "max_connections = 16\nmax_live_views = 2\n");
    let (first, head) = get_head(http, "/api/events");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (_second, head) = get_head(http, "/api/events");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    let (_, refused) = get_head(http, "/api/events");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    let body = &refused[refused.find("\r\n\r\n").unwrap() + 4..];
    let json: serde_json::Value = serde_json::from_str(body).expect("a JSON error");
    assert!(
        json["error"]
            .as_str()
            .unwrap()
            .starts_with("too many live views: "),
        "{json}"
    );

    // A panel that goes frees its place.
    drop(first);
    support::eventually("a closed live view to free its place", || {
        let (_s, head) = get_head(http, "/api/events");
        if head.starts_with("HTTP/1.1 200") {
            Ok(())
        } else {
            Err(head)
        }
    });
    assert!(d.stop().success());
}

#[test]
fn a_stop_is_not_held_up_by_open_connections() {
    let (mut d, http, _dir) = daemon("stop", "");
    let _silent: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(("127.0.0.1", http)).unwrap())
        .collect();
    let (_live, head) = get_head(http, "/api/events");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(d.lane()["lane"], 3, "a kept-alive connection too");
    let asked = Instant::now();
    let status = d.stop();
    let took = asked.elapsed();
    assert!(status.success(), "{status}");
    assert!(
        took < Duration::from_secs(8),
        "the stop took {took:?}, past systemd's patience"
    );
}

// ----- HTTPS ------------------------------------------------------------------

/// A self-signed certificate for `localhost`, written as PEM files.
fn self_signed(dir: &Path) -> (PathBuf, PathBuf, Vec<u8>) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    (cert, key, made.cert.der().to_vec())
}

#[test]
fn https_serves_the_panel_with_the_configured_certificate() {
    let dir = temp_dir("tls");
    let (cert, key, der) = self_signed(&dir);
    let http = free_port();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, PIN_HASH);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("tls_cert = {cert:?}\ntls_key = {key:?}\n"));
    std::fs::write(&config, text).unwrap();
    assert!(Config::load(&config).unwrap().web.tls());
    let d = Daemon::start(&config, http);

    let mut roots = rustls::RootCertStore::empty();
    roots.add(der.into()).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = "localhost".try_into().unwrap();
    let tls = rustls::ClientConnection::new(Arc::new(client), name).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", http)).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut stream = rustls::StreamOwned::new(tls, tcp);
    stream
        .write_all(b"GET /api/lane HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .expect("the handshake and the request");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let body = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
    let lane: serde_json::Value = serde_json::from_str(body).expect("the lane as JSON");
    assert_eq!(lane["lane"], 3);

    // Plain HTTP on the HTTPS port gets no answer.
    let mut plain = TcpStream::connect(("127.0.0.1", http)).unwrap();
    plain
        .write_all(b"GET /api/lane HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut got = Vec::new();
    let _ = plain.read_to_end(&mut got);
    assert!(!got.starts_with(b"HTTP/1.1 200"));
    assert!(d.stop().success());
}

fn web_config(dir: &Path, extra: &str) -> Result<Config, String> {
    let text = format!(
        "lane = 3\nstate_dir = {dir:?}\n[pinsetter]\nport = \"/dev/null-pinsetter\"\n[gpio]\nbackend = \"none\"\n[web]\njudge_pin_hash = {PIN_HASH:?}\n{extra}"
    );
    Config::parse(&text, Path::new("lanecall.toml")).map_err(|e| e.to_string())
}

#[test]
fn https_files_are_checked_when_the_config_is_read() {
    let dir = temp_dir("tls-config");
    let (cert, key, _) = self_signed(&dir);
    let plain = web_config(&dir, "").unwrap();
    assert!(!plain.web.tls());
    assert_eq!(plain.web.max_connections, 256);
    assert_eq!(plain.web.max_live_views, 64);

    let both = web_config(&dir, &format!("tls_cert = {cert:?}\ntls_key = {key:?}\n")).unwrap();
    assert!(both.web.tls());
    let again = Config::parse(&both.to_toml(), Path::new("x")).unwrap();
    assert_eq!(again, both, "to_toml keeps the HTTPS files");

    let one = web_config(&dir, &format!("tls_cert = {cert:?}\n")).unwrap_err();
    assert!(one.contains("web.tls_key: is missing"), "{one}");

    let missing = dir.join("nowhere.pem");
    let unreadable = web_config(
        &dir,
        &format!("tls_cert = {missing:?}\ntls_key = {key:?}\n"),
    )
    .unwrap_err();
    assert!(
        unreadable.contains(&format!("web.tls_cert: cannot read {}", missing.display())),
        "{unreadable}"
    );

    // The certificate given as the key, and the key as the certificate.
    let swapped =
        web_config(&dir, &format!("tls_cert = {key:?}\ntls_key = {cert:?}\n")).unwrap_err();
    assert!(swapped.contains("holds no certificate"), "{swapped}");
    assert!(swapped.contains("holds no private key"), "{swapped}");

    let views = web_config(&dir, "max_connections = 16\nmax_live_views = 9\n").unwrap_err();
    assert!(views.contains("web.max_live_views"), "{views}");
    let small = web_config(&dir, "max_connections = 16\n").unwrap();
    assert_eq!(small.web.max_live_views, 8, "the default fits under half");
}
