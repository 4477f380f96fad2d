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
    no_huge_pages();
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

/// Asks the kernel for base pages only. mimalloc marks its memory for transparent huge pages,
/// and a huge page is backed and zeroed whole on first touch, used or not. On a VM that hands
/// freed memory back to its host (free page reporting), that first touch is what costs: a live
/// run at 150,000 pods started a few seconds after the last one spent 0.43 s in the kernel
/// with huge pages and 0.17 s without, and peaked at 155 MB against 126 MB; back to back,
/// the two take the same time (BENCHMARKS.md, session 29). Best effort: a kernel that
/// refuses leaves the defaults. This comes after the allocations made before `main`, so
/// mimalloc is also built without marking its memory for huge pages (its `no_thp` feature):
/// marked, the first of those allocations backed a whole huge page, and the time from exec to
/// the first request was 3-28 ms, against about 3 ms unmarked (BENCHMARKS.md, session 31).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}
