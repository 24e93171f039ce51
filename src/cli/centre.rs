//! `lanecall centre` and `lanecall centre-acl`: the competition's centre
//! ([`crate::centre`]) from the command line.

/// `lanecall centre-acl --config PATH [--lanes LIST]`: the Mosquitto ACL
/// for the centre's site, login and lanes, on stdout ([`broker::acl`]);
/// exit 78 for a config or lane list it cannot use.
pub(super) fn acl_main(path: &std::path::Path, lanes: Option<&str>) -> std::process::ExitCode {
    use std::process::ExitCode;
    let fail = |e: String| {
        eprintln!("lanecall centre-acl: {e}");
        ExitCode::from(super::exit::EX_CONFIG)
    };
    let config = match crate::centre::config::CentreConfig::load(path) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    let lanes = match lanes {
        Some(text) => {
            match crate::centre::config::parse_lanes(&toml::Value::String(text.to_owned())) {
                Ok(lanes) => lanes,
                Err(e) => return fail(format!("--lanes: {e}")),
            }
        }
        None => {
            let programme = match config
                .programme
                .as_deref()
                .map(crate::centre::programme::Programme::load)
            {
                Some(Err(e)) => return fail(e.to_string()),
                Some(Ok(p)) => Some(p),
                None => None,
            };
            match crate::centre::named_lanes(&config, programme.as_ref()) {
                Some(lanes) => lanes,
                None => {
                    return fail(format!(
                        "{} names no lanes: give --lanes 1-48, or `lanes` in the config",
                        path.display()
                    ));
                }
            }
        }
    };
    let centre_user = config.username.as_deref().unwrap_or("centre");
    let lanes: Vec<u32> = lanes.into_iter().collect();
    print!(
        "{}",
        crate::centre::broker::acl::mosquitto_acl(&config.site, centre_user, &lanes)
    );
    ExitCode::SUCCESS
}

/// `lanecall centre --config PATH`: runs until SIGINT or SIGTERM; exit 78
/// for a config it cannot use.
pub(super) fn main(path: &std::path::Path) -> std::process::ExitCode {
    use std::process::ExitCode;
    let config = match crate::centre::config::CentreConfig::load(path) {
        Ok(c) => c,
        Err(e) => {
            super::fatal("lanecall centre", e);
            return ExitCode::from(super::exit::EX_CONFIG);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            super::fatal("lanecall centre", e);
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(async {
        let centre = match crate::centre::start(config).await {
            Ok(c) => c,
            Err(e) => {
                super::fatal("lanecall centre", e);
                return ExitCode::FAILURE;
            }
        };
        println!("Centre: http://{}/", centre.web);
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(e) => {
                super::fatal("lanecall centre", e);
                return ExitCode::FAILURE;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        centre.stop().await;
        ExitCode::SUCCESS
    })
}

/// `lanecall check-config` of a centre's config: exit 1 with every problem
/// of the file and of the programme it names, and a PIN hash left as the
/// example's placeholder; else what the centre will use.
pub(super) fn check_config(path: &std::path::Path) -> std::process::ExitCode {
    use crate::centre::config::{Broker, CentreConfig};
    use std::process::ExitCode;
    let config = match CentreConfig::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(w) = crate::config::mode_warning(path) {
        eprintln!("warning: {w}");
    }
    let mut failed = false;
    if crate::config::is_placeholder_hash(&config.judge_pin_hash) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("judge_pin_hash"))
            .map_or(String::new(), |n| format!(" (line {})", n + 1));
        eprintln!(
            "{}: web.judge_pin_hash: it is the example's placeholder, which no PIN opens: run \
             `lanecall hash-pin` with the chief judge's PIN (6 to 12 digits) and paste the line \
             it prints here{line}",
            path.display()
        );
        failed = true;
    }
    // As the centre reads it: with its own entries, once changed on its
    // page (`state_dir/entries.toml`).
    let load = |path: &std::path::Path| {
        crate::centre::entries::Entries::load(path, &config.state_dir).map(|e| e.programme())
    };
    let programme = match config.programme.as_deref().map(load) {
        Some(Err(e)) => {
            eprintln!("{e}");
            failed = true;
            None
        }
        Some(Ok(p)) => Some(p),
        None => None,
    };
    if failed {
        return ExitCode::FAILURE;
    }
    println!("a centre's config: site \"{}\"", config.site);
    println!("state_dir: {}", config.state_dir.display());
    println!("web.listen: {}", config.web_listen);
    match &config.broker {
        Broker::Embedded { listen } => {
            let logins = config
                .passwords
                .as_ref()
                .map_or("none: anyone may log in".to_owned(), |p| {
                    p.display().to_string()
                });
            println!("broker: the embedded one on {listen} (logins: {logins})");
        }
        Broker::External { url, .. } => println!("broker: {url}"),
    }
    match crate::centre::named_lanes(&config, programme.as_deref()) {
        Some(lanes) => {
            let lanes: Vec<String> = lanes.iter().map(u32::to_string).collect();
            println!("lanes: {}", lanes.join(", "));
        }
        None => println!("lanes: those the embedded broker's logins name"),
    }
    match (&config.programme, &programme) {
        (Some(path), Some(p)) => println!(
            "programme: {}: \"{}\", {} entries, {} events, {} blocks, {} finals",
            path.display(),
            p.title,
            p.entries.len(),
            p.events.len(),
            p.blocks.len(),
            p.finals.len()
        ),
        _ => println!("programme: none (no standings)"),
    }
    ExitCode::SUCCESS
}
