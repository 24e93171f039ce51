//! The judges' logins against the real daemon: PIN guessing from many
//! addresses is stopped by the lockout, the daemon's memory stays flat
//! over many logins, and sessions end (or survive) as they should.

mod support;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use socket2::{Domain, Socket, Type};
use support::{Daemon, free_port, write_config};

const PIN: &str = "246813";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanecall-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A config for the daemon with `extra` lines added to its `[web]` table
/// (the last table [`write_config`] writes).
fn config_with(dir: &Path, http: u16, hash: &str, extra: &str) -> PathBuf {
    let path = write_config(dir, 4, "/dev/null-pinsetter", http, hash);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(extra);
    std::fs::write(&path, text).unwrap();
    path
}

/// One request on its own connection, from `source` (a loopback address):
/// status, headers, JSON body.
fn request_from(
    source: Ipv4Addr,
    http: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, Value) {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket
        .bind(&SocketAddr::from((source, 0)).into())
        .unwrap_or_else(|e| panic!("cannot bind {source}: {e}"));
    socket
        .connect(&SocketAddr::from((Ipv4Addr::LOCALHOST, http)).into())
        .unwrap();
    let mut stream: TcpStream = socket.into();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (
        status,
        head.to_owned(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

fn login_from(source: Ipv4Addr, http: u16, pin: &str) -> (u16, String, Value) {
    request_from(
        source,
        http,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        &json!({"pin": pin, "name": "Judge Orlova"}).to_string(),
    )
}

/// Logs in from 127.0.0.1; the `Cookie` header value to send back.
fn log_in(http: u16, pin: &str) -> String {
    let (status, head, body) = login_from(Ipv4Addr::LOCALHOST, http, pin);
    assert_eq!(status, 200, "{body}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .expect("a session cookie");
    cookie.split(';').next().unwrap().to_owned()
}

fn get_as(http: u16, path: &str, cookie: &str) -> (u16, Value) {
    let (status, _, body) = request_from(
        Ipv4Addr::LOCALHOST,
        http,
        "GET",
        path,
        &[("Cookie", cookie)],
        "",
    );
    (status, body)
}

fn judge_of(http: u16, cookie: &str) -> Value {
    get_as(http, "/api/session", cookie).1["judge"].clone()
}

/// The n-th of 20 loopback addresses, 127.0.0.2 to 127.0.0.21.
fn address(n: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, 2 + (n % 20) as u8)
}

#[test]
fn guessing_from_many_addresses_locks_the_pin_checks_until_unlocked() {
    let dir = temp_dir("guess");
    let http = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = config_with(
        &dir,
        http,
        &hash,
        "lockout_after = 5\nlockout_base_s = 600\nlockout_max_s = 3600\n",
    );
    let daemon = Daemon::start(&config, http);
    let judge = log_in(http, PIN);

    // Five wrong PINs, each from another address, are checked and wrong.
    for n in 0..5 {
        let (status, _, body) = login_from(address(n), http, &format!("{:06}", 100_000 + n));
        assert_eq!(status, 401, "try {n}: {body}");
    }
    // Then every try is refused without a check, from old and new
    // addresses alike, the real PIN included.
    for n in 5..40 {
        let (status, head, body) = login_from(address(n), http, &format!("{:06}", 100_000 + n));
        assert_eq!(status, 429, "try {n}: {body}");
        let retry: u64 = head
            .lines()
            .find_map(|l| l.strip_prefix("retry-after: "))
            .and_then(|v| v.trim().parse().ok())
            .expect("Retry-After");
        assert!((500..=601).contains(&retry), "{retry}");
        assert!(body["error"].as_str().unwrap().contains("locked"), "{body}");
    }
    let (status, _, _) = login_from(address(7), http, PIN);
    assert_eq!(status, 429, "locked for the real PIN too");

    // The judge stays logged in and sees the attack.
    assert_eq!(judge_of(http, &judge), "Judge Orlova");
    let (status, security) = get_as(http, "/api/security", &judge);
    assert_eq!(status, 200);
    assert_eq!(security["locked"], true, "{security}");
    assert_eq!(security["wrong_pins"], 5, "{security}");
    assert_eq!(security["lockouts"], 1, "{security}");
    assert_eq!(security["pin_checks"], 6, "the judge's login and 5 wrong");
    let addresses: Vec<&str> = security["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        addresses,
        [
            "127.0.0.6",
            "127.0.0.5",
            "127.0.0.4",
            "127.0.0.3",
            "127.0.0.2"
        ]
    );
    // Nobody else sees it.
    let (status, _, _) = request_from(address(0), http, "GET", "/api/security", &[], "");
    assert_eq!(status, 401);

    // `lanecall unlock` on the Pi ends the lock; the real PIN gets in.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["unlock", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (status, _, body) = login_from(address(8), http, PIN);
    assert_eq!(status, 200, "{body}");
    let (_, security) = get_as(http, "/api/security", &judge);
    assert_eq!(security["locked"], false, "{security}");

    drop(daemon);
    // One warning for the lock, not one per try.
    let log = std::fs::read_to_string(config.with_extension("log")).unwrap();
    assert_eq!(log.matches("PIN checks locked").count(), 1, "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The daemon's resident memory, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

#[test]
fn memory_stays_flat_over_many_logins() {
    let dir = temp_dir("rss");
    let http = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = config_with(&dir, http, &hash, "");
    let daemon = Daemon::start(&config, http);
    let pid = daemon.child.id();
    // The first login allocates the one argon2 buffer.
    log_in(http, PIN);
    let after_first = rss_kib(pid);
    // From 20 addresses: one address may only log in a few times a second.
    for n in 0..50 {
        let (status, _, body) = login_from(address(n), http, PIN);
        assert_eq!(status, 200, "login {n}: {body}");
    }
    let after_50 = rss_kib(pid);
    let grown = after_50.saturating_sub(after_first);
    eprintln!("VmRSS after 1 login: {after_first} KiB; after 50 more: {after_50} KiB");
    // Each argon2 check needs 19 MiB: a leak of one buffer shows.
    assert!(grown < 4 * 1024, "grew {grown} KiB over 50 logins");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The idle end of a session is src/web/sessions.rs's, tested there on a
/// clock of the test's own.
#[test]
fn sessions_survive_a_restart_end_on_logout_and_pin_change() {
    let dir = temp_dir("sessions");
    let http = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = config_with(&dir, http, &hash, "session_idle_s = 600\n");
    let daemon = Daemon::start(&config, http);

    // A logout by a cross-site form is refused; by JSON it ends the
    // session on the server, so the old cookie is no good after it.
    let cookie = log_in(http, PIN);
    let (status, _, _) = request_from(
        Ipv4Addr::LOCALHOST,
        http,
        "POST",
        "/api/logout",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", &cookie),
        ],
        "a=1",
    );
    assert_eq!(status, 415);
    assert_eq!(judge_of(http, &cookie), "Judge Orlova");
    let (status, _, _) = request_from(
        Ipv4Addr::LOCALHOST,
        http,
        "POST",
        "/api/logout",
        &[("Content-Type", "application/json"), ("Cookie", &cookie)],
        "{}",
    );
    assert_eq!(status, 200);
    assert_eq!(judge_of(http, &cookie), Value::Null);
    let (status, _) = get_as(http, "/api/security", &cookie);
    assert_eq!(status, 401);

    // A restart keeps a judge logged in.
    assert!(daemon.stop().success());
    let daemon = Daemon::start(&config, http);
    let kept = log_in(http, PIN);
    assert!(daemon.stop().success());
    let daemon = Daemon::start(&config, http);
    assert_eq!(judge_of(http, &kept), "Judge Orlova");

    // A new PIN ends every session made with the old one.
    assert!(daemon.stop().success());
    let new_pin = "97531086";
    let new_hash = lanecall::web::hash_pin(new_pin).unwrap();
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace(&hash, &new_hash);
    std::fs::write(&config, text).unwrap();
    let _daemon = Daemon::start(&config, http);
    assert_eq!(judge_of(http, &kept), Value::Null);
    log_in(http, new_pin);
    let _ = std::fs::remove_dir_all(&dir);
}
