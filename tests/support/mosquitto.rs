//! A Mosquitto of the test's own (Debian's `mosquitto`, never the system
//! service): its own config on a free port, persistence in the test's
//! folder, killed when dropped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A Mosquitto of the test's own, on a free port. Killed when dropped.
pub struct Broker {
    pub port: u16,
    program: PathBuf,
    config: PathBuf,
    store: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

impl Broker {
    /// `extra`: more lines for its config (a password file, an ACL). With
    /// a password file, each login's client id is its name
    /// (`use_username_as_clientid`), as docs/centre.md configures it.
    pub fn start(dir: &Path, extra: &str) -> Broker {
        let port = super::free_port();
        let config = dir.join("mosquitto.conf");
        let store = dir.join("mosquitto-db");
        fs::create_dir_all(&store).unwrap();
        let (anonymous, ids) = if extra.contains("password_file") {
            ("false", "use_username_as_clientid true\n")
        } else {
            ("true", "")
        };
        let Some(program) = super::require_tool("mosquitto", "mosquitto") else {
            panic!("a broker test skips before it starts one (support::mosquitto_tools)");
        };
        // Started as root, Mosquitto would drop to its own user, which may
        // not write the test's folder: it stays the test's user.
        let user = Command::new("id").arg("-un").output().unwrap().stdout;
        let user = String::from_utf8_lossy(&user).trim().to_owned();
        // As docs/centre.md configures it: Mosquitto's default queue of
        // 1000 messages per client drops lines for a centre that reads
        // slowly (under qemu, two lanes' 1,181 lines at once).
        fs::write(
            &config,
            format!(
                "user {user}\nlistener {port} 127.0.0.1\nallow_anonymous {anonymous}\n\
                 persistence true\npersistence_location {}/\nautosave_interval 1\n\
                 max_queued_messages 100000\n\
                 log_dest file {}\nlog_type error\nlog_type warning\nlog_type notice\n\
                 log_type information\nlog_type subscribe\n{ids}{extra}",
                store.display(),
                dir.join("mosquitto.log").display()
            ),
        )
        .unwrap();
        let mut broker = Broker {
            port,
            program,
            config,
            store,
            log: dir.join("mosquitto.log"),
            child: None,
        };
        broker.run();
        broker
    }

    pub fn run(&mut self) {
        let child = Command::new(&self.program)
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run mosquitto ({e}): install the Debian package `mosquitto`")
            });
        self.child = Some(child);
        super::wait_listening(self.port);
    }

    /// Stops the broker and starts it again on its port with its config
    /// (a password file changed meanwhile read anew).
    pub fn restart(&mut self) {
        self.kill();
        self.run();
    }

    /// Whether the broker's log holds `text` yet.
    pub fn logged(&self, text: &str) -> bool {
        fs::read_to_string(&self.log).is_ok_and(|l| l.contains(text))
    }

    /// How many lines of the broker's log hold `text`.
    pub fn times_logged(&self, text: &str) -> usize {
        fs::read_to_string(&self.log).map_or(0, |l| l.lines().filter(|l| l.contains(text)).count())
    }

    /// Waits until client `client` has subscribed to `topic` (the broker
    /// logs each subscription).
    pub fn wait_subscribed(&self, client: &str, topic: &str) {
        super::eventually(&format!("{client} subscribed to {topic}"), || {
            fs::read_to_string(&self.log).is_ok_and(|l| {
                l.lines().any(|l| {
                    l.contains(&format!(" {client} ")) && l.ends_with(&format!(" {topic}"))
                })
            })
        });
    }

    /// Has the broker write its persistence file now (SIGUSR1), as its
    /// autosave does, and waits until it is written anew.
    pub fn save(&self) {
        use std::os::unix::fs::MetadataExt;
        let db = self.store.join("mosquitto.db");
        let file = || {
            fs::metadata(&db)
                .ok()
                .map(|m| (m.ino(), m.mtime_nsec(), m.mtime()))
        };
        let before = file();
        self.signal("-USR1");
        super::eventually("the broker's persistence file written anew", || {
            file().is_some_and(|now| Some(now) != before)
        });
    }

    /// The bytes waiting unread in the broker's sockets: what its clients
    /// sent a frozen broker.
    pub fn unread(&self) -> u64 {
        let local = format!(":{:04X}", self.port);
        ["/proc/net/tcp", "/proc/net/tcp6"]
            .iter()
            .flat_map(|t| {
                fs::read_to_string(t)
                    .unwrap_or_default()
                    .lines()
                    .skip(1)
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .filter_map(|row| {
                let f: Vec<&str> = row.split_whitespace().collect();
                // State 01 is ESTABLISHED; the queues are tx:rx, in hex.
                (f.len() > 4 && f[1].ends_with(&local) && f[3] == "01")
                    .then(|| u64::from_str_radix(f[4].split(':').nth(1)?, 16).ok())
                    .flatten()
            })
            .sum()
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().unwrap().id().to_string();
        assert!(
            Command::new("kill")
                .args([signal, &pid])
                .status()
                .unwrap()
                .success()
        );
    }

    /// Freezes the broker: it takes the lane's packets into its socket
    /// and acknowledges none of them.
    pub fn freeze(&self) {
        self.signal("-STOP");
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Adds (or replaces) `user`'s login in the Mosquitto password file
/// `passwd` (`mosquitto_passwd -b`); read by a broker (re)started after.
pub fn add_login(passwd: &Path, user: &str, password: &str) {
    let program = super::require_tool("mosquitto_passwd", "mosquitto").expect("mosquitto_passwd");
    let status = Command::new(program)
        .arg("-b")
        .arg(passwd)
        .args([user, password])
        .status()
        .expect("mosquitto_passwd runs (Debian's mosquitto package)");
    assert!(status.success(), "mosquitto_passwd {user}");
}
