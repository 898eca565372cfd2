//! The `switchboard` binary: see `switchboard --help` (the commands are the library's,
//! `switchboard::commands`).

fn main() -> std::process::ExitCode {
    switchboard::commands::main()
}
