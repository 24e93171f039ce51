//! A Mosquitto of the test's own (Debian's `mosquitto`, never the system
//! service): its own config on a free port, persistence in the test's
//! folder, killed when dropped.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A Mosquitto of the test's own, on a free port. Killed when dropped.
pub struct Broker {
    pub port: u16,
    config: PathBuf,
    child: Option<Child>,
}

impl Broker {
    /// `extra`: more lines for its config (a password file, an ACL).
    pub fn start(dir: &Path, extra: &str) -> Broker {
        let port = super::free_port();
        let config = dir.join("mosquitto.conf");
        let store = dir.join("mosquitto-db");
        fs::create_dir_all(&store).unwrap();
        let anonymous = if extra.contains("password_file") {
            "false"
        } else {
            "true"
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
                 log_dest file {}\n{extra}",
                store.display(),
                dir.join("mosquitto.log").display()
            ),
        )
        .unwrap();
        let mut broker = Broker {
            port,
            config,
            child: None,
        };
        broker.run();
        broker
    }

    pub fn run(&mut self) {
        // Debian puts it in /usr/sbin, which a user's PATH may not hold.
        let program = if Path::new("/usr/sbin/mosquitto").exists() {
            "/usr/sbin/mosquitto"
        } else {
            "mosquitto"
        };
        let child = Command::new(program)
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

    /// Freezes the broker: it takes the lane's packets into its socket
    /// and acknowledges none of them.
    pub fn freeze(&self) {
        let pid = self.child.as_ref().unwrap().id().to_string();
        assert!(
            Command::new("kill")
                .args(["-STOP", &pid])
                .status()
                .unwrap()
                .success()
        );
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
