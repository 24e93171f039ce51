//! The demo centre's director: once every lane is online, pushes the
//! programme's first block from the centre's page, as a chief judge
//! would (log in with the PIN, `POST /api/push`), so the demo bowls
//! without anyone at the page. Everything after it is the director's.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The most of an answer read.
const MAX_ANSWER: u64 = 64 * 1024;

/// One HTTP/1.1 request to the centre's page: the status and the answer
/// (headers and body).
async fn request(
    centre: SocketAddr,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect(centre)
        .await
        .map_err(|e| format!("cannot reach the centre's page at {centre}: {e}"))?;
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {centre}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n{cookie}Connection: close\r\n\r\n",
        body.len()
    );
    let io = |e: std::io::Error| format!("{path}: {e}");
    stream.write_all(head.as_bytes()).await.map_err(io)?;
    stream.write_all(body.as_bytes()).await.map_err(io)?;
    let mut answer = String::new();
    stream
        .take(MAX_ANSWER)
        .read_to_string(&mut answer)
        .await
        .map_err(io)?;
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{path}: not an HTTP answer"))?;
    Ok((status, answer))
}

/// Logs in with `pin` and pushes `block`; the lanes it went to, or why
/// not.
pub async fn push(centre: SocketAddr, pin: &str, block: &str) -> Result<(), String> {
    let login = serde_json::json!({"pin": pin, "name": "Demo director"}).to_string();
    let (status, answer) = request(centre, "POST", "/api/login", None, &login).await?;
    if status != 200 {
        return Err(format!("login: HTTP {status}"));
    }
    let cookies: Vec<&str> = answer
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| {
            l.strip_prefix("set-cookie: ")
                .or(l.strip_prefix("Set-Cookie: "))
        })
        .filter_map(|c| c.split(';').next())
        .collect();
    let push = serde_json::json!({"block": block}).to_string();
    let (status, answer) = request(
        centre,
        "POST",
        "/api/push",
        Some(&cookies.join("; ")),
        &push,
    )
    .await?;
    match status {
        200 => Ok(()),
        _ => Err(format!(
            "push of {block}: HTTP {status}: {}",
            answer.rsplit("\r\n\r\n").next().unwrap_or_default()
        )),
    }
}

/// The games of the `nth` block (from 0, in the programme's order) that
/// puts `names` on lane `lane`, as the centre has its blocks now (the
/// finals' lanes are set on its page); `None` when none does.
pub async fn games_of(centre: SocketAddr, lane: u32, names: &[String], nth: usize) -> Option<u8> {
    let (status, answer) = request(centre, "GET", "/api/programme", None, "")
        .await
        .ok()?;
    if status != 200 {
        return None;
    }
    let body = answer.split_once("\r\n\r\n")?.1;
    let programme: serde_json::Value = serde_json::from_str(body).ok()?;
    let lane = lane.to_string();
    programme["blocks"]
        .as_array()?
        .iter()
        .filter(|b| {
            b["lanes"][lane.as_str()].as_array().is_some_and(|l| {
                l.iter()
                    .map(|n| n.as_str())
                    .eq(names.iter().map(|n| Some(n.as_str())))
            })
        })
        .nth(nth)
        .and_then(|b| b["games"].as_u64())
        .and_then(|g| u8::try_from(g).ok())
}

/// How often the director looks whether every lane is online.
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_millis(200);
/// How long the director waits for the lanes before pushing anyway.
const WAIT_AT_MOST: std::time::Duration = std::time::Duration::from_secs(60);

/// Pushes `block` once `lanes` lanes are online at the centre (or after
/// [`WAIT_AT_MOST`]), and says so on stdout.
pub async fn push_when_online(
    centre: SocketAddr,
    book: std::sync::Arc<std::sync::Mutex<crate::centre::book::Book>>,
    lanes: usize,
    pin: String,
    block: String,
) {
    let online = || {
        let book = book
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        book.lanes
            .values()
            .filter(|l| l.online == Some(true))
            .count()
    };
    let deadline = tokio::time::Instant::now() + WAIT_AT_MOST;
    while online() < lanes && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(LOOK_EVERY).await;
    }
    match push(centre, &pin, &block).await {
        Ok(()) => println!("The director pushed block {block} to the lanes: they bowl it now."),
        Err(e) => eprintln!("lanecall demo: the director could not push block {block}: {e}"),
    }
}
