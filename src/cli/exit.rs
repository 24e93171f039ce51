//! The command line's exit codes besides 0 and 1 (sysexits.h's names).

/// A configuration the command cannot use (`run`, `centre`, `centre-acl`):
/// systemd's unit does not restart on it (`RestartPreventExitStatus=78`).
pub const EX_CONFIG: u8 = 78;

/// An input the command cannot read or use (a journal, a folder, a voice
/// pack): 2, as the commands have always said.
pub const EX_INPUT: u8 = 2;
