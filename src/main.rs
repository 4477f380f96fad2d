//! The `kubectl-affinity` binary: parse, run, print the error, exit with its code.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use kubectl_affinity::{app, cli::Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match app::run(cli, &mut out) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`... | head`): nothing left to say, as for other Unix tools.
        Err(kubectl_affinity::error::Error::Output(e))
            if e.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            // Messages carry their causes already; print them once.
            let _ = writeln!(std::io::stderr(), "error: {err}");
            ExitCode::from(err.exit_code() as u8)
        }
    }
}
