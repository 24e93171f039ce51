//! The panel's server under connections that hang: the real daemon, a flood
//! of half-open connections, a slow client, too many live views, a stop
//! with connections open, and HTTPS; request bodies trickled into a lane and
//! into the centre, a stranger's post answered unread, and a body's deadline
//! (the server itself with short limits).
//!
//! Times are generous bounds well above the server's timeouts (10 s for a
//! first byte and for a head): a server without them would hang past them.

use crate::support;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lanecall::config::Config;
use serde_json::json;
use support::centre::Centre;
use support::centre_scene::{Via, centre_config};
use support::http::Http;
use support::{Daemon, free_port};

/// `hash_pin("2468")`.
const PIN_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$wQLBJ53yXnWS1FSmR7RdxA$pRDX/Tw1tO9l8PpLiGTMUICb8JmI11KCknIhF4PxrIw";

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(&format!("http-{name}"))
}

/// A daemon whose `[web]` table also has `extra` (write_config writes
/// `[web]` last).
fn daemon(name: &str, extra: &str) -> (Daemon, u16, support::Scratch) {
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
    // room, at once rather than at their timeouts. (Which ones: those heard
    // from least recently, silent ones and half heads mixed.)
    for s in &hanging {
        s.set_nonblocking(true).unwrap();
    }
    let mut open = hanging;
    support::eventually_within(
        "the daemon to keep at most its cap of 256 hanging connections",
        Duration::from_secs(5),
        || {
            open.retain_mut(|s| !closed_now(s));
            if open.len() <= 256 {
                Ok(())
            } else {
                Err(format!("{} kept", open.len()))
            }
        },
    );
    let kept = open.len();
    let files = open_files(pid);
    eprintln!(
        "{HANGING} hanging connections opened in {connecting:?}; the daemon kept {kept} \
         with {files} files open; a fresh GET /api/lane was answered in {served:?}"
    );
    assert!(
        files < 256 + 128,
        "the daemon has {files} files open: over the cap and its reserve"
    );
    // The daemon still works as before.
    assert_eq!(d.lane()["lane"], 3);
    drop(open);
    assert!(d.stop().success());
}

/// Whether the server has closed `s` (nonblocking): end of file or reset.
fn closed_now(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) => return e.kind() != std::io::ErrorKind::WouldBlock,
        }
    }
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

// ----- request bodies ---------------------------------------------------------

/// The address the `i`th slow client connects from: each its own, as on a
/// venue's Wi-Fi, so that the login limit (a few tries an address) is not
/// what stops them.
fn stranger(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 1 + (i / 200) as u8, 1 + (i % 200) as u8)
}

fn connect_from(source: Ipv4Addr, port: u16) -> TcpStream {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    socket
        .bind(&SocketAddr::from((source, 0)).into())
        .unwrap_or_else(|e| panic!("cannot bind {source}: {e}"));
    socket
        .connect(&SocketAddr::from((Ipv4Addr::LOCALHOST, port)).into())
        .expect("the port takes connections");
    socket.into()
}

/// A request's head for a body of `length` bytes that will come slowly.
fn slow_head(path: &str, content_type: &str, length: usize) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n\
         Content-Length: {length}\r\n\r\n"
    )
}

/// Whether the server on `port` has read every byte sent to it by the
/// slow clients ([`stranger`]'s addresses), from the kernel's table of
/// TCP sockets: their heads are then parsed and their bodies being read.
fn all_read(port: u16) -> Result<(), String> {
    let table = std::fs::read_to_string("/proc/net/tcp").map_err(|e| e.to_string())?;
    let mut unread = 0;
    for line in table.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(local), Some(remote), Some(queues)) =
            (fields.get(1), fields.get(2), fields.get(4))
        else {
            continue;
        };
        let port_of = |a: &str| {
            a.split_once(':')
                .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
        };
        let ip_of = |a: &str| {
            a.split_once(':')
                .and_then(|(ip, _)| u32::from_str_radix(ip, 16).ok())
                .map(|n| Ipv4Addr::from(n.to_le_bytes()))
        };
        let from_stranger =
            ip_of(remote).is_some_and(|ip| ip.octets()[..2] == [127, 0] && ip.octets()[2] > 0);
        if port_of(local) != Some(port) || !from_stranger {
            continue;
        }
        let rx = queues
            .split_once(':')
            .and_then(|(_, rx)| usize::from_str_radix(rx, 16).ok())
            .unwrap_or(0);
        if rx > 0 {
            unread += 1;
        }
    }
    if unread == 0 {
        Ok(())
    } else {
        Err(format!("{unread} connections with bytes not yet read"))
    }
}

/// `n` connections from as many addresses, each posting to one of `posts`
/// (path and content type, in turn) a 1,000-byte body that comes a byte
/// every 2 s.
struct Trickle {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Vec<TcpStream>>,
}

impl Trickle {
    fn start(port: u16, posts: &[(&str, &str)], n: usize) -> Trickle {
        let mut streams = Vec::with_capacity(n);
        for i in 0..n {
            let (path, kind) = posts[i % posts.len()];
            let mut s = connect_from(stranger(i), port);
            s.write_all(slow_head(path, kind, 1000).as_bytes())
                .expect("a head is sent");
            s.write_all(b"{").expect("the body's first byte");
            streams.push(s);
        }
        // Every connection taken and its bytes read: on a server that reads
        // bodies without a deadline, every one is now a request in flight.
        support::eventually("the server to read what the slow clients sent", || {
            all_read(port)
        });
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            // The attack's pace, not a wait for anything.
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(Duration::from_secs(2))
            {
                for s in &mut streams {
                    let _ = s.write_all(b" ");
                }
            }
            streams
        });
        Trickle { stop, thread }
    }

    /// Stops the trickle: the connections, still open on this side.
    fn stop(self) -> Vec<TcpStream> {
        let _ = self.stop.send(());
        self.thread.join().expect("the trickle's thread")
    }
}

/// What has come back on `s` so far: an answer's first line, if any.
fn status_line(s: &mut TcpStream) -> Option<String> {
    s.set_nonblocking(true).ok()?;
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    text.lines().next().map(str::to_owned)
}

/// How the slow clients' posts were answered: count by first line.
fn answers(streams: &mut [TcpStream]) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for s in streams {
        let line = status_line(s).unwrap_or_else(|| "(nothing)".to_owned());
        *out.entry(line).or_default() += 1;
    }
    out
}

#[test]
fn a_judge_gets_in_while_256_slow_bodies_trickle_into_the_lane() {
    support::raise_file_limit(2048);
    let dir = temp_dir("slow-bodies");
    let http = free_port();
    let hash = lanecall::web::hash_pin(support::centre_lane::PIN).unwrap();
    let config = support::write_config(&dir, 3, "/dev/null-pinsetter", http, &hash);
    let mut d = Daemon::start(&config, http);
    // Half post a login, which is read before any session, half an action.
    let posts = [
        ("/api/login", "application/json"),
        ("/api/actions", "application/json"),
    ];
    let trickle = Trickle::start(http, &posts, 256);

    let asked = Instant::now();
    d.http = Http::new(http);
    d.login(support::centre_lane::PIN);
    let logged_in = asked.elapsed();
    let (status, said) = d.action(json!({"ev": "hold", "on": true, "reason": "oil"}));
    let acted = asked.elapsed();
    let mut streams = trickle.stop();
    let answered = answers(&mut streams);
    eprintln!(
        "256 slow bodies on a lane: a judge logged in after {logged_in:?}, acted after {acted:?}; \
         the slow posts were answered {answered:?}"
    );
    assert_eq!(status, 200, "{said}");
    assert_eq!(
        answered.get("HTTP/1.1 401 Unauthorized"),
        Some(&128),
        "every action without a login is answered 401, unread: {answered:?}"
    );
    assert!(d.stop().success());
}

/// A centre with its own broker and a judge's PIN ([`centre_config`]).
fn centre(name: &str) -> (Centre, u16, support::Scratch) {
    let dir = temp_dir(name);
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let web = free_port();
    let config = centre_config(&dir, &state, web, Via::Embedded(free_port()));
    (Centre::start(&config, web), web, dir)
}

/// A login body over the login's cap is 413 at the centre as on the lane,
/// its length declared or not (chunked: found too long while read).
#[test]
fn an_oversized_login_at_the_centre_is_413_declared_or_not() {
    let (c, web, _dir) = centre("centre-big-login");
    let body = format!(r#"{{"pin":"{}"}}"#, "9".repeat(20 * 1024));
    let head = "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                Connection: close\r\n";
    let declared = format!("{head}Content-Length: {}\r\n\r\n{body}", body.len());
    let chunked = format!(
        "{head}Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    for (how, request) in [("declared", declared), ("chunked", chunked)] {
        let mut s = TcpStream::connect(("127.0.0.1", web)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // The server may answer and close before it has read it all.
        let _ = s.write_all(request.as_bytes());
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        let first = answer.lines().next().unwrap_or("");
        assert_eq!(first, "HTTP/1.1 413 Payload Too Large", "{how}");
    }
    c.stop();
}

#[test]
fn a_judge_gets_in_while_256_slow_bodies_trickle_into_the_centre() {
    support::raise_file_limit(2048);
    let (mut c, web, _dir) = centre("centre-slow-bodies");
    let posts = [
        ("/api/login", "application/json"),
        ("/api/push", "application/json"),
        ("/api/entries/import", "text/csv"),
        ("/api/hold", "application/json"),
    ];
    let trickle = Trickle::start(web, &posts, 256);

    let asked = Instant::now();
    c.http = Http::new(web);
    let (cookie, _) = c.login(support::centre_lane::PIN, "Chief Judge");
    let logged_in = asked.elapsed();
    let hold = json!({"lane": 1, "on": true, "reason": "oil"});
    let (status, said) = c.post(Some(&cookie), "/api/hold", &hold);
    let acted = asked.elapsed();
    let mut streams = trickle.stop();
    let answered = answers(&mut streams);
    eprintln!(
        "256 slow bodies on the centre: a judge logged in after {logged_in:?}, acted after \
         {acted:?}; the slow posts were answered {answered:?}"
    );
    assert_eq!(status, 200, "{said}");
    assert_eq!(
        answered.get("HTTP/1.1 401 Unauthorized"),
        Some(&192),
        "every change without a login is answered 401, unread: {answered:?}"
    );
    c.stop();
}

/// Posts a head announcing `length` bytes and none of them: the first line
/// of the answer, if one comes within 10 s.
fn post_unsent(port: u16, path: &str, content_type: &str, length: usize) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(slow_head(path, content_type, length).as_bytes())
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = [0u8; 512];
    let n = s.read(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
    text.lines().next().map(str::to_owned)
}

#[test]
fn a_post_that_needs_a_login_is_refused_before_its_body_is_read() {
    let (d, http, _dir) = daemon("unread", "");
    let lane = post_unsent(http, "/api/actions", "application/json", 10_000);
    assert_eq!(lane.as_deref(), Some("HTTP/1.1 401 Unauthorized"));
    assert!(d.stop().success());

    let (c, web, _dir) = centre("centre-unread");
    for path in [
        "/api/push",
        "/api/hold",
        "/api/blocks/lanes",
        "/api/finals/roll-off",
        "/api/entries/add",
        "/api/entries/edit",
        "/api/entries/withdraw",
        "/api/entries/delete",
    ] {
        let answer = post_unsent(web, path, "application/json", 60_000);
        assert_eq!(
            answer.as_deref(),
            Some("HTTP/1.1 401 Unauthorized"),
            "{path}"
        );
    }
    // A 1 MiB upload's head: no memory is taken for a body never read.
    let import = post_unsent(web, "/api/entries/import", "text/csv", 1 << 20);
    assert_eq!(import.as_deref(), Some("HTTP/1.1 401 Unauthorized"));
    c.stop();
}

// ----- a body's deadline, on the server itself ---------------------------------

/// The server with a body deadline of `body` and `rate` bytes a second,
/// serving `POST /echo` (the body's length), on a port of its own.
fn short_server(body: Duration, rate: u64) -> (u16, tokio::runtime::Runtime) {
    use axum::routing::post;
    use lanecall::web::server::{Limits, serve};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = axum::Router::new().route(
        "/echo",
        post(|body: axum::body::Bytes| async move { body.len().to_string() }),
    );
    let limits = Limits {
        body,
        body_rate: rate,
        ..Limits::new(8)
    };
    runtime.spawn(serve(listener, app, None, limits, std::future::pending()));
    (port, runtime)
}

/// Reads an answer to its end (the server closes after a `408`).
fn answer_of(s: &mut TcpStream) -> String {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn a_body_that_stops_or_trickles_is_answered_408_and_closed() {
    // 200 ms for a body's gaps and start, 1 KiB/s after: the defaults
    // (10 s, 1 KiB/s) scaled down, so that nothing here waits long.
    let (port, _runtime) = short_server(Duration::from_millis(200), 1024);

    // Whole at once: served.
    let mut whole = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut req = slow_head("/echo", "text/plain", 5).into_bytes();
    req.extend_from_slice(b"hello");
    whole.write_all(&req).unwrap();
    let mut buf = [0u8; 512];
    whole
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let n = whole.read(&mut buf).unwrap();
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.ends_with("\r\n\r\n5"), "{text}");

    // A body that stops after its first byte.
    let mut stalled = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stalled
        .write_all(slow_head("/echo", "text/plain", 100).as_bytes())
        .unwrap();
    stalled.write_all(b"x").unwrap();
    let answer = answer_of(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(
        answer.contains("the request body came too slowly"),
        "{answer}"
    );

    // A body that keeps coming, a byte every 50 ms (20 bytes a second):
    // never a gap, but far below the rate.
    let mut trickling = TcpStream::connect(("127.0.0.1", port)).unwrap();
    trickling
        .write_all(slow_head("/echo", "text/plain", 1000).as_bytes())
        .unwrap();
    let started = Instant::now();
    trickling.set_nonblocking(true).unwrap();
    let mut sent = 0;
    let answer = loop {
        let _ = trickling.write_all(b"x");
        sent += 1;
        let mut buf = [0u8; 1024];
        match trickling.read(&mut buf) {
            Ok(n) if n > 0 => break String::from_utf8_lossy(&buf[..n]).into_owned(),
            Ok(_) => break String::new(),
            Err(_) => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "a body trickled at 20 bytes a second is still read after {sent} bytes"
        );
        // The trickle's pace.
        std::thread::sleep(Duration::from_millis(50));
    };
    eprintln!(
        "a body trickled at 20 B/s was answered after {sent} bytes, {:?}",
        started.elapsed()
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}
