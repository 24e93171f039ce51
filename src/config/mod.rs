//! Configuration: the lane's TOML file (`config/lanecall.toml` documents
//! every key) read in two steps, as ripgrep parses its flags.
//!
//! 1. The text is parsed into a table and walked against the known keys,
//!    so every unknown key and every value of the wrong type is reported
//!    with its full path (`gpio.inputs.foul_beam.pinn`). The known keys
//!    are read from the serde structs the file is read into (`shape`).
//! 2. The file is read into those structs: a table that is one struct
//!    (`[journal]`, `[pinsetter]` with its `[pinsetter.switches]`,
//!    `[speaker]`, `[web]`, `[centre]`, `[gpio]` with its inputs and
//!    outputs: each key a field with its doc, its
//!    default in the struct's `Default`, its check in its type, see
//!    `value`) is what the daemon uses as it is; each value a field
//!    refuses is reported at its key and the file read again without it.
//!    The top-level keys are read checked too (`lane` in its range,
//!    `state_dir` absolute), left out `None`. `[rules]` is read as
//!    options over the core's `Rules::default()` and checked by the core;
//!    all is validated into a [`Config`] whose
//!    every field is usable: pins are [`BcmPin`]s no two inputs or outputs
//!    share, the listen address is a [`SocketAddr`](std::net::SocketAddr),
//!    times are [`Duration`](std::time::Duration)s.
//!
//! Validation reports every problem at once, each by its key path with what
//! to do about it: the technician fixing a lane before a tournament should
//! not have to restart the daemon once per typo.
//!
//! This module only reads and checks; it never opens a pin, a port or a
//! socket (`site` reads the machine's files and links, and `statfs`es the
//! state folder).
//!
//! The files, each using only those above it (no file imports one that
//! imports it back):
//! - `problem`: a problem by key, message and place, and the errors of a
//!   file; `keys`: what a key holds (`Kind`), docs/config.md's key
//!   tables written from a file's known keys and its defaults, and how a
//!   key and a string are written in TOML. No table declares its keys
//!   apart from its struct any more, the centre's file neither.
//! - `defaults`: the defaults another part shares (the web's, used by the
//!   centre's page too) and the voices' folder.
//! - `shape`: a serde struct's keys, read from the struct (the lane's
//!   file's and the centre's, `crate::centre::config`'s `Raw`: one
//!   struct too, its values read checked where a value alone decides and
//!   the keys that depend on each other checked after, into the same
//!   `Check`).
//! - `value`: the validating value types (milliseconds in a range, an
//!   absolute path, one of named values).
//! - `gpio`: the validated GPIO types ([`BcmPin`], the inputs and outputs).
//! - `collect`: the one problem collector every file's checks push into
//!   (the lane's config, the centre's, the programme), and where a key is
//!   in the text (line and column, computed in one place).
//! - `wire`: `[gpio]`, one serde struct, and each wired input's or
//!   output's table in it, its defaults (pull, active level, debounce,
//!   pulse) declared once; checked into the [`GpioConfig`] the sensors use.
//! - `judges`: the PIN-hash check and the `[[web.judges]]` check, once for
//!   the lane's `[web]` and the centre's.
//! - `raw`: the file as written — `RawConfig`, one serde struct
//!   whose keys are read from it (`shape`), `[rules]` read as options,
//!   the walk of the known keys, the "did you mean" of an unknown key.
//! - `journal`, `speaker`, `web`: `[journal]`, `[speaker]` and `[web]`, each one struct,
//!   read, used and printed as it is; `centre`: the lane's `[centre]`,
//!   the same; `pinsetter`: `[pinsetter]`, one
//!   struct, its `[pinsetter.switches]` moved into the checked switches.
//! - `switches`: `[pinsetter.switches]`, its table one serde struct (its
//!   defaults in its `Default`) checked into the switches the sensors use;
//!   `validated`: the [`Config`] the
//!   rest of the crate uses.
//! - `print`: the effective file `check-config` prints, a [`Config`]
//!   written back through `raw`'s structs (the keys' names and units are
//!   the file's by construction).
//! - `validate`: the raw structs and the tables' own checks into a
//!   [`Config`], every problem at once.
//! - `load`: reading a file through those steps, the one loader of the
//!   lane's config, the centre's and the programme.
//! - `check`: what `lanecall check-config` checks beyond the file (the
//!   placeholder PIN, a low port the service may not bind); `site`: what
//!   the machine's own files say (a journal on tmpfs or an overlay, a
//!   console or login on the pinsetter's port, the Pi's header UART, pins
//!   config.txt gives to I2C, SPI, the UART or a HAT).

mod centre;
mod check;
mod collect;
mod defaults;
/// The `[web]` defaults the lane's panel and the centre's page share.
pub(crate) use defaults::{
    DEFAULT_LISTEN, DEFAULT_LOCKOUT_AFTER, DEFAULT_LOCKOUT_BASE_S, DEFAULT_LOCKOUT_MAX_S,
    DEFAULT_SESSION_HOURS, DEFAULT_SESSION_IDLE_S,
};
mod gpio;
mod journal;
pub(crate) mod judges;
pub(crate) mod keys;
mod listen;
mod load;
mod pinsetter;
mod print;
mod problem;
mod raw;
pub(crate) mod shape;
mod site;
mod speaker;
mod switches;
mod validate;
mod validated;
mod value;
mod web;
mod wire;

pub use check::{
    Host, SiteCheck, is_placeholder_hash, mode_warning, read_password_file, unit_grant,
};
pub use listen::listen_address;
pub use site::{
    BootConfig, Claim, Console, Getty, HeaderUart, HostFiles, Mount, PiModel, UartLayout, UnitFile,
    VolatileFs, consoles, enabled_gettys, header_uart, mount_of, read_boot_config, tty_name,
    unit_files, volatile_storage,
};

pub(crate) use collect::{Check, position};
pub use defaults::VOICES_DIR;
pub use gpio::{BcmPin, GpioBackend, GpioConfig, InputConfig, InputRole, OutputConfig, Pull};
pub(crate) use judges::judges;
pub use judges::{JudgeConfig, MAX_JUDGES};
pub(crate) use load::{load_file, parse_checked, serde_error};
pub(crate) use problem::absolute_path;
pub use problem::{ConfigError, Problem};
pub use speaker::VOLUME;
pub use switches::{SwitchPin, SwitchesConfig};
pub use validated::{
    BAUD_RATES, CentreConfig, Config, JournalConfig, Language, PinsetterConfig, SpeakerConfig,
    TlsFiles, WebConfig,
};
pub(crate) use web::{judge_pin_hash, listen as listen_value};
pub use wire::BUTTONS;
