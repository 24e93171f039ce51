//! The judges' logins against the real daemon and the real centre: wrong
//! PINs lock out the address that guessed, not the judges; guessing from
//! many addresses locks out only devices that have not logged in, until
//! `lanecall unlock` (a lane's config or a centre's); the daemon's memory
//! stays flat over many logins; and sessions end (or survive) as they
//! should, a judge renamed or removed in the config keeping none.

use crate::support;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use socket2::{Domain, Socket, Type};
use support::centre::Centre;
use support::{Daemon, free_port, write_config};

const PIN: &str = "246813";

fn temp_dir(name: &str) -> crate::support::Scratch {
    crate::support::Scratch::new(name)
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

/// The `Retry-After` of an answer's head.
fn retry_after(head: &str) -> u64 {
    head.lines()
        .find_map(|l| l.strip_prefix("retry-after: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("Retry-After")
}

/// A login from `source`, asked again while the per-address rate (not a
/// lock) refuses it: one address may try only a few times a second.
fn login_past_the_rate(source: Ipv4Addr, http: u16, pin: &str) -> (u16, String, Value) {
    support::eventually("an answer other than the rate limit's", || {
        let answer = login_from(source, http, pin);
        if answer.0 == 429 && answer.2["error"] == lanecall::web::limit::TOO_MANY {
            Err("the rate limit".to_owned())
        } else {
            Ok(answer)
        }
    })
}

/// `lanecall unlock --config config`: whether it succeeded, and what it
/// said.
fn unlock(config: &Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanecall"))
        .args(["unlock", "--config"])
        .arg(config)
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

const GUESSER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const CHIEF: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// Five wrong PINs from one address, then the chief judge's tablet, at
/// another address that never logged in, logs in; the guesser's address
/// is locked, and told what ends it.
fn one_guesser_locks_only_itself(http: u16, unlock_hint: &str) {
    for n in 0..5 {
        let (status, _, body) = login_from(GUESSER, http, &format!("{:06}", 100_000 + n));
        assert_eq!(status, 401, "try {n}: {body}");
    }
    let (status, _, body) = login_from(CHIEF, http, PIN);
    assert_eq!(status, 200, "another address logs in: {body}");
    let (status, head, body) = login_past_the_rate(GUESSER, http, PIN);
    assert_eq!(status, 429, "the guesser, the right PIN too: {body}");
    assert!((50..=61).contains(&retry_after(&head)), "{head}");
    let message = body["error"].as_str().unwrap();
    assert!(message.contains(unlock_hint), "{message}");
}

#[test]
fn wrong_pins_from_one_address_lock_that_address_not_the_judges() {
    let dir = temp_dir("one-guesser");
    let http = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = config_with(&dir, http, &hash, "");
    let _daemon = Daemon::start(&config, http);
    let judge = log_in(http, PIN);
    one_guesser_locks_only_itself(http, "`lanecall unlock` on the lane's computer");

    // The judges see who guessed and that it is locked out; logins at
    // large are not locked.
    let (status, security) = get_as(http, "/api/security", &judge);
    assert_eq!(status, 200);
    assert_eq!(security["locked"], false, "{security}");
    assert_eq!(security["wrong_pins"], 5, "{security}");
    assert_eq!(security["address_lockouts"], 1, "{security}");
    assert_eq!(security["addresses"], json!(["127.0.0.2"]), "{security}");
    assert_eq!(security["locked_addresses"], json!(["127.0.0.2"]));
}

#[test]
fn guessing_from_many_addresses_locks_new_devices_until_unlocked() {
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
    // The judge's tablet logs in from 127.0.0.1.
    let judge = log_in(http, PIN);

    // Twenty wrong PINs, each from another address, are checked and wrong:
    // no address reaches its own lock.
    for n in 0..20 {
        let (status, _, body) = login_from(address(n), http, &format!("{:06}", 100_000 + n));
        assert_eq!(status, 401, "try {n}: {body}");
    }
    // Then a device that has not logged in is refused without a check,
    // the real PIN too...
    let new_device = Ipv4Addr::new(127, 0, 1, 1);
    for n in 0..5 {
        let (status, head, body) = login_from(address(n), http, PIN);
        assert_eq!(status, 429, "guesser {n}: {body}");
        assert!((500..=601).contains(&retry_after(&head)), "{head}");
    }
    let (status, head, body) = login_from(new_device, http, PIN);
    assert_eq!(status, 429, "{body}");
    assert!((500..=601).contains(&retry_after(&head)), "{head}");
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("locked"), "{message}");
    assert!(message.contains("`lanecall unlock`"), "{message}");
    // ...while the judge's tablet, which logged in before, still can.
    let (status, _, body) = login_from(Ipv4Addr::LOCALHOST, http, PIN);
    assert_eq!(status, 200, "the judge's tablet: {body}");

    // The judge stays logged in and sees the attack.
    assert_eq!(judge_of(http, &judge), "Judge Orlova");
    let (status, security) = get_as(http, "/api/security", &judge);
    assert_eq!(status, 200);
    assert_eq!(security["locked"], true, "{security}");
    assert_eq!(security["wrong_pins"], 20, "{security}");
    assert_eq!(security["lockouts"], 1, "{security}");
    assert_eq!(security["overall_lock_after"], 20, "{security}");
    assert_eq!(security["pin_checks"], 22, "two logins and 20 wrong");
    let addresses: Vec<&str> = security["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(addresses.len(), 10, "the last ten: {addresses:?}");
    assert_eq!(addresses[0], "127.0.0.21");
    assert_eq!(addresses[9], "127.0.0.12");
    // Nobody else sees it.
    let (status, _, _) = request_from(address(0), http, "GET", "/api/security", &[], "");
    assert_eq!(status, 401);

    // `lanecall unlock` on the Pi ends the lock; the new device gets in.
    let (unlocked, said) = unlock(&config);
    assert!(unlocked, "{said}");
    let (status, _, body) = login_from(new_device, http, PIN);
    assert_eq!(status, 200, "{body}");
    let (_, security) = get_as(http, "/api/security", &judge);
    assert_eq!(security["locked"], false, "{security}");

    drop(daemon);
    // One warning for the lock, not one per try.
    let log = std::fs::read_to_string(config.with_extension("log")).unwrap();
    assert_eq!(log.matches("PIN checks locked").count(), 1, "{log}");
}

/// A centre's config in `dir`: its state in `dir/state`, a broker that is
/// not there (the web page does not need it), `[web]` last with `extra`.
fn centre_config(dir: &Path, web: u16, hash: &str, extra: &str) -> PathBuf {
    let broker = free_port();
    let text = format!(
        "site = \"logins\"\nstate_dir = {:?}\nbroker = \"mqtt://127.0.0.1:{broker}\"\n\
         [web]\nlisten = \"127.0.0.1:{web}\"\njudge_pin_hash = {hash:?}\n{extra}",
        dir.join("state")
    );
    let path = dir.join("centre.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_centre_locks_only_the_guessing_address() {
    let dir = temp_dir("centre-guesser");
    let web = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = centre_config(&dir, web, &hash, "");
    let _centre = Centre::start(&config, web);
    one_guesser_locks_only_itself(web, "`lanecall unlock --config /etc/lanecall/centre.toml`");
}

#[test]
fn lanecall_unlock_with_a_centres_config_ends_its_lockout() {
    let dir = temp_dir("centre-unlock");
    let web = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let config = centre_config(&dir, web, &hash, "");
    let _centre = Centre::start(&config, web);
    for n in 0..5 {
        let (status, _, body) = login_from(GUESSER, web, &format!("{:06}", 100_000 + n));
        assert_eq!(status, 401, "try {n}: {body}");
    }
    let (status, _, locked) = login_past_the_rate(GUESSER, web, PIN);
    assert_eq!(status, 429, "{locked}");

    let (unlocked, said) = unlock(&config);
    assert!(unlocked, "{said}");
    assert!(said.contains("unlocked"), "{said}");
    let (status, _, body) = login_past_the_rate(GUESSER, web, PIN);
    assert_eq!(status, 200, "after the unlock: {body}");
    // The locked answer named the centre's command, not the lane's.
    let message = locked["error"].as_str().unwrap();
    assert!(message.contains("--config"), "{message}");
    assert!(message.contains("centre's computer"), "{message}");
    assert!(!message.contains("lane's computer"), "{message}");
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
}

const JUDGE_PIN: &str = "80604020";

/// A `[[web.judges]]` table naming `name`, with the PIN hash `hash`.
fn named_judge(name: &str, hash: &str) -> String {
    format!("[[web.judges]]\nname = {name:?}\npin_hash = {hash:?}\n")
}

/// The config at `path` with the text `from` replaced by `to`.
fn edit_config(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(path, text.replace(from, to)).unwrap();
}

/// Logs in with a named judge's PIN from 127.0.0.1: the cookie, and the
/// name the login gave.
fn log_in_named(http: u16, pin: &str) -> (String, Value) {
    let (status, head, body) = login_from(Ipv4Addr::LOCALHOST, http, pin);
    assert_eq!(status, 200, "{body}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .expect("a session cookie");
    (
        cookie.split(';').next().unwrap().to_owned(),
        body["name"].clone(),
    )
}

/// What a restart with a judge renamed, then removed, does to their
/// sessions, on a lane or a centre (`restart` stops it, `edit` changes its
/// config, and it starts again): the old name's session ends, the shared
/// PIN's stays.
fn renamed_and_removed_judges_keep_no_session(
    http: u16,
    config: &Path,
    judge_hash: &str,
    restart: &mut dyn FnMut(&mut dyn FnMut()),
) {
    let (shared, _) = log_in_named(http, PIN);
    let (ivanova, name) = log_in_named(http, JUDGE_PIN);
    assert_eq!(name, "Judge Ivanova");
    assert_eq!(judge_of(http, &ivanova), "Judge Ivanova");

    // Renamed, with the same PIN: the old name's session is gone.
    restart(&mut || {
        edit_config(
            config,
            &named_judge("Judge Ivanova", judge_hash),
            &named_judge("Judge Petrova", judge_hash),
        );
    });
    assert_eq!(
        judge_of(http, &ivanova),
        Value::Null,
        "the old name's session"
    );
    assert_eq!(judge_of(http, &shared), "Judge Orlova", "the shared PIN's");
    let (petrova, name) = log_in_named(http, JUDGE_PIN);
    assert_eq!(name, "Judge Petrova");
    assert_eq!(judge_of(http, &petrova), "Judge Petrova");

    // Removed: the session ends with the judge.
    restart(&mut || edit_config(config, &named_judge("Judge Petrova", judge_hash), ""));
    assert_eq!(judge_of(http, &petrova), Value::Null);
    let (status, _, _) = login_from(Ipv4Addr::LOCALHOST, http, JUDGE_PIN);
    assert_eq!(status, 401);
    assert_eq!(judge_of(http, &shared), "Judge Orlova");
}

#[test]
fn a_judge_renamed_or_removed_on_a_lane_keeps_no_session_after_a_restart() {
    let dir = temp_dir("renamed");
    let http = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let judge_hash = lanecall::web::hash_pin(JUDGE_PIN).unwrap();
    let config = config_with(
        &dir,
        http,
        &hash,
        &named_judge("Judge Ivanova", &judge_hash),
    );
    let mut daemon = Some(Daemon::start(&config, http));
    renamed_and_removed_judges_keep_no_session(http, &config, &judge_hash, &mut |edit| {
        assert!(daemon.take().unwrap().stop().success());
        edit();
        daemon = Some(Daemon::start(&config, http));
    });
}

#[test]
fn a_judge_renamed_or_removed_on_a_centre_keeps_no_session_after_a_restart() {
    let dir = temp_dir("centre-renamed");
    let web = free_port();
    let hash = lanecall::web::hash_pin(PIN).unwrap();
    let judge_hash = lanecall::web::hash_pin(JUDGE_PIN).unwrap();
    let config = centre_config(&dir, web, &hash, &named_judge("Judge Ivanova", &judge_hash));
    let mut centre = Some(Centre::start(&config, web));
    renamed_and_removed_judges_keep_no_session(web, &config, &judge_hash, &mut |edit| {
        centre.take().unwrap().stop();
        edit();
        centre = Some(Centre::start(&config, web));
    });
}
