//! A real `lanecall centre` process, and what the centre's tests compare:
//! the standings against the lanes' own sheets, the mirror against the
//! lanes' journal files.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::http::Http;

/// A running `lanecall centre`, its log in `centre.log` beside its config.
/// Killed when dropped.
pub struct Centre {
    pub child: Child,
    pub http: Http,
    /// The port of its web server.
    pub web: u16,
}

impl Centre {
    pub fn start(config: &Path, web: u16) -> Centre {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(config.with_file_name("centre.log"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_lanecall"))
            .args(["centre", "--config"])
            .arg(config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("lanecall centre starts");
        super::wait_listening(web);
        Centre {
            child,
            http: Http::new(web),
            web,
        }
    }

    /// POSTs `body` (of `content_type`) to `path`, with the session
    /// `cookie` if any: the status and the JSON answered (null if none).
    pub fn post_as(
        &mut self,
        cookie: Option<&str>,
        path: &str,
        content_type: &str,
        body: &[u8],
    ) -> (u16, Value) {
        let mut headers = vec![("Content-Type", content_type)];
        if let Some(k) = cookie {
            headers.push(("Cookie", k));
        }
        let r = self.http.request("POST", path, &headers, body).unwrap();
        (
            r.status,
            serde_json::from_slice(&r.body).unwrap_or(Value::Null),
        )
    }

    /// [`Centre::post_as`] of JSON.
    pub fn post(&mut self, cookie: Option<&str>, path: &str, body: &Value) -> (u16, Value) {
        self.post_as(
            cookie,
            path,
            "application/json",
            body.to_string().as_bytes(),
        )
    }

    /// Logs in with `pin` and `name` (none when empty): the session
    /// cookie, and the name the centre took (a judge's own PIN gives that
    /// judge's).
    pub fn login(&mut self, pin: &str, name: &str) -> (String, String) {
        let mut body = serde_json::json!({ "pin": pin });
        if !name.is_empty() {
            body["name"] = name.into();
        }
        let body = body.to_string();
        let headers = [("Content-Type", "application/json")];
        let r = self
            .http
            .request("POST", "/api/login", &headers, body.as_bytes())
            .unwrap();
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let cookie = r.header("set-cookie").expect("a session cookie");
        let cookie = cookie.split(';').next().unwrap().to_owned();
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        (cookie, v["name"].as_str().unwrap_or(name).to_owned())
    }

    /// Waits until the centre has subscribed to the lanes' topics.
    pub fn wait_connected(&mut self) {
        super::eventually("the centre to reach its broker", || {
            self.get("/api/centre")["connected"] == true
        });
    }

    pub fn get(&mut self, path: &str) -> Value {
        let r = self.http.request("GET", path, &[], b"").expect("answered");
        assert_eq!(r.status, 200, "{path}");
        serde_json::from_slice(&r.body).expect("JSON")
    }

    pub fn lane(&mut self, n: u64) -> Option<Value> {
        let lanes = self.get("/api/lanes");
        lanes.as_array()?.iter().find(|l| l["lane"] == n).cloned()
    }

    /// Polls until `cond` holds on `/api/lanes`'s lane `n`.
    pub fn wait_lane(&mut self, n: u64, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        super::eventually(&format!("lane {n} to show {what}"), || match self.lane(n) {
            Some(l) if cond(&l) => Ok(l),
            other => Err(format!("{other:?}")),
        })
    }

    /// Stops it as systemd does (SIGTERM) and waits for it.
    pub fn stop(mut self) {
        super::terminate(&mut self.child);
    }
}

impl Drop for Centre {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET path` on `port`: the JSON of a 200, else `None`.
pub fn get(port: u16, path: &str) -> Option<Value> {
    let r = Http::new(port).request("GET", path, &[], b"").ok()?;
    (r.status == 200).then(|| serde_json::from_slice(&r.body).ok())?
}

/// Every bowler's series as each lane's `/api/lane` says it (lanes by
/// number: their web ports), from their first ball (the standings list a
/// bowler once they have bowled).
pub fn lane_series(ports: &BTreeMap<u32, u16>) -> Option<BTreeMap<String, (u32, u64)>> {
    let mut out = BTreeMap::new();
    for (&lane, &port) in ports {
        let v = get(port, "/api/lane")?;
        for b in v["bowlers"].as_array()? {
            if b["games"].as_array()?.is_empty() {
                continue;
            }
            // With the handicap the centre sent: a woman's +10 in a
            // combined category is in it, as in the standings' total.
            let series = b["series_with_handicap"].as_u64()?;
            out.insert(b["name"].as_str()?.to_owned(), (lane, series));
        }
    }
    Some(out)
}

/// Every bowler's total as the centre's standings say it.
pub fn centre_totals(port: u16) -> Option<BTreeMap<String, (u32, u64)>> {
    let v = get(port, "/api/standings")?;
    let mut out = BTreeMap::new();
    for c in v["categories"].as_array()? {
        for e in c["entries"].as_array()? {
            out.insert(
                e["name"].as_str()?.to_owned(),
                (e["lane"].as_u64()? as u32, e["total"].as_u64()?),
            );
        }
    }
    Some(out)
}

/// The journal files (`*.jsonl`) in `dir`, by name.
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Lane `n`'s MQTT password in the tests' logins.
pub fn lane_secret(n: u32) -> String {
    format!("secret-{n}")
}

/// Writes the logins of lanes `lanes` into `dir`, none readable by
/// others: the embedded broker's `passwords` file (its path returned),
/// already hashed at the least cost so that a centre starts at once even
/// under emulation, and each lane's password file ([`lane_login_keys`]
/// names it).
pub fn write_logins(dir: &Path, lanes: impl IntoIterator<Item = u32>) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let private = |path: &Path, text: String| {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    };
    let mut all = String::new();
    for n in lanes {
        private(
            &dir.join(format!("lane{n}.password")),
            lane_secret(n) + "\n",
        );
        all += &format!("lane{n}:{}\n", super::cheap_hash(&lane_secret(n)));
    }
    let path = dir.join("passwords");
    private(&path, all);
    path
}

/// The `[centre]` keys of lane `n`'s login, its password file in `dir`
/// ([`write_logins`]).
pub fn lane_login_keys(dir: &Path, n: u32) -> String {
    format!(
        "username = \"lane{n}\"\npassword_file = {:?}",
        dir.join(format!("lane{n}.password"))
    )
}
