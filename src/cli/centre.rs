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
