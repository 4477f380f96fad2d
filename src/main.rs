//! The `kubectl-affinity` binary: parse, run, print the error, exit with its code.

use std::io::Write;
use std::process::ExitCode;

use kubectl_affinity::{app, cli::Cli};

/// A 150,000-pod state leaves glibc's heap fragmented, and the evaluation's many small
/// allocations then spent ~40% of their time in `_int_malloc`/`unlink_chunk`; mimalloc's
/// per-size free lists do not degrade that way (see BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::from_env();
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
