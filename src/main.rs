//! The `lanecall` command: [`lanecall::cli`] is all of it.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    lanecall::cli::main()
}
