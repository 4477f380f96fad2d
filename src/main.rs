//! The `kubectl-affinity` binary: parse, run, print the error, exit with its code.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use kubectl_affinity::{app, cli::Cli};

/// A 150,000-pod state leaves glibc's heap fragmented, and the evaluation's many small
/// allocations then spend much of their time searching its free lists (`_int_malloc`,
/// `unlink_chunk`); mimalloc's per-size free lists do not degrade that way.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    no_huge_pages();
    let cli = Cli::from_env();
    let stdout = std::io::stdout().lock();
    // A line at a time for a terminal, in blocks otherwise, as ripgrep does: a line buffer
    // makes one system call per line, and an audit's table has one per pod that breaks a rule.
    let mut out: Box<dyn Write> = if stdout.is_terminal() {
        Box::new(stdout)
    } else {
        Box::new(std::io::BufWriter::new(stdout))
    };
    let ran = app::run(cli, &mut out, &mut std::io::stderr());
    let flushed = out.flush();
    match ran.and_then(|code| flushed.map(|()| code).map_err(Into::into)) {
        Ok(code) => ExitCode::from(code),
        // The reader went away (`... | head`): nothing left to say, as for other Unix tools.
        Err(err) if broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Messages carry their causes already; print them once.
            let _ = writeln!(std::io::stderr(), "error: {err}");
            ExitCode::from(err.exit_code() as u8)
        }
    }
}

/// Whether the error is, or was caused by, writing to a reader that went away (the table, or
/// `snapshot` to standard output).
fn broken_pipe(err: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(err), |e| e.source()).any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Asks the kernel for base pages only. mimalloc marks its memory for transparent huge pages,
/// and a huge page is backed and zeroed whole on first touch, used or not. On a VM that hands
/// freed memory back to its host (free page reporting), that first touch is what costs: a
/// run started a few seconds after the last one spends several times longer in the kernel
/// with huge pages, and peaks higher. Best effort: a kernel that refuses leaves the defaults.
/// This comes after the allocations made before `main`, so mimalloc is also built without
/// marking its memory for huge pages (its `no_thp` feature): marked, the first of those
/// allocations backed a whole huge page and delayed the first request.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
