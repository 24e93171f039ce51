//! `lanecall demo --lanes N`: a centre with its embedded broker and `N`
//! demo lanes in this one process, each a whole lane as
//! [`crate::daemon::serve`] runs it (journal, core, panel, `[centre]`
//! link) with a [`Pushed`] script: it bowls what the centre pushes. The
//! demo's logins are made afresh for each run; the director
//! (`director.rs`) pushes the programme's first block once every lane is
//! online.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::Pushed;
use crate::config::Config;
use crate::daemon::{DaemonError, ServeOptions, Source, Started, serve};

/// Why the demo centre could not run.
#[derive(Debug, thiserror::Error)]
pub enum CentreDemoError {
    /// The centre, or what it needs, could not start.
    #[error("the centre: {0}")]
    Centre(String),
    /// A lane could not start, or stopped by itself.
    #[error(transparent)]
    Lane(#[from] DaemonError),
}

/// `lanecall demo --lanes N`: the centre with its embedded broker and `N`
/// demo lanes, each a whole lane as [`serve`] runs it (journal, core,
/// panel, `[centre]` link), in this one process.
#[derive(Clone, Debug)]
pub struct CentreDemo {
    pub lanes: u32,
    /// The centre's and each lane's folder are made under it.
    pub state_dir: PathBuf,
    /// The centre's page; lane `k`'s panel listens on the next port up by
    /// `k` (any free port when this one is 0).
    pub listen: SocketAddr,
    pub judge_pin_hash: String,
    /// The PIN itself: the demo's director logs in with it.
    pub judge_pin: String,
    /// The competition's programme; `None`: the built-in one
    /// ([`super::programme`]).
    pub programme: Option<PathBuf>,
    /// How much faster than life the lanes bowl.
    pub speed: f64,
    /// Lane `k` plays with seed `seed + k`.
    pub seed: u64,
    pub stop_after: Option<Duration>,
}

/// Runs [`CentreDemo`] until every lane stops (SIGTERM, Ctrl-C or
/// `stop_after`); `on_start` gets the centre's page and each lane's panel.
/// Only lane 1 speaks: a room of loudspeakers saying every lane's pins at
/// once helps nobody.
pub async fn serve_centre(
    demo: CentreDemo,
    on_start: impl FnOnce(SocketAddr, &[(u32, Started)]),
) -> Result<(), CentreDemoError> {
    // The demo's logins, made afresh: a password for each lane, as a real
    // centre has (docs/centre.md); only this process knows them.
    let logins_dir = demo.state_dir.join("centre");
    let logins = demo_logins(&logins_dir, demo.lanes).map_err(|e| {
        CentreDemoError::Centre(format!(
            "cannot write the demo's logins in {}: {e}",
            logins_dir.display()
        ))
    })?;
    let programme = super::programme::DemoProgramme::prepare(
        &logins_dir,
        demo.lanes,
        demo.programme.as_deref(),
    )
    .map_err(CentreDemoError::Centre)?;
    let centre = crate::centre::start(crate::centre::config::CentreConfig {
        site: "demo".into(),
        state_dir: demo.state_dir.join("centre"),
        web_listen: demo.listen,
        judge_pin_hash: demo.judge_pin_hash.clone(),
        judges: Vec::new(),
        // Any free port: the centre binds it and says which.
        broker: crate::centre::config::Broker::Embedded {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        },
        username: None,
        password_file: None,
        passwords: Some(logins.passwords.clone()),
        allow_anonymous: false,
        lanes: None,
        programme: Some(programme.path.clone()),
    })
    .await
    .map_err(CentreDemoError::Centre)?;
    let broker = centre
        .broker
        .ok_or_else(|| CentreDemoError::Centre("the demo's broker did not start".into()))?;
    let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut lanes = Vec::new();
    for k in 1..=demo.lanes {
        let port = match demo.listen.port() {
            0 => 0,
            p => p.saturating_add(u16::try_from(k).unwrap_or(u16::MAX)),
        };
        let mut config = Config::demo(
            demo.state_dir.join(format!("lane{k}")),
            SocketAddr::new(demo.listen.ip(), port),
            demo.judge_pin_hash.clone(),
        );
        config.lane = k;
        config.speaker.enabled &= k == 1;
        config.centre = Some(crate::config::CentreConfig {
            broker: crate::mqtt::BrokerUrl {
                host: "127.0.0.1".into(),
                port: broker.port(),
                tls: false,
            },
            ca_file: None,
            site: "demo".into(),
            username: Some(format!("lane{k}")),
            password_file: Some(logins.lane_password(k)),
            accept_commands: true,
            neighbours: [k - 1, k + 1]
                .into_iter()
                .filter(|n| (1..=demo.lanes).contains(n))
                .collect(),
        });
        std::fs::create_dir_all(&config.state_dir).map_err(|e| {
            CentreDemoError::Centre(format!("cannot make {}: {e}", config.state_dir.display()))
        })?;
        let source = Source::Script(Box::new(Pushed {
            speed: demo.speed,
            seed: demo.seed.wrapping_add(u64::from(k)),
            centre: centre.web,
        }));
        let options = ServeOptions {
            stop_after: demo.stop_after,
            site_problems: Vec::new(),
        };
        let tx = started_tx.clone();
        lanes.push(tokio::spawn(serve(config, source, options, move |s| {
            let _ = tx.send((
                k,
                Started {
                    listen: s.listen,
                    journal: s.journal.clone(),
                },
            ));
        })));
    }
    drop(started_tx);
    let mut started = Vec::new();
    while let Some(s) = started_rx.recv().await {
        started.push(s);
    }
    started.sort_by_key(|(k, _)| *k);
    if started.len() == lanes.len() {
        on_start(centre.web, &started);
        if let Some(block) = programme.first_block {
            tokio::spawn(super::director::push_when_online(
                centre.web,
                centre.book.clone(),
                lanes.len(),
                demo.judge_pin.clone(),
                block,
            ));
        }
    }
    let mut result = Ok(());
    for lane in lanes {
        match lane.await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => result = result.and(Err(e.into())),
            Err(_) => result = result.and(Err(DaemonError::LaneStopped.into())),
        }
    }
    centre.stop().await;
    result
}

/// The demo centre's MQTT logins on disk, readable by this user only.
struct DemoLogins {
    /// The embedded broker's `passwords` file.
    passwords: PathBuf,
    dir: PathBuf,
}

impl DemoLogins {
    /// Lane `k`'s `password_file`.
    fn lane_password(&self, k: u32) -> PathBuf {
        self.dir.join(format!("lane{k}.password"))
    }
}

/// Writes a fresh random password for each of `lanes` lanes into `dir`:
/// the broker's `passwords` file and each lane's own password file.
fn demo_logins(dir: &std::path::Path, lanes: u32) -> io::Result<DemoLogins> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::create_dir_all(dir)?;
    let logins = DemoLogins {
        passwords: dir.join("mqtt-passwords"),
        dir: dir.to_owned(),
    };
    let private = |path: &std::path::Path, text: &str| -> io::Result<()> {
        let _ = std::fs::remove_file(path);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)?;
        f.write_all(text.as_bytes())
    };
    let mut all = String::new();
    for k in 1..=lanes {
        let password = crate::web::auth::secret().map_err(io::Error::other)?;
        private(&logins.lane_password(k), &format!("{password}\n"))?;
        all += &format!("lane{k}:{password}\n");
    }
    private(&logins.passwords, &all)?;
    Ok(logins)
}
