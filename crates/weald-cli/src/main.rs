//! `weald` — the command-line front end of Weald. A thin layer: parse arguments, call the
//! library, print tables or JSON. Errors print one line on stderr and exit non-zero.

mod commands;
mod progress;
mod purge;
mod stream;

use clap::Parser;
use std::process::ExitCode;
use weald::graph::parallel;

// C-tree batches allocate and free many small nodes and chunks, from several threads; glibc's
// allocator spends a large share of that time consolidating free lists (see docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        purge::keep_freed_memory();
    } else {
        purge::return_freed_memory();
    }
    if let Some(t) = cli
        .threads
        .filter(|&t| !(1..=parallel::MAX_THREADS).contains(&t))
    {
        eprintln!(
            "error: --threads must be in 1..={} (got {t})",
            parallel::MAX_THREADS
        );
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
