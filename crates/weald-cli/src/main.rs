//! `weald` — the command-line front end of Weald. A thin layer: parse arguments, call the
//! library, print tables or JSON. Errors print one line on stderr and exit non-zero.

mod commands;
mod progress;
mod stream;

use clap::Parser;
use std::process::ExitCode;

// C-tree batches allocate and free many small nodes and chunks, from several threads; glibc's
// allocator spends a large share of that time consolidating free lists (see docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (the index of `mi_option_purge_delay` in mimalloc.h).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Set mimalloc's purge delay (milliseconds before freed memory goes back to the OS), unless
/// `MIMALLOC_PURGE_DELAY` in the environment says otherwise.
fn set_purge_delay(ms: i64) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets a plain integer option; mimalloc reads it on its next purge.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms as _) };
    }
}

/// Loading a file: return freed memory at once. Each phase frees what the next one does not
/// need (the read buffer and parsed blocks, then the edge list) just before the next phase
/// allocates its arrays, which touch few other allocations — so a delayed purge would not run
/// in time, and the freed memory would add to the peak (+86 MiB on RMAT scale 20 at 2
/// threads). Commands that repeat work switch to [`keep_freed_memory`].
fn return_freed_memory() {
    set_purge_delay(0);
}

/// Keep freed memory for a second before returning it to the OS (mimalloc's default is 10 ms):
/// a writer that frees the nodes of retired versions and allocates the next batch's would
/// otherwise hand pages back and fault them in again (zeroed) batch after batch — 25–35% of a
/// small batch's time; trials of an algorithm re-allocate their state the same way. Commands
/// that apply batches call this from the start, `run` once its graph is loaded.
pub(crate) fn keep_freed_memory() {
    set_purge_delay(1000);
}

/// Weald: a single-machine engine for graphs that change.
#[derive(Parser, Debug)]
#[command(name = "weald", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: commands::Command,
}

/// Die quietly of SIGPIPE when the reader of our output goes away (`weald ... | head`), as
/// Unix tools do. Rust ignores SIGPIPE, so a write to the closed pipe returns an error, on
/// which `println!` panics.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: installs the default disposition of one signal, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    if cli.command.repeats_work() {
        keep_freed_memory();
    } else {
        return_freed_memory();
    }
    if cli.threads == Some(0) {
        eprintln!("error: --threads must be at least 1");
        return ExitCode::from(2);
    }
    let (cmd, quiet) = (cli.command, cli.quiet);
    let result = if cmd.drives_all_parallel_work() {
        // The main thread is one of the pool's workers, so a parallel loop it starts runs
        // there and wakes only idle workers, instead of handing the loop to the pool and
        // sleeping until it is done: two thread wake-ups per loop (tens of microseconds on a
        // virtual machine), paid by every round of a traversal and every batch of updates
        // (BFS on RMAT scale 20 7 % faster at 1 thread; batches of 1,000 edges 39 %).
        // With one thread, everything runs on the main thread.
        let threads = cli.threads.unwrap_or(0); // 0: rayon's default (all cores)
        match rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .use_current_thread()
            .build()
        {
            Ok(pool) => pool.install(|| commands::dispatch(cmd, quiet)),
            Err(e) => {
                let n = cli
                    .threads
                    .map_or("the default number of".into(), |t| t.to_string());
                eprintln!("error: cannot start {n} threads: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        // Stores start threads of their own that use the global pool while the main thread
        // waits on them, so the main thread cannot be one of its workers.
        if let Some(t) = cli.threads {
            if let Err(e) = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build_global()
            {
                eprintln!("error: cannot start {t} threads: {e}");
                return ExitCode::from(2);
            }
        }
        commands::dispatch(cmd, quiet)
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
